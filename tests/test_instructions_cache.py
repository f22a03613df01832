"""`benchmarks/instructions.py --cache` reads cachegrind's summary: the totals it needs, from
valgrind's comma-grouped figures (the data misses: the reads' share, not reads and writes)."""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))

import instructions  # noqa: E402

SUMMARY = """==8250== I   refs:      4,143,620,791
==8250== I1  misses:       40,289,928
==8250== LLi misses:           20,017
==8250== D   refs:      1,950,043,808  (1,310,097,848 rd   + 639,945,960 wr)
==8250== D1  misses:       35,501,707  (   30,475,804 rd   +   5,025,903 wr)
==8250== LLd misses:          607,532  (       49,053 rd   +     558,479 wr)
"""


def test_cache_totals_reads_the_summary():
    assert instructions.cache_totals(SUMMARY) == {"Ir": 4143620791, "I1mr": 40289928, "D1mr": 30475804}


def test_cache_totals_without_a_summary_is_none():
    assert instructions.cache_totals("valgrind: no such tool") is None
