"""Skill studies: how much a bot wins beyond its fair share, and what that costs in time.

    python benchmarks/skill.py                                # every shipped ruleset, 2 players:
                                                              #   mcts:200 vs random and vs greedy, 200 games each
    python benchmarks/skill.py mgt unicorns --vs greedy -n 200
    python benchmarks/skill.py mgt -p 4 --bot mcts:100 --vs greedy -n 100     # one search seat against three
    python benchmarks/skill.py monkic --bot mcts:50 -n 40 --workers 1
    python benchmarks/skill.py unicorns --vs greedy --keep uu.jsonl.gz   # stop it any time; run again to go on

Each study is what `cgl simulate RULESET -n N -p P --skill BOT,VS` plays: a seat-rotated
tournament (the bot at seat ((i - 1) mod P) + 1 in game i, VS at the others), the games
seeded from `--seed` as `cgl simulate` seeds them, on local processes (`--workers`,
default one per core) or a Dask cluster (`--dask ADDRESS`). For each it prints the
bot's win rate, the skill gap (win rate minus the fair share 1/P) with its 95% interval
(Wilson, shifted), the exact binomial test's p-value, the games without a winner, the
wall time, and the time per game and per bot decision. Not a test: figures.

A long study can be played in parts (`--keep FILE`): each part of `--part` games is added
to FILE (gzip-compressed if its name ends in .gz) as it ends, and the same command goes
on from the first game not yet kept, with the same figures as one run (a game's record
depends only on the batch and its number). Each part names its study: the ruleset and a
hash of its text, the players, the bot, the opponents, the seed and the search bot's
revision (`mcts.REVISION`, bumped whenever a change alters its answers); a file holding
another study is refused, so games of two rule texts or two versions of the bot never mix.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import pathlib
import platform
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHIPPED = ["mgt", "mgt-v0.1", "unicorns", "monkic", "kozyablo"]


def _open(path: str, mode: str):
    """A kept study's file: gzip-compressed when its name ends in .gz (a part appended is
    one more gzip member; the file reads as one)."""
    if path.endswith(".gz"):
        return gzip.open(path, mode, encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def kept_parts(keep: str, key: dict) -> tuple:
    """The records and wall seconds of the parts of study `key` already played into file
    `keep` (JSON lines, one per part), games 1..k in order."""
    records, wall = [], 0.0
    if not os.path.exists(keep):
        return records, wall
    with _open(keep, "rt") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                part = json.loads(line)
            except ValueError:
                sys.exit(f"{keep}:{n}: not a line this script wrote (not JSON); move the file away")
            if part.get("study") != key:
                sys.exit(f"{keep}:{n}: a part of another study ({part.get('study')}); "
                         f"give this one its own --keep file")
            records.extend(part["records"])
            wall += part["wall"]
    records.sort(key=lambda r: r["game"])
    if [r["game"] for r in records] != list(range(1, len(records) + 1)):
        sys.exit(f"{keep}: its games are not 1..{len(records)} in order; move the file away")
    return records, wall


def study(name: str, players: int, bot: str, vs: str, games: int, seed: int, workers, dask,
          keep=None, part: int = 20) -> dict:
    from cgl.interpreter.analytics import simulate as sim
    from cgl.interpreter.check.loader import load, resolve, ruleset_hash
    from cgl.interpreter.play.mcts import REVISION

    path = os.path.abspath(resolve(name))
    rs = load(path)
    spec = sim.BatchSpec.make(path, {}, players, [bot] + [vs] * (players - 1), seed,
                              score=sim.default_score(rs), rotate=True)
    sim.remember_ruleset(spec, rs)
    if keep is None:
        t0 = time.time()
        records = sim.run_batch(spec, games, workers=workers, dask=dask)
        wall = time.time() - t0
    else:
        key = {"ruleset": name, "ruleset_sha256": ruleset_hash(rs), "players": players, "bot": bot, "vs": vs,
               "seed": seed, "mcts_revision": REVISION}
        records, wall = kept_parts(keep, key)
        records = records[:games]
        while len(records) < games:
            n = min(part, games - len(records))
            t0 = time.time()
            new = sim.run_batch(spec, n, workers=workers, dask=dask, first=len(records) + 1)
            dt = time.time() - t0
            with _open(keep, "at") as f:
                f.write(json.dumps({"study": key, "wall": dt, "records": new}) + "\n")
            records += new
            wall += dt
            g = sim.skill_gap(spec, records)
            so_far = "" if not g or g["all"] is None else (
                f" (so far {bot} wins {100 * g['all']['win_rate']:.1f}%, p = {g['all']['p']:.2g})")
            print(f"  {name} {bot} vs {vs}: {len(records)} of {games} games kept in {keep}{so_far}", flush=True)
    gap = sim.skill_gap(spec, records)
    failed = [r for r in records if r.get("error")]
    decisions = sum(r["decisions"] for r in records)
    return {"ruleset": name, "players": players, "bot": bot, "vs": vs, "games": len(records), "gap": gap,
            "failed": len(failed), "first_error": failed[0]["error"] if failed else None, "wall": wall,
            "decisions": decisions}


def show(r: dict) -> str:
    g = r["gap"]["all"] if r["gap"] else None
    if g is None:
        return f"{r['ruleset']:9} {r['players']}p  {r['bot']} vs {r['vs']}: no game finished ({r['failed']} failed)"
    lo, hi = g["gap_ci95"]
    sig = "p < 0.05" if g["p"] < 0.05 else "not significant"
    return (f"{r['ruleset']:9} {r['players']}p  {r['bot']} vs {r['vs']}: {r['games']} games "
            f"({r['gap']['undecided']} undecided, {r['failed']} failed), {r['bot']} wins "
            f"{100 * g['win_rate']:.1f}% against a fair {100 * r['gap']['fair']:.0f}%: gap {100 * g['gap']:+.1f} points "
            f"[{100 * lo:+.1f}, {100 * hi:+.1f}], p = {g['p']:.2g} ({sig}); "
            f"{r['wall']:.0f} s wall, {r['wall'] / max(1, r['games']):.1f} s per game")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rulesets", nargs="*", default=SHIPPED)
    ap.add_argument("-p", "--players", type=int, default=2)
    ap.add_argument("--bot", default="mcts:200", help="the agent whose skill is measured (default mcts:200)")
    ap.add_argument("--vs", action="append", help="the agent at the other seats (repeatable; "
                                                  "default: random, then greedy)")
    ap.add_argument("-n", "--games", type=int, default=200)
    ap.add_argument("-s", "--seed", type=int, default=1)
    ap.add_argument("-w", "--workers", type=int, default=None)
    ap.add_argument("--dask", default=None, help="the address of a Dask scheduler")
    ap.add_argument("--keep", default=None, metavar="FILE",
                    help="play in parts of --part games, each added to FILE as it ends; run again with the same "
                         "FILE to go on where it stopped (one study per file; its wall time is the parts' sum)")
    ap.add_argument("--part", type=int, default=20, help="games per part with --keep (default 20)")
    args = ap.parse_args(argv)
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, workers {args.workers or 'one per core'}"
          f"{', Dask ' + args.dask if args.dask else ''}; seed {args.seed}", flush=True)
    bad = 0
    opponents = args.vs or ["random", "greedy"]
    for name in args.rulesets:
        for vs in opponents:
            keep = args.keep
            if keep is not None and len(args.rulesets) * len(opponents) > 1:
                # one file per study, its name's ending kept (.jsonl.gz stays compressed)
                stem, ext = (keep[:-9], keep[-9:]) if keep.endswith(".jsonl.gz") else os.path.splitext(keep)
                keep = f"{stem}.{name}.{vs}{ext}"
            r = study(name, args.players, args.bot, vs, args.games, args.seed, args.workers, args.dask, keep,
                      args.part)
            print(show(r), flush=True)
            if r["failed"]:
                print(f"  first failure: {r['first_error']}", flush=True)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT.parent))
    sys.exit(main())
