"""Game logs (`cgl run … --log FILE`, `cgl replay FILE`): writing them, reading them line by
line with a located message for each thing wrong, and checking that one reproduces.

A log is JSON Lines (README, "Logs and replays"): a header that says what the game was made
from (the ruleset and the content hashes of its files and deck lists, as a save keeps them,
the options, players, seed and agents), one line per event, and a last line with every
answer given and the result. A game is reproducible from (ruleset, options, seed, decks,
answers), so `replay` makes the game again, feeds the answers back and compares event for
event: a log that was edited, cut, made longer or made from other files is reported with the
line where it differs, never as reproducing.

Two kinds of failure: :class:`CglError` (E002) for a log that is not one (a special file, too
big, not UTF-8, not JSON, a field missing or of the wrong type: the CLI exits 2), and
:class:`NotReproduced` for a well-formed log the game does not reproduce (exit 1).
"""
from __future__ import annotations

import json
import os
import re
from typing import Optional

import attrs

from .agents import agent_spec
from ..base.ast import Span
from ..base.diagnostics import CglError, Diagnostic, remember_source
from .game import Game
from ..base.files import check_file, indirect_ruleset, write_text
from ..check.loader import load, packaged_rulesets, ruleset_files, ruleset_hash
from ..base.protocol import AnswerError
from .saves import _hashes, fingerprint, inputs_of

FORMAT, VERSION = "cgl-log", 1
MAX_BYTES = 64 * 1024 * 1024     # a log bigger than this is refused (a long game's log is a few MB)
MAX_DEPTH = 64                   # JSON nested deeper than this is not a log's

# every field of the header, and the JSON type of its value
HEADER = {"format": str, "version": int, "cgl": str, "ruleset": str, "ruleset_path": str, "ruleset_sha256": str,
          "files": dict, "options": dict, "players": int, "seed": int, "agents": list, "humans": list,
          "decks": dict, "max_steps": (int, type(None))}
_TYPE_NAMES = {str: "a text", int: "a whole number", dict: "an object {…}", list: "a list […]",
               (int, type(None)): "a whole number or null"}
_ANSWER = "an option's number from 0, a list of them, true, false or null"
_MADE = "`cgl run … --log FILE` writes logs"


class NotReproduced(CglError):
    """A well-formed log whose game does not come out the same when played again."""


@attrs.define
class Line:
    """One line of a log: its number (from 1), its text and its JSON value."""

    number: int
    text: str
    value: object


@attrs.define
class Log:
    """A log read and checked: its path, header, event lines and answers line."""

    path: str
    header: Line
    events: list          # Line, one per event
    answers: Line         # {"type": "answers", "answers": […], "result": {…}}


# ---------------------------------------------------------------- writing

def log_header(game: Game, ruleset: str, options: dict, specs: list, humans, hashes: Optional[dict],
               version: str) -> dict:
    """The first line of a log: what the game was made from (`hashes`: from
    :func:`saves.fingerprint`, taken when the game began; by default, now)."""
    return {"type": "header", "format": FORMAT, "version": VERSION, "cgl": version, "ruleset": ruleset,
            "ruleset_path": os.path.abspath(game.ruleset.path), **(hashes or fingerprint(game)),
            "options": dict(options), "players": game.players, "seed": game.seed, "agents": list(specs),
            "humans": sorted(humans), "decks": {str(s + 1): os.path.abspath(p) for s, p in game.decks.items()},
            "max_steps": game.engine.max_steps}


def write_log(path: str, header: dict, game: Game) -> None:
    """Write the log of `game` (its header from :func:`log_header`)."""
    lines = [json.dumps(header)] + [json.dumps(entry, default=str) for entry in game.state.log] + [json.dumps(
        {"type": "answers", "answers": game.answers, "result": {"winners": game.result.winners,
                                                                  "reason": game.result.reason}})]
    write_text(path, "\n".join(lines) + "\n", "log", inputs=inputs_of(header))


# ---------------------------------------------------------------- reading

def _bad(path: str, message: str, line: int = 0, col: int = 0, width: int = 1, hint: Optional[str] = None,
         kind=CglError) -> CglError:
    return kind(Diagnostic("E002", message, Span(path, line, col, line, col + width if line else 0), hint=hint))


def _read_bytes(path: str) -> bytes:
    """The bytes of a log; a special file (a FIFO, a device, a folder) or one too big is refused
    before it is opened, so that reading it can neither hang nor fill the memory."""
    check_file(path, "log", None, MAX_BYTES)   # the one loading layer's checks, from os.stat
    try:
        with open(path, "rb") as f:
            return f.read(MAX_BYTES + 1)
    except OSError as e:
        raise _bad(path, f"cannot read the log `{path}`: {e.strerror or e.__class__.__name__}") from None


def _json_code(text: str, start: int = 0):
    """(index, character) of a JSON text from `start`, but for what lies inside strings (a
    string's opening quote is given, so an item that is a string is seen to begin)."""
    in_str = esc = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        yield i, ch


def _depth_over(text: str, limit: int) -> int:
    """The column (from 1) where brackets outside strings nest deeper than `limit`, else 0."""
    depth = 0
    for i, ch in _json_code(text):
        if ch in "[{":
            depth += 1
            if depth > limit:
                return i + 1
        elif ch in "]}":
            depth -= 1
    return 0


def _parse_line(path: str, n: int, text: str):
    """One line's JSON value, or a located E002."""
    col = _depth_over(text, MAX_DEPTH) if text.count("[") + text.count("{") > MAX_DEPTH else 0
    if col:
        raise _bad(path, f"this line nests lists or objects more than {MAX_DEPTH} deep: not a log's line",
                   n, col, hint=_MADE)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise _bad(path, f"this line is not JSON: {e.msg}", n, e.colno,
                   hint="each line of a log is one JSON object; was the log edited or cut short?") from None
    except RecursionError:   # (nesting the check above did not count)
        raise _bad(path, "this line nests lists or objects too deep: not a log's line", n, 1, hint=_MADE) from None
    except ValueError as e:  # a number with more digits than Python converts (int_max_str_digits)
        m = re.search(r"\d{100,}", text)
        raise _bad(path, f"this line holds a number too long to read ({e.__class__.__name__})", n,
                   m.start() + 1 if m else 1, hint=_MADE) from None


def _col(text: str, key: str) -> int:
    """The column of `"key"` in a line's text (1 when it is not there)."""
    i = text.find(json.dumps(key))
    return i + 1 if i >= 0 else 1


def _item_col(text: str, key: str, k: int) -> int:
    """The column of item `k` (from 0) of the list under `"key"` in a line's text; the end of
    the list when it has fewer items (where one more would go); 1 when it is not found."""
    i = text.find(json.dumps(key))
    i = text.find("[", i) if i >= 0 else -1
    if i < 0:
        return 1
    depth, count, start = 0, 0, None
    for j, ch in _json_code(text, i):
        if depth == 1 and start is None and not ch.isspace() and ch not in ",]":
            if count == k:
                return j + 1
            start = j
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return j + 1
        elif ch == "," and depth == 1:
            count += 1
            start = None
    return 1


def _show(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _is(value, kind) -> bool:
    return isinstance(value, kind) and not isinstance(value, bool) if kind in (int, (int, type(None))) \
        else isinstance(value, kind)


def read_log(path: str) -> Log:
    """A log, read and checked line by line and field by field, or a located E002."""
    data = _read_bytes(path)
    if b"\0" in data:
        at = data.index(b"\0")
        line = data.count(b"\n", 0, at) + 1
        raise _bad(path, "the log holds a NUL byte: a binary file, not a log", line,
                   at - (data.rfind(b"\n", 0, at) + 1) + 1, hint=_MADE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        text = data[:e.start].decode("utf-8") + "\ufffd" + data[e.start + 1:].decode("utf-8", "replace")
        remember_source(path, text)
        raise _bad(path, "the log is not UTF-8 text", line, e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1,
                   hint=_MADE) from None
    remember_source(path, text)
    lines = []
    for n, raw in enumerate(text.split("\n"), 1):
        if raw.strip():
            value = _parse_line(path, n, raw)
            if not isinstance(value, dict):
                raise _bad(path, f"this line is {_show(value)}, not an object {{…}}", n,
                           len(raw) - len(raw.lstrip()) + 1, hint="each line of a log is one JSON object")
            lines.append(Line(n, raw, value))
    if not lines:
        raise _bad(path, "the log is empty", hint=_MADE)
    first, last = lines[0], lines[-1]
    if first.value.get("type") != "header":
        raise _bad(path, "not a cgl game log: its first line is not the header", first.number, 1, hint=_MADE)
    _check_header(path, first)
    if len(lines) < 2 or last.value.get("type") != "answers":
        raise _bad(path, "the log has no answers line at its end: was it cut short?", last.number, 1,
                   hint="the last line of a log is {\"type\": \"answers\", \"answers\": […], …}")
    _check_answers(path, last, first.value["players"])
    for i, line in enumerate(lines[1:-1]):
        _check_event(path, line, i, first.value["players"])
    return Log(path, first, lines[1:-1], last)


def _check_header(path: str, line: Line) -> None:
    h, n = line.value, line.number
    if h.get("format") != FORMAT:
        raise _bad(path, f"not a log this cgl can check: the header has no \"format\": \"{FORMAT}\"", n,
                   _col(line.text, "format"), hint="a log written by an older cgl, or by hand: "
                   "play the game again with `cgl run … --log FILE`")
    if h.get("version") != VERSION:
        raise _bad(path, f"a log of version {_show(h.get('version'))}; this cgl reads version {VERSION}", n,
                   _col(line.text, "version"), hint="replay it with the cgl that wrote it")
    extra = sorted(set(h) - set(HEADER) - {"type"})
    if extra:
        raise _bad(path, f"the header has a field `{extra[0]}` no log has", n, _col(line.text, extra[0]),
                   hint="was the log edited?")
    for key, kind in HEADER.items():
        if key not in h:
            raise _bad(path, f"the header has no `{key}`", n, 1, hint=_MADE)
        if not _is(h[key], kind):
            raise _bad(path, f"`{key}` must be {_TYPE_NAMES[kind]}, not {_show(h[key])}", n, _col(line.text, key))
    players = h["players"]
    if not 1 <= players <= 1000:
        raise _bad(path, f"`players` is {players}: not a number of players", n, _col(line.text, "players"))
    if len(h["agents"]) != players:
        raise _bad(path, f"`agents` names {len(h['agents'])} agents for {players} players", n,
                   _col(line.text, "agents"))
    for spec in h["agents"]:
        try:
            agent_spec(spec if isinstance(spec, str) else _show(spec))
        except CglError as e:
            raise _bad(path, f"`agents`: {e.diagnostics[0].message}", n, _col(line.text, "agents")) from None
    seats = {str(i) for i in range(1, players + 1)}
    for key in ("humans", "decks"):
        bad = [s for s in (map(json.dumps, h[key]) if key == "humans" else h[key]) if s not in seats]
        if bad:
            raise _bad(path, f"`{key}`: {bad[0]} is not a seat of a {players}-player game (seats 1 to {players})",
                       n, _col(line.text, key))
    for key, kind in (("files", str), ("decks", str), ("options", (str, int, bool))):
        wrong = [k for k, v in h[key].items() if not isinstance(v, kind)]
        if wrong:
            raise _bad(path, f"`{key}`: `{wrong[0]}` has the value {_show(h[key][wrong[0]])}", n,
                       _col(line.text, key))


def _check_answers(path: str, line: Line, players: int) -> None:
    a, n = line.value, line.number
    extra = sorted(set(a) - {"type", "answers", "result"})
    if extra:
        raise _bad(path, f"the answers line has a field `{extra[0]}` no log has", n, _col(line.text, extra[0]),
                   hint="was the log edited?")
    if not isinstance(a.get("answers"), list):
        raise _bad(path, f"`answers` must be a list […], not {_show(a.get('answers'))}", n,
                   _col(line.text, "answers"))
    for i, x in enumerate(a["answers"], 1):
        if not (x is None or isinstance(x, (bool, int)) or isinstance(x, list) and all(_is(y, int) for y in x)):
            raise _bad(path, f"answer {i} is {_show(x)}: not an answer ({_ANSWER})", n, _col(line.text, "answers"))
    res = a.get("result")
    if not (isinstance(res, dict) and isinstance(res.get("winners"), list) and isinstance(res.get("reason"), str)
            and all(_is(w, int) for w in res["winners"]) and set(res) == {"winners", "reason"}):
        raise _bad(path, "`result` must be {\"winners\": [seats], \"reason\": text}", n, _col(line.text, "result"))


def _check_event(path: str, line: Line, index: int, players: int) -> None:
    e, n = line.value, line.number
    if e.get("step") != index or not _is(e.get("step"), int):
        raise _bad(path, f"event {index + 1} must have \"step\": {index}, not {_show(e.get('step'))}", n,
                   _col(line.text, "step"), hint="an event was added, removed or moved: was the log edited?")
    for key in ("type", "text"):
        if not isinstance(e.get(key), str):
            raise _bad(path, f"`{key}` of an event must be a text, not {_show(e.get(key))}", n, _col(line.text, key))
    to = e.get("to", [])
    if not (isinstance(to, list) and all(_is(s, int) and 0 <= s < players for s in to)):
        raise _bad(path, f"`to` must list seats from 0 to {players - 1}, not {_show(to)}", n, _col(line.text, "to"))


# ---------------------------------------------------------------- replaying

def ruleset_of(log: Log) -> str:
    """The ruleset file of a log: where it was, else a shipped ruleset by its name (it moves
    with the package), else the name as given; its content hash says whether it is the same."""
    h = log.header.value
    at = Span(log.path, log.header.number, _col(log.header.text, "ruleset_path"), log.header.number,
              _col(log.header.text, "ruleset_path") + 1)
    if os.path.isfile(h["ruleset_path"]):   # a log is not the user's file: never parse (and quote) a non-ruleset
        return indirect_ruleset(h["ruleset_path"], "ruleset of this log", at)
    shipped = packaged_rulesets()
    if h["ruleset"] in shipped:
        return shipped[h["ruleset"]]
    if os.path.isfile(h["ruleset"]):
        return indirect_ruleset(h["ruleset"], "ruleset of this log", at)
    raise _bad(log.path, f"the ruleset of this log is gone: `{h['ruleset_path']}` does not exist",
               log.header.number, _col(log.header.text, "ruleset_path"), kind=NotReproduced,
               hint="put the ruleset back where it was, then replay")


def _differs(log: Log, message: str, line: Line, col: int = 1, hint: Optional[str] = None) -> NotReproduced:
    return _bad(log.path, message, line.number, col, hint=hint, kind=NotReproduced)


def _ruleset(log: Log):
    """The ruleset of a log, loaded with its options, and the same files it was played with."""
    h, head = log.header.value, log.header
    options = {k: v if isinstance(v, str) else json.dumps(v) for k, v in h["options"].items()}
    try:
        rs = load(ruleset_of(log), options)
    except NotReproduced:
        raise
    except CglError as e:
        d = e.diagnostics[0]
        raise _differs(log, f"does not reproduce: the ruleset does not load with the log's options: {d.message}",
                       head, _col(head.text, "options"), d.hint) from None
    changed = [k for k, v in _hashes(rs, ruleset_files(rs)).items() if h["files"].get(k) != v]
    if changed or ruleset_hash(rs) != h["ruleset_sha256"]:
        base = os.path.dirname(os.path.abspath(rs.path))
        shown = ", ".join(f"`{os.path.normpath(os.path.join(base, k))}`" for k in changed) or f"`{rs.path}`"
        raise _differs(log, f"does not reproduce: {shown} is not the file the game was played with "
                       "(its content hash differs)", head, _col(head.text, "ruleset_sha256"), _SAME_FILES)
    return rs


_SAME_FILES = "a log replays only with the rules, card data and deck lists it was played with"


def _game(log: Log, rs) -> Game:
    """The game of a log before its first answer: its players, seed and deck lists."""
    h, head = log.header.value, log.header
    try:
        game = Game(rs, h["players"], h["seed"], decks={int(s) - 1: p for s, p in h["decks"].items()},
                    max_steps=h["max_steps"])
    except CglError as e:
        raise _differs(log, f"does not reproduce: {e.diagnostics[0].message}", head,
                       _col(head.text, "decks" if h["decks"] else "players")) from None
    files = fingerprint(game)["files"]
    changed = [k for k, v in files.items() if h["files"].get(k) != v]
    if changed:
        shown = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(rs.path)), changed[0]))
        raise _differs(log, f"does not reproduce: the deck list `{shown}` is not the one played", head,
                       _col(head.text, "decks"), _SAME_FILES)
    return game


def _first_difference(log: Log, game: Game, whole: bool) -> Optional[NotReproduced]:
    """Where the log's events and the game's first differ (`whole`: the game has ended, so a
    log with more or fewer events differs too), or None."""
    got = game.state.log
    for line, entry in zip(log.events, got):
        mine = json.loads(json.dumps(entry, default=str))
        if line.value != mine:
            return _differs(log, f"does not reproduce: event {entry['step'] + 1} differs: the log has "
                            f"{_show(line.value.get('text'))}, the game {_show(mine.get('text'))}", line,
                            _col(line.text, "text"), "was the log edited?")
    if whole and len(log.events) != len(got):
        where = log.events[len(got)] if len(log.events) > len(got) else log.answers
        return _differs(log, f"does not reproduce: the log has {len(log.events)} events, the game {len(got)}",
                        where, 1, "was the log edited?")
    return None


def fresh_game(log: Log) -> Game:
    """The game of a log, made again before its first answer (its ruleset and files checked
    as `replay` checks them)."""
    return _game(log, _ruleset(log))


def replay(log: Log) -> Game:
    """Play the game of a log again and compare: the game, or a :class:`NotReproduced` naming
    the line where the log and the game first differ (a ruleset that does not load too)."""
    game = _game(log, _ruleset(log))
    at = log.answers
    answers, result = at.value["answers"], at.value["result"]
    unfinished = result["reason"] == "unfinished"   # a game left at a prompt
    d = game.start()
    given = 0
    while d is not None and not (unfinished and given == len(answers)):
        if given == len(answers):
            raise _first_difference(log, game, False) or _differs(
                log, f"does not reproduce: the log's {given} answers end, but the game asks P{d.player + 1} "
                f"another: {d.prompt}", at, _item_col(at.text, "answers", given), "was an answer removed from the log?")
        try:
            d = game.answer(answers[given])
        except AnswerError as e:
            raise _first_difference(log, game, False) or _differs(
                log, f"does not reproduce: answer {given + 1}, {_show(answers[given])}, does not fit the game "
                f"({d.prompt}): {e}", at, _item_col(at.text, "answers", given)) from None
        given += 1
    if given < len(answers):
        raise _first_difference(log, game, False) or _differs(
            log, f"does not reproduce: the game ends after answer {given}, but the log has {len(answers)} answers",
            at, _item_col(at.text, "answers", given), "was an answer added to the log?")
    diff = _first_difference(log, game, True)
    if diff is not None:
        raise diff
    if result["winners"] != game.result.winners or result["reason"] != game.result.reason:
        raise _differs(log, f"does not reproduce: the log's result is {_show(result)}, the game's "
                       f"{_show({'winners': game.result.winners, 'reason': game.result.reason})}", at,
                       _col(at.text, "result"))
    return game
