"""`cgl serve` (cli/webapp.py) through its HTTP and WebSocket API, with Starlette's test
client: the lobby is the host's, a seat's link shows that seat's view only and answers that
seat's decisions only, bad answers are messages, and a restarted server resumes its games."""
from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from cgl.cli.webapp import MAX_BODY, Server, encode, make_app

KEY = "k" * 22


@pytest.fixture
def server(tmp_path):
    return Server([], str(tmp_path / "games"), KEY)


def client(server):
    return TestClient(make_app(server))


def create(c, **spec):
    r = c.post("/api/games", json=spec, headers={"x-cgl-key": KEY})
    assert r.status_code == 201, r.text
    return r.json()


def replay_data(page: str) -> dict:
    blob = page[page.index("window.CGL_REPLAY = ") + len("window.CGL_REPLAY = "):page.index(";</script>")]
    return json.loads(blob.replace("<\\/", "</"))


def token(link):
    return link.rsplit("/", 1)[1]


def test_the_lobby_and_its_api_are_the_hosts(server):
    c = client(server)
    assert c.get("/lobby").status_code == 403
    assert c.get("/lobby?key=wrong").status_code == 403
    assert c.get(f"/lobby?key={KEY}").status_code == 200
    assert c.post("/api/games", json={"ruleset": "mgt", "seats": ["human", "human"]}).status_code == 403
    r = c.get("/api/rulesets", headers={"x-cgl-key": KEY}).json()
    names = {x["name"] for x in r["rulesets"]}
    assert {"mgt", "unicorns", "kozyablo", "monkic"} <= names


def test_a_game_of_two_people_each_sees_only_their_seat(server):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "human"], seed=3)
    assert set(g["links"]) == {"P1", "P2"}
    gid = g["id"]
    t1, t2 = token(g["links"]["P1"]), token(g["links"]["P2"])
    assert c.get(g["links"]["P1"]).status_code == 200       # the table page
    v1 = c.get(f"/api/view/{gid}/{t1}").json()
    v2 = c.get(f"/api/view/{gid}/{t2}").json()
    assert v1["you"] == "P1" and v2["you"] == "P2"
    hands1 = {z["label"]: z["cards"] for z in v1["zones"] if z["zone"] == "hand"}
    assert hands1["hand P1"] is not None and hands1["hand P2"] is None
    waiting = v1 if (v1["decision"] or {}).get("player") == "P1" else v2
    other = v2 if waiting is v1 else v1
    # (the other sees who decides, or nothing of an optional trigger's question: MGT's deal)
    assert "options" in waiting["decision"] and "options" not in (other["decision"] or {})
    # the other seat may not answer; a stale or malformed answer is a message, not a crash
    tw, to = (t1, t2) if waiting is v1 else (t2, t1)
    n = waiting["decision_no"]
    r = c.post(f"/api/answer/{gid}/{to}", json={"decision": n, "answer": 0})
    assert r.status_code == 403 and "not yours" in r.json()["error"]
    r = c.post(f"/api/answer/{gid}/{tw}", json={"decision": n + 5, "answer": 0})
    assert r.status_code == 409
    r = c.post(f"/api/answer/{gid}/{tw}", json={"decision": n, "answer": "zero"})
    assert r.status_code == 400 and "error" in r.json()
    r = c.post(f"/api/answer/{gid}/{tw}", json={"decision": n, "answer": 999})
    assert r.status_code == 400 and "error" in r.json()
    r = c.post(f"/api/answer/{gid}/{tw}", content=b"{not json")
    assert r.status_code == 400
    r = c.post(f"/api/answer/{gid}/{tw}", content=b" " * (MAX_BODY + 1))
    assert r.status_code == 413
    d = waiting["decision"]
    good = False if d["kind"] == "may" else 0
    r = c.post(f"/api/answer/{gid}/{tw}", json={"decision": n, "answer": good})
    assert r.status_code == 200, r.text
    assert r.json()["decision_no"] == n + 1


def test_bad_tokens_and_games_are_not_found(server):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "random"], seed=1)
    gid = g["id"]
    assert c.get(f"/api/view/{gid}/nope").status_code == 404
    assert c.get(f"/api/view/nogame/{token(g['links']['P1'])}").status_code == 404
    assert c.get(f"/play/{gid}/nope").status_code == 404
    assert "P2" not in g["links"]          # a bot's seat has no link


def test_bad_games_are_refused_with_reasons(server):
    c = client(server)
    h = {"x-cgl-key": KEY}
    for spec, words in [({"ruleset": "/etc/passwd", "seats": ["human"]}, "no ruleset"),
                        ({"ruleset": "mgt", "seats": ["human"] * 9}, "players"),
                        ({"ruleset": "mgt", "seats": ["human", "grandmaster"]}, "unknown agent"),
                        ({"ruleset": "mgt", "seats": ["human", "human"], "options": {"rounds": "lots"}}, "rounds"),
                        ({"ruleset": "mgt", "seats": ["human", "human"], "seed": "x"}, "seed")]:
        r = c.post("/api/games", json=spec, headers=h)
        assert r.status_code == 400 and words in r.json()["error"], (spec, r.text)


def test_a_message_is_the_json_the_standard_library_writes(server):
    """The views go out through orjson; the text is the compact JSON `json.dumps` writes, and
    what orjson refuses (an integer past 64 bits, a key that is no string) still goes out."""
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "greedy"], seed=5)
    room = server.rooms[g["id"]]
    for msg in ({"type": "view", "view": room.view(0, 0), "reset": False},
                {"type": "error", "message": "pick \"one\"\né  "},
                {"big": 2 ** 70, "keys": {1: True}}):
        assert encode(msg) == json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def test_the_websocket_sends_views_and_takes_answers(server):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "greedy"], seed=5)
    gid, t1 = g["id"], token(g["links"]["P1"])
    with c.websocket_connect(f"/ws/{gid}/{t1}") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "view" and msg["view"]["you"] == "P1"
        v = msg["view"]
        assert v["decision"]["player"] == "P1"        # the bot has played up to P1's decision
        ws.send_text("{bad")
        assert ws.receive_json()["type"] == "error"
        ws.send_text(json.dumps({"type": "answer", "decision": v["decision_no"], "answer": "x"}))
        assert ws.receive_json()["type"] == "error"
        d = v["decision"]
        ws.send_text(json.dumps({"type": "answer", "decision": v["decision_no"],
                                 "answer": False if d["kind"] == "may" else 0}))
        nxt = ws.receive_json()
        assert nxt["type"] == "view" and nxt["view"]["decision_no"] > v["decision_no"]
        # only new log lines follow the first view, and only printed data not sent before
        assert all(e["step"] > v["log"][-1]["step"] for e in nxt["view"]["log"])
        assert not set(nxt["view"]["cards"]) & set(v["cards"])
        named = {c["name"] for z in nxt["view"]["zones"] for c in z["cards"] or ()}
        assert named and named <= set(v["cards"]) | set(nxt["view"]["cards"])
    with pytest.raises(Exception):
        with c.websocket_connect(f"/ws/{gid}/wrong") as ws:
            ws.receive_json()


def test_a_restarted_server_resumes_every_game(server, tmp_path):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "random"], seed=8)
    gid, t1 = g["id"], token(g["links"]["P1"])
    for _ in range(6):
        v = c.get(f"/api/view/{gid}/{t1}").json()
        d = v["decision"]
        if v["over"] or d["player"] != "P1":
            break
        r = c.post(f"/api/answer/{gid}/{t1}", json={"decision": v["decision_no"],
                                                      "answer": False if d["kind"] == "may" else 0})
        assert r.status_code == 200
    before = c.get(f"/api/view/{gid}/{t1}?since=0").json()
    again = Server([], str(tmp_path / "games"), KEY)
    assert not again.problems
    c2 = client(again)
    after = c2.get(f"/api/view/{gid}/{t1}?since=0").json()
    assert after == before


def test_serve_refuses_a_port_in_use_with_help(tmp_path):
    import socket
    from click.testing import CliRunner
    from cgl.cli.main import main
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = CliRunner().invoke(main, ["serve", "--port", str(port), "--games", str(tmp_path / "g")])
    assert r.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in r.output and "--port" in r.output
    assert (tmp_path / "g" / "host.key").exists()


def test_the_designers_seat_sees_everything_undoes_and_hands_over_to_bots(server):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "human"], seed=3)
    gid = g["id"]
    assert c.get(f"/host/{gid}").status_code == 403              # the host's key is needed
    assert c.get(f"/host/{gid}?key={KEY}").status_code == 200
    with pytest.raises(Exception):
        with c.websocket_connect(f"/ws/host/{gid}?key=wrong") as ws:
            ws.receive_json()
    tokens = {s: token(link) for s, link in g["links"].items()}
    with c.websocket_connect(f"/ws/host/{gid}?key={KEY}") as ws:
        v = ws.receive_json()["view"]
        assert v["you"] is None and all(z["cards"] is not None for z in v["zones"])   # every card
        first = v["decision_no"]
        for _ in range(3):          # the people answer three decisions
            seat_view = c.get(f"/api/view/{gid}/{tokens[v['decision']['player']]}").json()
            d = seat_view["decision"]     # (a seat answers by its own decisions' number)
            r = c.post(f"/api/answer/{gid}/{tokens[d['player']]}",
                       json={"decision": seat_view["decision_no"], "answer": False if d["kind"] == "may" else 0})
            assert r.status_code == 200
            v = ws.receive_json()["view"]
        assert v["decision_no"] == first + 3 and len(v["history"]) == first + 4
        ws.send_json({"type": "undo", "to": first + 1})
        msg = ws.receive_json()
        assert msg["reset"] and msg["view"]["decision_no"] == first + 1
        ws.send_json({"type": "undo", "to": 10_000})
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "bots"})
        end = ws.receive_json()["view"]
        assert end["over"] and end["decision"] is None          # the bots played it to the end


def test_a_seat_replays_the_game_as_it_saw_it_and_the_host_sees_all(server):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "greedy"], seed=5, options={"rounds": "1"})
    gid, t1 = g["id"], token(g["links"]["P1"])
    for _ in range(3):
        v = c.get(f"/api/view/{gid}/{t1}").json()
        d = v["decision"]
        c.post(f"/api/answer/{gid}/{t1}", json={"decision": v["decision_no"],
                                                  "answer": False if d["kind"] == "may" else 0})
    mine = c.get(f"/replay/{gid}/{t1}")
    assert mine.status_code == 200
    data = replay_data(mine.text)
    assert all(set(f["views"]) == {"P1"} for f in data["frames"])
    assert c.get(f"/replay/{gid}").status_code == 403
    full = replay_data(c.get(f"/replay/{gid}?key={KEY}").text)
    assert set(full["frames"][0]["views"]) == {"P1", "P2", "all"}
    assert c.get(f"/replay/{gid}/wrong").status_code == 404


def play(c, gid, tok, n):
    """Answer `n` of the seat's decisions with its first option (or no)."""
    for _ in range(n):
        v = c.get(f"/api/view/{gid}/{tok}").json()
        d = v["decision"]
        if v["over"] or d["player"] != "P1":
            return
        r = c.post(f"/api/answer/{gid}/{tok}", json={"decision": v["decision_no"],
                                                      "answer": False if d["kind"] == "may" else 0})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("every", [4, 1000])
def test_a_server_stopped_without_saving_loses_no_answer_and_no_bots_state(server, tmp_path, monkeypatch, every):
    # each answer goes to the game's answer log; the whole save only every `every` answers
    import cgl.cli.webapp as webapp
    monkeypatch.setattr(webapp, "FULL_SAVE_EVERY", every)
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "random", "random"], seed=11)
    gid, t1 = g["id"], token(g["links"]["P1"])
    play(c, gid, t1, 9)
    room = server.rooms[gid]
    if every > 100:
        assert (tmp_path / "games" / f"{gid}.answers").read_text()  # answers the save lacks
    again = Server([], str(tmp_path / "games"), KEY)                  # (the first never stopped)
    assert not again.problems
    twin = again.rooms[gid]
    assert twin.game.answers == room.game.answers
    # the bots' random generators stand where they stood: the game goes on the same
    assert [a.state() for a in twin.agents[1:]] == [a.state() for a in room.agents[1:]]
    play(c, gid, t1, 5)
    play(client(again), gid, t1, 5)
    assert twin.game.answers == room.game.answers


def test_a_line_cut_short_ends_the_answer_log(server, tmp_path):
    c = client(server)
    g = create(c, ruleset="mgt", seats=["human", "random"], seed=2)
    gid, t1 = g["id"], token(g["links"]["P1"])
    play(c, gid, t1, 3)
    log = tmp_path / "games" / f"{gid}.answers"
    n = len(server.rooms[gid].game.answers)
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"[{n},")                               # a write the stop interrupted
    again = Server([], str(tmp_path / "games"), KEY)
    assert not again.problems and again.rooms[gid].game.answers == server.rooms[gid].game.answers
    # a log that is no answer log is a problem the host is told of, not a server that fails to start
    log.write_text('["x", 0]\n')
    assert Server([], str(tmp_path / "games"), KEY).problems


def test_a_server_that_stops_writes_every_save_whole(server, tmp_path):
    from cgl.interpreter.play import saves
    with TestClient(make_app(server)) as c:           # (the app's lifespan: it stops at the end)
        g = create(c, ruleset="mgt", seats=["human", "greedy"], seed=4)
        gid, t1 = g["id"], token(g["links"]["P1"])
        play(c, gid, t1, 4)
        path = str(tmp_path / "games" / f"{gid}.json")
        assert len(saves.read_save(path)["answers"]) < len(server.rooms[gid].game.answers)
    assert saves.read_save(path)["answers"] == server.rooms[gid].game.answers
    assert (tmp_path / "games" / f"{gid}.answers").read_text() == ""


def test_a_killed_server_process_resumes_every_answer(tmp_path):
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tmp_path / "games"
    proc = subprocess.Popen([sys.executable, "-m", "cgl.cli.main", "serve", "--port", str(port), "--games", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"

    def call(path, body=None, headers=None):
        req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json", **(headers or {})})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())
    try:
        for _ in range(600):
            try:
                key = (folder / "host.key").read_text().strip()
                urllib.request.urlopen(base + "/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        g = call("/api/games", {"ruleset": "mgt", "seats": ["human", "greedy"], "seed": 6}, {"x-cgl-key": key})
        gid, t1 = g["id"], token(g["links"]["P1"])
        for _ in range(5):
            v = call(f"/api/view/{gid}/{t1}")
            d = v["decision"]
            v = call(f"/api/answer/{gid}/{t1}", {"decision": v["decision_no"],
                                                  "answer": False if d["kind"] == "may" else 0})
        seen = call(f"/api/view/{gid}/{t1}?since=0")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    again = Server([], str(folder), KEY)
    assert not again.problems
    assert client(again).get(f"/api/view/{gid}/{t1}?since=0").json() == seen


def test_a_seat_numbers_only_its_own_decisions(server):
    """A seat's `decision_no` counts the decisions it answered: counting every one would tell
    it how many questions the others were asked out of its sight (a reaction window, an
    optional trigger fired by a hidden card). Each answers with its own number."""
    c = client(server)
    g = create(c, ruleset="unicorns", seats=["human", "human"], seed=4)
    gid = g["id"]
    tokens = [token(g["links"]["P1"]), token(g["links"]["P2"])]
    mine = [0, 0]
    for _ in range(30):
        views = [c.get(f"/api/view/{gid}/{t}").json() for t in tokens]
        assert [v["decision_no"] for v in views] == mine
        d = next((v["decision"] for v in views if v["decision"] and "options" in v["decision"]), None)
        if d is None:
            break
        seat = int(d["player"][1:]) - 1
        r = c.post(f"/api/answer/{gid}/{tokens[seat]}",
                   json={"decision": mine[seat], "answer": False if d["kind"] == "may" else 0})
        assert r.status_code == 200, r.text
        mine[seat] += 1
    assert min(mine) > 0


def test_the_lobby_names_whom_a_game_waits_for_only_where_every_seat_may_know_it(server):
    """The lobby is the host's, and the host may play a seat. In a game a person plays, it
    names the seat the game waits for only when every seat's view does (a question that is
    its asker's alone, `Decision.private`, names no one: who is asked tells what they hold),
    and counts only the questions every seat saw asked. (Kozyablo asks both kinds: where a
    creature enters is public, a pick from the hidden hand is not; in MGT every question
    reads the hand.)"""
    c = client(server)
    g = create(c, ruleset="kozyablo", seats=["human", "human"], seed=3)
    gid = g["id"]
    tokens = [token(g["links"]["P1"]), token(g["links"]["P2"])]
    public = private = 0
    for _ in range(40):
        lobby = next(x for x in c.get("/api/games", headers={"x-cgl-key": KEY}).json()["games"] if x["id"] == gid)
        views = [c.get(f"/api/view/{gid}/{t}").json() for t in tokens]
        asker = next((v for v in views if v["decision"] and "options" in v["decision"]), None)
        if asker is None:
            break
        other = views[1] if asker is views[0] else views[0]
        # (what the lobby says is what the other seat's view says: who decides, or no one)
        assert lobby["waiting_for"] == (other["decision"] or {}).get("player")
        assert lobby["decisions"] == public
        if other["decision"] is None:
            private += 1
        else:
            public += 1
        d, seat = asker["decision"], views.index(asker)
        r = c.post(f"/api/answer/{gid}/{tokens[seat]}",
                   json={"decision": asker["decision_no"], "answer": False if d["kind"] == "may" else 0})
        assert r.status_code == 200, r.text
    assert public and private


def test_a_game_of_bots_alone_names_whom_it_waits_for(server):
    """No one plays a seat of a game of bots: its lobby line names whoever is asked, a
    private question too, and counts every answer."""
    from cgl.cli.webapp import Room
    from cgl.interpreter.play.game import Game
    from conftest import load_cached
    game = Game(load_cached("mgt"), 2, 3)
    d = game.start()
    while not d.private:
        d = game.answer(False if d.kind == "may" else 0)
    room = Room("g1", "mgt", game, ["greedy", "random"], {}, {}, server.dir)
    room.rebuild_history()
    room.note_decision()
    assert room.summary()["waiting_for"] == f"P{d.player + 1}"
    assert room.summary()["decisions"] == len(game.answers)
    room.seats = ["human", "random"]
    assert room.summary()["waiting_for"] is None
