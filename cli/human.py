"""A person at the terminal: shows what their seat may see and asks each decision."""
from __future__ import annotations

import textwrap

import click

from cgl.interpreter.engine import Decision


def _fmt(v) -> str:
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


class QuitGame(Exception):
    """The person typed `quit`."""


class HumanAgent:
    """Answers decisions by asking at the terminal. Shows only this seat's view."""

    name = "human"

    def __init__(self, seat: int, echo=click.echo, prompt=None):
        self.seat = seat
        self.echo = echo
        self.ask = prompt or (lambda text: click.prompt(text, default="", show_default=False))
        self.seen = 0

    def show_view(self, view: dict, full: bool = False):
        e = self.echo
        e("")
        e(f"--- You are {view['you']} · round {view['round']} · turn {view['turn']} "
          f"({view['current']} to play{', phase ' + view['phase'] if view.get('phase') else ''}) ---")
        for name, cards in view["zones"].items():
            if isinstance(cards, int):
                if full and cards:
                    e(f"  {name}: {cards} card{'s' if cards != 1 else ''} (hidden)")
            elif cards or full:
                text = ", ".join(cards) if cards else "(empty)"
                e(textwrap.fill(text, width=100, initial_indent=f"  {name}: ", subsequent_indent=" " * 6))
        for p in view["players"]:
            vals = ", ".join(f"{k} {_fmt(v)}" for k, v in p.items() if k != "player" and v not in ([], None))
            e(f"  {p['player']}{' (you)' if p['player'] == view['you'] else ''}: {vals}")

    def state(self) -> dict:
        """What a saved game keeps of this seat: how much of the log it has been shown."""
        return {"seen": self.seen}

    def restore(self, state: dict) -> None:
        """Take back a :meth:`state`; a state of the wrong shape raises ValueError."""
        seen = state.get("seen") if isinstance(state, dict) else None
        if type(seen) is not int or seen < 0:
            raise ValueError("not the state of a human seat (it has no `seen` count)")
        self.seen = seen

    def decide(self, d: Decision):
        seen = self.seen
        try:
            return self._ask(d)
        except BaseException:   # not answered (`quit`, end of input): shown again in full if asked again
            self.seen = seen
            raise

    def _ask(self, d: Decision):
        view = d.view()
        for entry in view.get("log", []):
            if not entry.get("hidden") and not entry.get("quiet") and entry["step"] >= self.seen:
                self.echo(f"  · {entry['text']}")
        if view.get("log"):
            self.seen = view["log"][-1]["step"] + 1
        self.show_view(view)
        self.echo("")
        self.echo(d.prompt)
        if d.kind == "may":
            self.echo("   1. yes\n   2. no")
            while True:
                raw = self.ask("Your choice: 1 (yes) or 2 (no)").strip().lower()
                if raw in ("y", "yes", "1"):
                    return True
                if raw in ("n", "no", "2"):
                    return False
                if not self._common(raw, d):
                    self.echo(f"`{raw}` is not an answer: type 1 (yes) or 2 (no), `help`, `view` or `quit`.")
        for i, label in enumerate(d.labels, 1):
            self.echo(f"  {i:>2}. {label}")
        if d.optional:
            self.echo("   0. (none: decline)")
        many = d.hi > 1
        hint = (f"numbers separated by spaces ({d.lo} to {d.hi})" if many else "a number")
        while True:
            raw = self.ask(f"Your choice: {hint}").strip()
            if self._common(raw, d):
                continue
            try:
                nums = [int(x) for x in raw.replace(",", " ").split()]
            except ValueError:
                self.echo(f"`{raw}` is not a number. Type {hint}, `help`, `view` or `quit`.")
                continue
            if d.optional and nums == [0]:
                return None
            if not nums or any(not 1 <= n <= len(d.options) for n in nums):
                self.echo(f"Choose between 1 and {len(d.options)}.")
                continue
            if len(set(nums)) != len(nums) or not (d.lo <= len(nums) <= d.hi if many else len(nums) == 1):
                self.echo(f"Choose {d.lo if d.lo == d.hi else f'{d.lo} to {d.hi}'} different option(s).")
                continue
            return sorted(n - 1 for n in nums) if many else nums[0] - 1

    def _common(self, raw: str, d: Decision) -> bool:
        low = raw.lower()
        if low in ("q", "quit", "exit"):
            raise QuitGame()
        if low in ("v", "view", "look"):
            self.show_view(d.view(), full=True)
            return True
        if low in ("h", "help", "?"):
            self.echo("Type the number of an option (or yes/no), `about N` to read option N's card, "
                      "`view` to see the table, `quit` to stop.")
            return True
        if low.startswith("about"):
            self._about(low[5:].strip(), d)
            return True
        return False

    def _about(self, which: str, d: Decision):
        """Print the card data of option N (a card, or an action on a card)."""
        if not which.isdigit() or not 1 <= int(which) <= len(d.options):
            self.echo(f"Type `about N` with N from 1 to {len(d.options)}.")
            return
        option = d.options[int(which) - 1]
        card = option if hasattr(option, "props") else getattr(option, "value", None)
        if not hasattr(card, "props"):
            self.echo(f"Option {which} is not a card.")
            return
        self.echo(f"{card.name}:")
        for key, value in card.props.items():
            if key != "name":
                self.echo(f"  {key}: {_fmt(value)}")
