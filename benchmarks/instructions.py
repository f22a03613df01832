"""Instructions per MGT v0.2 round, interpreter against the yardstick, counted by valgrind.

    python benchmarks/instructions.py [--games N]

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


def count(script: str, games: int) -> int:
    """Instructions callgrind counts for `python script games`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "run.py"
        path.write_text(script)
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", sys.executable, str(path), str(games)],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        found = re.search(r"Collected : (\d+)", out.stderr)
        if out.returncode != 0 or not found:
            raise SystemExit(f"valgrind failed:\n{out.stderr[-2000:]}")
        return int(found.group(1))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Instructions per MGT v0.2 round: interpreter and yardstick.")
    ap.add_argument("--games", type=int, default=3, help="games (of 3 rounds) per side (default 3)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
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
