"""How fast the interpreter plays: games and complete rounds per second, random agents, one core.

    python benchmarks/throughput.py [--seconds S] [--seed N] [--engine compiled|tree] [RULESET ...]

For each shipped ruleset (or the ones named), plays whole games with random agents for a
fixed wall-clock budget (4 players where the ruleset allows it, else its maximum), twice:
as `cgl simulate` plays them (no transcript: `record=False`) and with the full log kept
(as `cgl run` plays). Then compares MGT v0.2 (4 players, no log) with the hand-written
yardstick (`mgt_yardstick.py`, which keeps no log either): the targets are at least 200
rounds/s for the interpreter, and no more than 3 times the yardstick's time. It only
prints figures; nothing here fails on timing.

The comparison is paired, because a shared machine's speed drifts by tens of percent
within a minute: interpreter and yardstick take turns (`--pairs` turns each, `--chunk`
seconds of CPU time each), so that both run under the same conditions, and the medians
of their rates and of the per-pair ratio are reported. Its clock is the process's CPU
time (`time.process_time`), which does not count time the process waited for a core.

Everything runs in this one process (one core). Loading (and compiling) a ruleset happens
once, before the clock starts; setting up each game (`Game(...)`) is counted, as it is
part of playing one. A warm-up game is played first and not counted. `--engine tree`
measures the tree-walking interpreter instead of the compiled one (interpreter/codegen/).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

from cgl.interpreter.play.game import play
from cgl.interpreter.check.loader import load, packaged_rulesets

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import mgt_yardstick  # noqa: E402

TARGET_ROUNDS_PER_SECOND = 200
TARGET_SLOWDOWN = 3.0
REFERENCE_YARDSTICK = 700            # rounds/s of a plain hand-written simulator "on this class of machine"
YARDSTICK_RULESET = "mgt"            # the yardstick plays MGT v0.2
YARDSTICK_PLAYERS = 4


def players_for(rs, wanted: int = 4) -> int:
    g = rs.game
    return wanted if g.min_players <= wanted <= g.max_players else g.max_players


def measure(rs, players: int, seconds: float, seed: int = 0, record: bool = False):
    """Play whole games until `seconds` have passed: (games, rounds, elapsed)."""
    agents = ["random"] * players
    play(rs, players, seed - 1, agents=agents, record=record)          # warm-up, not counted
    games = rounds = 0
    t0 = time.perf_counter()
    while True:
        game = play(rs, players, seed + games, agents=agents, record=record)
        games += 1
        rounds += game.result.rounds
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return games, rounds, elapsed


def paired(rs, pairs: int, chunk: float, seed: int = 0):
    """Interpreter (MGT v0.2, no log) and yardstick in turns of `chunk` CPU seconds each:
    the medians of (interpreter rounds/s, yardstick rounds/s, per-pair time ratio)."""
    agents = ["random"] * YARDSTICK_PLAYERS
    play(rs, YARDSTICK_PLAYERS, seed - 1, agents=agents, record=False)        # warm-up
    mgt_yardstick.load_deck()
    yard_rounds = mgt_yardstick._rounds(YARDSTICK_PLAYERS, seed)
    next(yard_rounds)                                                          # warm-up
    game_seed = seed
    interp, yard, ratios = [], [], []
    for _ in range(max(pairs, 1)):
        rounds, t0 = 0, time.process_time()
        while True:
            rounds += play(rs, YARDSTICK_PLAYERS, game_seed, agents=agents, record=False).result.rounds
            game_seed += 1
            spent = time.process_time() - t0
            if spent >= chunk:
                break
        interp.append(rounds / spent)
        done, t0 = 0, time.process_time()
        while True:
            next(yard_rounds)
            done += 1
            spent = time.process_time() - t0
            if spent >= chunk:
                break
        yard.append(done / spent)
        ratios.append(yard[-1] / interp[-1])
    return statistics.median(interp), statistics.median(yard), statistics.median(ratios)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Games and rounds per second of the interpreter, "
                                             "and MGT v0.2 against the hand-written yardstick.")
    ap.add_argument("rulesets", nargs="*", help="packaged ruleset names (default: all)")
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="wall-clock budget per ruleset and mode (default 5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", type=int, default=7,
                    help="turns each of interpreter and yardstick in the MGT comparison (default 7)")
    ap.add_argument("--chunk", type=float, default=1.0,
                    help="CPU seconds per turn in the MGT comparison (default 1)")
    ap.add_argument("--engine", choices=["compiled", "tree"], default="compiled",
                    help="the compiled interpreter (default) or the tree walker")
    args = ap.parse_args(argv)
    from cgl.interpreter.play import game as game_module
    game_module.DEFAULT_ENGINE = args.engine    # every game this script plays

    names = args.rulesets or sorted(packaged_rulesets())
    load_avg = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores{load_avg}; "
          f"one core used; random agents; {args.engine} engine; {args.seconds:g} s per ruleset and mode")
    print()
    print(f"{'':<20} {'simulation (no log)':^29} {'with the log':^19}")
    header = (f"{'ruleset':<12} {'players':>7} {'games':>7} {'games/s':>9} {'rounds/s':>11} "
              f"{'games/s':>9} {'rounds/s':>9}")
    print(header)
    print("-" * len(header))
    compare = False
    for name in names:
        rs = load(name)
        players = players_for(rs)
        games, rounds, elapsed = measure(rs, players, args.seconds, args.seed, record=False)
        lgames, lrounds, lelapsed = measure(rs, players, args.seconds, args.seed, record=True)
        print(f"{name:<12} {players:>7} {games:>7} {games / elapsed:>9.2f} {rounds / elapsed:>11.2f} "
              f"{lgames / lelapsed:>9.2f} {lrounds / lelapsed:>9.2f}", flush=True)
        compare = compare or (name == YARDSTICK_RULESET and players == YARDSTICK_PLAYERS)
    print()
    if not compare:
        print(f"MGT v0.2 ({YARDSTICK_RULESET}) was not measured with {YARDSTICK_PLAYERS} players: no comparison.")
        return
    interp, yard, slowdown = paired(load(YARDSTICK_RULESET), args.pairs, args.chunk, args.seed)
    ratio = 1 / slowdown
    print(f"MGT v0.2, {YARDSTICK_PLAYERS} players, no log, {args.pairs} paired turns of {args.chunk:g} CPU s "
          f"(medians):")
    print(f"  rounds/s: interpreter {interp:.2f}   yardstick {yard:.2f} "
          f"(MGT v0.2 hand-written in Python, benchmarks/mgt_yardstick.py)")
    print(f"ratio interpreter/yardstick: {ratio:.3f}  (the interpreter takes {slowdown:.2f}x the yardstick's time)")
    targets = [
        (f"interpreter >= {TARGET_ROUNDS_PER_SECOND} rounds/s", interp >= TARGET_ROUNDS_PER_SECOND,
         f"{interp:.1f} rounds/s"),
        (f"within {TARGET_SLOWDOWN:g}x of the yardstick", slowdown <= TARGET_SLOWDOWN, f"{slowdown:.1f}x"),
    ]
    for what, ok, figure in targets:
        print(f"target: {what:<32} {'met' if ok else 'NOT met':<8} ({figure})")
    if yard < 0.9 * REFERENCE_YARDSTICK:
        # The 200 rounds/s target is set for a machine on which the yardstick plays about
        # 700 (the words): say what this run's ratio comes to there.
        print(f"note: the yardstick played {yard:.0f} rounds/s, below the ~{REFERENCE_YARDSTICK} of the machine the "
              f"targets were set for (a slowed or slower machine); at {REFERENCE_YARDSTICK}, this ratio is "
              f"{REFERENCE_YARDSTICK * ratio:.0f} rounds/s")


if __name__ == "__main__":
    main(sys.argv[1:])
