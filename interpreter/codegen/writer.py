"""Writing Python functions: the lines of one function being generated, and what it reads
once as it starts."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Optional

# ---------------------------------------------------------------- what is written

class Var(str):
    """Python source that is a plain name: a local, a temporary, a module constant, `True`
    or `None`. Reading it again costs nothing and changes nothing, so the generator may
    write it twice. The generator marks what it writes as a `Var` when it writes it, and
    decides by that mark, never by reading its own output back."""

    __slots__ = ()


class Lit(str):
    """Python source of a literal (`2`, `'red'`) that a local of the generator's own stands
    for (the left side of a comparison, say): written in place, and not a name."""

    __slots__ = ()


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
        # The expression being written (see Expressions.x): (def, its arguments' variables) ->
        # the variable remembering what that call of a def written in place came to (None:
        # no expression is being written); `lambdas` open inside it, and the variables of the
        # comprehensions open inside it, which change as it is evaluated.
        self.memo: Optional[dict] = None
        self.memo_keep: Optional[set] = None
        self.stmt_memo: Optional[dict] = None   # the same, for the statements of one expression (ev_into)
        # its variables -> (the indentation of the statement setting it, the least indentation
        # written since: as long as it is no less, every way on passed the statement); the
        # comprehensions open as they started (AsStatements.memo_first, memo_worked_out)
        self.memo_at: Optional[dict] = None
        self.memo_inloop = 0
        self.lambdas = 0
        # writing a hint's def as a loop over its options (Expressions.hint_def_over): the
        # variables of the hint's memos keyed by nothing the options change, which
        # `AsStatements.ev_into` sets before the loop, at `outside_at` (line, indentation)
        self.outside: Optional[set] = None
        self.outside_at: Optional[tuple] = None
        self.comp_vars: set = set()
        # (binding of a local card, the variable holding its `State.card_store`) after a `set`
        # of one of its variables that the next statement may share (Statements.held_set)
        self.held_store: Optional[tuple] = None

    @classmethod
    def function(cls, gen, name, params, indent=0) -> "_Fn":
        """`def name(eng, *params):`, a function of the engine and `params`."""
        f = cls(gen, f"def {name}({', '.join(['eng', *params])}):", indent, params)
        f.of_engine = indent == 0
        return f

    # The parts of the state a module-level function reads often, fetched once as it
    # starts (functions nested in it read them from there).
    FETCH = (("card_vars", "_cv"), ("player_vars", "_pv"), ("zones", "_zs"), ("where", "_wh"))
    _SHORT = {part: Var(name) for part, name in FETCH}

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

    @contextmanager
    def in_iterable(self):
        """Writing a comprehension's iterable, where no `:=` may stand (`iterable`)."""
        self.iterable += 1
        try:
            yield
        finally:
            self.iterable -= 1

    @contextmanager
    def looping(self, var: str):
        """Writing the inside of a comprehension or loop over `var`, which takes another value
        each time round (nothing that reads it is remembered across turns: `memo_var`)."""
        self.inloop += 1
        self.comp_vars.add(var)
        try:
            yield
        finally:
            self.comp_vars.discard(var)
            self.inloop -= 1

    def emit(self, line):
        self.lines.append("    " * self.ind + line)
        if self.memo_at:
            self._written_at(self.ind)

    def nest(self, f: "_Fn") -> None:
        """Write here function `f`, written at this one's indentation or deeper."""
        self.lines += f.source()
        if self.memo_at:
            self._written_at(f.base)

    def _written_at(self, ind: int) -> None:
        """A line was written at indentation `ind`: the least since each `memo_at` statement."""
        for m, (at, low) in self.memo_at.items():
            if ind < low:
                self.memo_at[m] = (at, ind)

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
