"""How fast `cgl serve` answers: many games at once, each with bots and one scripted person.

Starts `cgl serve` as its own process on the loopback address, creates GAMES games of a
ruleset (one person's seat, the rest bots), and connects one WebSocket client per game, all
at once. Each client answers its decisions with the first option (or "no"), at once (the
server's worst case: every client waiting on it together) or after a person's thinking time
(`--think`), and times each answer until the view that follows it arrives: the time the
person would wait, the bots' moves included. Prints the median and the 95th percentile.

    python benchmarks/serve.py                 # 50 games of MGT, 3 seats (1 person, 2 greedy bots)
    python benchmarks/serve.py --games 10 --answers 20 --ruleset unicorns --bots random,random
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(folder: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "cgl.cli.main", "serve", "--port", str(port), "--games", folder],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    while line and "Lobby" not in line:
        line = proc.stdout.readline()
    if not line:
        raise SystemExit("cgl serve did not start: " + proc.stdout.read())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:   # (the lobby line comes just before uvicorn listens)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.1)
    raise SystemExit("cgl serve did not answer")


def _cpu(pid: int) -> float:
    """The CPU seconds (user + system) process `pid` has used so far (Linux's /proc; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _create(port: int, key: str, ruleset: str, bots: list, seed: int) -> dict:
    body = json.dumps({"ruleset": ruleset, "seats": ["human", *bots], "seed": seed}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/games", data=body, method="POST",
                                 headers={"x-cgl-key": key, "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


async def _client(port: int, link: str, answers: int, waits: list, think: float, rng) -> None:
    url = f"ws://127.0.0.1:{port}/ws/" + link.split("/play/", 1)[1]
    async with websockets.connect(url, max_size=None) as ws:
        view = json.loads(await ws.recv())["view"]
        given = 0
        while given < answers and not view["over"]:
            d = view["decision"]
            if d is None or d["player"] != view["you"] or "options" not in d:
                view = json.loads(await ws.recv())["view"]
                continue
            answer = False if d["kind"] == "may" else (list(range(d["min"])) if d["max"] > 1 else 0)
            if think:   # a person reads the table before answering (half to one and a half times `think`)
                await asyncio.sleep(think * (0.5 + rng.random()))
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "answer", "decision": view["decision_no"], "answer": answer}))
            while True:
                msg = json.loads(await ws.recv())
                if msg["type"] == "error":
                    raise SystemExit(f"the server refused an answer: {msg['message']}")
                if msg["view"]["decision_no"] > view["decision_no"] or msg["view"]["over"]:
                    break
            waits.append(time.perf_counter() - sent)
            view = msg["view"]
            given += 1


async def _run(port: int, links: list, answers: int, think: float) -> list:
    import random
    waits: list = []
    await asyncio.gather(*(_client(port, link, answers, waits, think, random.Random(i)) for i, link in enumerate(links)))
    return waits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--answers", type=int, default=30, help="answers each person gives (default 30)")
    ap.add_argument("--ruleset", default="mgt")
    ap.add_argument("--bots", default="greedy,greedy", help="the other seats' bots, comma-separated")
    ap.add_argument("--think", type=float, default=0.0,
                    help="seconds a person takes to answer, on average (default 0: every client answers at "
                         "once, the server's worst case)")
    args = ap.parse_args()
    bots = [b for b in args.bots.split(",") if b]
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        proc = _start(folder, port)
        try:
            with open(os.path.join(folder, "host.key"), encoding="utf-8") as f:
                key = f.read().strip()
            t0 = time.perf_counter()
            links = [_create(port, key, args.ruleset, bots, seed)["links"]["P1"] for seed in range(args.games)]
            made = time.perf_counter() - t0
            t0, cpu0 = time.perf_counter(), _cpu(proc.pid)
            waits = asyncio.run(_run(port, links, args.answers, args.think))
            took, cpu = time.perf_counter() - t0, _cpu(proc.pid) - cpu0
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    waits.sort()
    p95 = waits[min(len(waits) - 1, int(round(0.95 * (len(waits) - 1))))]
    print(f"cgl serve: {args.games} games of {args.ruleset} at once (1 person + {len(bots)} bots: {args.bots}; "
          f"{'answers at once' if not args.think else f'a person thinks {args.think:g} s'}), "
          f"{len(waits)} answers in {took:.1f} s ({len(waits) / took:.0f} answers/s); "
          f"games created in {made:.1f} s")
    print(f"time from an answer to the next view: median {1000 * statistics.median(waits):.1f} ms, "
          f"95th percentile {1000 * p95:.1f} ms, max {1000 * waits[-1]:.1f} ms")
    print(f"the server's CPU time per answer (the bots' moves, the save and the views included): "
          f"{1000 * cpu / len(waits):.2f} ms")


if __name__ == "__main__":
    main()
