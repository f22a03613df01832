"""Simulate's worker processes: how soon each starts playing, and the parallel efficiency.

    python benchmarks/workers.py                 # MGT v0.2, 4 random players, 2 workers, 240 games
    python benchmarks/workers.py unicorns -p 2 -n 120 --workers 2

It plays one batch as `cgl simulate` does (`simulate.run_batch`), first in this process
(one worker), then with `--workers` worker processes, and prints for each worker the time
from the moment the batch was handed to the pool to the end of that worker's first game,
less the time a game takes (the start-up: forking the process, which has the ruleset
loaded and its code generated, and setting up its first game), and
the parallel efficiency: the one-worker time over (workers × the pooled time). The ruleset
is loaded in this process first, as the CLI does before it plays, and its code generated, as
`run_batch` does once before the workers fork (both timed and printed apart: they are the
batch's start-up, paid once whatever the number of workers, not a worker's). The games are
the same either way (`run_batch` sorts records by game).
Figures only: nothing here fails.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


_REAL_CHUNK = None


def timed_chunk(spec, indices):
    """`simulate.run_chunk`, noting when this process began it (the monotonic clock is one
    clock for every process of the machine)."""
    records = _REAL_CHUNK(spec, indices[:1])
    records[0]["_first"], records[0]["_pid"] = time.monotonic(), os.getpid()
    return records + _REAL_CHUNK(spec, indices[1:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ruleset", nargs="?", default="mgt")
    ap.add_argument("-p", "--players", type=int, default=4)
    ap.add_argument("-n", "--games", type=int, default=240)
    ap.add_argument("-w", "--workers", type=int, default=2)
    args = ap.parse_args(argv)

    from cgl.interpreter.analytics import simulate as sim
    from cgl.interpreter.check.loader import load, resolve

    path = resolve(args.ruleset)
    t = time.perf_counter()
    rs = load(path)
    loaded = time.perf_counter() - t
    spec = sim.BatchSpec.make(os.path.abspath(path), {}, args.players, ["random"] * args.players, 1, None, False,
                              "high")
    sim.remember_ruleset(spec, rs)
    # What `run_batch` does first, once, in this process: the ruleset's code generated, so that
    # the workers fork with it. It is the batch's start-up, not a worker's: timed apart.
    t = time.perf_counter()
    sim.compiled_for(rs, budget=spec.max_steps is not None)
    compiled = time.perf_counter() - t

    global _REAL_CHUNK
    real = _REAL_CHUNK = sim.run_chunk
    sim.run_chunk = timed_chunk      # (the workers are forked: they find it where this process has it)
    try:
        t0 = time.monotonic()
        t = time.perf_counter()
        pooled = sim.run_batch(spec, args.games, workers=args.workers)
        tn = time.perf_counter() - t
    finally:
        sim.run_chunk = real
    first: dict = {}
    for r in pooled:
        if "_pid" in r:
            pid, done = r.pop("_pid"), r.pop("_first")
            first[pid] = min(first.get(pid, done), done)

    t = time.perf_counter()
    one = sim.run_batch(spec, args.games, workers=1)
    t1 = time.perf_counter() - t
    per_game = t1 / args.games
    same = pooled == one

    print(f"{args.ruleset}, {args.players} players, {args.games} games; ruleset loaded in {loaded:.2f} s, "
          f"its code generated in {compiled:.2f} s (once, before the workers fork)")
    print(f"1 worker (this process): {t1:.2f} s")
    print(f"{args.workers} workers: {tn:.2f} s; the same games: {'yes' if same else 'NO'}")
    for k, (pid, done) in enumerate(sorted(first.items(), key=lambda x: x[1]), 1):
        print(f"  worker {k} started in {done - t0 - per_game:.3f} s (its first game ended {done - t0:.3f} s "
              f"after the batch was handed over; a game takes {per_game:.3f} s)")
    print(f"parallel efficiency: {t1 / (args.workers * tn):.0%} (target: a worker starts within 0.2 s)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
