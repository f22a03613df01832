"""Instructions per MGT v0.2 round, interpreter against the yardstick, counted by valgrind.

    python benchmarks/instructions.py [--games N]
    python benchmarks/instructions.py --workload unicorns [--games N]   # per Unstable Unicorns game
    python benchmarks/instructions.py --workload mcts [--games N]       # per search-bot iteration

Wall-clock figures on a shared machine move with the load (throughput.py prints the load
average); instruction counts do not: valgrind's callgrind counts the instructions the
CPU executes, the same on every run of the same code and inputs, whatever else the
machine is doing. This script counts, for each side, a run that only loads and warms up
and a run that also plays N games (3 N rounds), and reports the difference per round:
the interpreter playing as `cgl simulate` plays (compiled engine, no log, 4 random
players) and the hand-written yardstick (mgt_yardstick.py). The ratio of the two is the
"within 3x" target measured without noise; it differs from the time ratio because the
two programs do not run equally many instructions per cycle. Needs valgrind (Debian's
package); about a minute per 3 games. Figures only: nothing here fails.

Other workloads, counted the same way (a run that plays, less a run that only loads and
warms up): `unicorns`, Unstable Unicorns with 4 random players, no log, seeds 0 to N-1
(per game); `mcts`, the search bot (mcts:200) at the decisions `mcts.py` times (MGT
v0.2, 4 players, greedy play from seed 1, decisions 40, 47, …; N of them), per
iteration: the base run plays the same game to the same point without searching.

`--cache SEEDS` (MGT only) runs cachegrind's cache simulation instead, once per hash seed
0 … SEEDS-1, and prints per round the first-level data-read and instruction misses of each
side (lowest–highest over the seeds) besides the instructions. Time follows misses as well
as instructions (the interpreter ran about 4.2 G instructions a second where the yardstick
ran 7.3 G), but a miss count moves by several per cent with where objects and tables happen
to lie in memory: one seed's count can show 8 % fewer misses for a change that another
seed shows as 1 % more. Compare ranges over a few seeds, never one run.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Optional

HERE = pathlib.Path(__file__).resolve().parent

INTERPRETER = """
import sys
from cgl.interpreter.play.game import play
from cgl.interpreter.check.loader import load
rs = load("mgt")
play(rs, 4, -1, agents=["random"] * 4, record=False)
for seed in range(int(sys.argv[1])):
    play(rs, 4, seed, agents=["random"] * 4, record=False)
"""

YARDSTICK = f"""
import random, sys
sys.path.insert(0, {str(HERE)!r})
import mgt_yardstick as Y
deck = Y.load_deck()
rng = random.Random(0)
for _ in range(int(sys.argv[1])):
    match = Y.Match(4, rng, deck)
    for round_no in range(1, Y.ROUNDS_PER_MATCH + 1):
        match.play_round(round_no)
"""


UNICORNS = """
import sys
from cgl.interpreter.play.game import play
from cgl.interpreter.check.loader import load
rs = load("unicorns")
play(rs, 4, -1, agents=["random"] * 4, record=False)
for seed in range(int(sys.argv[1])):
    play(rs, 4, seed, agents=["random"] * 4, record=False)
"""

# the decisions of benchmarks/mcts.py (its defaults), searched only when sys.argv[1] > 0
MCTS = """
import sys
from cgl.interpreter.play.agents import make_agent
from cgl.interpreter.play.game import Game
from cgl.interpreter.check.loader import load
rs = load("mgt")
n = int(sys.argv[1]) or 6
game = Game(rs, 4, 1, forkable=True, record=False)
greedy = [make_agent("greedy", s, 1) for s in range(game.players)]
warm = make_agent("mcts:20", 0, 0)
d = game.start()
k = timed = iterations = 0
while d is not None and timed < n:
    if k >= 40 and (k - 40) % 7 == 0 and len(set(map(str, d.labels))) > 1:
        if timed == 0:
            warm.decide(d)
        if int(sys.argv[1]):
            bot = make_agent("mcts:200", d.player, 1 + k)
            bot.decide(d)
            iterations += bot.iterations
        timed += 1
    d = game.answer(greedy[d.player].decide(d))
    k += 1
print("iterations", iterations)
"""

WORKLOADS = {"mgt": (INTERPRETER, "round", 3), "unicorns": (UNICORNS, "game", 1), "mcts": (MCTS, "iteration", None)}


def count(script: str, games: int, printed: Optional[list] = None) -> int:
    """Instructions callgrind counts for `python script games` (what it prints appended to
    `printed`)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "run.py"
        path.write_text(script)
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", sys.executable, str(path), str(games)],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        found = re.search(r"Collected : (\d+)", out.stderr)
        if out.returncode != 0 or not found:
            raise SystemExit(f"valgrind failed:\n{out.stderr[-2000:]}")
        if printed is not None:
            printed.append(out.stdout)
        return int(found.group(1))


def cache_count(script: str, games: int, seed: int) -> dict:
    """cachegrind's totals for `python script games` under hash seed `seed`: instructions
    (Ir), first-level instruction misses (I1mr) and data-read misses (D1mr)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "run.py"
        path.write_text(script)
        out = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={tmp}/cg.out",
             sys.executable, str(path), str(games)],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": str(seed)})
        totals = cache_totals(out.stderr)
        if out.returncode != 0 or totals is None:
            raise SystemExit(f"valgrind failed:\n{out.stderr[-2000:]}")
        return totals


def cache_totals(summary: str) -> Optional[dict]:
    """Ir, I1mr and D1mr (data reads) from the summary cachegrind prints (None: not found)."""
    text = summary.replace(",", "")
    found = [re.search(pattern, text) for pattern in
             (r"I\s+refs:\s+(\d+)", r"I1\s+misses:\s+(\d+)", r"D1\s+misses:\s+\d+\s+\(\s*(\d+) rd")]
    return dict(zip(("Ir", "I1mr", "D1mr"), (int(f.group(1)) for f in found))) if all(found) else None


def cache_report(games: int, seeds: int) -> None:
    """Per MGT round, each side: instructions and first-level misses, lowest–highest over
    hash seeds 0 … seeds-1 (a run that plays less a run that only loads, per seed)."""
    rounds = 3 * games
    for name, script in (("interpreter", INTERPRETER), ("yardstick", YARDSTICK)):
        runs = []
        for seed in range(seeds):
            base, played = cache_count(script, 0, seed), cache_count(script, games, seed)
            runs.append({k: (played[k] - base[k]) / rounds for k in played})
        shown = [f"{k} {min(r[k] for r in runs) / 1e3:,.0f}–{max(r[k] for r in runs) / 1e3:,.0f} k"
                 for k in ("Ir", "I1mr", "D1mr")]
        print(f"{name:<12} per round ({rounds} rounds, {seeds} seeds): " + ", ".join(shown), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Instructions per MGT v0.2 round: interpreter and yardstick.")
    ap.add_argument("--games", type=int, default=3, help="games (of 3 rounds) per side (default 3); with "
                                                          "--workload mcts, decisions searched")
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="mgt",
                    help="mgt (against the yardstick, default), unicorns (per game), mcts (per search iteration)")
    ap.add_argument("--cache", type=int, metavar="SEEDS", default=0,
                    help="MGT: first-level cache misses per round too (cachegrind), over this many hash seeds")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.cache:
        if args.workload != "mgt":
            raise SystemExit("--cache counts MGT rounds only")
        cache_report(args.games, args.cache)
        return
    if args.workload != "mgt":
        script, unit, per = WORKLOADS[args.workload]
        printed: list = []
        base, played = count(script, 0), count(script, args.games, printed)
        units = per * args.games if per else int(printed[-1].split()[-1])
        print(f"{args.workload}: {(played - base) / units / 1e6:.3f} M instructions per {unit} ({units} {unit}s)")
        return
    rounds = 3 * args.games
    per_round = {}
    for name, script in (("interpreter", INTERPRETER), ("yardstick", YARDSTICK)):
        base, played = count(script, 0), count(script, args.games)
        per_round[name] = (played - base) / rounds
        print(f"{name:<12} {per_round[name] / 1e6:8.1f} M instructions per round ({rounds} rounds)", flush=True)
    ratio = per_round["interpreter"] / per_round["yardstick"]
    print(f"the interpreter runs {ratio:.2f}x the yardstick's instructions (target: within 3x)")


if __name__ == "__main__":
    main(sys.argv[1:])
