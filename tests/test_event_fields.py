"""The table of an emitted event's field: each value's count, share and 95% interval, with
enough digits for a rare value (issue 32: a 0.1965 % flush read "0.1%")."""
from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.analytics.stats import wilson

from conftest import DECK_YAML, HEADER

# 999 common hands and 2 flushes a game: a flush is 2 of 1001 hands, 0.1998 %.
RARE = """
match { rounds 1 }
round { until turn_no >= 1 }
turn {
  phase play {
    repeat 999 { emit hand(kind: "pair", size: 2) }
    repeat 2 { emit hand(kind: "flush", size: 5) }
  }
}
"""


def _run(tmp_path, *extra):
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "rare.cgl"
    path.write_text(HEADER + textwrap.dedent(RARE))
    r = CliRunner().invoke(main, ["simulate", str(path), "-n", "3", "-p", "2", "-s", "1", "-w", "1", *extra])
    assert r.exit_code == 0, r.output
    return r.stdout


def test_a_rare_field_value_keeps_its_digits_and_interval(tmp_path):
    text = _run(tmp_path)
    lo, hi = wilson(6, 3003)
    line = next(x for x in text.splitlines() if x.strip().startswith("flush"))
    assert line.split() == ["flush", "6", "0.200%", f"[{100 * lo:#.3g}%,", f"{100 * hi:#.3g}%]"]
    assert "0.2%" not in line and "by kind" in text and "95% CI" in text


def test_the_field_table_is_in_the_json(tmp_path):
    s = json.loads(_run(tmp_path, "--json"))
    ev = s["endings"]["events"]["hand"]
    flush = ev["shares"]["kind"]["flush"]
    assert flush["count"] == 6 and abs(flush["share"] - 6 / 3003) < 1e-6
    assert [round(x, 6) for x in flush["ci95"]] == [round(x, 6) for x in wilson(6, 3003)]
    size = ev["numbers"]["size"]
    assert size["mean_ci95"][0] < size["mean"] < size["mean_ci95"][1]
