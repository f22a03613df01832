"""The TextMate grammar (editors/cgl.tmLanguage.json) scopes every token of every shipped file.

A small TextMate tokenizer, written for this test: match, begin/end, include (`#name`,
`$self`), repository, captures / beginCaptures / endCaptures. It follows vscode-textmate
where it matters here: the leftmost match wins, ties go to the end pattern and then to
the first pattern listed, and a line is matched on its own.
"""
from __future__ import annotations

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
    ("on discard if nature = proud as proud_leader {", "discard", "entity.name.event.cgl"),
    ("on start of turn if x {", "turn", "entity.name.event.cgl"),
    ("reaction claim after discard if not event.forced {", "discard", "entity.name.event.cgl"),
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
    assert "vscode-languageclient" in pkg["dependencies"]
    assert os.path.exists(os.path.join(VSCODE, pkg["main"]))
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


def test_every_keyword_of_the_grammar_is_coloured_as_one(tokenizer):
    """The TextMate grammar is tested against cgl.lark: each word the grammar uses as a
    keyword is scoped as a keyword (or a constant, `true`), written alone. `card`, `player`
    and `table` are keywords only in their place (`per card`, `per player`) and names
    everywhere else (`card.name`), so alone they read as names."""
    from cgl.grammar import parser
    p = parser()
    words = sorted({t.pattern.value for t in p.terminals if t.pattern.type == "str" and t.pattern.value.isalpha()})
    assert len(words) > 100
    plain = []
    for w in words:
        scopes = [s for _, per_char in tokenizer.tokenize(w) for s in per_char[0]]
        if not any(s.startswith(("keyword", "constant", "storage")) for s in scopes):
            plain.append(w)
    assert plain == ["card", "player", "table"]
