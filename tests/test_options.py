"""Every option of every shipped ruleset keeps the game sound (issue 17): each option at its
least and at its greatest value plays a few seeded games with invariants on, on both
engines; a value out of an option's range is refused, pointing at the declaration.

The option sets come from `option_sets` / `option_bounds` (interpreter/check/loader.py), the same
cycle `benchmarks/soak.py` plays thousands of games of."""
from __future__ import annotations

import pathlib

import pytest

from cgl.interpreter.base.diagnostics import CglError, render
from cgl.interpreter.play.game import play
from cgl.interpreter.check.loader import load, option_bounds, option_samples, option_sets, option_text

from conftest import load_cached

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.name for p in (ROOT / "rulesets").glob("*.cgl"))
SEEDS = (1, 2)   # a handful: the soak (benchmarks/soak.py) plays thousands


@pytest.mark.parametrize("end", ["least", "greatest"])
@pytest.mark.parametrize("name", SHIPPED)
def test_every_option_at_its_ends_keeps_the_invariants(name, end):
    """Every option of the ruleset at its least (greatest) value at once: seeded games with
    invariants checked end without an error (E012 would name the broken invariant), with
    the fewest players and then the most, random then greedy. (Each option alone at each
    end, and at its middle value, is what the soak plays, thousands of games.)"""
    path = str(ROOT / "rulesets" / name)
    base = load_cached(path)
    at = 0 if end == "least" else 1
    ends = {o: b[at] for o in base.options if (b := option_bounds(base, o)) is not None}
    opts = {o: v for o, v in ends.items() if v != base.option_values[o]}
    # the soak plays this set too (the defaults, `{}`, when every option's default is that end:
    # MGT v0.1 plays 1 round by default, its least)
    assert opts in option_sets(base)
    rs = load_cached(path, opts)
    lo, hi = rs.game.min_players, rs.game.max_players
    for k, seed in enumerate(SEEDS):
        n, agent = (lo, "random") if k % 2 == 0 else (hi, "greedy")
        try:
            play(rs, n, seed=seed, agents=[agent] * n, check_invariants=True, record=False)
        except CglError as e:
            o = "".join(f" -o {k}={option_text(v)}" for k, v in sorted(opts.items()))
            pytest.fail(f"cgl run {path} -p {n} -s {seed}{o} --agent {agent} --check: "
                        f"{e.diagnostics[0].code} {e.diagnostics[0].message}")


@pytest.mark.one_engine
@pytest.mark.parametrize("value, says", [("4", "can only be 8, not 4"), ("12", "can only be 8, not 12")])
def test_mgt_hand_size_other_than_eight_is_refused_at_the_declaration(value, says):
    """MGT-EIGHT, MGT-WIN (decision 22): a winning hand is the whole hand of 8, so another
    hand size is refused (issue 17's `-o hand_size=4`, which broke `eight_cards`), with the
    option's declaration located, not played."""
    for version in ("mgt", "mgt-v0.1"):
        with pytest.raises(CglError) as info:
            load(version, {"hand_size": value})
        d = info.value.diagnostics[0]
        assert (d.code, d.message) == ("E007", f"option `hand_size` {says}")
        assert d.span.path.endswith("mgt.cgl") and d.span.line > 0
        assert "option hand_size: int in 8..8" in render(d)


@pytest.mark.one_engine
def test_a_value_from_the_python_api_is_checked_like_its_text(make_rules):
    """An option given as a number or a bool (the Python API, not the command line) is
    held to the same range as its text: it was taken as it came, out of range or not."""
    body = 'option n: int in 1..3 = 1 "n"\noption on: bool = false "on"\n'
    assert make_rules(body, options={"n": 3, "on": True}).option_values == {"n": 3, "on": True}
    with pytest.raises(CglError) as info:
        make_rules(body, options={"n": 7})
    d = info.value.diagnostics[0]
    assert (d.code, d.message, d.span.line) == ("E007", "option `n` must be between 1 and 3, not 7", 6)


@pytest.mark.one_engine
def test_option_samples_and_sets(make_rules):
    """The cycle the soak plays: the defaults, every option at its least value, every one at
    its greatest, then each option alone at its least, greatest and middle value (each member
    of an enum), no set twice, each set naming only what differs from the defaults (so
    `{"n": 3}` and `{"on": False}` are the defaults, not sets of their own)."""
    rs = make_rules('enum tint { red, green, blue }\n'
                    'option n: int in 1..9 = 3 "n"\noption on: bool = false "on"\n'
                    'option t: tint = green "t"\noption free: int = 4 "free"\n')
    assert option_samples(rs, "n") == [3, 1, 9, 5]
    assert option_samples(rs, "on") == [False, True]
    assert option_samples(rs, "t") == ["green", "red", "blue"]
    assert option_samples(rs, "free") == [4]
    assert option_bounds(rs, "free") is None
    assert option_sets(rs) == [
        {}, {"n": 1, "t": "red"}, {"n": 9, "on": True, "t": "blue"},
        {"n": 1}, {"n": 9}, {"n": 5}, {"on": True}, {"t": "red"}, {"t": "blue"},
    ]
