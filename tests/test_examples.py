"""The example rulesets in examples/ play to the end, and the language reference
quotes them (and the shipped rulesets) verbatim.

(a) Every examples/*.cgl is played to the end with random and greedy agents, for a
    few seeds and every player count it allows up to 4, with invariants checked
    after every event.
(b) Every ```cgl block of docs/language.md whose first line is `# from examples/X.cgl`
    (or `# from rulesets/X.cgl`) must appear, line for line, in that file, ignoring
    leading and trailing whitespace on each line: the reference cannot drift from
    code that runs. The same holds for ```yaml blocks quoting card data. A ```cgl block
    that quotes no file must say it is `# planned` (it needs a construct the language
    does not have yet).
"""
from __future__ import annotations

import pathlib
import re

import pytest

from cgl.interpreter.play.game import play
from cgl.interpreter.check.loader import load

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.cgl"))
DOC = ROOT / "docs" / "language.md"
SEEDS = (1, 2, 3)
AGENT_MIXES = (("random",), ("greedy",), ("random", "greedy"))


@pytest.mark.one_engine
def test_there_are_examples():
    assert len(EXAMPLES) >= 5, "examples/ should hold the example rulesets"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_plays_to_the_end(path):
    rs = load(str(path))
    lo, hi = rs.game.min_players, min(rs.game.max_players, 4)
    assert lo <= hi, f"{path.name} cannot be played with 4 players or fewer"
    for players in range(lo, hi + 1):
        for seed in SEEDS:
            for mix in AGENT_MIXES:
                agents = [mix[seat % len(mix)] for seat in range(players)]
                game = play(rs, players=players, seed=seed, agents=agents, check_invariants=True)
                where = f"{path.name}, {players} players, seed {seed}, agents {agents}"
                assert game.state.finished, f"{where}: the game did not finish"
                assert game.result.reason != "unfinished", where
                assert sum(len(z) for z in game.state.zones.values()) == len(rs.cards), where


# ---------------------------------------------------------------- the reference quotes real code

_BLOCK = re.compile(r"^```(cgl|yaml)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_SOURCE = re.compile(r"^#\s*from\s+((?:examples|rulesets)/[\w./-]+\.(?:cgl|yaml))\s*$")


def _all_blocks():
    """(line, language, first line, body lines) of every fenced cgl/yaml block."""
    if not DOC.exists():
        return []
    text = DOC.read_text(encoding="utf-8")
    out = []
    for m in _BLOCK.finditer(text):
        lines = m.group(2).splitlines()
        first = lines[0].strip() if lines else ""
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1), first, lines[1:]))
    return out


def _doc_blocks():
    out = []
    for line_no, _, first, rest in _all_blocks():
        src = _SOURCE.match(first)
        if src:
            out.append((line_no, src.group(1), [l.strip() for l in rest]))
    return out


def _contains(haystack: list, needle: list) -> bool:
    """Is `needle` (stripped lines, blank lines at its ends ignored) a run of `haystack`?"""
    while needle and not needle[0]:
        needle = needle[1:]
    while needle and not needle[-1]:
        needle = needle[:-1]
    if not needle:
        return False
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


@pytest.mark.one_engine
def test_reference_exists_and_quotes_examples():
    assert DOC.exists(), "docs/language.md is missing"
    blocks = _doc_blocks()
    assert len(blocks) >= 40, f"only {len(blocks)} quoted snippets in docs/language.md"


@pytest.mark.one_engine
def test_every_cgl_snippet_is_quoted_or_planned():
    unmarked = [line_no for line_no, lang, first, _ in _all_blocks()
                if lang == "cgl" and not (_SOURCE.match(first) or first.startswith("# planned"))]
    assert not unmarked, (f"docs/language.md: the cgl blocks at lines {unmarked} neither quote "
                          "a file (`# from examples/X.cgl`) nor say `# planned`")


@pytest.mark.one_engine
@pytest.mark.parametrize("line_no, source, lines", _doc_blocks(),
                         ids=lambda v: str(v) if isinstance(v, (int, str)) else None)
def test_doc_snippet_is_verbatim(line_no, source, lines):
    path = ROOT / source
    assert path.exists(), f"docs/language.md:{line_no} quotes {source}, which does not exist"
    haystack = [l.strip() for l in path.read_text(encoding="utf-8").splitlines()]
    assert _contains(haystack, lines), (
        f"docs/language.md:{line_no}: the snippet is not a verbatim excerpt of {source}")


@pytest.mark.one_engine
def test_readme_cgl_snippets_are_verbatim():
    """The README's CGL samples quote real rulesets too, and must not drift from them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quoted = 0
    for m in _BLOCK.finditer(readme):
        lines = m.group(2).splitlines()
        src = _SOURCE.match(lines[0].strip()) if lines else None
        if m.group(1) != "cgl" or not src:
            continue
        quoted += 1
        haystack = [l.strip() for l in (ROOT / src.group(1)).read_text(encoding="utf-8").splitlines()]
        assert _contains(haystack, [l.strip() for l in lines[1:]]), f"README quotes {src.group(1)} inexactly"
    assert quoted >= 1


def test_readme_python_example_runs():
    """The README's Python example is runnable as written."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert "Winner" in out.getvalue() or "No winner" in out.getvalue()
