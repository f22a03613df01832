"""Fork cost: `Game.fork()` against `State.copy()` at the same decision, and that the
fork goes on exactly as the game it was forked from.

    python benchmarks/fork.py                      # MGT v0.2, 4 players, 10 games, every 25th decision
    python benchmarks/fork.py unicorns -p 2        # another ruleset
    python benchmarks/fork.py --games 3 --every 10 --record   # games that keep their log (as `cgl run`)

A game is played by random agents with `Game(..., forkable=True)` (a copy of the state
is kept where each turn, and each later phase of it, begins); at every `--every`-th
decision the script times `State.copy()` and `Game.fork()` (each the best of `--repeat`
batches of `--number` calls, in CPU time of this process, so other jobs on the machine
inflate neither much), and prints their ratio (and,
for comparison, a deep copy of the state, which is what `State.copy()` used to be). Then
it answers the fork and the game alike to the end, for the first decision timed in each
game, and checks their logs are equal, byte for byte. Prints the median, 90th percentile
and largest ratio; the target is at most 3x. Not a test: figures, one process, one core.
"""
from __future__ import annotations

import argparse
import copy
import json
import pathlib
import platform
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def best(fn, number: int, repeat: int) -> float:
    """CPU seconds per call: the best of `repeat` batches of `number` calls (process time:
    what other jobs on the machine take is not counted)."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - t0) / number)
    return min(times)


def main(argv=None) -> int:
    from cgl.interpreter.play.game import Game, RandomAgent
    from cgl.interpreter.check.loader import load, resolve

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset", nargs="?", default="mgt")
    ap.add_argument("-p", "--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--every", type=int, default=25, help="time a fork at every N-th decision (default 25)")
    ap.add_argument("--number", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--record", action="store_true", help="keep the log, as `cgl run` does (default: as simulate)")
    args = ap.parse_args(argv)
    rs = load(resolve(args.ruleset))
    print(f"{rs.title} {rs.game.version or ''}, {args.players} players, random agents, "
          f"{'with' if args.record else 'without'} the log; Python {platform.python_version()}")
    ratios, deeps, mismatches, checked = [], [], 0, 0
    for seed in range(1, args.games + 1):
        game = Game(rs, args.players, seed=seed, forkable=True, record=args.record)
        agents = [RandomAgent(i, seed) for i in range(game.players)]
        d = game.start()
        k = 0
        first_fork = None
        while d is not None:
            if k and k % args.every == 0:
                c = best(game.state.copy, args.number, args.repeat)
                f = best(game.fork, args.number, args.repeat)
                deep = best(game.state.deep_copy, max(1, args.number // 10), args.repeat)
                ratios.append(f / c)
                deeps.append(deep / c)
                print(f"  seed {seed} decision {k:4} (round {game.state.round_no}, turn {game.state.turn_no}, "
                      f"{len(game.answers) - game._snap[3]} answers into {'its phase ' + str(game._snap[4] + 1) if game._snap[4] else 'it'}): copy {c * 1e3:.3f} ms, "
                      f"fork {f * 1e3:.3f} ms, {f / c:.2f}x (a deep copy: {deep * 1e3:.2f} ms)")
                if first_fork is None:
                    first_fork = (game.fork(), copy.deepcopy(agents))
            d = game.answer(agents[d.player].decide(d))
            k += 1
            if first_fork is not None:
                twin, twin_agents = first_fork
                if twin.pending is not None:
                    twin.answer(twin_agents[twin.pending.player].decide(twin.pending))
        if first_fork is not None:
            twin = first_fork[0]
            checked += 1
            same = (twin.pending is None and json.dumps(twin.state.log) == json.dumps(game.state.log)
                    and twin.result.winners == game.result.winners and twin.state.to_json(rs) == game.state.to_json(rs))
            mismatches += not same
    if not ratios:
        print("no decision was timed (games shorter than --every)")
        return 1
    ratios.sort()
    p90 = ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]
    print(f"fork / State.copy over {len(ratios)} decisions: median {statistics.median(ratios):.2f}x, "
          f"90th percentile {p90:.2f}x, largest {ratios[-1]:.2f}x (target: at most 3x)")
    print(f"a deep copy of the state (copy.deepcopy, what State.copy was) takes {statistics.median(deeps):.0f}x "
          f"State.copy (median)")
    print(f"forks played on to the end: {checked}, identical to their game: {checked - mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT.parent))
    sys.exit(main())
