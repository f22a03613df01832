"""Writing Python functions: the lines of one function being generated, what it reads
once as it starts, and (`_by_ids`) the one rewrite of finished text that remains: a loop
over a zone's cards turned into a loop over their ids when its body reads nothing of a
card but its id and its derived properties. Deciding that while writing the body needs
the body's uses of the loop variable known beforehand (through inlined defs too); until
then it is decided here, after the fact, over the text."""
from __future__ import annotations

import re
from typing import Optional

# ---------------------------------------------------------------- functions being written

class _Fn:
    """One Python function being written."""

    def __init__(self, gen, header, indent=0, params=()):
        self.gen = gen
        self.header = header
        self.lines: list = []
        self.base = indent
        self.ind = indent + 1
        self.nonlocals: set = set()
        self.captures: set = set()      # loop-bound variables of enclosing functions it reads
        self.caches: set = set()        # "card" derived properties whose cache lists it reads
        self.loop = 0                   # loops open at the point being written
        self.parent: Optional[_Fn] = None
        # A pure function (an expression's: it changes nothing) may read its parameters'
        # variables once, as it starts, instead of each time round a loop of the expression.
        self.pure = False
        self.inloop = 0                 # comprehensions open at the point being written
        self.iterable = 0               # > 0: writing a comprehension's iterable (no `:=` there)
        self.limited = False            # it (or a function written inside it) checks the step budget
        self.hoists: dict = {}          # local name -> what it reads, as the function starts
        self.params = set(params)       # the Python parameters besides `eng`
        self.of_engine = False          # a module-level `def f(eng, …)` (made by `function`)
        self.fetch: set = set()         # parts of the state it reads once, as it starts (`state`)

    @classmethod
    def function(cls, gen, name, params, indent=0) -> "_Fn":
        """`def name(eng, *params):`, a function of the engine and `params`."""
        f = cls(gen, f"def {name}({', '.join(['eng', *params])}):", indent, params)
        f.of_engine = indent == 0
        return f

    # The parts of the state a module-level function reads often, fetched once as it
    # starts (functions nested in it read them from there).
    FETCH = (("card_vars", "_cv"), ("player_vars", "_pv"), ("zones", "_zs"))
    _SHORT = dict(FETCH)

    def state(self, part: str) -> str:
        """Python for `eng.state.<part>` written in this function: the local its module-level
        function fetches once as it starts, when there is one."""
        f = self
        while f.parent is not None:
            f = f.parent
        if not f.of_engine:
            return f"eng.state.{part}"
        f.fetch.add(part)
        return self._SHORT[part]

    def emit(self, line):
        self.lines.append("    " * self.ind + line)

    def prologue(self) -> list:
        """What it reads once as it starts, from the engine alone, as (name, line): the
        cache lists of derived properties it reads, and the parts of the state it fetches."""
        pad = "    " * self.base
        out = [(f"_dc_{name}", f"{pad}    _dc_{name} = eng.dcache[{name!r}]") for name in sorted(self.caches)]
        return out + [(short, f"    {short} = eng.state.{part}") for part, short in self.FETCH if part in self.fetch]

    def hoist_lines(self) -> list:
        """Its parameters' variables, read once as it starts (see `pure`)."""
        pad = "    " * self.base
        return [f"{pad}    {h} = {src}" for h, src in sorted(self.hoists.items())]

    def source(self) -> list:
        pad = "    " * self.base
        out = [pad + self.header]
        if self.nonlocals:
            out.append(pad + "    nonlocal " + ", ".join(sorted(self.nonlocals)))
        return out + [line for _, line in self.prologue()] + self.hoist_lines() + self.lines


_ZONE_MAP = re.compile(r"map\(eng\.cards\.__getitem__, (reversed\(.*\))\)")


def _by_ids(fn: _Fn, start: int, v: str, src: str):
    """A loop over a zone's cards (`for v in map(eng.cards.__getitem__, reversed(ids))`,
    its body the lines from `start`) that reads nothing of a card but its id and its
    derived properties is made a loop over the ids: no card fetched for each."""
    m = _ZONE_MAP.fullmatch(src)
    if m is None:
        return
    body = "\n".join(fn.lines[start:])
    uses = len(re.findall(rf"\b{v}\b", body))
    ids = len(re.findall(rf"\b{v}\.id\b", body))
    derived = len(re.findall(rf"\bDV_\w+\(eng, {v}\)", body))
    if uses == 0 or uses != ids + derived:
        return
    i = "_i" + v[2:]
    fn.lines[start - 1] = fn.lines[start - 1].replace(f"for {v} in {src}:", f"for {i} in {m.group(1)}:")
    for n in range(start, len(fn.lines)):
        line = re.sub(rf"\b{v}\.id\b", i, fn.lines[n])
        fn.lines[n] = re.sub(rf"\b(DV_\w+)\(eng, {v}\)", rf"\1(eng, eng.cards[{i}])", line)
