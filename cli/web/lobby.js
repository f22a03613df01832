// The host's lobby: pick a ruleset, its options and who plays each seat; create the game;
// send each person the link of their seat.
"use strict";
const key = new URLSearchParams(location.search).get("key") || "";
const $ = (id) => document.getElementById(id);
let rulesets = [], agents = [];

async function api(path, body) {
  const r = await fetch(path, {method: body ? "POST" : "GET", headers: {"x-cgl-key": key, "content-type": "application/json"},
                               body: body ? JSON.stringify(body) : undefined});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function chosen() { return rulesets.find((r) => r.name === $("ruleset").value); }

function seats() {
  const r = chosen(), n = Math.max(r.min_players, Math.min(r.max_players, Number($("players").value) || r.min_players));
  $("players").min = r.min_players; $("players").max = r.max_players; $("players").value = n;
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const l = document.createElement("label");
    l.className = "seat";
    l.textContent = `P${i + 1} `;
    const s = document.createElement("select");
    s.name = `seat${i + 1}`;
    for (const a of ["human", ...agents]) s.add(new Option(a === "human" ? "a person" : `bot: ${a}`, a));
    s.value = old[i] || (i === 0 ? "human" : "greedy");
    l.appendChild(s);
    box.appendChild(l);
  }
}

function options() {
  const box = $("options");
  box.replaceChildren();
  for (const o of chosen().options) {
    const l = document.createElement("label");
    l.textContent = `${o.name} `;
    const i = document.createElement("input");
    i.name = o.name; i.placeholder = String(o.default);
    l.appendChild(i);
    if (o.doc) { const d = document.createElement("span"); d.className = "doc"; d.textContent = ` ${o.doc}`; l.appendChild(d); }
    box.appendChild(l);
  }
}

async function listGames() {
  const data = await api("/api/games");
  const box = $("games");
  box.replaceChildren();
  for (const g of data.games.slice().reverse()) {
    const e = document.createElement("div");
    e.className = "game";
    e.innerHTML = "<b></b> <span></span><div class='links'></div>";
    e.querySelector("b").textContent = `${g.ruleset} · ${g.players} players · seed ${g.seed}`;
    e.querySelector("span").textContent = g.over ? "— over" : g.waiting_for ? `— waiting for ${g.waiting_for}` : "";
    const host = document.createElement("a");
    host.href = `${g.designer}?key=${encodeURIComponent(key)}`; host.textContent = "designer's seat (every card; undo; bots)";
    host.target = "_blank";
    e.querySelector(".links").appendChild(host);
    const rep = document.createElement("a");
    rep.href = `${g.replay}?key=${encodeURIComponent(key)}`; rep.textContent = "replay (step through every decision)";
    rep.target = "_blank";
    e.querySelector(".links").appendChild(rep);
    for (const [seat, link] of Object.entries(g.links)) {
      const a = document.createElement("a");
      a.href = link; a.textContent = `${seat}: ${location.origin}${link}`; a.target = "_blank";
      e.querySelector(".links").appendChild(a);
    }
    box.appendChild(e);
  }
  for (const p of data.problems) { const e = document.createElement("p"); e.textContent = `Not resumed: ${p}`; box.appendChild(e); }
}

$("new").onsubmit = async (ev) => {
  ev.preventDefault();
  $("problem").textContent = "";
  const opts = {};
  for (const i of $("options").querySelectorAll("input")) if (i.value !== "") opts[i.name] = i.value;
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  try {
    await api("/api/games", {ruleset: $("ruleset").value, options: opts, seed: seed,
                             seats: [...$("seats").querySelectorAll("select")].map((s) => s.value)});
    await listGames();
  } catch (e) { $("problem").textContent = e.message; }
};

(async () => {
  try {
    const data = await api("/api/rulesets");
    rulesets = data.rulesets.filter((r) => !r.error); agents = data.agents;
    for (const r of rulesets) $("ruleset").add(new Option(`${r.title} (${r.name})`, r.name));
    $("ruleset").onchange = () => { seats(); options(); };
    $("players").onchange = seats;
    seats(); options();
    await listGames();
  } catch (e) { $("problem").textContent = e.message; }
})();
