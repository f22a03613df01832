"""`cgl serve` end to end in a real headless Chromium (Playwright driving the system's
chromium): two people play rock-paper-scissors to its end in two browser contexts, a
reload reconnects to the same decision, a restarted server resumes the game, and one
person plays MGT against bots. Every WebSocket message a page receives is checked to hold
only what its seat may know. Screenshots of the tables of MGT, Unstable Unicorns and
Kozyablo are kept in `build/screenshots/` (not committed).

Needs the `chromium` package (`.ci/run` installs it with apt-get). Without it these tests
are skipped, unless CGL_REQUIRE_BROWSER=1 (as in CI), where its absence fails them.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import socket
import threading
import time
import urllib.request

import pytest

from cgl.cli.webapp import Server, make_app

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHOTS = ROOT / "build" / "screenshots"
KEY = "browser-test-key-0123456789"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _need_browser():
    if CHROMIUM is None:
        if os.environ.get("CGL_REQUIRE_BROWSER"):
            pytest.fail("CGL_REQUIRE_BROWSER is set but no chromium is installed (apt-get install chromium)")
        pytest.skip("no chromium here (apt-get install chromium); CI runs these tests")
    return pytest.importorskip("playwright.sync_api")


class Served:
    """A real `cgl serve` app under uvicorn on the loopback address, in a thread."""

    def __init__(self, folder, rulesets=()):
        import uvicorn
        self.folder = str(folder)
        self.server = Server(list(rulesets), self.folder, KEY)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.uv = uvicorn.Server(uvicorn.Config(make_app(self.server), host="127.0.0.1", port=self.port,
                                                log_level="warning"))
        self.thread = threading.Thread(target=self.uv.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.uv.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def create(self, **spec):
        req = urllib.request.Request(self.url + "/api/games", data=json.dumps(spec).encode(), method="POST",
                                     headers={"x-cgl-key": KEY, "content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def stop(self):
        self.uv.should_exit = True
        self.thread.join(timeout=20)


def watch(page, seat: str, frames: list):
    """Keep every view the page's WebSocket receives (to check what it was told)."""
    def on_ws(ws):
        ws.on("framereceived", lambda payload: frames.append((seat, payload)))
    page.on("websocket", on_ws)


def check_frames(frames: list):
    """The leak check on the wire: each view a seat was sent shows a zone's cards only when
    the zone is public or the seat's own, the decision's options only to its decider, and
    only log lines addressed to everyone or to that seat."""
    views = 0
    for seat, payload in frames:
        msg = json.loads(payload)
        if msg["type"] != "view":
            continue
        v = msg["view"]
        views += 1
        assert v["you"] == seat
        me = int(seat[1:]) - 1
        for z in v["zones"]:
            if z["cards"] is not None:
                assert z["visibility"] == "public" or (z["visibility"] == "owner" and z["owner"] == seat), z["label"]
        if v["decision"] and v["decision"]["player"] != seat:
            assert "options" not in v["decision"]
        for e in v["log"]:
            assert "to" not in e or me in e["to"], e
    assert views > 0


def shoot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def click_option(page, text: str, timeout=15_000):
    page.locator("#decision button", has_text=text).first.click(timeout=timeout)


def test_two_people_play_rock_paper_scissors_to_the_end(tmp_path):
    sync_api = _need_browser()
    served = Served(tmp_path / "games", [str(ROOT / "examples" / "rps.cgl")])
    frames: list = []
    try:
        g = served.create(ruleset="rps", seats=["human", "human"], seed=4, options={"target": "2"})
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            one, two = browser.new_context(), browser.new_context()
            p1, p2 = one.new_page(), two.new_page()
            watch(p1, "P1", frames)
            watch(p2, "P2", frames)
            p1.goto(served.url + g["links"]["P1"])
            p2.goto(served.url + g["links"]["P2"])
            # round 1: P1 shows paper; a reload of P2's tab reconnects to the same decision
            click_option(p1, "paper")
            p2.locator("#decision h2").wait_for(timeout=15_000)
            asked = p2.locator("#decision h2").inner_text()
            p2.reload()
            p2.locator("#decision h2", has_text=asked).wait_for(timeout=15_000)
            click_option(p2, "rock")
            # round 2, after a server restart: the game resumes from its save
            p1.locator("#decision button", has_text="paper").wait_for(timeout=15_000)
            served.stop()
            served = Served(tmp_path / "games", [str(ROOT / "examples" / "rps.cgl")])
            assert not served.server.problems
            p1.goto(served.url + g["links"]["P1"])
            p2.goto(served.url + g["links"]["P2"])
            click_option(p1, "paper")
            click_option(p2, "rock")
            for page in (p1, p2):
                page.locator("#decision", has_text="Winner: P1").wait_for(timeout=15_000)
            shoot(p1, "rps-P1")
            # the designer's seat: everything, and the undo list
            host = browser.new_page()
            host.goto(f"{served.url}/host/{g['id']}?key={KEY}")
            host.locator("#designer select option").first.wait_for(state="attached", timeout=15_000)
            assert "Designer's view" in host.locator("#status").inner_text()
            assert host.locator("#designer select option").count() >= 4
            shoot(host, "rps-designer")
            browser.close()
    finally:
        served.stop()
    check_frames(frames)


def test_one_person_plays_a_round_of_mgt_against_bots_and_the_tables_are_legible(tmp_path):
    sync_api = _need_browser()
    served = Served(tmp_path / "games")
    frames: list = []
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            watch(page, "P1", frames)
            # (seed 10: no question in the deal, P1 first asked with eight cards in hand)
            g = served.create(ruleset="mgt", seats=["human", "greedy", "random"], seed=10, options={"rounds": "1"})
            page.goto(served.url + g["links"]["P1"])
            page.locator("#zones .zone.mine").wait_for(timeout=15_000)
            assert "You are P1" in page.locator("#status").inner_text()
            assert page.locator("#zones .zone.mine .card").count() >= 8
            shoot(page, "mgt-P1")
            for _ in range(400):      # answer every decision with its first option until the round ends
                box = page.locator("#decision")
                if "The game is over" in box.inner_text():
                    break
                buttons = box.locator("button")
                if buttons.count() == 0:
                    page.wait_for_timeout(50)
                    continue
                before = page.evaluate("view.decision_no")
                buttons.first.click()
                page.wait_for_function(f"view.decision_no !== {before} || view.over", timeout=30_000)
            assert "The game is over" in page.locator("#decision").inner_text()
            for name, seats in (("unicorns", ["human", "random", "random"]), ("kozyablo", ["human", "random"])):
                g = served.create(ruleset=name, seats=seats, seed=3)
                page.goto(served.url + g["links"]["P1"])
                page.locator("#decision h2").wait_for(timeout=30_000)
                assert page.locator("#zones .zone").count() > 2
                shoot(page, f"{name}-P1")
            browser.close()
    finally:
        served.stop()
    check_frames(frames)


def test_a_replay_page_steps_through_every_decision_offline(tmp_path):
    """`cgl replay --html` of a logged MGT game opens with the network off and steps through
    every decision, with a seat selector."""
    sync_api = _need_browser()
    from click.testing import CliRunner
    from cgl.cli.main import main
    log, page_file = tmp_path / "game.jsonl", tmp_path / "game.html"
    assert CliRunner().invoke(main, ["run", "mgt", "-p", "3", "-s", "2", "-o", "rounds=1", "-q",
                                     "--log", str(log)]).exit_code == 0
    assert CliRunner().invoke(main, ["replay", "--html", str(log), "-o", str(page_file)]).exit_code == 0
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        ctx = browser.new_context(offline=True, viewport={"width": 1200, "height": 900})
        asked = []
        ctx.route("**/*", lambda route: (asked.append(route.request.url),
                                         route.continue_() if route.request.url.startswith("file:") else route.abort()))
        page = ctx.new_page()
        problems = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(page_file.as_uri())
        page.locator("#frame").wait_for(timeout=15_000)
        n = int(page.locator("#frame").get_attribute("max")) + 1
        assert n > 10
        for k in range(1, n):
            page.keyboard.press("ArrowRight")
            assert page.evaluate("frame") == k
        assert "The game is over" in page.locator("#decision").inner_text()
        page.select_option("#seat", "P2")
        page.locator("#designer button", has_text="« start").click()
        assert "Replay as P2" in page.locator("#status").inner_text()
        hidden = page.locator("#zones .zone", has_text="hand P1")
        assert hidden.locator(".card.back").count() > 0        # P1's hand as backs, seen as P2
        page.locator("#designer button", has_text="end »").click()
        shoot(page, "replay-mgt-P2")
        browser.close()
    assert not problems, problems
    assert all(u.startswith("file:") for u in asked), asked


def test_cards_of_a_colour_are_drawn_in_it(tmp_path):
    """A group named after a colour (examples/switchback.cgl's `colour`: red, green, blue,
    gold) colours its cards; another group gets a hue of its own."""
    sync_api = _need_browser()
    served = Served(tmp_path / "games", [str(ROOT / "examples" / "switchback.cgl")])
    try:
        g = served.create(ruleset="switchback", seats=["human", "random"], seed=1)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(served.url + g["links"]["P1"])
            page.locator("#zones .zone.mine .card").first.wait_for(timeout=15_000)
            colours = page.evaluate("""[...document.querySelectorAll('#zones .zone.mine .card')].map(
                c => [c.querySelector('.group').textContent, getComputedStyle(c).borderTopColor])""")
            shoot(page, "switchback-P1")
            browser.close()
    finally:
        served.stop()
    expected = {"red": "rgb(255, 0, 0)", "green": "rgb(0, 128, 0)", "blue": "rgb(0, 0, 255)", "gold": "rgb(255, 215, 0)"}
    assert colours and all(expected[group] == colour for group, colour in colours), colours


def test_a_card_with_a_picture_shows_it_and_one_without_shows_its_text(tmp_path):
    """The card data's `images: art/` names a picture per card by its name
    (docs/language.md section 11): the red cards have one, the others do not."""
    sync_api = _need_browser()
    folder = tmp_path / "switchback"
    folder.mkdir()
    shutil.copy(ROOT / "examples" / "switchback.cgl", folder)
    data = (ROOT / "examples" / "switchback-cards.yaml").read_text()
    (folder / "switchback-cards.yaml").write_text(data + "\nimages: art/\n")
    (folder / "art").mkdir()
    for line in data.splitlines():
        if 'name: "red ' in line:
            name = line.split('name: "', 1)[1].split('"', 1)[0]
            (folder / "art" / f"{name}.svg").write_text(
                '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="60"><rect width="40" height="60" '
                'fill="#c33"/></svg>')
    served = Served(tmp_path / "games", [str(folder / "switchback.cgl")])
    try:
        for seed in range(1, 40):     # a seed that deals P1 a red card and another
            g = served.create(ruleset="switchback", seats=["human", "random"], seed=seed)
            hand = next(z for z in served.server.rooms[g["id"]].game.view(0)["zones"] if z["label"] == "hand P1")
            if len({c["group"] == "red" for c in hand["cards"]}) == 2:
                break
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(served.url + g["links"]["P1"])
            page.locator("#zones .zone.mine .card img").first.wait_for(timeout=15_000)
            page.wait_for_function("""[...document.querySelectorAll('#zones .zone.mine .card img')]
                                      .every(i => i.complete && i.naturalWidth > 0)""", timeout=15_000)
            cards = page.evaluate("""[...document.querySelectorAll('#zones .zone.mine .card')].map(c => [
                c.querySelector('.group').textContent, c.querySelector('.name').textContent,
                c.querySelector('img') ? c.querySelector('img').naturalWidth : null])""")
            shoot(page, "switchback-pictures-P1")
            browser.close()
    finally:
        served.stop()
    assert {group == "red" for group, _, _ in cards} == {True, False}, cards
    for group, name, width in cards:
        assert name                                              # the name is written on every card
        assert (width == 40) if group == "red" else (width is None), (group, name, width)


def test_the_members_of_an_enum_that_are_no_colours_get_distinct_colours(tmp_path):
    """examples/actions.cgl groups its cards by `kind` (strike, heal, guard, drain): no
    colour names, so each member gets the palette's colour of its place in the enum (a hue
    hashed from the name gave guard and drain nearly the same one)."""
    sync_api = _need_browser()
    served = Served(tmp_path / "games", [str(ROOT / "examples" / "actions.cgl")])
    palette = ["rgb(0, 114, 178)", "rgb(230, 159, 0)", "rgb(0, 158, 115)", "rgb(204, 121, 167)"]
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            seen: dict = {}
            for seed in range(1, 8):
                g = served.create(ruleset="actions", seats=["human", "random"], seed=seed)
                page.goto(served.url + g["links"]["P1"])
                page.locator("#zones .zone.mine .card").first.wait_for(timeout=15_000)
                for group, colour in page.evaluate("""[...document.querySelectorAll('#zones .card')]
                        .filter(c => c.querySelector('.group'))
                        .map(c => [c.querySelector('.group').textContent, getComputedStyle(c).borderTopColor])"""):
                    seen.setdefault(group, set()).add(colour)
                if len(seen) == 4:
                    break
            browser.close()
    finally:
        served.stop()
    order = ["strike", "heal", "guard", "drain"]
    assert len(seen) >= 3, seen
    assert all(colours == {palette[order.index(group)]} for group, colours in seen.items()), seen
