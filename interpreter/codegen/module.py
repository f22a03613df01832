"""A ruleset's generated module, compiled once per ruleset (and once more for games
without a step budget)."""
from __future__ import annotations

import os
from typing import Optional

from ..check.resolver import facts
from .generator import CodeGen
from .runtime import RUNTIME, Unsupported

_CODE: dict = {}    # (path, generated source) -> code object, for this process


class Compiled:
    """The generated module of a ruleset."""

    def __init__(self, rs, budget: bool = False):
        gen = CodeGen(rs, budget)
        self.budget = budget
        try:
            self.source = gen.generate()
        except RecursionError:
            raise Unsupported("the rules are nested deeper than the generator follows") from None
        ns = dict(RUNTIME)
        ns.update(gen.consts)
        key = (rs.path, self.source)
        code = _CODE.get(key)
        if code is None:  # the same rules loaded again make the same source: compiled once
            if len(_CODE) >= 64:
                _CODE.clear()
            try:
                code = compile(self.source, f"<cgl compiled {os.path.basename(rs.path)}>", "exec")
            except (SyntaxError, RecursionError, MemoryError) as x:
                # Python's own limits (20 nested loops, 200 nested brackets): a ruleset within
                # cgl's limits (docs/language.md, "Limits") that Python cannot compile when
                # written out runs on the tree walker, which means the same
                raise Unsupported(f"the rules are nested deeper than Python compiles ({x.__class__.__name__}: "
                                  f"{getattr(x, 'msg', x)})") from None
            _CODE[key] = code
        exec(code, ns)
        self.ns = ns
        self.blocks = {k: ns[v] for k, v in gen.blocks.items()}
        self.procs = {k: ns[v] for k, v in gen.procs.items()}
        self.exprs = {k: ns[v] for k, v in gen.exprs.items()}
        self.direct = {k: ns[v] for k, v in gen.direct.items()}
        self.legal = {k: ns[v] for k, v in gen.legal.items()}
        self.derives = {name: ns["DV_" + name] for name in rs.derives}
        self.patterns = {name: {k: ns[v] for k, v in d.items()} for name, d in gen.patterns.items() if name in rs.patterns}
        self.triggers = {k: _Pieces(d, ns, gen.runner_src) for k, d in gen.triggers.items()}
        self.dispatch: dict = {}        # see CompiledEngine._handlers
        self.runners: dict = {}         # see CompiledEngine._runner_of
        self.reactions = {k: _Pieces(d, ns, gen.runner_src) for k, d in gen.reactions.items()}
        self.actions = {k: _Pieces(d, ns) for k, d in gen.actions.items()}
        self.target_hints = {k: ns[v] for k, v in gen.target_hints.items()}
        self.zone_rules = {k: ns[v] for k, v in gen.zone_rules.items() if v is not None}


class _Pieces:
    """The compiled pieces of one trigger or reaction (None where it has none)."""

    __slots__ = ("cond", "prompt", "ask_by", "body", "order_by", "responders", "eligible", "ask", "domain", "when",
                 "label", "prefer", "cond_src", "eligible_src", "eligible_card_src", "responders_src")

    def __init__(self, names: dict, ns: dict, inline: Optional[dict] = None):
        for k in self.__slots__[:-4]:
            setattr(self, k, ns[names[k]] if names.get(k) else None)
        # the condition's (eligibility's, responders') body, for a runner to write in place of a call (None: call it)
        self.cond_src = inline.get(names.get("cond")) if inline else None
        self.eligible_src = inline.get(names.get("eligible")) if inline else None
        self.responders_src = inline.get(names.get("responders")) if inline else None
        # the eligibility written for a custom event whose `card` is a card (None: none)
        self.eligible_card_src = inline.get(names.get("eligible_card")) if inline else None


def compiled_for(rs, budget: bool = False) -> Optional[Compiled]:
    """The compiled module of a ruleset (made once), or None when the generator has a known
    gap for it (`Unsupported`: the tree walker plays, and `cgl info` says why). With
    `budget`, the module whose statements check a step budget (every game's, unless it sets
    `max_steps=None`: then the module without the check).

    Under CGL_STRICT_COMPILE=1 (the tests set it) a gap is an error, not a fall back; any
    other exception is a bug in cgl and is never swallowed."""
    f = facts(rs)
    if budget not in f.compiled:
        try:
            f.compiled[budget] = Compiled(rs, budget)
        except Unsupported as x:
            if _strict():
                raise
            f.compiled[budget], f.compiled_why = None, str(x)
    return f.compiled[budget]


def _strict() -> bool:
    return os.environ.get("CGL_STRICT_COMPILE", "") == "1"
