"""MCTS speed: iterations per second per core, and what one iteration costs.

    python benchmarks/mcts.py                       # MGT v0.2, 4 players, mid-round decisions
    python benchmarks/mcts.py unicorns -p 2 --bot mcts:100:random

Plays a game with greedy bots (`forkable`, so decisions can be sampled) and, at every
`--every`-th decision with more than one answer from decision `--from` on, lets the
bot (`--bot`, default mcts:200) decide it, timing the whole decision and, separately,
`Decision.sample` (a world: a fork of the game with what the seat cannot see dealt
anew). Prints per decision and in total: iterations per second, milliseconds per
iteration, of which sampling, in CPU time of this process (other jobs on the machine are
not counted). One process, one core. Not a test: figures.
"""
from __future__ import annotations

import argparse
import pathlib
import platform
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    from cgl.interpreter.play.agents import make_agent
    from cgl.interpreter.play.game import Game
    from cgl.interpreter.check.loader import load, resolve

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset", nargs="?", default="mgt")
    ap.add_argument("-p", "--players", type=int, default=4)
    ap.add_argument("--bot", default="mcts:200")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from", dest="start", type=int, default=40, help="first decision timed (default 40)")
    ap.add_argument("--every", type=int, default=7)
    ap.add_argument("--decisions", type=int, default=6, help="decisions timed (default 6)")
    args = ap.parse_args(argv)
    rs = load(resolve(args.ruleset))
    game = Game(rs, args.players, args.seed, forkable=True, record=False)
    greedy = [make_agent("greedy", s, args.seed) for s in range(game.players)]
    print(f"{rs.title} {rs.game.version or ''}, {game.players} players, {args.bot}; Python {platform.python_version()}")
    d = game.start()
    k = timed = 0
    rates, per_iter, sample_ms = [], [], []
    while d is not None and timed < args.decisions:
        if k >= args.start and (k - args.start) % args.every == 0 and len(set(map(str, d.labels))) > 1:
            bot = make_agent(args.bot, d.player, args.seed + k)
            t0 = time.process_time()
            for _ in range(20):
                d.sample(bot.rng)
            s_ms = (time.process_time() - t0) / 20 * 1e3
            t0 = time.process_time()
            bot.decide(d)
            dt = time.process_time() - t0
            n = bot.iterations
            rates.append(n / dt)
            per_iter.append(dt / n * 1e3)
            sample_ms.append(s_ms)
            timed += 1
            print(f"  decision {k:4} (round {game.state.round_no}, turn {game.state.turn_no}, {len(d.options)} options: "
                  f"{d.prompt[:40]}): {n} iterations in {dt:.2f} s, {n / dt:.0f}/s, "
                  f"{dt / n * 1e3:.2f} ms each, sampling {s_ms:.2f} ms")
        d = game.answer(greedy[d.player].decide(d))
        k += 1
    if not rates:
        print("no decision was timed")
        return 1
    print(f"median: {statistics.median(rates):.0f} iterations/s per core, {statistics.median(per_iter):.2f} ms per "
          f"iteration, of which {statistics.median(sample_ms):.2f} ms sampling a world")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT.parent))
    sys.exit(main())
