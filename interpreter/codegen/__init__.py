"""Compile a ruleset into Python source, once per ruleset: the interpreter's fast path.

The tree walker (engine.py) keeps each local name in a chain of dictionaries and runs
every statement through a generator of its own. Here the bodies of a ruleset (setup,
rounds, turn phases, procedures, triggers, reactions, actions) and the functions they
call (`def`, `table`, derived properties, pattern pieces) become Python functions whose
CGL locals are Python locals, resolved once, when the source is generated:

- a bare name is a local (a parameter, `let`, loop or choice variable), a property of the
  innermost `it`, or a global, exactly as the tree walker looks it up, but decided here
  (what a global name or a call means comes from the resolver, `resolver.py`, and
  built-ins from their registry, `builtins.py`, which the tree walker reads too);
- `obj.name` reads a card's variable, derived property or data, or a player's variable,
  in place, falling back to the tree walker's lookup for anything else;
- the static types of the one type checker (`typecheck.py`, which lint reads too: "card",
  "player", "zone", "cards", "strs" (texts), "list", "int", "str", "str?" (a text or none,
  a text in the `then` of `if x != none`), …; None when unknown) leave out checks that
  cannot fail, and defs, procedures and
  patterns are specialised for their arguments' types; small defs called with locals are
  written in place, loops and all; a pure function (an expression's) reads its
  parameters' variables once, not each time round its loops;
- statements become Python statements; those that change cards (`move`, `draw`, …),
  ask players (`choose`, `may`, `act`) or raise events call the engine's `s_…`/`c_…`
  methods, the same ones the tree walker calls, so both do the same thing in the same
  order (`draw 1` and `discard c` by plain calls that move the card at once); triggers
  and reactions are functions of the event itself, and each kind of event gets one
  generated runner of what waits for it (`_runner`), with the conditions and the
  reaction windows written in (a custom event's `card` may be any value: an eligibility
  that reads it is written for any value and again for a card, and the runner picks by
  the value the event carries); a loop over a zone's cards that reads only their ids and
  derived properties runs over the ids;
- rule conditions (`rule … forbid … if`) stay with the tree walker, which evaluates them
  in the environment where the check happens, and so does an `act` beside a local that
  an action reads (an action sees the locals where `act` runs); the locals are handed
  over in an `Env`.

Semantics are the tree walker's: the same ruleset, seed and answers play the same game,
byte for byte (tests/test_codegen.py plays every shipped ruleset and example both ways
and compares logs, statistics and step counts; the scenario and game tests run on both).
Errors point at the same CGL source: a mistake in a rule is an explicit check that names
its node; only a rule calling itself without end is caught (E011), and any other Python
error is a bug in cgl, reported as such. Statements count towards the step budget one by
one, as in the tree walker, and check the game's budget (`max_steps`, on by default: see
docs/language.md, "Limits"); a game with no budget (`max_steps=None`) runs a second module
whose statements only count. A known gap of the generator
(`Unsupported`), or Python's own limits on nesting (20 nested loops), leave the whole ruleset
to the tree walker (`compiled_for` returns None; `cgl info` says why), except under `CGL_STRICT_COMPILE=1` (the tests), where it is an
error. The generator only emits: everything it writes is decided on the AST and while
writing, never by reading its output back, and the same ruleset always gives the same
source.

`Game(..., engine="tree")` (`cgl --engine tree`) plays on the tree walker instead.
"""
from __future__ import annotations

from .engine import CompiledEngine, make_engine
from .generator import CodeGen
from .module import Compiled, compiled_for
from .runtime import NO_LIMIT, RUNTIME, Unsupported

__all__ = ["CodeGen", "Compiled", "CompiledEngine", "NO_LIMIT", "RUNTIME", "Unsupported", "compiled_for", "make_engine"]
