"""A person at the terminal: shows what their seat may see and asks each decision.

The table is laid out by cli/table.py (rich markup: styled on a terminal, plain text
without ANSI codes through a pipe). Commands at every prompt: a number (or yes/no),
`about CARD` (a card's name or an option's number), `look ZONE`, `view`, `scores`,
`help`, `quit` (asks first, and offers to save).
"""
from __future__ import annotations

import os
from bisect import bisect_left
from typing import Optional

import click
from rich.console import Console
from rich.markup import escape

from cgl.interpreter.walker.engine import Decision
from cgl.interpreter.walker.seatview import readable, visible_log

from . import table as T


def _fmt(v) -> str:
    return T.fmt(v)


class QuitGame(Exception):
    """The person chose to leave (`quit` and yes, or Ctrl-C and yes); `save_to`: a file they
    asked the game to be saved to."""

    def __init__(self, save_to=None):
        super().__init__("quit")
        self.save_to = save_to


class Interrupted(Exception):
    """Ctrl-C at a prompt."""


def read_line(text: str) -> str:
    """Ask one line at the terminal (as click.prompt shows it). The end of the input is
    click's Abort, Ctrl-C is :class:`Interrupted` (so it can be asked about)."""
    try:
        click.echo(f"{text}:", nl=False)
        return click.termui.visible_prompt_func(" ")
    except KeyboardInterrupt:
        click.echo("")
        raise Interrupted() from None
    except EOFError:
        raise click.exceptions.Abort() from None


class HumanAgent:
    """Answers decisions by asking at the terminal. Shows only this seat's view.

    `echo` (tests) receives plain text lines; by default the lines go to a rich console.
    The table sets `game` (to show the table from the engine's state) and `save_path`."""

    name = "human"

    def __init__(self, seat: int, echo=None, prompt=None, console=None):
        self.seat = seat
        self._echo = echo
        self.console = console
        self.ask = prompt or read_line
        self.seen = 0              # how many of the log lines this seat reads it has been shown
        self.seen_place = None     # (an older save's `seen`: a place in the whole log, until read)
        self.public_seen = 0       # how far a shared (hot-seat) round-end screen has shown the log
        self.game = None
        self.save_path = None
        self.hot_seat = False   # several people share the screen: show only public things between turns

    # ------------------------------------------------------------ output
    def out(self, markup: str = "") -> None:
        if self._echo is not None:
            self._echo(T.plain(markup))
            return
        if self.console is None:
            self.console = Console(highlight=False, soft_wrap=True)
        self.console.print(markup)

    @property
    def eng(self):
        return self.game.engine if self.game is not None else None

    def show_view(self, view: dict, full: bool = False):
        """The table as the seat view says it (`Decision.view()` / `Game.view(seat)`)."""
        self.out("")
        self.out(escape(f"--- You are {view['you']} · round {view['round']} · turn {view['turn']} "
                        f"({view['current']} to play{', phase ' + view['phase'] if view.get('phase') else ''}) ---"))
        for line in T.render_table(view, full=full):
            self.out(line)

    def show_entry(self, entry: dict) -> None:
        kind, text = entry["type"], escape(entry["text"])
        if kind == "round":
            self.out(f"\n[bold]== {text} ==[/bold]")
        elif kind == "turn":
            self.out(f"[bold]{text}[/bold]")
        else:
            cause = entry.get("cause")
            self.out(f"  · {text}" + (f"  [dim]← {escape(cause)}[/dim]" if cause else ""))

    def catch_up(self, public_only: bool = False, upto: Optional[int] = None) -> None:
        """Print what happened since this seat last looked (what it may see), up to place
        `upto` of the game's log. `seen` counts the seat's own lines shown (the seat view's
        `step`s); a shared (hot-seat) screen shows the lines every seat reads, from where both
        this seat's own screen and the last shared one left off (`public_seen`, a place)."""
        if self.game is None:
            return
        eng = self.game.engine
        upto = len(eng.state.log) if upto is None else upto
        mine = readable(eng, self.seat)
        if self.seen_place is not None:   # (a save of an older cgl: a place in the whole log)
            self.seen, self.seen_place = bisect_left(mine, self.seen_place), None
        # (the seat view's log: a veiled line, "P2 draws a card", is for the seats that did
        # not see the card; a shared screen shows what everyone reads)
        if public_only:
            public, shown = readable(eng, None), min(self.seen, len(mine))
            first = bisect_left(public, max(mine[shown - 1] + 1 if shown else 0, self.public_seen))
            log = visible_log(eng, None, since=first)[:max(bisect_left(public, upto) - first, 0)]
        else:
            end = bisect_left(mine, upto)
            log = visible_log(eng, self.seat, since=self.seen)[:max(end - self.seen, 0)]
        for entry in condensed([e for e in log if not e.get("quiet")]):
            self.show_entry(entry)
        if public_only:   # a screen every seat reads: this seat's own lines are still to come
            self.public_seen = max(self.public_seen, upto)
        else:
            self.seen = max(self.seen, end)

    def round_over(self, number: int, last: bool = False) -> None:
        """At a round's end (before the next one is dealt): what happened, the table as it
        stands (the winner's cards as far as this seat may see them), the scores; a pause."""
        log = self.game.state.log    # (its last entry, the next round's start or the game's end: after the pause)
        self.catch_up(public_only=self.hot_seat, upto=len(log) - 1 if log else 0)
        self.out("")
        self.out(f"[bold reverse] {'The game is over' if last else f'Round {number} is over'} [/bold reverse]")
        view = self.game.view(None if self.hot_seat else self.seat)
        shown = view["revealed"]
        if shown:
            self.out("[bold]Shown at the end[/bold]:")
            for g, cards in T.grouped(view, shown):
                for line in T.wrap(f"  [cyan]{escape(g)}[/cyan]  ", [T.card_line(c) for c in cards], 6):
                    self.out(line)
        for line in T.render_table(view):
            self.out(line)
        if not last:
            self._pause(f"Press Enter for round {number + 1}")

    def _pause(self, text: str) -> None:
        try:
            self.ask(text)
        except Interrupted:
            self._confirm_quit()

    # ------------------------------------------------------------ saves
    def state(self) -> dict:
        """What a saved game keeps of this seat: how many of the log lines it reads it has
        been shown (the seat view's `step` of the next)."""
        return {"read": self.seen}

    def restore(self, state: dict) -> None:
        """Take back a :meth:`state` (or an older cgl's, `seen`: a place in the whole log); a
        state of the wrong shape raises ValueError."""
        key = "read" if isinstance(state, dict) and "read" in state else "seen"
        n = state.get(key) if isinstance(state, dict) else None
        if type(n) is not int or n < 0:
            raise ValueError("not the state of a human seat (it has no `read` count)")
        if key == "read":
            self.seen, self.seen_place = n, None
        else:
            self.seen, self.seen_place = 0, n

    # ------------------------------------------------------------ deciding
    def decide(self, d: Decision):
        seen = self.seen
        try:
            return self._ask(d)
        except BaseException:   # not answered (`quit`, end of input): shown again in full if asked again
            self.seen = seen
            raise

    def _menu(self, d: Decision, view: dict) -> list:
        """[(label, [option indices])] from the seat view's decision: cards in the order of
        the hand, and options that are truly the same (one label, the same card in the same
        state) merged into one."""
        options = (view.get("decision") or {}).get("options") or \
            [{"index": i, "label": label} for i, label in enumerate(d.labels)]
        order = list(range(len(options)))
        cards = [o.get("card") for o in options]
        if cards and all(c is not None for c in cards):
            rank = {}
            for g, (_, cs) in enumerate(T.grouped(view, cards)):
                for i, c in enumerate(cs):
                    rank[id(c)] = (g, i)
            order.sort(key=lambda i: rank.get(id(cards[i]), (0, 0)))
        menu: list = []
        seen: dict = {}
        for i in order:
            label = options[i]["label"]
            key = None
            if d.hi <= 1:
                c = cards[i]
                if c is not None:
                    key = (label, c["name"], repr(c.get("vars", {})), options[i].get("where"),
                           type(d.options[i]).__name__)
                elif "where" not in options[i] and isinstance(d.options[i], (str, int, bool)):
                    key = (label, repr(d.options[i]))
            if key is not None and key in seen:
                menu[seen[key]][1].append(i)
                continue
            if key is not None:
                seen[key] = len(menu)
            menu.append((label, [i]))
        return self._told_apart(menu, options)

    def _told_apart(self, menu: list, options: list) -> list:
        """Whose card each option is, when the cards lie in more than one place ("in
        stable P2"); options that read the same but are not the same (two Brutes, one
        hurt) also say their counters."""
        count: dict = {}
        for label, _ in menu:
            count[label] = count.get(label, 0) + 1
        places = {o.get("where") for o in options if "where" in o}
        out = []
        for label, same in menu:
            o = options[same[0]]
            extra = []
            if "where" in o and (len(places) > 1 or count[label] > 1):
                extra.append(f"in {o['where']}")
            if count[label] > 1 and o.get("card"):
                extra += [f"{k} {_fmt(v)}" for k, v in o["card"].get("vars", {}).items()]
            out.append((f"{label} [{' · '.join(extra)}]" if extra else label, same))
        return out

    def _ask(self, d: Decision):
        view = d.view()
        if self.game is not None:
            self.catch_up()
        else:
            for entry in condensed([e for e in view.get("log", []) if not e.get("quiet") and e["step"] >= self.seen]):
                self.show_entry(entry)
            if view.get("log"):
                self.seen = view["log"][-1]["step"] + 1
        self.show_view(view)
        self.out("")
        self.out(f"[bold]{escape(d.prompt)}[/bold]")
        if d.kind == "may":
            self.out("   1. yes\n   2. no")
            while True:
                raw = self._read("Your choice: 1 (yes) or 2 (no)").strip().lower()
                if raw in ("y", "yes", "1"):
                    return True
                if raw in ("n", "no", "2"):
                    return False
                if not self._common(raw, d, []):
                    self.out(escape(f"`{raw}` is not an answer: type 1 (yes) or 2 (no), `help`, `view` or `quit`."))
        menu = self._menu(d, view)
        for n, (label, same) in enumerate(menu, 1):
            more = f" [dim](×{len(same)})[/dim]" if len(same) > 1 else ""
            self.out(f"  {n:>2}. {escape(label)}{more}")
        if d.optional:
            self.out("   0. (none: decline)")
        many = d.hi > 1
        hint = (f"numbers separated by spaces ({d.lo} to {d.hi})" if many else "a number")
        while True:
            raw = self._read(f"Your choice: {hint}").strip()
            if self._common(raw, d, menu):
                continue
            try:
                nums = [int(x) for x in raw.replace(",", " ").split()]
            except ValueError:
                self.out(escape(f"`{raw}` is not a number. Type {hint}, `help`, `view` or `quit`."))
                continue
            if d.optional and nums == [0]:
                return None
            if not nums or any(not 1 <= n <= len(menu) for n in nums):
                self.out(f"Choose between 1 and {len(menu)}.")
                continue
            if len(set(nums)) != len(nums) or not (d.lo <= len(nums) <= d.hi if many else len(nums) == 1):
                self.out(f"Choose {d.lo if d.lo == d.hi else f'{d.lo} to {d.hi}'} different option(s).")
                continue
            picked = [menu[n - 1][1][0] for n in nums]
            return sorted(picked) if many else picked[0]

    def _read(self, text: str) -> str:
        while True:
            try:
                return self.ask(text)
            except Interrupted:
                self._confirm_quit()

    def _confirm_quit(self) -> None:
        """Ask before leaving; raise QuitGame to leave, return to go on playing."""
        if self.save_path:
            question = f"Leave the game? It is saved to {self.save_path}. y = leave, n = go on playing"
        else:
            question = "Leave the game? y = leave without saving, save FILE = save it to FILE and leave, n = go on"
        while True:
            try:
                raw = self.ask(question).strip()
            except Interrupted:   # Ctrl-C twice: leave
                raise QuitGame() from None
            low = raw.lower()
            if low in ("y", "yes", "q", "quit"):
                raise QuitGame()
            if low in ("", "n", "no"):
                self.out("Go on, then.")
                return
            if low.split()[:1] == ["save"] and len(raw.split()) > 1:
                path = raw.split(None, 1)[1].strip()
                folder = os.path.dirname(os.path.abspath(path))
                if not os.path.isdir(folder):
                    self.out(escape(f"There is no folder `{os.path.dirname(path)}` to save into."))
                    continue
                raise QuitGame(save_to=path)
            self.out("Type y, n" + ("" if self.save_path else " or save FILE") + ".")

    def _common(self, raw: str, d: Decision, menu: list) -> bool:
        low = raw.lower()
        word, _, rest = low.partition(" ")
        if low in ("q", "quit", "exit"):
            self._confirm_quit()
            return True
        if low in ("v", "view", "table"):
            self.show_view(d.view(), full=True)
            return True
        if low in ("s", "score", "scores", "players"):
            self.out(T.render_players(d.view(), full=True))
            return True
        if word in ("look", "l") and rest.strip():
            self._look(raw.split(None, 1)[1].strip(), d.view())
            return True
        if low in ("h", "help", "?"):
            self.out("Type the number of an option (or yes/no); `about NAME` (or `about N`) to read a card; "
                     "`look ZONE` to see a whole zone (`look pile`); `view` for the whole table; "
                     "`scores` for every player's counters; `quit` to leave (you are asked first).")
            return True
        if word == "about":
            self._about(raw[5:].strip(), d, menu)
            return True
        return False

    def _look(self, which: str, view: dict):
        want = " ".join(which.split()).lower()
        zones = view["zones"]
        hits = [z for z in zones if z["label"].lower() == want] or [z for z in zones if z["zone"].lower() == want]
        if not hits:
            names = sorted({z["zone"] for z in zones})
            self.out(escape(f"No zone `{which}`: the zones are {', '.join(names)}."))
            return
        for z in hits:
            for line in T.render_zone(z, full=True):
                self.out(line)

    def _about(self, which: str, d: Decision, menu: list):
        """What a card does: a visible card by name, or option N's card (if the seat sees it)."""
        view = d.view()
        if not which:
            self.out("Type `about NAME` with a card's name (or `about N` for option N).")
            return
        if which.isdigit():
            n = int(which)
            if not menu or not 1 <= n <= len(menu):
                self.out(f"Type `about N` with N from 1 to {len(menu)}, or `about NAME`." if menu else
                         "Type `about NAME` with a card's name.")
                return
            i = menu[n - 1][1][0]
            card = _card_of(d.options[i])
            if card is None:
                self.out(f"Option {which} is not a card.")
                return
            if not _seen_option(view, i):
                self.out(f"Option {which} is a card you cannot see.")
                return
        else:
            if self.eng is None:
                self.out("Type `about N` with an option's number.")
                return
            extra = [c for i, c in enumerate(_card_of(o) for o in d.options) if c is not None and _seen_option(view, i)]
            card, problem = T.find_card(self.eng, view, which, extra)
            if card is None:
                self.out(escape(problem))
                return
        if self.eng is None:
            self.out(escape(f"{card.name}:"))
            for key, value in card.props.items():
                if key != "name":
                    self.out(escape(f"  {key}: {_fmt(value)}"))
            return
        seen = any(c is card for i, c in enumerate(_card_of(o) for o in d.options) if _seen_option(view, i)) or \
            any(c is card for c in T.visible_cards(self.eng, view))
        for line in T.render_about(self.eng, card, self.seat, seen=seen):
            self.out(line)


def condensed(entries: list) -> list:
    """The log lines a seat reads, a deal's veiled lines told once per player: a run of
    deal lines shows the cards this seat was dealt one by one, then "P2 is dealt 8 cards"
    for each other player, as a table would say it."""
    out: list = []
    run: dict = {}            # player -> how many veiled cards, in a run of deal lines

    def flush():
        for who, n in run.items():
            out.append({"type": "deal", "text": f"P{who} is dealt {n} card{'s' if n != 1 else ''}"})
        run.clear()
    for e in entries:
        if e["type"] == "deal" and e.get("hidden") and "cause" not in e and e.get("player") is not None:
            run[e["player"]] = run.get(e["player"], 0) + 1
            continue
        if e["type"] != "deal":
            flush()
        out.append(e)
    flush()
    return out


def _seen_option(view: dict, i: int) -> bool:
    """Whether option `i` of the view's decision names a card the seat may see."""
    options = (view.get("decision") or {}).get("options") or ()
    return i < len(options) and "card" in options[i]


def _card_of(option):
    """The card an option is (or acts on), else None."""
    if hasattr(option, "props"):
        return option
    v = getattr(option, "value", None)
    return v if hasattr(v, "props") else None
