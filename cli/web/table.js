// The table of one seat: it shows the seat view the server sends (docs/view.md) and sends
// back this seat's answers. It knows nothing of any game: zones, cards, players, a decision.
"use strict";
const parts = location.pathname.split("/");            // /play/<game>/<token>, or /host/<game>?key=…
const designer = parts[1] === "host";
const replay = window.CGL_REPLAY || null;             // a replay file: its frames, no server
let frame = 0, watching = "all";
const gid = parts[2], token = parts[3];
const key = new URLSearchParams(location.search).get("key") || "";
let view = null, log = [], fresh = true, picked = new Set(), socket = null, retry = 500;
let printed = {};                                     // every card's printed data sent so far (each is sent once)

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function hue(s) { let h = 0; for (const ch of String(s)) h = (h * 31 + ch.codePointAt(0)) % 360; return h; }
function fmt(v) {
  if (v === null || v === undefined) return "none";
  if (Array.isArray(v)) return v.length ? v.map(fmt).join(", ") : "(none)";
  if (v === true) return "yes";
  if (v === false) return "no";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(designer ? `${proto}://${location.host}/ws/host/${gid}?key=${encodeURIComponent(key)}`
                                  : `${proto}://${location.host}/ws/${gid}/${token}`);
  fresh = true;
  socket.onopen = () => { retry = 500; };
  socket.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "view") {
      if (fresh || msg.reset) { log = []; printed = {}; fresh = false; }
      const last = log.length ? log[log.length - 1].step : -1;
      for (const e of msg.view.log) if (e.step > last) log.push(e);   // (steps: this seat's lines, numbered)
      if (!view || view.decision_no !== msg.view.decision_no) picked = new Set();
      view = msg.view;
      view.cards = Object.assign(printed, view.cards);   // (a view lists only cards new to this table)
      render();
    } else if (msg.type === "error") {
      toast(msg.message);
    }
  };
  socket.onclose = (ev) => {
    if (ev.code === 4404) { $("status").textContent = ev.reason || "no such seat"; return; }
    $("status").textContent = "reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  };
}

function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

function send(answer) {
  socket.send(JSON.stringify({type: "answer", decision: view.decision_no, answer: answer}));
}

function cardTitle(card) {
  const data = view.cards[card.name];
  if (!data) return card.name;
  const lines = [card.name];
  if (data.text) lines.push(data.text);
  for (const [k, v] of Object.entries(data.props)) if (!["text", "about", "effect", "ability", "description", "rules"].includes(k)) lines.push(`${k}: ${fmt(v)}`);
  return lines.join("\n");
}

// Okabe and Ito's palette (told apart with every kind of colour blindness), then more of the
// same lightness; the members of an enum are given them in the enum's order
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#7A7A7A"];
function isColour(name) { return typeof name === "string" && /^[a-z]+$/i.test(name) && CSS.supports("color", name); }
function groupColour(group) {
  // a group named after a colour (an Uno-like `colour` enum: red, green, blue, gold) is drawn
  // in it; another member of the enum the hands group by gets the palette's colour of its
  // place among the enum's other members: distinct, and the same in every game of the
  // ruleset; a group that is no enum's member (null) gets a hue from its name
  if (group === null || group === undefined) return null;
  if (isColour(group)) return group;
  const order = (view.groups && view.groups.order) || [];
  const i = order.filter((m) => !isColour(m)).indexOf(group);
  if (i < 0) return null;
  return i < PALETTE.length ? PALETTE[i] : `hsl(${Math.round((i - PALETTE.length) * 137.508 + 20) % 360}, 55%, 50%)`;
}

function imageOf(card) {
  // where the picture of a card is: the server's /art/ route (by card name, never a path),
  // or in a replay file the picture itself (a data: URL); null when it has none
  const data = view.cards[card.name];
  if (!data || !data.image) return null;
  if (replay) return (replay.images || {})[card.name] || null;
  return `/art/${gid}/${encodeURIComponent(card.name)}`;
}

function cardEl(card, tag) {
  const c = el(tag || "div", "card");
  const colour = groupColour(card.group);
  if (colour) c.style.borderTopColor = colour;
  else c.style.setProperty("--hue", hue(card.group ?? card.name));
  const src = imageOf(card);
  if (src) {                      // the card data names a picture: it is shown, the name under it
    const img = el("img", "art");
    img.src = src;
    img.alt = card.name;
    img.loading = "lazy";
    img.onerror = () => { img.remove(); c.classList.remove("pictured"); };   // (text, as without one)
    c.classList.add("pictured");
    c.appendChild(img);
  }
  c.appendChild(el("span", "name", card.label));
  if (card.group) c.appendChild(el("span", "group", card.group));
  if (card.vars) c.appendChild(el("span", "vars", Object.entries(card.vars).map(([k, v]) => `${k} ${fmt(v)}`).join(" · ")));
  c.title = cardTitle(card);
  return c;
}

function backs(n) {
  const box = el("div", "cards");
  const shown = Math.min(n, 5);
  for (let i = 0; i < shown; i++) box.appendChild(el("div", "card back", i === shown - 1 && n > shown ? `×${n}` : ""));
  return box;
}

function renderHead() {
  const v = view;
  $("title").textContent = v.game;
  const who = replay ? (watching === "all" ? "Replay: every card" : `Replay as ${watching}`)
    : designer ? "Designer's view: every card" : `You are ${v.you}`;
  const bits = [who, `round ${v.round}`, `turn ${v.turn}`, `${v.current} to play`];
  if (v.phase) bits.push(`phase ${v.phase}`);
  $("status").textContent = bits.join(" · ");
  document.title = `${v.game} — ${designer ? "designer" : v.you}`;
}

function renderDecision() {
  const box = $("decision"), v = view, d = v.decision;
  box.replaceChildren();
  box.className = "";
  if (v.error) { box.appendChild(el("p", "over", `The game stopped: ${v.error}`)); return; }
  if (v.over) {
    box.appendChild(el("p", "over", v.winners.length ? `The game is over. Winner: ${v.winners.join(", ")}` : "The game is over. No winner."));
    if (!replay) {
      const a = el("a", null, "Step through the game again");
      a.href = designer ? `/replay/${gid}?key=${encodeURIComponent(key)}` : `/replay/${gid}/${token}`;
      a.id = "replay-link";
      box.appendChild(a);
    }
    return;
  }
  if (!d) { box.className = "waiting"; box.appendChild(el("p", null, "Waiting…")); return; }
  if (designer || replay) {
    box.className = "waiting";
    box.appendChild(el("h2", null, d.prompt ? `${d.player} decides: ${d.prompt}` : `${d.player} decides.`));
    if (d.options) box.appendChild(el("p", null, d.kind === "may" ? "yes or no" : d.options.map((o) => o.label).join(" · ")));
    const f = replay && replay.frames[frame];
    if (f && f.answer !== null && (watching === "all" || watching === f.decider)) box.appendChild(el("p", "over", `Answered: ${f.answer}`));
    return;
  }
  if (d.player !== v.you) {
    box.className = "waiting";
    box.appendChild(el("p", null, `Waiting for ${d.player} to decide.`));
    return;
  }
  box.appendChild(el("h2", null, d.prompt));
  const opts = el("div", "options");
  box.appendChild(opts);
  if (d.kind === "may") {
    for (const [label, ans] of [["Yes", true], ["No", false]]) {
      const b = el("button", "opt", label);
      b.onclick = () => send(ans);
      opts.appendChild(b);
    }
    return;
  }
  const many = d.max > 1;
  const places = new Set(d.options.filter((o) => o.where).map((o) => o.where));
  for (const o of d.options) {
    const b = o.card ? cardEl(o.card, "button") : el("button", "opt", o.label);
    if (o.card && o.label !== o.card.label) b.querySelector(".name").textContent = o.label;
    if (o.where && (places.size > 1 || !o.card)) b.appendChild(el("span", "where", `in ${o.where}`));
    b.dataset.index = o.index;
    if (picked.has(o.index)) b.classList.add("picked");
    b.onclick = () => {
      if (!many) { send(o.index); return; }
      if (picked.has(o.index)) picked.delete(o.index); else picked.add(o.index);
      renderDecision();
    };
    opts.appendChild(b);
  }
  if (many) {
    const n = picked.size;
    const done = el("button", "opt", `Done (${n} of ${d.min === d.max ? d.min : d.min + "–" + d.max})`);
    done.disabled = n < d.min || n > d.max;
    done.onclick = () => send([...picked].sort((a, b) => a - b));
    box.appendChild(done);
  }
  if (d.optional) {
    const none = el("button", "opt", "None (pass)");
    none.onclick = () => send(null);
    box.appendChild(none);
  }
}

function renderPlayers() {
  const box = $("players");
  box.replaceChildren();
  const row = el("div", "players");
  for (const p of view.players) {
    const e = el("div", "player" + (p.current ? " current" : ""));
    e.appendChild(el("span", "who", p.player + (p.you ? " (you)" : "") + (p.out ? " (out)" : "")));
    if (p.score !== null) e.appendChild(el("span", "score", fmt(p.score)));
    for (const s of view.shown) e.appendChild(el("div", "shown", `${s.label}: ${fmt(p.shown[s.name])}`));
    const vars = Object.entries(p.vars).filter(([k]) => !view.score || k !== view.score.var);
    if (vars.length) e.appendChild(el("div", "vars", vars.map(([k, v]) => `${k} ${fmt(v)}`).join(" · ")));
    row.appendChild(e);
  }
  box.appendChild(row);
  if (Object.keys(view.globals).length) {
    box.appendChild(el("div", "vars", Object.entries(view.globals).map(([k, v]) => `${k} ${fmt(v)}`).join(" · ")));
  }
}

function byGroup(cards) {
  // a hand in the ruleset's group order (an enum's), then by how the cards read
  const order = view.groups.order || [];
  const rank = (c) => { const i = order.indexOf(c.group); return i < 0 ? order.length : i; };
  return cards.slice().sort((a, b) => rank(a) - rank(b) || String(a.group).localeCompare(String(b.group))
                                       || a.label.localeCompare(b.label));
}

function renderZones() {
  const box = $("zones");
  box.replaceChildren();
  const mine = (z) => z.owner === view.you && z.cards !== null && z.visibility === "owner";
  const zones = [...view.zones.filter(mine), ...view.zones.filter((z) => !mine(z))];
  const empty = [];
  for (const z of zones) {
    if (!z.count && !mine(z)) { empty.push(z.label); continue; }
    const e = el("div", "zone" + (mine(z) ? " mine" : ""));
    const h = el("h3", null, mine(z) ? `Your ${z.zone} ` : `${z.label} `);
    h.appendChild(el("span", "count", `(${z.count}${z.cards === null ? ", hidden" : ""})`));
    e.appendChild(h);
    if (z.cards === null) {
      if (z.count) e.appendChild(backs(z.count));
    } else if ((z.role === "discard" || (z.ordered && z.count > 8)) && z.count > 1 && !mine(z)) {
      const row = el("div", "cards");
      row.appendChild(cardEl(z.cards[0]));
      row.appendChild(el("span", "count", `top of ${z.count}`));
      e.appendChild(row);
    } else {
      const row = el("div", "cards");
      for (const c of mine(z) ? byGroup(z.cards) : z.cards) row.appendChild(cardEl(c));
      e.appendChild(row);
    }
    box.appendChild(e);
  }
  if (empty.length) box.appendChild(el("p", "empty", `Empty: ${empty.join(", ")}`));
}

function condensed(entries) {
  // a deal's veiled lines told once per player ("P2 is dealt 8 cards"), as the terminal does
  const out = [], run = new Map();
  const flush = () => {
    for (const [who, n] of run) out.push({type: "deal", text: `P${who} is dealt ${n} card${n === 1 ? "" : "s"}`});
    run.clear();
  };
  for (const e of entries) {
    if (e.type === "deal" && e.hidden && !e.cause && e.player != null) { run.set(e.player, (run.get(e.player) || 0) + 1); continue; }
    if (e.type !== "deal") flush();
    out.push(e);
  }
  flush();
  return out;
}

function renderLog() {
  const ol = $("log");
  ol.replaceChildren();
  for (const e of condensed(log.slice(-300)).slice(-200)) {
    const li = el("li", e.type, e.text);
    if (e.cause) li.appendChild(el("span", "cause", ` ← ${e.cause}`));
    ol.appendChild(li);
  }
  const box = $("logbox");
  box.scrollTop = box.scrollHeight;
}

function renderDesigner() {
  const box = $("designer");
  if (replay) { renderReplay(box); return; }
  if (!designer) { box.hidden = true; return; }
  box.hidden = false;
  box.replaceChildren(el("h2", null, "Designer"));
  const pick = el("select");
  pick.id = "undo-to";
  view.history.forEach((text, i) => pick.add(new Option(`${i + 1}. ${text}`, i)));
  pick.value = String(Math.max(0, view.history.length - 1));
  const undo = el("button", "opt", "Undo to this decision");
  undo.onclick = () => socket.send(JSON.stringify({type: "undo", to: Number(pick.value)}));
  const bots = el("button", "opt", "Play the rest with bots");
  bots.onclick = () => socket.send(JSON.stringify({type: "bots"}));
  box.append(pick, " ", undo, " ", bots);
}

function render() {
  renderHead();
  renderDesigner();
  renderDecision();
  renderPlayers();
  renderZones();
  renderLog();
}

// ---------------------------------------------------------------- a replay file
function show(k) {
  frame = Math.max(0, Math.min(replay.frames.length - 1, k));
  const f = replay.frames[frame];
  const base = replay.views[f.views[watching]];
  const zone = (i) => {
    const z = replay.zones[i];
    return z.cards === null ? z : Object.assign({}, z, {cards: z.cards.map((c) => replay.faces[c])});
  };
  view = Object.assign({}, base, {zones: base.zones.map(zone), cards: replay.cards, log: []});
  const seen = watching === "all" ? null : new Set(replay.seen[watching]);
  const uncaused = new Set(watching === "all" ? [] : replay.uncaused[watching]);   // (a cause this seat may not know)
  log = replay.log.filter((e) => e.step < f.step && (!seen || seen.has(e.step)))
    .map((e) => uncaused.has(e.step) ? Object.assign({}, e, {cause: null}) : e);
  render();
}

function renderReplay(box) {
  box.hidden = false;
  box.replaceChildren(el("h2", null, `Replay of ${replay.game} (seed ${replay.seed})`));
  const n = replay.frames.length, f = replay.frames[frame];
  const button = (label, to, title) => {
    const b = el("button", "opt", label);
    b.title = title;
    b.onclick = () => show(to);
    return b;
  };
  box.append(button("« start", 0, "the start"), " ", button("◀", frame - 1, "back one decision (←)"), " ",
             button("▶", frame + 1, "forward one decision (→)"), " ", button("end »", n - 1, "the end"), " ");
  const slider = el("input");
  slider.type = "range"; slider.min = 0; slider.max = n - 1; slider.value = frame; slider.id = "frame";
  slider.oninput = () => show(Number(slider.value));
  box.append(slider, el("span", "count", ` decision ${frame + 1} of ${n} · round ${f.round} · turn ${f.turn} `));
  const seat = el("select");
  seat.id = "seat";
  for (const s of Object.keys(f.views)) seat.add(new Option(s === "all" ? "every card (designer)" : `as ${s} saw it`, s));
  seat.value = watching;
  seat.onchange = () => { watching = seat.value; show(frame); };
  const turn = el("input");
  turn.type = "number"; turn.min = 0; turn.placeholder = "turn"; turn.id = "turn"; turn.style.width = "5em";
  turn.onchange = () => {
    const t = Number(turn.value), k = replay.frames.findIndex((x) => x.turn >= t);
    show(k < 0 ? n - 1 : k);
  };
  box.append(seat, " jump to turn ", turn);
}

if (replay) {
  const first = Object.keys(replay.frames[0].views);
  watching = first.includes("all") ? "all" : first[0];
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") show(frame + 1);
    if (e.key === "ArrowLeft") show(frame - 1);
  });
  show(0);
} else {
  connect();
}
