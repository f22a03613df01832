"""Soak: many seeded games of every shipped ruleset with invariants on and its options
cycled, to find the games that end in an error (a broken invariant, a lost card, a
runaway, an exception).

    python benchmarks/soak.py                     # 2,000 games per ruleset
    python benchmarks/soak.py --games 200 mgt     # fewer, one ruleset
    python benchmarks/soak.py --workers 1         # in this process
    python benchmarks/soak.py --defaults-only     # every game with the default options

Game i of a ruleset plays with seed `--seed + i` and the i-th entry of a deterministic
cycle over (option set, agent, players): each option set of `option_sets` (the defaults;
every option at its least value; every one at its greatest; then each option alone at
its least, greatest and middle value, each member of an enum), the random and the greedy
agent, and every player count from min to max. With `check_invariants` on (every card in
exactly one zone after every card event; the ruleset's `invariant`s at every turn's end).
Each failure prints the command, options included, that replays it. Prints, per ruleset,
the option sets, the games played, the decisions answered, the failures and the wall
time; exits 1 if any game failed. Not a test (it takes minutes): the issue that asks for
it records its figures.
"""
from __future__ import annotations

import argparse
import multiprocessing
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
AGENTS = ("random", "greedy")
_LOADED: dict = {}   # per worker process: (path, options) -> Ruleset


def cycle(rs, defaults_only: bool = False) -> list:
    """The (options, agent, players) of game i are entry i % len of this list."""
    from cgl.interpreter.check.loader import option_sets

    sets = [{}] if defaults_only else option_sets(rs)
    lo, hi = rs.game.min_players, rs.game.max_players
    return [(opts, agent, n) for opts in sets for agent in AGENTS for n in range(lo, hi + 1)]


def replay(path: str, players: int, seed: int, agent: str, opts: dict) -> str:
    from cgl.interpreter.check.loader import option_text

    o = "".join(f" -o {k}={option_text(v)}" for k, v in sorted(opts.items()))
    return f"cgl run {path} -p {players} -s {seed}{o} --agent {agent} --check -q"


def _one(job):
    path, seed, opts, agent, players = job
    from cgl.interpreter.base.diagnostics import CglError
    from cgl.interpreter.play.game import play
    from cgl.interpreter.check.loader import load

    key = (path, tuple(sorted(opts.items())))
    rs = _LOADED.get(key)
    if rs is None:
        rs = _LOADED[key] = load(path, opts)
    try:
        game = play(rs, players, seed=seed, agents=[agent] * players, check_invariants=True, record=False)
    except CglError as e:
        return None, e.diagnostics[0].code + " " + e.diagnostics[0].message
    except Exception as e:   # a bug in cgl: report it with the game that shows it
        return None, f"{type(e).__name__}: {e}"
    return len(game.answers), None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games per ruleset (default 2000)")
    ap.add_argument("--seed", type=int, default=10_000, help="the first game's seed (default 10000)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    ap.add_argument("--defaults-only", action="store_true", help="play every game with the default options")
    ap.add_argument("names", nargs="*", help="only rulesets whose file name contains one of these")
    args = ap.parse_args(argv)
    from cgl.interpreter.check.loader import load

    failed = 0
    pool = multiprocessing.Pool(args.workers) if args.workers != 1 else None
    try:
        for path in sorted((ROOT / "rulesets").glob("*.cgl")):
            if args.names and not any(n in path.name for n in args.names):
                continue
            rel = str(path.relative_to(ROOT))
            plan = cycle(load(str(path)), args.defaults_only)
            jobs = [(str(path), args.seed + i) + plan[i % len(plan)] for i in range(args.games)]
            t0 = time.perf_counter()
            results = pool.map(_one, jobs, chunksize=10) if pool else list(map(_one, jobs))
            bad = [(job, msg) for job, (_, msg) in zip(jobs, results) if msg is not None]
            failed += len(bad)
            n_sets = len({repr(sorted(p[0].items())) for p in plan})
            print(f"{rel}: {args.games} games ({n_sets} option set{'s' if n_sets != 1 else ''}), "
                  f"{sum(d or 0 for d, _ in results):,} decisions, {len(bad)} failed, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
            for (_, seed, opts, agent, players), msg in bad[:20]:
                print(f"  {replay(rel, players, seed, agent, opts)}   # {msg}", flush=True)
    finally:
        if pool:
            pool.close()
            pool.join()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
