"""Soak: many seeded games of every shipped ruleset with invariants on, to find the games
that end in an error (a broken invariant, a lost card, a runaway, an exception).

    python benchmarks/soak.py                     # 2,000 games per ruleset, 2 to max players
    python benchmarks/soak.py --games 200 mgt     # fewer, one ruleset
    python benchmarks/soak.py --workers 1         # in this process

Game i of a ruleset plays with seed `--seed + i`, `min + i % (max - min + 1)` players and
the random agent (even i) or the greedy one (odd i), with `check_invariants` on (every
card in exactly one zone after every card event; the ruleset's `invariant`s at every
turn's end). Each failure prints the command that replays it. Prints, per ruleset, the
games played, the failures and the wall time; exits 1 if any game failed. Not a test (it
takes minutes): the issue that asks for it records its figures.
"""
from __future__ import annotations

import argparse
import multiprocessing
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
_LOADED: dict = {}   # per worker process: path -> Ruleset


def _one(job):
    path, i, seed = job
    from cgl.interpreter.diagnostics import CglError
    from cgl.interpreter.game import play
    from cgl.interpreter.loader import load

    rs = _LOADED.get(path)
    if rs is None:
        rs = _LOADED[path] = load(path)
    lo, hi = rs.game.min_players, rs.game.max_players
    players = lo + i % (hi - lo + 1)
    agent = "random" if i % 2 == 0 else "greedy"
    try:
        play(rs, players, seed=seed, agents=[agent] * players, check_invariants=True, record=False)
    except CglError as e:
        return (players, seed, agent, e.diagnostics[0].code + " " + e.diagnostics[0].message)
    except Exception as e:   # a bug in cgl: report it with the game that shows it
        return (players, seed, agent, f"{type(e).__name__}: {e}")
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games per ruleset (default 2000)")
    ap.add_argument("--seed", type=int, default=10_000, help="the first game's seed (default 10000)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    ap.add_argument("names", nargs="*", help="only rulesets whose file name contains one of these")
    args = ap.parse_args(argv)
    failed = 0
    pool = multiprocessing.Pool(args.workers) if args.workers != 1 else None
    try:
        for path in sorted((ROOT / "rulesets").glob("*.cgl")):
            if args.names and not any(n in path.name for n in args.names):
                continue
            jobs = [(str(path), i, args.seed + i) for i in range(args.games)]
            t0 = time.perf_counter()
            results = pool.map(_one, jobs, chunksize=20) if pool else list(map(_one, jobs))
            bad = [r for r in results if r is not None]
            failed += len(bad)
            print(f"{path.relative_to(ROOT)}: {args.games} games, {len(bad)} failed, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
            for players, seed, agent, msg in bad[:20]:
                print(f"  cgl run {path.relative_to(ROOT)} -p {players} -s {seed} --agent {agent} --check -q"
                      f"   # {msg}", flush=True)
    finally:
        if pool:
            pool.close()
            pool.join()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
