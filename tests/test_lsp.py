"""`cgl lsp`, end to end: a real language server started as a subprocess (`python -m
cgl.cli.main lsp`), spoken to over stdio by pytest-lsp's client, as an editor would.

One server serves the whole module (starting one costs a fraction of a second); each test
opens its own document, so the tests do not depend on each other's order.
"""
from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

# the client fixture and the tests share the module's event loop
aio = pytest.mark.asyncio(loop_scope="module")

RULESET = '''\
game "Tiny" {
  players 2..2
}

cards from "tiny-cards.yaml" {
  name: text
  power: int
}

zone deck: shared, hidden, as deck
zone hand: per player, owner, as hand
zone pile: shared, public, as discard

var points per player = 0

# How strong a hand is: the sum of its cards' power.
def strength(p) = sum([c.power for c in hand(p)] + [0])

setup {
  shuffle deck
  deal 2 to hand
}

# The Dragon scores two points when it is discarded.
on discard if name = "Dragon" as dragon_bonus {
  set player.points += 2
}

round {
  first seat(1)
  until count(deck) = 0
}

turn {
  phase play {
    draw 1
    choose c in hand(current) by current "Discard a card" prefer -c.power {
      discard c
    }
    set current.points += strength(current)
  }
}

match {
  rounds 1
  end {
    let best = max([p.points for p in players])
    win players where points = best
  }
}
'''

CARDS = '''\
cards:
  - {name: Dragon, power: 5}
  - {name: Goblin, power: 1, count: 6}
  - {name: Knight, power: 3, count: 3}
'''


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("lsp")
    (d / "tiny-cards.yaml").write_text(CARDS)
    return d


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "cgl.cli.main", "lsp"]),
                    scope="module")
async def client(lsp_client: LanguageClient, folder):
    SERVER["capabilities"] = (await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(), root_uri=folder.as_uri()))).capabilities
    yield
    await lsp_client.shutdown_session()


_opened = 0
SERVER: dict = {}   # what the server announced at `initialize`


def open_ruleset(client, folder, text=RULESET):
    """Open a new ruleset document (on disk too, so that its card file is found) and return its uri."""
    global _opened
    _opened += 1
    path = folder / f"tiny{_opened}.cgl"
    path.write_text(RULESET)
    uri = path.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=uri, language_id="cgl", version=1, text=text)))
    return uri


async def diagnostics(client, uri, wanted, timeout=10.0):
    """Wait until the diagnostics published for `uri` satisfy `wanted`; return them."""
    async def wait():
        while uri not in client.diagnostics or not wanted(client.diagnostics[uri]):
            await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    await asyncio.wait_for(wait(), timeout)
    return client.diagnostics[uri]


def at(text, needle, offset=0) -> T.Position:
    """The position of `needle` (plus `offset` characters) in `text`."""
    i = text.index(needle) + offset
    line = text.count("\n", 0, i)
    return T.Position(line, i - (text.rfind("\n", 0, i) + 1))


@aio
async def test_a_broken_ruleset_gets_diagnostics_within_a_second_of_a_change(client: LanguageClient, folder):
    uri = open_ruleset(client, folder)
    assert list(await diagnostics(client, uri, lambda ds: True)) == []   # a clean ruleset: nothing to say
    broken = RULESET.replace("count(deck) = 0", "count(dek) = 0")   # unsaved: the file on disk is fine
    start = time.monotonic()
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=broken)]))
    found = await diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert time.monotonic() - start < 1.0
    d, = found
    assert d.code == "E004" and "unknown name `dek`" in d.message and "did you mean `deck`?" in d.message
    assert d.severity == T.DiagnosticSeverity.Error
    assert d.range.start == at(broken, "dek") and d.range.end == at(broken, "dek", 3)   # 0-based, end exclusive
    # fixed again: the diagnostics are cleared
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=RULESET)]))
    assert list(await diagnostics(client, uri, lambda ds: len(ds) == 0)) == []


@aio
async def test_a_lint_warning_of_the_unsaved_text(client: LanguageClient, folder):
    uri = open_ruleset(client, folder, RULESET + "\ndef unused_thing = 3\n")
    d, = await diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert d.code == "W101" and d.severity == T.DiagnosticSeverity.Warning
    assert d.range.start.line == RULESET.count("\n") + 1


@aio
async def test_hover_on_a_card_name_shows_its_data_and_its_rule(client: LanguageClient, folder):
    uri = open_ruleset(client, folder)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri),
                                                             at(RULESET, '"Dragon"', 2)))
    text = h.contents.value
    assert "**Dragon**" in text and "`power`: 5" in text
    assert "dragon_bonus" in text and "The Dragon scores two points when it is discarded." in text


@aio
async def test_hover_on_a_builtin_shows_its_signature_and_doc(client: LanguageClient, folder):
    uri = open_ruleset(client, folder)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri),
                                                             at(RULESET, "sum(", 1)))
    assert "sum(LIST)" in h.contents.value and "the sum of numbers" in h.contents.value


@aio
async def test_hover_on_a_def_shows_its_parameters_and_comment(client: LanguageClient, folder):
    uri = open_ruleset(client, folder)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri),
                                                             at(RULESET, "strength(current)", 2)))
    text = h.contents.value
    assert "def strength(p)" in text and "`p`" in text and "How strong a hand is" in text


@aio
async def test_definition_of_a_def_and_of_a_card(client: LanguageClient, folder):
    uri = open_ruleset(client, folder)
    loc = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri),
                                                                         at(RULESET, "strength(current)", 3)))
    assert loc.uri == uri and loc.range.start == at(RULESET, "def strength")
    loc = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri),
                                                                         at(RULESET, '"Dragon"', 3)))
    assert loc.uri == (folder / "tiny-cards.yaml").as_uri() and loc.range.start == at(CARDS, "Dragon")


@aio
async def test_completion_of_an_event_name(client: LanguageClient, folder):
    text = RULESET + "\non disc"
    uri = open_ruleset(client, folder, text)
    got = await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), T.Position(text.count("\n"), len("on disc"))))
    labels = {i.label for i in got.items}
    assert {"discard", "draw", "move"} <= labels and "strength" not in labels


@aio
async def test_completion_of_names_and_card_names(client: LanguageClient, folder):
    text = RULESET + '\ndef x = strength(current) + count(hand(current) where name = "Dr'
    uri = open_ruleset(client, folder, text)
    end = T.Position(text.count("\n"), len(text) - text.rfind("\n") - 1)
    got = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), end))
    assert {i.label for i in got.items} == {"Dragon", "Goblin", "Knight"}
    got = await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), T.Position(end.line, len("def x = str"))))
    labels = {i.label for i in got.items}
    assert {"strength", "points", "hand", "count", "power"} <= labels


@aio
async def test_document_symbols(client: LanguageClient, folder):
    uri = open_ruleset(client, folder)
    syms = await client.text_document_document_symbol_async(T.DocumentSymbolParams(T.TextDocumentIdentifier(uri)))
    kinds = {s.name: s.kind for s in syms}
    assert kinds["strength"] == T.SymbolKind.Function and kinds["hand"] == T.SymbolKind.Array
    assert kinds["dragon_bonus"] == T.SymbolKind.Event and kinds["points"] == T.SymbolKind.Variable
    turn = next(s for s in syms if s.name == "turn")
    assert [c.name for c in turn.children] == ["phase play"]


@aio
async def test_a_change_of_the_card_file_checks_the_ruleset_again(client: LanguageClient, folder):
    open_ruleset(client, folder)
    cards = folder / "tiny-cards.yaml"
    uri = cards.as_uri()
    bad = CARDS.replace("power: 3", "power: three")
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=bad)))
    d, = await diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert d.code == "E003" and "`power: three` is not a int" in d.message
    assert d.range.start == at(bad, "three")
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))
    await diagnostics(client, uri, lambda ds: len(ds) == 0)


@aio
async def test_a_scenario_file_is_checked_by_the_scenario_reader(client: LanguageClient, folder):
    (folder / "scenario-base.cgl").write_text(RULESET)
    path = folder / "dragon.yaml"
    text = "scenario: the dragon scores\nruleset: scenario-base.cgl\nplayers: 2\nexpct:\n  over: true\n"
    path.write_text(text)
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=path.as_uri(), language_id="yaml", version=1, text=text)))
    d, = await diagnostics(client, path.as_uri(), lambda ds: len(ds) > 0)
    assert d.code == "E013" and "unknown scenario key `expct`" in d.message and "expect" in d.message
    assert d.range.start == at(text, "expct")


def test_only_cgl_lsp_imports_pygls():
    """Every other command starts without paying for the protocol's packages."""
    code = ("import sys, cgl.cli.main, cgl.interpreter.tools.lsp, cgl.interpreter.check.lint\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- the analysis, without the protocol

def _session_files(tmp_path):
    from cgl.interpreter.tools.lsp import Session
    (tmp_path / "tiny.cgl").write_text(RULESET)
    (tmp_path / "tiny-cards.yaml").write_text(CARDS)
    return Session(), str(tmp_path / "tiny.cgl"), str(tmp_path / "tiny-cards.yaml")


def test_the_loader_reads_unsaved_texts_instead_of_the_disk(tmp_path):
    from cgl.interpreter.base.diagnostics import CglError
    from cgl.interpreter.check.loader import load, unsaved_texts
    _, path, cards = _session_files(tmp_path)
    with unsaved_texts({cards: CARDS.replace("Dragon", "Wyrm")}):
        assert "Wyrm" in {c.name for c in load(path).cards}
        with pytest.raises(CglError, match="unknown name `dek`"):
            with unsaved_texts({path: RULESET.replace("count(deck)", "count(dek)")}):
                load(path)
    assert "Dragon" in {c.name for c in load(path).cards}   # outside the block: the disk again


def test_a_scenario_naming_a_card_the_deck_lacks_is_an_E013_at_its_line(tmp_path):
    session, _, _ = _session_files(tmp_path)
    text = "scenario: s\nruleset: tiny.cgl\nsetup:\n  zones:\n    hand P1: [Dragon, Gobline]\n"
    (tmp_path / "s.yaml").write_text(text)
    d, = session.check(str(tmp_path / "s.yaml"))[str(tmp_path / "s.yaml")]
    assert d.code == "E013" and "no card is named `Gobline`" in d.message and "`Goblin`" in d.hint
    assert d.span.line == 5
    # hover and definition work on the scenario's card names too
    assert "`power`: 5" in session.hover(str(tmp_path / "s.yaml"), 4, text.splitlines()[4].index("Dragon") + 1)
    sp = session.definition(str(tmp_path / "s.yaml"), 4, text.splitlines()[4].index("Dragon"))
    assert (sp.path, sp.line) == (str(tmp_path / "tiny-cards.yaml"), 2)


def test_an_error_in_an_extended_file_shows_at_the_extends_line(tmp_path):
    session, path, _ = _session_files(tmp_path)
    child = tmp_path / "child.cgl"
    child.write_text('# a variant\nextends "tiny.cgl"\ndef bonus = strength(current)\n')
    found = session.check(str(child), {path: RULESET.replace("count(deck)", "count(dek)")})
    d, = found[str(child)]
    assert d.code == "E004" and d.message.startswith(f"{path}:31:") and d.span.line == 2


def test_cgl_lsp_help_says_how_an_editor_starts_it():
    from click.testing import CliRunner

    from cgl.cli.main import main
    out = CliRunner().invoke(main, ["lsp", "--help"])
    assert out.exit_code == 0 and "stdin/stdout" in out.output and "cmd = { 'cgl', 'lsp' }" in out.output


def test_statement_keywords_complete_where_a_statement_starts_and_hover_shows_their_doc(tmp_path):
    """The keywords come from the grammar and what they say from the AST's docstrings, so
    a new statement (`cut`) is offered and explained with nothing else to edit."""
    from cgl.interpreter.tools.lsp import CK
    session, path, _ = _session_files(tmp_path)
    text = RULESET.replace("  shuffle deck\n", "  shuffle deck\n  cut deck at 3\n  cu\n")
    (tmp_path / "tiny.cgl").write_text(text)
    lines = text.splitlines()
    at = lines.index("  cu")
    got = {label: (kind, detail) for label, kind, detail in session.complete(path, at, len("  cu"))}
    assert got["cut"][0] == CK["keyword"] and "`cut stock at 3`" in got["cut"][1]
    assert {"move", "shuffle", "give", "if"} <= set(got)
    assert "`give extra turn to current`" in got["give"][1]
    # not where an expression goes
    mid = lines.index("def strength(p) = sum([c.power for c in hand(p)] + [0])")
    assert "cut" not in {label for label, _, _ in session.complete(path, mid, len("def strength(p) = su"))}
    text = text.replace("  cu\n", "")
    (tmp_path / "tiny.cgl").write_text(text)
    session, lines = type(session)(), text.splitlines()
    cut = lines.index("  cut deck at 3")
    assert session.hover(path, cut, 3).startswith("`cut stock`, `cut stock at 3`")
    draw = lines.index("    draw 1")
    assert session.hover(path, draw, 5).startswith("`draw 1`")   # the statement, not the event
    assert "deck" in session.hover(path, cut, 7) and "cut" not in session.hover(path, cut, 7)   # the zone


@aio
async def test_references_and_rename_of_a_local(client: LanguageClient, folder):
    """Both read the resolver pass's record (issue 33): the `c` a choice binds, where it is
    bound and each use; renaming it edits exactly those, and a rename that would change
    what a name means is refused with the reason."""
    uri = open_ruleset(client, folder)
    doc = T.TextDocumentIdentifier(uri)
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=at(RULESET, "discard c", 8), context=T.ReferenceContext(include_declaration=True)))
    starts = [r.range.start for r in refs]
    assert starts == [at(RULESET, "choose c", 7), at(RULESET, "-c.power", 1), at(RULESET, "discard c", 8)]
    edit = await client.text_document_rename_async(T.RenameParams(text_document=doc, position=at(RULESET, "choose c", 7), new_name="card"))
    edits = edit.changes[uri]
    assert [e.range.start for e in edits] == starts and {e.new_text for e in edits} == {"card"}
    lines = RULESET.splitlines()
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        ln = lines[e.range.start.line]
        lines[e.range.start.line] = ln[:e.range.start.character] + e.new_text + ln[e.range.end.character:]
    renamed = "\n".join(lines) + "\n"
    assert "choose card in hand(current)" in renamed and "prefer -card.power" in renamed and "discard card" in renamed
    from cgl.interpreter.check.lint import lint_ruleset
    from cgl.interpreter.check.loader import load
    path = folder / "renamed.cgl"
    path.write_text(renamed)
    assert [d for d in lint_ruleset(load(str(path))) if d.severity == "error"] == []
    with pytest.raises(Exception, match="already a name in this declaration"):
        await client.text_document_rename_async(T.RenameParams(text_document=doc, position=at(RULESET, "choose c", 7), new_name="current"))


def test_rename_refuses_what_it_cannot_do_safely(folder):
    from cgl.interpreter.tools.lsp import Session
    path = folder / "refuse.cgl"
    path.write_text(RULESET)
    session = Session()
    p = at(RULESET, "hand(p)", 5)                        # the parameter of `def strength(p)`
    spans, why = session.rename(str(path), p.line, p.character, "who")
    assert why is None and [(sp.line, sp.column) for sp in spans] == [
        (at(RULESET, "strength(p)", 9).line + 1, at(RULESET, "strength(p)", 9).character + 1),
        (p.line + 1, p.character + 1)]
    assert "a word of the language" in session.rename(str(path), p.line, p.character, "draw")[1]
    assert "not a name" in session.rename(str(path), p.line, p.character, "2x")[1]
    d = at(RULESET, "strength(current)")
    spans, why = session.rename(str(path), d.line, d.character, "power_of")   # a def: its declaration and call
    assert why is None and [(sp.line, sp.column) for sp in spans] == [
        (at(RULESET, "def strength").line + 1, 5), (d.line + 1, d.character + 1)]
    b = at(RULESET, "sum(")
    assert "only a local name or a declaration" in session.rename(str(path), b.line, b.character, "total")[1]


def test_a_scenarios_ruleset_outside_its_project_is_refused_as_cgl_test_refuses_it(tmp_path):
    """(The language server read `ruleset: /etc/passwd` and quoted it; `cgl test` gives E002. Issue 34.)"""
    from cgl.interpreter.tools.lsp import Session
    game = tmp_path / "game"
    game.mkdir()
    (game / "g.cgl").write_text('game "G" { players 2 }\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "valid.cgl").write_text('game "Elsewhere" { players 2 }\nsecret_line_here\n')
    session = Session()
    for ref in ("/etc/passwd", "../../outside/valid.cgl"):
        s = game / "scenarios" / "s.yaml"
        s.parent.mkdir(exist_ok=True)
        s.write_text(f"scenario: x\nruleset: {ref}\nplayers: 2\n")
        found = session.check(str(s))
        diags = [d for ds in found.values() for d in ds]
        assert diags and all(d.code == "E002" for d in diags), diags
        assert "lies outside" in diags[0].message
        assert not any("root" in d.message or "secret_line_here" in d.message for d in diags)
        assert session.hover(str(s), 1, 10) is None or "Elsewhere" not in session.hover(str(s), 1, 10)


def test_the_server_stays_up_whatever_the_workspace_holds(tmp_path):
    """A FIFO beside a card file is not read (it wedged the server for good), nor a buffer
    over the size limit (a 2 MB buffer blocked it for a minute). Issue 34."""
    import os
    import time
    from cgl.interpreter.tools.lsp import Session
    (tmp_path / "tiny-cards.yaml").write_text(CARDS)
    (tmp_path / "tiny.cgl").write_text(RULESET)
    os.mkfifo(tmp_path / "stuck.cgl")
    session = Session()
    t0 = time.monotonic()
    found = session.check(str(tmp_path / "tiny-cards.yaml"))   # (reads its folder's rulesets)
    assert time.monotonic() - t0 < 30   # (not a timing assertion: a FIFO read never returns at all)
    assert str(tmp_path / "tiny.cgl") in found or found == {} or all(v == [] for v in found.values())
    big = "# " + "x" * (2 * 1024 * 1024) + "\n" + RULESET
    found = session.check(str(tmp_path / "tiny.cgl"), {str(tmp_path / "tiny.cgl"): big})
    [d] = found[str(tmp_path / "tiny.cgl")]
    assert d.code == "E002" and "more than the limit" in d.message


def test_hover_tells_an_event_from_a_phase_of_the_same_name():
    """(Hovering the `discard` event showed MGT's `discard` phase. Issue 33.)"""
    import os
    from cgl.interpreter.tools.lsp import Session
    path = os.path.abspath("rulesets/mgt.cgl")
    lines = open(path).read().splitlines()
    session = Session()
    on = next(n for n, text in enumerate(lines) if text.startswith("on discard"))
    event = session.hover(path, on, len("on dis"))
    assert event.startswith("```cgl\non discard\n```") and "a card is discarded" in event and "phase" not in event
    ph = next(n for n, text in enumerate(lines) if "phase discard" in text)
    phase = session.hover(path, ph, lines[ph].index("discard") + 2)
    assert "phase discard {" in phase and "a card is discarded" not in phase


# ---------------------------------------------------------------- positions in the negotiated encoding

EMOJI = RULESET.replace("  deal 2 to hand\n", '  deal 2 to hand\n  say "🐉🐉 {strength(current)} {count(dek)}"\n')


def units(text: str, needle: str, encoding: str, offset: int = 0) -> T.Position:
    """The position of `needle` in `text`, counted in the units of `encoding`."""
    p = at(text, needle, offset)
    head = text.splitlines()[p.line][:p.character]
    n = len(head.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(head.encode("utf-8"))
    return T.Position(p.line, n)


@aio
async def test_positions_count_utf16_code_units_by_default(client: LanguageClient, folder):
    """(The server announced UTF-16 and counted code points: after two emoji a diagnostic
    landed two columns early. Issue 33.)"""
    assert client.capabilities.general is None   # (the client offers no encoding: UTF-16)
    uri = open_ruleset(client, folder, EMOJI)
    d, = await diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert "unknown name `dek`" in d.message
    assert d.range.start == units(EMOJI, "dek", "utf-16") == T.Position(at(EMOJI, "dek").line, 39)
    assert d.range.end == units(EMOJI, "dek", "utf-16", 3)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri),
                                                             units(EMOJI, "strength(current)}", "utf-16", 2)))
    assert "def strength(p)" in h.contents.value


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "cgl.cli.main", "lsp"]),
                    scope="module")
async def utf8_client(lsp_client: LanguageClient, folder):
    offer = T.GeneralClientCapabilities(position_encodings=[T.PositionEncodingKind.Utf8, T.PositionEncodingKind.Utf16])
    result = await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(general=offer), root_uri=folder.as_uri()))
    assert result.capabilities.position_encoding == T.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


@aio
async def test_positions_count_utf8_bytes_when_the_client_offers_utf8(utf8_client: LanguageClient, folder):
    uri = open_ruleset(utf8_client, folder, EMOJI)
    d, = await diagnostics(utf8_client, uri, lambda ds: len(ds) > 0)
    assert d.range.start == units(EMOJI, "dek", "utf-8") == T.Position(at(EMOJI, "dek").line, 43)
    loc = await utf8_client.text_document_definition_async(T.DefinitionParams(
        T.TextDocumentIdentifier(uri), units(EMOJI, "strength(current)}", "utf-8", 3)))
    assert loc.range.start == at(EMOJI, "def strength")


def test_the_conversions_between_code_points_and_units():
    from cgl.interpreter.tools.server import code_points, units as to_units
    line = 'say "é🐉x"'
    for enc, widths in (("utf-16", [1, 1, 1, 1, 1, 1, 2, 1, 1]), ("utf-8", [1, 1, 1, 1, 1, 2, 4, 1, 1])):
        n = 0
        for i, w in enumerate(widths):
            assert to_units(line, i, enc) == n and code_points(line, n, enc) == i
            n += w
        assert to_units(line, len(line), enc) == n and code_points(line, n, enc) == len(line)
    assert to_units(line, 7, "utf-32") == 7


# ---------------------------------------------------------------- quick fixes

def apply_edits(text: str, edits) -> str:
    """The text with LSP edits applied (positions in code points: the texts here have no astral characters)."""
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a = offsets[e.range.start.line] + e.range.start.character
        b = offsets[e.range.end.line] + e.range.end.character
        text = text[:a] + e.new_text + text[b:]
    return text


ELSE_IF = RULESET.replace("    draw 1\n", "    if count(deck) > 0 {\n      draw 1\n    } else if count(pile) > 0 {\n"
                          "      draw 1\n    }\n")
QUICK_FIXES = [   # (the broken text, the fixed text, the title of the fix)
    (RULESET.replace("count(deck) = 0", "count(dek) = 0"), RULESET, "write `deck`"),
    (RULESET.replace("-c.power", "-c.powr"), RULESET, "write `power`"),
    (RULESET.replace("on discard if", "on discrad if"), RULESET, "write `discard`"),
    (RULESET.replace("  shuffle deck", "  shufle deck"), RULESET, "write `shuffle`"),
    (ELSE_IF.replace("} else if", "} elsif"), ELSE_IF.replace("} else if", "} elif"), "write `elif`"),
    (RULESET.replace('"Discard a card" prefer -c.power {', '"Discard a card" prefer -c.power'),
     RULESET, "insert `{`"),
]


@aio
async def test_a_quick_fix_applied_lints_clean(client: LanguageClient, folder):
    """Each diagnostic with a `help:` fix offers it as a code action: a did-you-mean (a name,
    a property, an event, a statement's keyword), `elsif` → `elif`, a missing `{`. (Issue 33.)"""
    for broken, fixed, title in QUICK_FIXES:
        uri = open_ruleset(client, folder, broken)
        d, = await diagnostics(client, uri, lambda ds: len(ds) > 0)
        got = await client.text_document_code_action_async(T.CodeActionParams(
            T.TextDocumentIdentifier(uri), d.range, T.CodeActionContext(diagnostics=[d])))
        action, = got
        assert action.title == title and action.kind == T.CodeActionKind.QuickFix and list(action.diagnostics) == [d]
        text = apply_edits(broken, action.edit.changes[uri])
        if "elif" in fixed:
            assert "} elif count(pile) > 0 {" in text
        else:
            assert text == fixed, title
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
        assert list(await diagnostics(client, uri, lambda ds: len(ds) == 0)) == []


# ---------------------------------------------------------------- declarations across the `extends` chain

@pytest.fixture(scope="module")
def mgt(tmp_path_factory):
    """A copy of the shipped MGT, version 0.2 and the version 0.1 that extends it."""
    import shutil
    d = tmp_path_factory.mktemp("mgt")
    for name in ("mgt.cgl", "mgt-v0.1.cgl", "mgt-cards.yaml"):
        shutil.copy(f"rulesets/{name}", d / name)
    return d


def _lint_codes(path):
    from cgl.interpreter.check.lint import lint_ruleset
    from cgl.interpreter.check.loader import load
    return sorted(d.code for d in lint_ruleset(load(str(path))))


@aio
async def test_rename_of_a_table_across_the_extends_chain(client: LanguageClient, mgt):
    """`override table what_points` in mgt-v0.1.cgl: renaming it there renames the base's
    declaration and its call in mgt.cgl too; both files still load, with the same lint."""
    base, child = mgt / "mgt.cgl", mgt / "mgt-v0.1.cgl"
    before = {p: _lint_codes(p) for p in (base, child)}
    texts = {p: p.read_text() for p in (base, child)}
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=child.as_uri(), language_id="cgl", version=1, text=texts[child])))
    where = at(texts[child], "override table what_points", len("override table "))
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(child.as_uri()), position=where,
        context=T.ReferenceContext(include_declaration=True)))
    assert sorted((r.uri, r.range.start.line) for r in refs) == sorted([
        (child.as_uri(), where.line), (base.as_uri(), at(texts[base], "table what_points").line),
        (base.as_uri(), at(texts[base], "what_points(g) for g").line)])
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(child.as_uri()), position=where, new_name="set_points"))
    assert set(edit.changes) == {base.as_uri(), child.as_uri()}
    for p in (base, child):
        p.write_text(apply_edits(texts[p], edit.changes[p.as_uri()]))
    try:
        assert "what_points" not in base.read_text() and "override table set_points(g)" in child.read_text()
        assert {p: _lint_codes(p) for p in (base, child)} == before
    finally:
        for p in (base, child):
            p.write_text(texts[p])
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(child.as_uri())))


def test_references_and_rename_of_declarations_of_each_kind(mgt):
    """A zone, a variable, a procedure, a def and an event the rules emit; and the renames
    refused, each with its reason."""
    from cgl.interpreter.tools.lsp import Session
    base, child = str(mgt / "mgt.cgl"), str(mgt / "mgt-v0.1.cgl")
    text = open(base).read()
    lines = text.splitlines()
    session = Session()

    def refs(needle, offset):
        p = at(text, needle, offset)
        return [(sp.path, sp.line, lines[sp.line - 1][sp.column - 1:sp.end_column - 1])
                for sp in session.references(base, p.line, p.character)]
    stock = refs("zone stock", 5)
    assert (base, at(text, "on move from stock", 13).line + 1, "stock") in stock and len(stock) > 5
    assert all(word == "stock" for _, _, word in stock)
    assert {w for _, _, w in refs("procedure refill", 10)} == {"refill"} and len(refs("procedure refill", 10)) >= 2
    assert [w for _, _, w in refs("emit round_won", 5)] == ["round_won"]
    p = at(text, "procedure refill", 10)
    spans, why = session.rename(base, p.line, p.character, "top_up")
    assert why is None and len(spans) >= 2
    for new, reason in (("stock", "already a name of the ruleset"), ("count", "a built-in name"),
                        ("draw", "a word of the language")):
        assert reason in session.rename(base, p.line, p.character, new)[1]
    pts = at(text, "var points", 4)
    assert "also a card's property or an event's field" in session.rename(base, pts.line, pts.character, "score")[1]
    d = at(open(child).read(), "override table what_points", 16)
    assert session.rename(child, d.line, d.character, "deck_size")[1].startswith("`deck_size` is already a name")


@aio
async def test_rename_of_a_zone_and_a_variable_edits_the_scenarios_that_play_them(client: LanguageClient, tmp_path):
    """The game `cgl new` writes: renaming its zone `hand` and its player variable `points`
    from the ruleset renames them in its scenario file too (`hand P1:` under `zones:`,
    `{points: 5}` under `players:`), and `cgl test` still passes (issue 33)."""
    from click.testing import CliRunner
    from cgl.cli.main import main
    assert CliRunner().invoke(main, ["new", str(tmp_path / "g")]).exit_code == 0
    rules, plays = tmp_path / "g" / "g.cgl", tmp_path / "g" / "scenarios" / "g-play.yaml"
    doc, text = _open(client, rules)
    for needle, offset, new, count in (("zone hand", 5, "held", 4), ("var points", 4, "tally", 3)):
        where = at(text, needle, offset)
        refs = await client.text_document_references_async(T.ReferenceParams(
            text_document=doc, position=where, context=T.ReferenceContext(include_declaration=True)))
        in_yaml = [r for r in refs if r.uri == plays.as_uri()]
        assert len(in_yaml) == count, refs
        edit = await client.text_document_rename_async(T.RenameParams(text_document=doc, position=where, new_name=new))
        assert set(edit.changes) == {rules.as_uri(), plays.as_uri()}
        for path in (rules, plays):
            path.write_text(apply_edits(path.read_text(), edit.changes[path.as_uri()]))
        text = rules.read_text()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=doc.uri, version=2 + count),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
    assert "zone held: per player" in text and "var tally per player" in text
    yaml_text = plays.read_text()
    assert "held P1: [Two, Five]" in yaml_text and "P2: {tally: 7}" in yaml_text
    assert not re.search(r"^\s*hand |\bpoints:", yaml_text, re.M)   # (a scenario's words and its log keep theirs)
    r = CliRunner().invoke(main, ["test", str(tmp_path / "g"), "-j", "1"])
    assert r.exit_code == 0 and "2 passed, 0 failed" in r.output, r.output
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


@aio
async def test_rename_of_a_card_property_edits_the_card_data(client: LanguageClient, tmp_path):
    """`power` in examples/actions.cgl, a property of its card data: renamed from a use
    (`c.power`), its declaration in `cards from`, every use and each card's key in
    actions-cards.yaml change; the game plays the same, seed for seed (issue 33)."""
    import shutil
    from click.testing import CliRunner
    from cgl.cli.main import main
    for name in ("actions.cgl", "actions-cards.yaml"):
        shutil.copy(f"examples/{name}", tmp_path / name)
    rules, cards = tmp_path / "actions.cgl", tmp_path / "actions-cards.yaml"
    before = CliRunner().invoke(main, ["run", str(rules), "--seed", "3"]).output
    doc, text = _open(client, rules)
    where = at(text, "c.power", 3)
    edit = await client.text_document_rename_async(T.RenameParams(text_document=doc, position=where, new_name="strength"))
    assert set(edit.changes) == {rules.as_uri(), cards.as_uri()}
    assert len(edit.changes[cards.as_uri()]) == open(cards).read().count("power:")
    for path in (rules, cards):
        path.write_text(apply_edits(path.read_text(), edit.changes[path.as_uri()]))
    assert "power" not in rules.read_text() and "power" not in cards.read_text().split("\n", 1)[1]
    assert "  strength: int = 0" in rules.read_text() and "{name: Jab, kind: strike, strength: 1, count: 6}" in cards.read_text()
    assert _lint_codes(rules) == []
    assert CliRunner().invoke(main, ["run", str(rules), "--seed", "3"]).output == before
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=doc.uri, version=2),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=rules.read_text())]))
    # `kind` is a built-in attribute too (an event's): what `.kind` reads is not the data's alone
    with pytest.raises(Exception, match="built-in attribute"):
        await client.text_document_rename_async(T.RenameParams(
            text_document=doc, position=at(text, "  kind: kind", 2), new_name="sort_of"))
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


def test_rename_in_scenarios_covers_rest_stats_card_and_global_variables(tmp_path):
    """`rest:`, a `cards moved:A>B` stat, an `event:NAME` stat, a card variable under
    `cards:` and a global one under `globals:`, in `setup:` and `expect:`; a scenario of
    another ruleset is left alone."""
    from cgl.interpreter.tools.lsp import Session
    rules = tmp_path / "g.cgl"
    rules.write_text(RULESET.replace("var points per player = 0\n", "var points per player = 0\nvar tricks = 0\n"
                                     "var marked per card = false\n")
                     .replace("    discard c\n", "    discard c\n    emit tossed()\n"))
    (tmp_path / "tiny-cards.yaml").write_text(CARDS)
    (tmp_path / "other.cgl").write_text(RULESET)
    scen = """scenarios:
  - scenario: one
    ruleset: ../g.cgl
    players: 2
    setup:
      zones: {pile: [Dragon], "hand P1": [Goblin]}
      rest: deck
      cards: {Dragon: {marked: true}}
      globals: {tricks: 1}
    script: [{P1: Goblin}]
    expect:
      zones:
        pile: {count: 2}
      cards:
        Dragon: {marked: true}
      globals: {tricks: 1}
      stats: {"cards moved:hand>pile": 1, "event:tossed": 1}
  - scenario: two
    ruleset: ../other.cgl
    players: 2
    setup:
      rest: deck
"""
    path = tmp_path / "scenarios" / "s.yaml"
    path.parent.mkdir()
    path.write_text(scen)
    session = Session()
    text = rules.read_text()

    def renamed(needle, offset, new):
        p = at(text, needle, offset)
        spans, why = session.rename(str(rules), p.line, p.character, new)
        assert why is None
        lines = scen.split("\n")
        for sp in sorted((sp for sp in spans if sp.path == str(path)), key=lambda sp: (sp.line, -sp.column)):
            ln = lines[sp.line - 1]
            lines[sp.line - 1] = ln[:sp.column - 1] + new + ln[sp.end_column - 1:]
        return "\n".join(lines)
    got = renamed("zone deck", 5, "stock")
    assert got.count("rest: stock") == 1 and got.count("rest: deck") == 1   # the other ruleset's scenario keeps it
    got = renamed("zone hand", 5, "held")
    assert '"held P1": [Goblin]' in got and '"cards moved:held>pile": 1' in got
    got = renamed("zone pile", 5, "heap")
    assert "{heap: [Dragon]" in got and "        heap: {count: 2}" in got and "cards moved:hand>heap" in got
    got = renamed("var marked", 4, "flagged")
    assert got.count("Dragon: {flagged: true}") == 2
    got = renamed("var tricks", 4, "taken")
    assert got.count("globals: {taken: 1}") == 2
    got = renamed("emit tossed", 5, "thrown")
    assert '"event:thrown": 1' in got


# ---------------------------------------------------------------- highlights, folding, formatting, signatures, tokens

def _pos(p: T.Position) -> tuple:
    return p.line, p.character


def _open(client, path, text=None):
    text = path.read_text() if text is None else text
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=path.as_uri(), language_id="cgl", version=1, text=text)))
    return T.TextDocumentIdentifier(path.as_uri()), text


@aio
async def test_document_highlights_of_a_procedure_and_of_a_local(client: LanguageClient, mgt):
    doc, text = _open(client, mgt / "mgt.cgl")
    got = await client.text_document_document_highlight_async(T.DocumentHighlightParams(
        doc, at(text, "procedure refill", 11)))
    starts = {(h.range.start.line, h.range.start.character): h.kind for h in got}
    assert starts[_pos(at(text, "procedure refill", 10))] == T.DocumentHighlightKind.Write
    calls = [n for n, ln in enumerate(text.splitlines()) if "refill(" in ln and "procedure" not in ln]
    assert len(got) == 1 + len(calls) and {s[0] for s in starts} == {at(text, "procedure refill").line, *calls}
    got = await client.text_document_document_highlight_async(T.DocumentHighlightParams(
        doc, at(text, "let pts = round_points", 4)))
    lines = text.splitlines()
    assert {h.range.start.line for h in got} == {n for n in range(at(text, "let pts").line, at(text, "points: pts").line + 1)
                                                 if " pts" in lines[n] or "{pts}" in lines[n]}
    assert len(got) == 4
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


@aio
async def test_folding_ranges(client: LanguageClient, mgt):
    doc, text = _open(client, mgt / "mgt.cgl")
    got = await client.text_document_folding_range_async(T.FoldingRangeParams(doc))
    folds = {(f.start_line, f.end_line): f.kind for f in got}
    refill = at(text, "procedure refill").line
    end = text.splitlines().index("}", refill)
    assert folds[(refill, end - 1)] == T.FoldingRangeKind.Region      # the body, its `}` left showing
    top = next(n for n, ln in enumerate(text.splitlines()) if not ln.startswith("#"))
    assert folds[(0, top - 1)] == T.FoldingRangeKind.Comment          # the comments at the top
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


@aio
async def test_formatting_and_range_formatting_are_cgl_fmt(client: LanguageClient, mgt):
    """(The shipped ruleset is already in `cgl fmt`'s layout: messed up twice, formatted back.)"""
    original = (mgt / "mgt.cgl").read_text()
    messy = original.replace("  while holding(p) < hand_size", "      while   holding(p)<hand_size") \
                    .replace("    if count(stock) = 0 {", "    if count( stock )=0 {")
    path = mgt / "messy.cgl"
    path.write_text(messy)
    doc, _ = _open(client, path, messy)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
        doc, T.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert apply_edits(messy, edits) == original
    first = at(messy, "      while").line
    edits = await client.text_document_range_formatting_async(T.DocumentRangeFormattingParams(
        doc, T.Range(T.Position(first, 0), T.Position(first + 1, 0)), T.FormattingOptions(tab_size=2, insert_spaces=True)))
    partly = apply_edits(messy, edits)
    assert "  while holding(p) < hand_size" in partly and "if count( stock )=0 {" in partly
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


@aio
async def test_signature_help_of_a_def_a_procedure_and_a_builtin(client: LanguageClient, mgt):
    text = (mgt / "mgt.cgl").read_text() + "\ndef probe(m, p) = round_points(m, sum([1, 2]))\n"
    path = mgt / "probe.cgl"
    path.write_text(text)
    doc, _ = _open(client, path, text)
    got = await client.text_document_signature_help_async(T.SignatureHelpParams(doc, at(text, "sum([1", 4)))
    sig, = got.signatures
    assert sig.label == "sum(LIST)" and "the sum of numbers" in sig.documentation.value
    got = await client.text_document_signature_help_async(T.SignatureHelpParams(doc, at(text, "sum([1")))
    assert got.signatures[0].label == "round_points(m, p)" and got.active_parameter == 1
    assert [p.label for p in got.signatures[0].parameters] == ["m", "p"]
    inside = at(text, "refill(p)  ", 7)   # (a procedure's call statement)
    got = await client.text_document_signature_help_async(T.SignatureHelpParams(doc, inside))
    assert got.signatures[0].label == "refill(p)" and "procedure" in got.signatures[0].documentation.value
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


@aio
async def test_semantic_tokens_come_from_the_resolver(client: LanguageClient, mgt):
    init = SERVER["capabilities"].semantic_tokens_provider
    types, mods = init.legend.token_types, init.legend.token_modifiers
    doc, text = _open(client, mgt / "mgt.cgl")
    got = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc))
    tokens, line, char = {}, 0, 0
    for i in range(0, len(got.data), 5):
        dl, dc, length, kind, bits = got.data[i:i + 5]
        line, char = line + dl, (char + dc if dl == 0 else dc)
        tokens[(line, char)] = (text.splitlines()[line][char:char + length], types[kind],
                                {m for n, m in enumerate(mods) if bits >> n & 1})
    assert tokens[_pos(at(text, "procedure refill", 10))] == ("refill", "function", {"declaration"})
    assert tokens[_pos(at(text, "holding(p) < hand_size", 8))] == ("p", "parameter", set())
    assert tokens[_pos(at(text, "count(stock) > 0", 6))] == ("stock", "struct", set())
    assert tokens[_pos(at(text, "count(stock) > 0"))] == ("count", "function", {"defaultLibrary"})
    assert tokens[_pos(at(text, "emit exhausted", 5))] == ("exhausted", "event", set())
    assert tokens[_pos(at(text, "+= pts", 3))] == ("pts", "variable", set())
    assert tokens[_pos(at(text, "set p.points", 6))] == ("points", "property", set())
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


# ---------------------------------------------------------------- completion that knows types

@aio
async def test_completion_after_a_dot_offers_what_the_value_has(client: LanguageClient, mgt):
    """A card's properties after `c.` (`choose c in hand(p)`), a player's after `current.`;
    inside a text's `{…}` the same, not the card names. (It offered one list for both, and
    201 card names inside `"{c.`. Issue 33.)"""
    path = mgt / "typed.cgl"
    text = (mgt / "mgt.cgl").read_text()
    path.write_text(text)
    doc, _ = _open(client, path, text)
    await client.text_document_hover_async(T.HoverParams(doc, at(text, "procedure refill", 11)))   # (loaded once)

    async def labels(old, new, offset):
        typed = text.replace(old, new, 1)
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=doc.uri, version=2),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=typed)]))
        got = await client.text_document_completion_async(T.CompletionParams(doc, at(typed, new, offset)))
        return {i.label for i in got.items}
    card = await labels("{ discard c }", "{ discard c. }", len("{ discard c."))
    assert {"nature", "type", "zone", "owner", "meld_id"} <= card and not {"points", "seat"} & card
    player = await labels("{ discard c }", "{ discard current. }", len("{ discard current."))
    assert {"points", "seat", "name"} <= player and not {"nature", "zone"} & player
    quoted = await labels('"You hold too many cards: discard one"', '"You hold {c.', len('"You hold {c.'))
    assert "nature" in quoted and not {c.name for c in _mgt_cards()} & quoted
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


@aio
async def test_completion_offers_players_where_a_player_is_expected(client: LanguageClient, mgt):
    """After `by`, `win`, `give turn to` and in `others(` or a zone of each player's `(`: the
    players in reach (a local bound to one, a parameter, `current`, the functions that give
    one), never a card nor a card's local; elsewhere the whole list (issue 33)."""
    path = mgt / "players.cgl"
    text = (mgt / "mgt.cgl").read_text()
    path.write_text(text)
    doc, _ = _open(client, path, text)
    await client.text_document_hover_async(T.HoverParams(doc, at(text, "procedure refill", 11)))   # (loaded once)
    line = "prefer -usefulness(p, c) { discard c }"
    version = 1

    async def offered(new, rest=""):
        nonlocal version
        version += 1
        typed = text.replace(line, line[:-1] + new + rest + " }", 1)
        client.diagnostics.pop(doc.uri, None)
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=doc.uri, version=version),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=typed)]))
        if rest:   # a text that loads: its names are known once it is checked
            await diagnostics(client, doc.uri, lambda ds: True)
        where = at(typed, line[:-1] + new, len(line) - 1 + len(new))
        got = await client.text_document_completion_async(T.CompletionParams(doc, where))
        return [(i.label, i.detail) for i in got.items]
    for new in (" win ", " for q in players { give turn to ", " say others(", " move c to table(",
                ' choose d in hand(p) by '):
        got = dict(await offered(new))
        assert {"p", "current", "next_after", "seat"} <= set(got), (new, got)
        assert not {"c", "d", "hand", "count", "stock", "Alice"} & set(got), (new, got)
    got = await offered(" for q in players { win ", "q }")   # (a text that loads: q is bound)
    assert got[0] == ("q", "a player") and "players" in dict(got)   # `win` takes a list of players too
    assert "players" not in dict(await offered(" say others("))
    assert {"stock", "count"} <= {label for label, _ in await offered(" let s = players sort by ")}
    assert {"stock", "count", "pile"} <= {label for label, _ in await offered(" move c to ")}   # a zone: not only players
    client.text_document_did_close(T.DidCloseTextDocumentParams(doc))


def _mgt_cards():
    from cgl.interpreter.check.loader import load
    return load("rulesets/mgt.cgl").cards


@aio
async def test_a_real_client_is_answered_whatever_the_workspace_holds(client: LanguageClient, folder):
    """Issue 34, through a real client: a FIFO and a symlink to /dev/zero beside a card file
    it opens (checking a card file reads its folder's rulesets), and a 2 MB unsaved buffer:
    the buffer gets a located E002 and the server goes on answering. (The timeouts only
    catch a hang: a FIFO read never returns, /dev/zero never ends.)"""
    import os
    d = folder / "hostile"
    d.mkdir()
    (d / "tiny-cards.yaml").write_text(CARDS)
    (d / "tiny.cgl").write_text(RULESET)
    os.mkfifo(d / "stuck.cgl")
    os.symlink("/dev/zero", d / "zero.cgl")
    cards_uri = (d / "tiny-cards.yaml").as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri=cards_uri, language_id="yaml", version=1, text=CARDS)))
    await diagnostics(client, cards_uri, lambda ds: True, timeout=60)
    big_uri = (d / "tiny.cgl").as_uri()
    big = "# " + "x" * (2 * 1024 * 1024) + "\n" + RULESET
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri=big_uri, language_id="cgl", version=1, text=big)))
    got = await diagnostics(client, big_uri, lambda ds: len(ds) > 0, timeout=60)
    assert got[0].code == "E002" and "limit" in got[0].message
    doc = T.TextDocumentIdentifier(uri=open_ruleset(client, folder))
    symbols = await asyncio.wait_for(client.text_document_document_symbol_async(T.DocumentSymbolParams(doc)), 60)
    assert any(s.name.startswith("zone") or "deck" in s.name for s in symbols)
    for uri in (cards_uri, big_uri, doc.uri):
        client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri=uri)))


def test_signature_help_and_players_in_reach_of_a_zone_per_card_per_player():
    """`side(CARD, PLAYER)`: the signature names both, and its second argument is where a
    player is expected (the players in reach are offered there)."""
    import pathlib
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.tools import actions
    rs = load(str(pathlib.Path(__file__).resolve().parent.parent / "examples" / "fronts.cgl"), {})
    label, params, doc = actions.signature(rs, "side")
    assert label == "side(CARD, PLAYER)" and params == ["CARD", "PLAYER"] and "side" in doc
    assert actions.signature(rs, "hand")[0] == "hand(PLAYER)"
    assert actions.expects_player(rs, "    move c to side(f, ") == "player"
    assert actions.expects_player(rs, "    move c to side(") is None
