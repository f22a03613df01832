"""KZ-DECK and deck lists: `cgl deck check` and `cgl run --deck` for Kozyablo.

The deck-building rules live in the ruleset's `deck { … }` block; these tests prove the
starter decks pass and every kind of illegal deck is refused with a message that points
into the deck list.
"""
from __future__ import annotations

import pathlib

import pytest
from click.testing import CliRunner

from cgl.cli.main import main

DECKS = pathlib.Path(__file__).resolve().parent.parent / "rulesets" / "kozyablo-decks"
POZORKI = (DECKS / "pozorki.yaml").read_text()


def check(*files):
    return CliRunner().invoke(main, ["deck", "check", *map(str, files), "--ruleset", "kozyablo"])


def test_kz_deck_the_starter_decks_are_legal():
    """KZ-DECK: every race's starter deck passes the ruleset's deck-building rules."""
    r = check(*sorted(DECKS.glob("*.yaml")))
    assert r.exit_code == 0, r.output
    assert r.output.count(": legal") == 4


@pytest.mark.parametrize("change, rule, line", [
    (("{name: Pozorny Archer, copies: 3}", "{name: Pozorny Archer, copies: 4}"), "copies", 9),
    # the same card in two entries: 3 + 1 copies ("не более 3 одинаковых копий", issue 31)
    (("{name: Firebolt, copies: 2}", "{name: Firebolt, copies: 2}\n  - {name: Pozorny Archer, copies: 1}"),
     "copies", 16),
    (("{name: Firebolt, copies: 2}", "{name: Firebolt, copies: 2}\n  - {name: Old Kozel, copies: 1}"), "one_hero", 8),
    (("{name: Firebolt, copies: 2}", "{name: Firebolt, copies: 2}\n  - {name: Old Kozel, copies: 1}"), "race", 16),
    (("[Gold Mine, Crystal Mine, Energy Source]", "[Gold Mine, Gold Mine, Energy Source]"), "sectors", 7),
    (("capital: Pozorki Capital", "capital: Zhloby Capital"), "capital", 6),
    (("{name: Firebolt, copies: 2}", "{name: Firebolt, copies: 2}\n  - {name: Gold Mine, copies: 1}"), "apart", 16),
])
def test_kz_deck_each_illegal_deck_is_refused_where_it_breaks_a_rule(tmp_path, change, rule, line):
    """KZ-DECK: copies, one hero, the capital's race, the three sectors, the capital, sectors apart."""
    old, new = change
    assert old in POZORKI
    deck = tmp_path / "deck.yaml"
    deck.write_text(POZORKI.replace(old, new))
    r = check(deck)
    assert r.exit_code == 1, r.output
    assert f"deck.yaml:{line}:" in r.output and f"(rule `{rule}`)" in r.output


def test_kz_deck_size_and_artifacts(tmp_path):
    """KZ-DECK: 15-25 cards; an artifact only for the deck's own hero."""
    small = tmp_path / "small.yaml"
    small.write_text("\n".join(l for l in POZORKI.splitlines() if "Swordsman" not in l and "Knight" not in l))
    r = check(small)
    assert r.exit_code == 1 and "(rule `size`)" in r.output and "small.yaml:8:" in r.output
    no_hero = tmp_path / "nohero.yaml"
    no_hero.write_text(POZORKI.replace("  - {name: Captain Pozor, copies: 1}\n", "  - {name: Pozorny Scout, copies: 1}\n"))
    r = check(no_hero)
    assert "(rule `artifacts`)" in r.output and "Shining Sword" in r.output


def test_a_misspelled_card_in_a_deck_list_gets_a_did_you_mean(tmp_path):
    deck = tmp_path / "typo.yaml"
    deck.write_text(POZORKI.replace("Pozorny Scout", "Pozorny Scuot"))
    r = check(deck)
    assert r.exit_code == 1 and "E003 no card is named `Pozorny Scuot`" in r.output
    assert "did you mean `Pozorny Scout`?" in r.output
    assert check(tmp_path / "missing.yaml").exit_code == 2


def test_run_takes_a_deck_per_seat_and_refuses_an_illegal_one(tmp_path):
    r = CliRunner().invoke(main, ["run", "kozyablo", "-s", "4", "-q", "--deck", f"2={DECKS / 'kozly.yaml'}"])
    assert r.exit_code == 0, r.output
    assert "P2: army kozly" in r.output
    bad = tmp_path / "bad.yaml"
    bad.write_text(POZORKI.replace("copies: 3}", "copies: 5}"))
    r = CliRunner().invoke(main, ["run", "kozyablo", "--deck", f"1={bad}"])
    assert r.exit_code == 2 and "E016" in r.output
    r = CliRunner().invoke(main, ["run", "kozyablo", "--deck", f"3={DECKS / 'kozly.yaml'}"])
    assert r.exit_code == 2 and "seats 1 to 2" in r.output
    r = CliRunner().invoke(main, ["run", "kozyablo", "--deck", "one=x.yaml"])
    assert r.exit_code == 2 and "is not SEAT=FILE" in r.output
    r = CliRunner().invoke(main, ["run", "mgt", "--deck", "1=x.yaml"])
    assert r.exit_code == 2 and "takes no deck lists" in r.output


RACES = ["pozorki", "trutni", "kozly", "zhloby"]


@pytest.mark.parametrize("first", RACES)
def test_kz_win_every_pairing_of_the_starter_decks_plays_to_a_winner(first):
    """KZ-WIN: `cgl run kozyablo --deck 1=A --deck 2=B` with the default (random) bots ends
    with a winner for every ordered pairing of the four starter decks."""
    from cgl.interpreter.play.game import play
    from cgl.interpreter.check.loader import load
    rs = load("kozyablo")
    for second in RACES:
        game = play(rs, 2, seed=1, decks={0: str(DECKS / f"{first}.yaml"), 1: str(DECKS / f"{second}.yaml")},
                    check_invariants=True)
        assert game.result.winners, (first, second, game.result.reason)
        armies = [p["army"] for p in game.result.players]
        assert armies == [first, second]


def test_kz_deck_a_hero_is_allowed_not_required(tmp_path):
    """KZ-DECK: "только один герой" allows at most one hero; a deck without one is legal."""
    deck = tmp_path / "nohero.yaml"
    deck.write_text(POZORKI.replace("  - {name: Captain Pozor, copies: 1}\n", "")
                    .replace("  - {name: Shining Sword, copies: 1}\n", "")
                    .replace("{name: Pozorny Knight, copies: 2}", "{name: Pozorny Knight, copies: 3}")
                    .replace("{name: Pozorny Scout, copies: 2}", "{name: Pozorny Scout, copies: 3}"))
    r = check(deck)
    assert r.exit_code == 0, r.output


def test_kz_deck_the_three_sectors_in_any_order(tmp_path):
    """KZ-DECK: one each of Gold Mine, Crystal Mine and Energy Source, in whatever order listed."""
    deck = tmp_path / "sectors.yaml"
    deck.write_text(POZORKI.replace("[Gold Mine, Crystal Mine, Energy Source]", "[Energy Source, Gold Mine, Crystal Mine]"))
    r = check(deck)
    assert r.exit_code == 0, r.output


def test_a_deck_list_cannot_ask_for_more_copies_than_the_card_data_holds(tmp_path):
    """(A list asking for more copies than the data held dealt fewer, silently: a 12-card
    deck under the 15 minimum. Issue 31.)"""
    deck = tmp_path / "deck.yaml"
    deck.write_text(POZORKI.replace("{name: Firebolt, copies: 2}",
                                    "{name: Firebolt, copies: 2}\n  - {name: Pozorny Archer, copies: 4}"))
    r = check(deck)
    assert r.exit_code != 0, r.output
    assert "E003" in r.output and "asks for 7 copies of Pozorny Archer, and the card data holds 6" in r.output
    assert "deck.yaml:16:" in r.output


@pytest.mark.parametrize("change, code, line, col, help_", [
    # "не более 3 одинаковых копий": 2 + 2 copies in two entries are four (issue 31)
    (("{name: Pozorny Archer, copies: 3}", "{name: Pozorny Archer, copies: 2}\n  - {name: Pozorny Archer, copies: 2}"),
     "E016", 10, 5, None),
    # more copies than the card data holds would deal fewer, silently (issue 31)
    (("{name: Pozorny Archer, copies: 3}", "{name: Pozorny Archer, copies: 3}\n  - {name: Pozorny Archer, copies: 4}"),
     "E003", 10, 36, "list at most 6 of it"),
])
def test_kz_deck_a_game_refuses_a_list_that_breaks_the_copies(tmp_path, change, code, line, col, help_):
    """KZ-DECK: `cgl run --deck` refuses the list before dealing, at the entry's line and
    column, with a caret (and a help line), and exit code 2."""
    old, new = change
    deck = tmp_path / "deck.yaml"
    deck.write_text(POZORKI.replace(old, new))
    r = CliRunner().invoke(main, ["run", "kozyablo", "--deck", f"1={deck}", "-s", "1", "-q"])
    assert r.exit_code == 2, r.output
    lines = r.output.splitlines()
    at = next(i for i, t in enumerate(lines) if f"deck.yaml:{line}:{col}: {code}" in t)
    assert lines[at + 2].strip() == "^"
    if help_:
        assert help_ in lines[at + 3] and "help:" in lines[at + 3]
