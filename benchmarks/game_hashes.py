"""Fingerprints of seeded games: one hash per ruleset and engine, to prove a refactor
plays the same games.

    python benchmarks/game_hashes.py                  # every shipped ruleset and example, both engines
    python benchmarks/game_hashes.py --games 20       # more seeds per ruleset
    python benchmarks/game_hashes.py > before.txt     # … change the code …
    python benchmarks/game_hashes.py | diff before.txt -

For each ruleset it plays `--games` seeded games (player counts cycling over the ruleset's
range, random and greedy agents alternating), once with the full log and once without
(as `cgl simulate` plays), and hashes the logs, the answers and the results. Each line
also says whether the two engines agree. Not a test: the hashes change whenever a
ruleset's rules do, which is what the rule changes are for.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _targets():
    for folder in ("rulesets", "examples"):
        for p in sorted((ROOT / folder).glob("*.cgl")):
            yield p


def _digest(path, engine: str, games: int) -> str:
    from cgl.interpreter.play.game import play
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.runtime.state import plain

    rs = load(str(path))
    lo, hi = rs.game.min_players, rs.game.max_players
    h = hashlib.sha256()
    for i in range(games):
        players = lo + i % (hi - lo + 1)
        agent = "random" if i % 2 == 0 else "greedy"
        for record in (True, False):
            g = play(rs, players, seed=1000 + i, agents=[agent] * players, record=record, engine=engine)
            assert g.engine_kind == engine
            r = g.result
            doc = {"log": [plain(x) for x in r.log], "answers": plain(g.answers), "winners": r.winners,
                   "reason": r.reason, "players": r.players, "rounds": r.rounds, "turns": r.turns,
                   "stats": r.stats}
            h.update(json.dumps(doc, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8, help="seeded games per ruleset (default 8)")
    ap.add_argument("names", nargs="*", help="only rulesets whose file name contains one of these")
    args = ap.parse_args(argv)
    differ = 0
    for path in _targets():
        if args.names and not any(n in path.name for n in args.names):
            continue
        compiled = _digest(path, "compiled", args.games)
        tree = _digest(path, "tree", args.games)
        same = "same" if compiled == tree else "DIFFER"
        differ += compiled != tree
        print(f"{path.relative_to(ROOT)}  compiled {compiled}  tree {tree}  {same}", flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
