"""A picture per card (docs/language.md section 11): the card data names one (`image:`)
or a folder of them by card name (`images:`); the loader keeps only pictures inside the
project; `cgl serve` serves them by card name, never by path; a replay file holds them."""
from __future__ import annotations

import os
import pathlib
import shutil

import pytest
from starlette.testclient import TestClient

from cgl.cli.webapp import Server, make_app
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.check.loader import load

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEY = "k" * 22


def svg(colour: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="60">'
            f'<rect width="40" height="60" fill="{colour}"/></svg>')


def ruleset(tmp_path, card_lines: str = "", top: str = "") -> pathlib.Path:
    """examples/war.cgl in its own folder, its card data changed by `card_lines` (YAML that
    replaces the first card) and `top` (more top-level keys); art/ holds three pictures."""
    folder = tmp_path / "game"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "examples" / "war.cgl", folder / "war.cgl")
    data = (ROOT / "examples" / "war-cards.yaml").read_text()
    if card_lines:
        data = data.replace('  - {name: "2", rank: 2, count: 4}\n', card_lines)
    (folder / "war-cards.yaml").write_text(data + top)
    (folder / "art").mkdir(exist_ok=True)
    for name, colour in (("Ace", "red"), ("king", "blue"), ("own", "green")):
        (folder / "art" / f"{name}.svg").write_text(svg(colour))
    (folder / "art" / "Queen.txt").write_text("not a picture")
    return folder / "war.cgl"


def test_the_card_data_names_a_picture_per_card_or_a_folder_by_card_name(tmp_path):
    path = ruleset(tmp_path, '  - {name: "2", rank: 2, count: 4, image: art/own.svg}\n'
                             '  - {name: "Ace2", rank: 15, image: "art/own.svg"}\n', "images: art/\n")
    rs = load(str(path))
    art = os.path.realpath(path.parent / "art")
    assert rs.images == {"2": os.path.join(art, "own.svg"), "Ace2": os.path.join(art, "own.svg"),
                         "Ace": os.path.join(art, "Ace.svg"), "King": os.path.join(art, "king.svg")}
    # a card's own picture comes before its folder's
    rs2 = load(str(ruleset(tmp_path / "b", '  - {name: "Ace", rank: 2, image: art/own.svg}\n', "images: art\n")))
    assert rs2.images["Ace"].endswith("own.svg")
    # a picture is no property: the rules and the game are the same without it
    plain = load(str(ROOT / "examples" / "war.cgl"))
    assert [c.props for c in rs.cards if c.name != "Ace2"] == [c.props for c in plain.cards]


@pytest.mark.parametrize("line, words", [
    ('image: ../../outside.svg', "outside the project"),
    ('image: /etc/passwd.svg', "absolute path"),
    ('image: art/Queen.txt', "not a picture"),
    ('image: art/missing.svg', "cannot find"),
    ('image: 3', "not a picture"),
])
def test_a_picture_outside_the_project_or_not_a_picture_is_refused(tmp_path, line, words):
    (tmp_path / "outside.svg").write_text(svg("black"))
    path = ruleset(tmp_path / "a" / "b", '  - {name: "2", rank: 2, ' + line + '}\n')
    with pytest.raises(CglError) as e:
        load(str(path))
    assert words in e.value.diagnostics[0].message, e.value.diagnostics[0].message


def test_a_symlink_out_of_the_project_is_no_picture(tmp_path):
    (tmp_path / "secret.svg").write_text(svg("black"))
    path = ruleset(tmp_path / "p", '  - {name: "2", rank: 2, image: art/link.svg}\n')
    os.symlink(tmp_path / "secret.svg", path.parent / "art" / "link.svg")
    with pytest.raises(CglError, match="outside the project"):
        load(str(path))
    for folder in ("../..", "/etc"):
        with pytest.raises(CglError, match="folder"):
            load(str(ruleset(tmp_path / "q", top=f"images: {folder}\n")))


def test_the_seat_view_and_the_server_give_a_cards_picture_by_its_name_only(tmp_path):
    path = ruleset(tmp_path, top="images: art/\n")
    server = Server([str(path)], str(tmp_path / "games"), KEY)
    c = TestClient(make_app(server))
    r = c.post("/api/games", json={"ruleset": "war", "seats": ["human", "random"], "seed": 1},
               headers={"x-cgl-key": KEY})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    g = server.rooms[gid].game
    everything = g.view(None, everything=True)["cards"]
    assert everything["Ace"]["image"] == "Ace.svg" and "image" not in everything["Jack"]
    r = c.get(f"/art/{gid}/Ace")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text == svg("red")
    assert "sandbox" in r.headers["content-security-policy"] and r.headers["x-content-type-options"] == "nosniff"
    for bad in ("Jack", "nobody", "..%2F..%2Fwar.cgl", "..%2Fwar-cards.yaml", "%2Fetc%2Fpasswd", "art%2FAce.svg"):
        assert c.get(f"/art/{gid}/{bad}").status_code == 404, bad
    assert c.get("/art/nogame/Ace").status_code == 404
    assert c.get(f"/art/{gid}/../../etc/passwd").status_code == 404
    # a picture that became a symlink out of the project after loading is not served
    (tmp_path / "secret.svg").write_text("secret")
    os.unlink(path.parent / "art" / "king.svg")
    os.symlink(tmp_path / "secret.svg", path.parent / "art" / "king.svg")
    assert c.get(f"/art/{gid}/King").status_code == 404


def test_a_replay_file_holds_its_cards_pictures(tmp_path):
    from cgl.cli import replay_html
    from cgl.interpreter.play.game import Game
    rs = load(str(ruleset(tmp_path, top="images: art/\n")))
    g = Game(rs, 2, 3)
    d, answers = g.start(), []
    for _ in range(40):
        if d is None:
            break
        answers.append(False if d.kind == "may" else 0)
        d = g.answer(answers[-1])
    data = replay_html.frames(Game(rs, 2, 3), answers)
    assert set(data["images"]) <= {"Ace", "King"} and data["images"]
    assert all(v.startswith("data:image/svg+xml;base64,") for v in data["images"].values())
