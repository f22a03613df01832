"""`cgl replay --html`: one self-contained HTML file that steps through a played game.

The game is played again from its answers; at every decision (and at the end) the seat view
of every seat and the designer's view of everything are kept (`Game.view`, docs/view.md),
so the file shows each seat exactly what it was shown, and nothing else. The page is the
browser table's own renderer (cli/web/table.js and table.css, inlined) with controls to
step forward and back, jump to a decision or a turn, and pick whose view to show. It loads
nothing from the network.

Views repeat a lot from one decision to the next, so the file keeps each distinct card (as
a view shows it), zone and view once and refers to them by number.
"""
from __future__ import annotations

import html
import json
import os
from typing import Optional

from cgl.interpreter.play.game import Game
from cgl.interpreter.walker.seatview import readable

WEB = os.path.join(os.path.dirname(__file__), "web")


class _Table:
    """Distinct JSON values, each kept once and named by its number."""

    def __init__(self):
        self.items: list = []
        self.index: dict = {}

    def add(self, value) -> int:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        n = self.index.get(key)
        if n is None:
            n = self.index[key] = len(self.items)
            self.items.append(value)
        return n


def frames(game: Game, answers: list, only: Optional[int] = None) -> dict:
    """The replay data of `game` (made, not started) played with `answers`: at each decision
    and at the end, every seat's view and the designer's, by number into shared tables
    (`only`: that seat's view alone, for a player's copy, which holds the prompt and answer
    of that seat's own questions only, and no frame for a question it was not shown)."""
    zones, views, cards, catalog = _Table(), _Table(), _Table(), {}
    seats = [f"P{i + 1}" for i in range(game.players)]
    out = []

    def keep(d, answer_label):
        if only is not None and d is not None and d.player != only:
            if d.private:
                return    # a question this seat was not shown (its being asked tells what fired it)
            answer_label = None   # another's question: the seat reads its line, if any, in the log
        per = {}
        for seat in [*range(game.players), None] if only is None else [only]:
            v = game.view(seat, since=game.log_steps(seat, seat is None), everything=seat is None)
            catalog.update(v.pop("cards"))
            v.pop("log")
            v["zones"] = [zones.add(z if z["cards"] is None else {**z, "cards": [cards.add(c) for c in z["cards"]]})
                          for z in v["zones"]]
            per["all" if seat is None else seats[seat]] = views.add(v)
        st = game.state
        # (`step`: the log lines read by then, numbered as the replay's `log` numbers them)
        out.append({"n": len(out), "step": game.log_steps(only, only is None), "round": st.round_no,
                    "turn": st.turn_no,
                    "decider": None if d is None else seats[d.player],
                    "prompt": None if d is None or only not in (None, d.player) else d.prompt,
                    "answer": answer_label, "views": per})

    d = game.start()
    for a in answers:
        if d is None:
            break
        label = _answer_label(d, a)
        keep(d, label)
        d = game.answer(a)
    keep(d, None)
    if only is None:
        # the whole log, numbered by place; which lines each seat may read (`seen`, their
        # places) and those whose `cause` it may not know (`uncaused`), as its view says
        log = json.loads(json.dumps(game.view(None, since=0, everything=True)["log"], default=str))
        seen, uncaused = {}, {}
        for i, s in enumerate(seats):
            seen[s] = places = readable(game.engine, i)[:]
            mine = game.view(i, since=0)["log"]
            uncaused[s] = [p for p, e in zip(places, mine) if "cause" in log[p] and "cause" not in e]
    else:
        # a seat's copy: its own lines alone, as its view gives them (its numbers, its causes)
        log = json.loads(json.dumps(game.view(only, since=0)["log"], default=str))
        seen, uncaused = {seats[only]: [e["step"] for e in log]}, {seats[only]: []}
    return {"game": game.ruleset.game.title, "seed": game.seed, "seats": seats, "frames": out,
            "views": views.items, "zones": zones.items, "faces": cards.items, "cards": catalog, "log": log,
            "seen": seen, "uncaused": uncaused, "images": pictures(game.ruleset, catalog)}


def pictures(rs, catalog: dict) -> dict:
    """{card name: data: URL} of the pictures of the cards a replay shows (the file holds
    them: it reads nothing else), as the card data names them (docs/language.md section 11)."""
    import base64
    from cgl.interpreter.base.files import inside
    from cgl.interpreter.check.loader import IMAGE_TYPES, MAX_IMAGE_BYTES
    out = {}
    for name in catalog:
        path = rs.images.get(name)
        if path is None or not inside(path, rs.roots):
            continue
        try:
            if os.path.getsize(path) > MAX_IMAGE_BYTES:
                continue
            with open(path, "rb") as f:
                raw = f.read(MAX_IMAGE_BYTES + 1)
        except OSError:
            continue
        kind = IMAGE_TYPES.get(os.path.splitext(path)[1].lower())
        if kind is not None:
            out[name] = f"data:{kind};base64," + base64.b64encode(raw).decode("ascii")
    return out


def _answer_label(d, a) -> str:
    if d.kind == "may":
        return "yes" if a else "no"
    if a is None:
        return "(none)"
    picks = a if isinstance(a, list) else [a]
    return ", ".join(d.labels[i] for i in picks if isinstance(i, int) and 0 <= i < len(d.labels))


def page(data: dict) -> str:
    """The self-contained HTML of a replay."""
    def read(name):
        with open(os.path.join(WEB, name), encoding="utf-8") as f:
            return f.read()
    body = read("table.html")
    head, _, rest = body.partition("<body>")
    rest = rest.replace('<script src="/static/table.js"></script>', "")
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    head = head.replace('<link rel="stylesheet" href="/static/table.css">', f"<style>{read('table.css')}</style>")
    head = head.replace("<title>cgl table</title>", f"<title>{html.escape(data['game'])} — replay</title>")
    return (head + "<body>" + rest.replace("</body>", "")
            .replace("</html>", "") + f"<script>window.CGL_REPLAY = {blob};</script>\n"
            f"<script>{read('table.js')}</script>\n</body>\n</html>\n")
