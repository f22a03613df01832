"""The TextMate grammar (editors/cgl.tmLanguage.json) scopes every token of every shipped file.

A small TextMate tokenizer, written for this test: match, begin/end, include (`#name`,
`$self`), repository, captures / beginCaptures / endCaptures. It follows vscode-textmate
where it matters here: the leftmost match wins, ties go to the end pattern and then to
the first pattern listed, and a line is matched on its own.
"""
from __future__ import annotations

import functools
import glob
import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAMMAR = os.path.join(ROOT, "editors", "cgl.tmLanguage.json")
SHIPPED = sorted(glob.glob(os.path.join(ROOT, "rulesets", "*.cgl")) + glob.glob(os.path.join(ROOT, "examples", "*.cgl")))
ROOT_SCOPE = "source.cgl"


class Tokenizer:
    def __init__(self, grammar: dict):
        self.grammar = grammar
        self.regex: dict[str, re.Pattern] = {}

    def compile(self, src: str) -> re.Pattern:
        if src not in self.regex:
            self.regex[src] = re.compile(src)
        return self.regex[src]

    def expand(self, patterns, seen=()) -> list:
        """The match and begin rules of a pattern list, includes resolved."""
        out = []
        for p in patterns:
            if "include" in p:
                ref = p["include"]
                target = self.grammar if ref == "$self" else self.grammar["repository"][ref.lstrip("#")]
                if ref in seen:
                    continue
                out += self.expand(target.get("patterns", []) if "match" not in target and "begin" not in target
                                   else [target], seen + (ref,))
            elif "match" in p or "begin" in p:
                out.append(p)
            else:
                out += self.expand(p.get("patterns", []), seen)
        return out

    def tokenize(self, text: str) -> list:
        """For each line, for each character, its scopes (outermost first)."""
        stack = [(None, [ROOT_SCOPE], self.expand(self.grammar["patterns"]))]
        result = []
        for line in text.split("\n"):
            scopes = [None] * len(line)
            pos, cache, last_empty = 0, {}, None
            while pos <= len(line):
                rule, frame_scopes, patterns = stack[-1]
                best = None
                candidates = ([("end", rule, rule["end"])] if rule else []) + \
                             [("rule", p, p.get("match", p.get("begin"))) for p in patterns]
                for kind, r, src in candidates:
                    key = (id(r), kind)
                    m = cache.get(key, False)
                    if m is False or (m is not None and m.start() < pos):
                        m = self.compile(src).search(line, pos)
                        cache[key] = m
                    if m is not None and (best is None or m.start() < best[2].start()):
                        best = (kind, r, m)
                if best is None:
                    break
                kind, r, m = best
                if m.start() == m.end() and last_empty == (m.start(), id(r)):
                    break  # a zero-width match that does not move on: end of line
                last_empty = (m.start(), id(r)) if m.start() == m.end() else None
                for i in range(pos, m.start()):
                    scopes[i] = frame_scopes
                if kind == "end":
                    self.paint(scopes, m, frame_scopes, rule.get("endCaptures", rule.get("captures", {})))
                    stack.pop()
                    cache = {}
                elif "match" in r:
                    inner = frame_scopes + ([r["name"]] if "name" in r else [])
                    self.paint(scopes, m, inner, r.get("captures", {}))
                else:
                    inner = frame_scopes + ([r["name"]] if "name" in r else [])
                    self.paint(scopes, m, inner, r.get("beginCaptures", r.get("captures", {})))
                    stack.append((r, inner + ([r["contentName"]] if "contentName" in r else []),
                                  self.expand(r.get("patterns", []))))
                    cache = {}
                pos = m.end()
            for i in range(len(line)):
                if scopes[i] is None:
                    scopes[i] = stack[-1][1]
            result.append((line, scopes))
        return result

    @staticmethod
    def paint(scopes, m, base, captures):
        for i in range(m.start(), m.end()):
            scopes[i] = base
        for group in sorted(captures, key=int):
            start, end = m.span(int(group))
            if start < 0 or "name" not in captures[group]:
                continue
            for i in range(start, end):
                scopes[i] = scopes[i] + [captures[group]["name"]]


@pytest.fixture(scope="module")
def grammar():
    with open(GRAMMAR, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def tokenizer(grammar):
    return Tokenizer(grammar)


def all_regexes(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("match", "begin", "end"):
                yield v
            else:
                yield from all_regexes(v)
    elif isinstance(node, list):
        for v in node:
            yield from all_regexes(v)


def test_grammar_is_source_cgl_and_its_regexes_are_in_the_common_subset(grammar):
    assert grammar["scopeName"] == ROOT_SCOPE and "cgl" in grammar["fileTypes"]
    regexes = list(all_regexes(grammar))
    assert len(regexes) > 20
    for src in regexes:
        re.compile(src)
        # what Python's `re` and Oniguruma would read differently (or one of them not at all)
        for construct in ("(?P", "(?>", r"\h", r"\G", r"\A", r"\Z", r"\z", "++", "*+", "?+", "(?i", "(?x"):
            assert construct not in src, (construct, src)
        assert not re.search(r"\(\?<[A-Za-z]", src), src  # named groups


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_character_of_shipped_files_gets_a_scope(tokenizer, path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    gaps = []
    for n, (line, scopes) in enumerate(tokenizer.tokenize(text), 1):
        for col, ch in enumerate(line):
            if not ch.isspace() and scopes[col] == [ROOT_SCOPE]:
                gaps.append(f"{path}:{n}:{col + 1}: {line.strip()!r} at {line[col:col + 12]!r}")
    assert not gaps, "\n".join(gaps[:20])


def scope_of(tokenizer, text: str, word: str, nth: int = 0) -> list:
    line, scopes = tokenizer.tokenize(text)[0]
    at = -1
    for _ in range(nth + 1):
        at = line.index(word, at + 1)
    return scopes[at]


@pytest.mark.parametrize("text, word, scope", [
    ("# decision: a note", "decision", "comment.line.number-sign.cgl"),
    ('say "Discard {c.name}?"', "Discard", "string.quoted.double.cgl"),
    ('say "Discard {c.name}?"', "name", "variable.other.property.cgl"),
    ("let x = 2d6 + d20 - 4", "2d6", "constant.numeric.dice.cgl"),
    ("let x = 2d6 + d20 - 4", "d20", "constant.numeric.dice.cgl"),
    ("let x = 2d6 + d20 - 4", "4", "constant.numeric.integer.cgl"),
    ("let x = 2d6 + d20 - 4", "-", "keyword.operator.cgl"),
    ("def size_of(label) = count(all_cards)", "def", "storage.type.function.cgl"),
    ("def size_of(label) = count(all_cards)", "size_of", "entity.name.function.cgl"),
    ("def size_of(label) = count(all_cards)", "count", "entity.name.function.call.cgl"),
    ("def size_of(label) = count(all_cards)", "all_cards", "variable.other.cgl"),
    ("zone hand: per player, owner, as hand", "hand", "variable.other.definition.cgl"),
    ("zone hand: per player, owner, as hand", "player", "keyword.other.cgl"),
    # the language's own events are keywords, as the parser reads them; a rules' own event a name
    ("on discard if nature = proud as proud_leader {", "discard", "keyword.other.event.cgl"),
    ("on discard if nature = proud as proud_leader {", "proud_leader", "variable.other.cgl"),
    ("on start of turn if x {", "turn", "keyword.other.event.cgl"),
    ("reaction claim after discard if not event.forced {", "discard", "keyword.other.event.cgl"),
    ("on exhausted as tired {", "exhausted", "entity.name.event.cgl"),
    # issue 33: the tutorial's own line, and `zone` as a card's built-in property
    ("on move to table if name = x as trap {", "table", "variable.other.cgl"),
    ("on move to table if name = x as trap {", "if", "keyword.control.cgl"),
    ("on move from deck to table {", "deck", "variable.other.cgl"),
    ('invariant h: count(all_cards where zone in ["hand"]) = 0', "zone", "variable.other.cgl"),
    ('invariant h: count(all_cards where zone in ["hand"]) = 0', "in [", "keyword.operator.word.cgl"),
    ("zone used: shared, public, as discard", "public", "keyword.other.cgl"),
    ("zone used: shared, public, as discard", "discard", "variable.other.cgl"),
    ("private var seen per player = []", "seen", "variable.other.definition.cgl"),
    # a name the rules bind is a name, however it is spelt
    ("let from = owner(c)", "from", "variable.other.cgl"),
    ('choose where in ["hand", "table"] by p {', "where", "variable.other.cgl"),
    ("choose 1..9 group in mine(s) by actor {", "group", "variable.other.cgl"),
    ("emit left(player: from, card: c)", "from", "variable.other.cgl"),
    ("draw 1 from stock to hand(p)", "from", "keyword.other.statement.cgl"),
    ("if direction = -1 { reverse turn order }", "order", "keyword.other.cgl"),
    ("let ok = possible(play(c))", "possible", "keyword.other.statement.cgl"),
    ("reaction claim after discard if not event.forced {", "not", "keyword.operator.logical.cgl"),
    ("emit exhausted()", "exhausted", "entity.name.event.cgl"),
    ("if a >= 2 and b { win p } else { lose p }", "if", "keyword.control.cgl"),
    ("if a >= 2 and b { win p } else { lose p }", ">=", "keyword.operator.cgl"),
    ("option rounds: int in 1..20 = 3", "..", "keyword.operator.range.cgl"),
    ("let x = true", "true", "constant.language.cgl"),
    ("let best = max([p.points for p in players])", "players", "variable.other.cgl"),
    ("rule no_babies: forbid enter stable if card.kind = baby", "stable", "variable.other.cgl"),
    ("rule proud_ban: forbid collect if label in player.banned", "collect", "entity.name.tag.cgl"),
    ("  first first(players)", "first", "keyword.other.field.cgl"),
    ("  first first(players)", "first(", "entity.name.function.call.cgl"),
    ("  phase draw {", "draw", "entity.name.section.cgl"),
    ("on end of phase discard if x {", "discard", "entity.name.section.cgl"),
    ("zone hand: per player, owner, as hand", "per", "keyword.other.cgl"),
    ("cut deck at 3", "cut", "keyword.other.statement.cgl"),
    ("cut deck at count(deck) / 2", "at", "keyword.other.statement.cgl"),
    ("def mine_in(s) = field where at = s and side = p", "at", "variable.other.cgl"),
    ("set c.at = s", "at", "variable.other.property.cgl"),
])
def test_scopes_of_small_snippets(tokenizer, text, word, scope):
    assert scope in scope_of(tokenizer, text, word)


# ---------------------------------------------------------------- the VS Code package

VSCODE = os.path.join(ROOT, "editors", "vscode")


def test_vscode_package_contributes_the_language_the_grammar_and_a_client(grammar):
    with open(os.path.join(VSCODE, "package.json"), encoding="utf-8") as f:
        pkg = json.load(f)
    contrib = pkg["contributes"]
    (lang,) = contrib["languages"]
    assert lang["id"] == "cgl" and lang["extensions"] == [".cgl"]
    with open(os.path.join(VSCODE, lang["configuration"]), encoding="utf-8") as f:
        conf = json.load(f)
    assert conf["comments"]["lineComment"] == "#"
    assert ["{", "}"] in conf["brackets"]
    (gram,) = contrib["grammars"]
    assert gram["scopeName"] == "source.cgl"
    with open(os.path.join(VSCODE, gram["path"]), encoding="utf-8") as f:
        assert json.load(f) == grammar, "copy editors/cgl.tmLanguage.json to editors/vscode/syntaxes/"
    # what runs is one bundled file, made from extension.js with its client (`npm run bundle`,
    # which `vsce package` runs first): a package of a few files, not node_modules' hundreds
    assert pkg["main"] == "./dist/extension.js"
    assert "extension.js --bundle" in pkg["scripts"]["bundle"] and "--external:vscode" in pkg["scripts"]["bundle"]
    assert pkg["scripts"]["vscode:prepublish"] == "npm run bundle"
    assert "vscode-languageclient" in pkg["devDependencies"] and "dependencies" not in pkg
    # a workspace with a ruleset starts the client, so its YAML is checked before any .cgl is opened
    assert set(pkg["activationEvents"]) == {"onLanguage:cgl", "workspaceContains:**/*.cgl"}


_STUB_HOST = r"""
const Module = require("module");
const seen = [];
const stubs = {
  vscode: {
    workspace: { getConfiguration: () => ({ get: (k, d) => d }), createFileSystemWatcher: () => ({}),
                 getWorkspaceFolder: () => undefined },
    languages: { registerDocumentFormattingEditProvider: (sel, p) => { seen.push(["fmt", sel.language]); return {}; } },
    window: { setStatusBarMessage: () => {} },
  },
  "vscode-languageclient/node": {
    TransportKind: { stdio: 0 },
    LanguageClient: function (id, name, server, client) {
      seen.push(["lsp", server.run.command, server.run.args, [...new Set(client.documentSelector.map(s => s.language))]]);
      this.start = () => {}; this.stop = () => {};
    },
  },
};
const load = Module._load;
Module._load = function (req, ...rest) { return stubs[req] || load.call(this, req, ...rest); };
require(process.argv[1]).activate({ subscriptions: [] });
console.log(JSON.stringify(seen));
"""


def test_vscode_extension_starts_cgl_lsp_and_formats_with_cgl_fmt():
    import shutil
    import subprocess
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to load extension.js with")
    out = subprocess.run([node, "-e", _STUB_HOST, os.path.join(VSCODE, "extension.js")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # the server is given the card and scenario YAML too (issue 33: it checks them)
    assert json.loads(out.stdout) == [["lsp", "cgl", ["lsp"], ["cgl", "yaml"]], ["fmt", "cgl"]]


def _grammar_keywords() -> set:
    from cgl.grammar import parser
    return {t.pattern.value for t in parser().terminals if t.pattern.type == "str" and t.pattern.value.isalpha()}


def _keyword_scoped(name: str) -> bool:
    return name.startswith(("keyword", "storage", "constant.language"))


def test_every_keyword_of_the_grammar_is_coloured_as_one(tokenizer):
    """Each word cgl.lark uses as a keyword is scoped as a keyword (or a constant, `true`),
    written alone, but for those that are keywords only in their place and names everywhere
    else: `per card`, `per player`, `group by`, `sort by`, `choose targets of`, and the declarations that start a
    line (`zone hand: … hidden`, `option n: …`, `table t(p) {`), whose words the shipped
    rulesets also use as names (`card.name`, `where zone = "stable"`, `owner(option)`)."""
    words = sorted(_grammar_keywords())
    assert len(words) > 100
    plain = []
    for w in words:
        scopes = [s for _, per_char in tokenizer.tokenize(w) for s in per_char[0]]
        if not any(_keyword_scoped(s) for s in scopes):
            plain.append(w)
    assert plain == ["card", "group", "hidden", "option", "player", "sort", "table", "target", "targets", "zone"]


def test_the_keywords_the_textmate_grammar_lists_are_the_grammars(grammar):
    """The words of the TextMate grammar's keyword rules (`\\b(if|elif|…)\\b`) are exactly
    cgl.lark's keywords: none missing, none that the parser reads as a name."""
    def rules(node):
        if isinstance(node, dict):
            if "match" in node or "begin" in node:
                yield node
            for v in node.values():
                yield from rules(v)
        elif isinstance(node, list):
            for v in node:
                yield from rules(v)
    listed = set()
    for r in rules(grammar):
        names = [r.get("name", "")] + [c.get("name", "") for k in ("captures", "beginCaptures")
                                       for c in r.get(k, {}).values()]
        if any(_keyword_scoped(n) for n in names):
            for group in re.findall(r"\(((?:[a-z]+\|)*[a-z]+)\)", r.get("match") or r["begin"]):
                listed |= set(group.split("|"))
    keywords = _grammar_keywords()
    assert sorted(keywords - listed) == [], "keywords the TextMate grammar does not know"
    assert sorted(listed - keywords) == [], "words coloured as keywords that cgl.lark does not have"


# ---------------------------------------------------------------- agreement with the parser
#
# Every token Lark's lexer makes of a shipped file, as the parser asks for it (the lexer is
# contextual: `from` is a keyword after `draw 1` and a name in `let from = owner(c)`), is
# coloured as what it is: a comment, a string, a number, a keyword (or `true`, `false`,
# `none`), or a name (anything but those). Checked with the engine VS Code runs
# (vscode-textmate on Oniguruma, from `npm ci` in editors/vscode), and with this file's
# tokenizer, which must colour every character of those files the same.

TOKENIZE_JS = os.path.join(ROOT, "editors", "vscode", "test", "tokenize.js")
NODE_MODULES = os.path.join(ROOT, "editors", "vscode", "node_modules")


def _need_node_modules(what: str):
    """Skip without `npm ci` in editors/vscode, unless CGL_REQUIRE_NODE=1 (as in CI)."""
    import shutil
    if shutil.which("node") and os.path.isdir(os.path.join(NODE_MODULES, what)):
        return
    if os.environ.get("CGL_REQUIRE_NODE") == "1":
        pytest.fail(f"CGL_REQUIRE_NODE=1 but no node or no {what}: run `npm ci` in editors/vscode")
    pytest.skip(f"no node or no {what} (`npm ci` in editors/vscode)")


def _utf16_to_index(line: str) -> list:
    out = []
    for i, ch in enumerate(line):
        out += [i] * (2 if ord(ch) > 0xFFFF else 1)
    return out + [len(line)]


def _vscode_scopes_of(paths: list) -> dict:
    """path -> for each line, each character's scopes, as vscode-textmate colours it."""
    import subprocess
    _need_node_modules("vscode-textmate")
    out = subprocess.run(["node", TOKENIZE_JS, GRAMMAR, *paths], capture_output=True, text=True,
                         timeout=300, cwd=os.path.join(ROOT, "editors", "vscode"))
    assert out.returncode == 0, out.stderr
    result = {}
    for path, lines in zip(paths, json.loads(out.stdout)):
        with open(path, encoding="utf-8") as f:
            text_lines = f.read().split("\n")
        per_file = []
        for line, tokens in zip(text_lines, lines):
            at = _utf16_to_index(line)
            scopes = [None] * len(line)
            for start, end, names in tokens:
                for i in range(at[start], at[min(end, len(at) - 1)]):
                    scopes[i] = names
            per_file.append(scopes)
        result[path] = per_file
    return result


@pytest.fixture(scope="module")
def vscode_scopes():
    return _vscode_scopes_of(SHIPPED)


_COMMENTS: list = []   # the comments the lexer passed, for `_lark_tokens`


@functools.lru_cache(maxsize=None)
def _token_parser():
    """The parser whose tokens `_lark_tokens` reads, and each terminal's kind: built once
    (its tables take about a second), its comments kept in `_COMMENTS`."""
    from lark import Lark
    p = Lark.open_from_package("cgl.grammar", "cgl.lark", parser="lalr", start="start",
                               lexer_callbacks={"COMMENT": _COMMENTS.append})
    kinds = {"COMMENT": "comment", "STRING": "string", "INT": "number", "DICE": "number", "NAME": "name",
             "END_SCOPE": "keyword"}
    for t in p.terminals:
        if t.pattern.type == "str" and t.pattern.value.isalpha():
            kinds[t.name] = "keyword"
    return p, kinds


def _lark_tokens(text: str) -> list:
    """The tokens the parser takes, comments too, as (kind, token)."""
    p, kinds = _token_parser()
    _COMMENTS.clear()
    ip = p.parse_interactive(text)
    tokens = [t for t in ip.iter_parse() if t.type != "$END"]
    ip.resume_parse()
    comments = list(_COMMENTS)
    return [(kinds.get(t.type, "punctuation"), t) for t in tokens + comments]


def _colour(scopes: list) -> str:
    if any(s.startswith("comment") for s in scopes):
        return "comment"
    if any(s.startswith("string") for s in scopes):
        return "string"
    if any(s.startswith("constant.numeric") for s in scopes):
        return "number"
    return "keyword" if _keyword_scoped(scopes[-1]) else "name"


def _disagreements(path: str, per_line_scopes: list) -> list:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    flat = []
    for scopes in per_line_scopes:
        flat += scopes + [None]
    out = []
    for kind, tok in _lark_tokens(text):
        if kind == "punctuation":
            continue
        colours = {_colour(flat[i]) for i in range(tok.start_pos, tok.end_pos)}
        if colours != {kind}:
            out.append(f"{os.path.relpath(path, ROOT)}:{tok.line}:{tok.column}: {tok.value!r} is a {kind} "
                       f"to the parser, coloured {'/'.join(sorted(colours))} ({flat[tok.start_pos][-1]})")
    return out


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: os.path.relpath(p, ROOT))
def test_vscode_colours_every_token_as_the_parser_reads_it(vscode_scopes, path):
    bad = _disagreements(path, vscode_scopes[path])
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: os.path.relpath(p, ROOT))
def test_this_tokenizer_colours_every_token_as_the_parser_reads_it(tokenizer, path):
    with open(path, encoding="utf-8") as f:
        lines = tokenizer.tokenize(f.read())
    bad = _disagreements(path, [scopes for _, scopes in lines])
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: os.path.relpath(p, ROOT))
def test_this_tokenizer_scopes_every_character_as_vscode_does(tokenizer, vscode_scopes, path):
    with open(path, encoding="utf-8") as f:
        lines = tokenizer.tokenize(f.read())
    bad = []
    for n, ((line, ours), theirs) in enumerate(zip(lines, vscode_scopes[path]), 1):
        for col, (a, b) in enumerate(zip(ours, theirs)):
            if a != b:
                bad.append(f"{n}:{col + 1}: {line[col:col + 12]!r}: {a} here, {b} in vscode-textmate")
                break
    assert not bad, "\n".join(bad[:10])


def test_the_ruleset_cgl_new_writes_is_coloured_as_the_parser_reads_it(tokenizer, tmp_path):
    from click.testing import CliRunner
    from cgl.cli.main import main
    assert CliRunner().invoke(main, ["new", str(tmp_path / "my-game")]).exit_code == 0
    path = str(tmp_path / "my-game" / "my-game.cgl")
    with open(path, encoding="utf-8") as f:
        ours = [scopes for _, scopes in tokenizer.tokenize(f.read())]
    assert _disagreements(path, ours) == []
    assert _disagreements(path, _vscode_scopes_of([path])[path]) == []


# ---------------------------------------------------------------- the .vsix

def test_the_vsix_packages_without_a_warning(tmp_path):
    """`npm run package` (vsce, after bundling) makes the .vsix with no warning, and it
    holds the bundle, the grammar, the language configuration, the README and the licence."""
    import subprocess
    import zipfile
    _need_node_modules("@vscode/vsce")
    out_file = tmp_path / "cgl.vsix"
    r = subprocess.run(["npm", "run", "package", "--", "--out", str(out_file)], cwd=VSCODE, capture_output=True,
                       text=True, timeout=300, stdin=subprocess.DEVNULL)
    output = r.stdout + r.stderr
    assert r.returncode == 0, output
    assert "WARNING" not in output.upper(), output
    names = set(zipfile.ZipFile(out_file).namelist())
    assert {"extension/dist/extension.js", "extension/syntaxes/cgl.tmLanguage.json", "extension/package.json",
            "extension/language-configuration.json", "extension/LICENSE.txt", "extension/readme.md"} <= names
    assert not any("node_modules" in n for n in names), sorted(names)
