"""How long `cgl lint` takes on every shipped ruleset, after start-up.

    python benchmarks/lint_speed.py [REPEATS]

Prints milliseconds per file (best of REPEATS) and the total. Start-up (importing cgl
and building the parser) is measured separately, since it is paid once per command.
"""
from __future__ import annotations

import pathlib
import sys
import time

t0 = time.perf_counter()
from cgl.grammar import parser  # noqa: E402
from cgl.interpreter.check.lint import collect_files, lint_file  # noqa: E402

parser()
startup = time.perf_counter() - t0
ROOT = pathlib.Path(__file__).resolve().parent.parent


def main(repeats: int = 5) -> None:
    files = collect_files([str(ROOT / "rulesets")] + ([str(ROOT / "examples")] if (ROOT / "examples").is_dir() else []))
    print(f"start-up (imports and grammar): {startup * 1000:.0f} ms")
    total = 0.0
    for f in files:
        best = min(_time(f) for _ in range(repeats))
        total += best
        print(f"{pathlib.Path(f).relative_to(ROOT)!s:<40} {best * 1000:7.1f} ms")
    print(f"{'all ' + str(len(files)) + ' files':<40} {total * 1000:7.1f} ms")


def _time(f):
    t = time.perf_counter()
    lint_file(f)
    return time.perf_counter() - t


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
