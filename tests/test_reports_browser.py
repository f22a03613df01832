"""The HTML reports of `cgl simulate --report` and `cgl compare --report` in a real headless
Chromium with the network off (issue 32): each page opens from its file alone, asks for
nothing over the network, starts with its verdict, and every plot on it renders (each
`<img>` decodes to a picture with a size). Full-page screenshots are kept in
`build/screenshots/` (report-simulate.png, report-compare.png; not committed).

Needs matplotlib (the `plot` extra, also in `test`) and the `chromium` package, as the
browser tests of `cgl serve` do: without them these tests are skipped, unless
CGL_REQUIRE_BROWSER=1 (as in CI), where their absence fails them.
"""
from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from cgl.cli.main import main

from test_serve_browser import CHROMIUM, SHOTS, _need_browser


def _need_plots():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.environ.get("CGL_REQUIRE_BROWSER"):
            pytest.fail('CGL_REQUIRE_BROWSER is set but matplotlib is not installed (pip install -e ".[test]")')
        pytest.skip('no matplotlib here (pip install "cgl[plot]")')


def _open(pw, page_path, shot: str) -> dict:
    """Open a report offline; what it asked for beyond its file, its images and its verdict."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        context = browser.new_context(offline=True, viewport={"width": 1100, "height": 900})
        asked = []

        def route(r):
            if r.request.url.startswith(("file:", "data:")):
                r.continue_()
            else:
                asked.append(r.request.url)
                r.abort()
        context.route("**/*", route)
        page = context.new_page()
        page.goto(page_path.as_uri(), wait_until="load")
        images = page.evaluate("""() => [...document.images].map(i => ({alt: i.alt, complete: i.complete,
                                            width: i.naturalWidth, height: i.naturalHeight}))""")
        first = page.evaluate("""() => { const v = document.querySelector('section.verdict');
                                         const i = document.images[0];
                                         return !!v && !!i && !!(v.compareDocumentPosition(i) & 4); }""")
        verdict = page.evaluate("() => [...document.querySelectorAll('section.verdict li')].map(x => x.textContent)")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / shot), full_page=True)
        return {"asked": asked, "images": images, "verdict_first": first, "verdict": verdict}
    finally:
        browser.close()


def _rendered(images: list, wanted: list) -> None:
    alts = [i["alt"] for i in images]
    for name in wanted:
        assert name in alts, f"no plot `{name}` in {alts}"
    broken = [i["alt"] for i in images if not (i["complete"] and i["width"] > 50 and i["height"] > 50)]
    assert not broken, f"plots that did not render: {broken}"


def test_simulate_report_renders_every_plot_offline(tmp_path):
    _need_plots()
    sync_api = _need_browser()
    page = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["simulate", "rulesets/mgt-v0.1.cgl", "-n", "8", "-p", "2", "-s", "1", "-w", "1",
                                  "--skill-trace", "mcts:1..2", "--trace-games", "4", "--report", str(page)])
    assert r.exit_code == 0, r.output
    with sync_api.sync_playwright() as pw:
        got = _open(pw, page, "report-simulate.png")
    assert got["asked"] == []
    _rendered(got["images"], ["win rate by seat", "skill trace", "game length histogram", "score trajectories",
                              "lead changes", "per-card impact, held"])
    assert got["verdict_first"] and len(got["verdict"]) >= 3


def test_compare_report_renders_every_plot_offline(tmp_path):
    _need_plots()
    sync_api = _need_browser()
    page = tmp_path / "c.html"
    r = CliRunner().invoke(main, ["compare", "rulesets/mgt-v0.1.cgl", "rulesets/mgt.cgl", "-n", "8", "-p", "4",
                                  "-s", "1", "-w", "1", "--report", str(page)])
    assert r.exit_code == 0, r.output
    with sync_api.sync_playwright() as pw:
        got = _open(pw, page, "report-compare.png")
    assert got["asked"] == []
    _rendered(got["images"], ["differences of proportions", "differences of means", "win rate by seat, A and B",
                              "game length, A and B", "score trajectories, A and B", "lead changes, A and B",
                              "per-card impact, played, A", "per-card impact, played, B"])
    # the verdict comes first, and every sentence of it carries an interval and Holm's correction
    assert got["verdict_first"] and len(got["verdict"]) >= 4
    assert all("[" in x and "]" in x and "Holm" in x for x in got["verdict"]), got["verdict"]
