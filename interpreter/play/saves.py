"""Saving a game mid-way and resuming it (`cgl run … --save FILE`, `cgl run --resume FILE`).

A save is one JSON object (README, "Saving and resuming a game"): what the game was made
from (the ruleset and its content hash, options, players, seed, deck lists, the agent of
each seat), every answer given so far, and each agent's state (a bot's random generator,
how much of the log a person has been shown). A game is reproducible from (ruleset,
options, seed, answers), so resuming makes the game again, feeds the answers back and gives
each agent its state: from there it goes exactly as it would have gone without the break.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Optional

from .agents import agent_spec, needs_worlds
from ..base.ast import Span
from ..base.diagnostics import CglError, Diagnostic, remember_source, remembered_source
from ..base.files import YAML_SUFFIXES, indirect_ruleset, read_text, write_text
from .game import Game
from ..check.loader import content_hash, load, packaged_rulesets, ruleset_files, ruleset_hash
from ..base.protocol import DEFAULT_MAX_STEPS, AnswerError

FORMAT, VERSION = "cgl-save", 1

# every field of a save, and the JSON type of its value
FIELDS = {"format": str, "version": int, "ruleset": str, "ruleset_path": str, "ruleset_sha256": str, "files": dict,
          "options": dict, "players": int, "seed": int, "agents": list, "humans": list, "decks": dict,
          "answers": list, "states": dict}
_TYPE_NAMES = {str: "a text", int: "a whole number", dict: "an object {…}", list: "a list […]"}
_ANSWER = "an option's number from 0, a list of them, true, false or null"


def _bad(path: str, message: str, hint: Optional[str] = None, span: Optional[Span] = None, at=()) -> CglError:
    """An E002 about the save `path`, at `span`, else at what `at` names in it (see `_at`)."""
    return CglError(Diagnostic("E002", message, span or _at(path, *at), hint=hint))


def _at(path: str, *keys) -> Span:
    """Where the save `path` holds the value that `keys` lead to (a top-level field by its
    name, then a key or a list index below it): the field's name for a field, the key for an
    entry of an object, the item for an item of a list. The nearest enclosing place when a
    key is missing; the save's first character when there is none."""
    text = remembered_source(path) or ""
    found = _find(text, keys)
    if found is None:
        return Span(path, 0, 0, 0, 0) if not text.strip() else _span(path, text, len(text) - len(text.lstrip()), 1)
    return _span(path, text, *found)


def _span(path: str, text: str, start: int, end: int) -> Span:
    line = text.count("\n", 0, start) + 1
    col = start - text.rfind("\n", 0, start)
    stop = text.find("\n", start)
    end = min(end, stop if stop >= 0 else len(text))
    return Span(path, line, col, line, col + max(end - start, 1))


_JSON = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _find(text: str, keys) -> Optional[tuple]:
    """(start, end) of what `keys` name in the JSON `text` (as `_at` says), or None."""
    try:
        pos = _SPACE.match(text, 0).end()
        found = None
        for key in keys:
            here = _member(text, pos, key)
            if here is None:
                break
            found, pos = here
        return found
    except (ValueError, IndexError):
        return None


def _member(text: str, pos: int, key) -> Optional[tuple]:
    """In the object or list starting at `pos`: ((start, end) of the member `key` names, the
    offset of its value), or None. A key given twice: its last (as `json.loads` reads it)."""
    opening = text[pos]
    if opening not in "{[" or (opening == "{") != isinstance(key, str):
        return None
    pos, index, found = _SPACE.match(text, pos + 1).end(), 0, None
    while text[pos] not in "}]":
        if opening == "{":
            name, end = json.decoder.scanstring(text, pos + 1)
            start = pos
            pos = _SPACE.match(text, end).end() + 1   # past the ':'
            value = pos = _SPACE.match(text, pos).end()
            _, pos = _JSON.raw_decode(text, pos)
            if name == key:
                found = ((start, end), value)
        else:
            value = pos
            _, pos = _JSON.raw_decode(text, pos)
            if index == key:
                found = ((value, pos), value)
            index += 1
        pos = _SPACE.match(text, pos).end()
        if text[pos] == ",":
            pos = _SPACE.match(text, pos + 1).end()
    return found


# ---------------------------------------------------------------- saving

def _hashes(rs, paths) -> dict:
    """Each file's content hash, the file named from the ruleset's folder."""
    base = os.path.dirname(os.path.abspath(rs.path))
    return {os.path.relpath(os.path.abspath(p), base): content_hash([p]) for p in paths}


def fingerprint(game: Game) -> dict:
    """The content hashes a save keeps: the ruleset's, and each file's the game was made from
    (the ruleset's files and the deck lists played)."""
    decks = game.engine.decks
    return {"ruleset_sha256": ruleset_hash(game.ruleset),
            "files": _hashes(game.ruleset, ruleset_files(game.ruleset) + [decks[s].path for s in sorted(decks)])}


def inputs_of(data: dict) -> tuple:
    """The files the game of a save or a log header (`data`) is made of, which no output of
    cgl may overwrite: the ruleset, and each file its fingerprint names (what it extends,
    its card data, the deck lists), named from the ruleset's folder."""
    base = os.path.dirname(data["ruleset_path"])
    return (data["ruleset_path"], *(os.path.join(base, k) for k in data.get("files", {})),
            *data.get("decks", {}).values())


def save_data(game: Game, ruleset: str, options: dict, specs: list, humans, agents: list,
              hashes: Optional[dict] = None) -> dict:
    """`game` as a save (JSON-ready). `ruleset`: as the user named it; `options`: as given;
    `specs`: the agent spec of every seat; `humans`: the seats (1-based) people play; `agents`:
    one per seat, each one's `state()` is kept; `hashes`: what :func:`fingerprint` gave when
    the game began (by default, taken now)."""
    return {"format": FORMAT, "version": VERSION, "ruleset": ruleset,
            "ruleset_path": os.path.abspath(game.ruleset.path), **(hashes or fingerprint(game)),
            "options": dict(options), "players": game.players, "seed": game.seed, "agents": list(specs),
            "humans": sorted(humans), "decks": {str(s + 1): os.path.abspath(p) for s, p in game.decks.items()},
            "answers": list(game.answers),
            "states": {str(i + 1): a.state() for i, a in enumerate(agents) if hasattr(a, "state")}}


def checksum(data: dict) -> str:
    """What a save's `checksum` holds: the SHA-256 of its other fields, in one canonical form."""
    body = {k: v for k, v in data.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def write_save(path: str, data: dict) -> None:
    """Write a save, one field a line, with its checksum (an interrupted write leaves an
    older save whole)."""
    data = {**data, "checksum": checksum(data)}
    text = "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()) + "\n}\n"
    write_text(path, text, "save", inputs=inputs_of(data))


# ---------------------------------------------------------------- reading

def read_save(path: str) -> dict:
    """A save, read and checked field by field, or a CglError (E002) that says what is wrong."""
    text = read_text(path, "save", remember=False)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        remember_source(path, text)
        raise _bad(path, f"the save is not JSON: {e.msg}", span=Span(path, e.lineno, e.colno, e.lineno, e.colno + 1),
                   hint="`cgl run … --save FILE` writes saves; was this one edited or cut short?") from None
    except (RecursionError, ValueError) as e:   # JSON nested too deeply, a number of too many digits
        raise _bad(path, "the save is not a save: " + ("it nests too deeply" if isinstance(e, RecursionError)
                                                      else "it holds a number of too many digits"),
                   hint="`cgl run … --save FILE` writes saves; was this one edited?") from None
    remember_source(path, text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _bad(path, f"not a cgl save (a save has \"format\": \"{FORMAT}\")",
                   hint="`cgl run … --save FILE` writes saves", at=("format",))
    if data.get("version") != VERSION:
        raise _bad(path, f"a save of version {json.dumps(data.get('version'))}; this cgl reads version {VERSION}",
                   hint="resume it with the cgl that saved it", at=("version",))
    if "checksum" in data and data["checksum"] != checksum(data):
        raise _bad(path, "the save was changed since cgl wrote it: its checksum does not match what it holds",
                   hint="resume the save as cgl wrote it: an edited seed, answer, player count or option would "
                        "resume another game", at=("checksum",))
    for key, kind in FIELDS.items():
        if key not in data:
            raise _bad(path, f"the save has no `{key}`")
        value = data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise _bad(path, f"`{key}` must be {_TYPE_NAMES[kind]}, not {_show(value)}", at=(key,))
    _check_values(data, path)
    return data


def _show(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _check_values(data: dict, path: str) -> None:
    """The parts of each field: seats that exist, agents that exist, answers that are answers."""
    n = data["players"]
    if len(data["agents"]) != n:
        raise _bad(path, f"`agents` names {len(data['agents'])} agents for {n} players", at=("agents",))
    for i, spec in enumerate(data["agents"]):
        try:
            agent_spec(spec if isinstance(spec, str) else _show(spec))
        except CglError as e:
            raise _bad(path, f"`agents`: {e.diagnostics[0].message}", e.diagnostics[0].hint,
                       at=("agents", i)) from None
    seats = {str(i) for i in range(1, n + 1)}
    for key in ("humans", "decks", "states"):
        bad = [(i, s) for i, s in enumerate(map(json.dumps, data[key]) if key == "humans" else data[key])
               if s not in seats]
        if bad:
            i, seat = bad[0]
            raise _bad(path, f"`{key}`: {seat} is not a seat of a {n}-player game (seats 1 to {n})",
                       at=(key, i if key == "humans" else seat))
    for key, kind in (("files", str), ("decks", str), ("states", dict), ("options", (str, int, bool))):
        wrong = [k for k, v in data[key].items() if not isinstance(v, kind)]
        if wrong:
            raise _bad(path, f"`{key}`: `{wrong[0]}` has the value {_show(data[key][wrong[0]])}", at=(key, wrong[0]))
    for seat, deck in data["decks"].items():
        if not deck.endswith(YAML_SUFFIXES) or not os.path.realpath(deck).endswith(YAML_SUFFIXES):
            raise _bad(path, f"`decks`: the deck list of seat {seat} is not a `.yaml` file",
                       hint="a save names the YAML deck lists its game was played with", at=("decks", seat))
    for i, a in enumerate(data["answers"], 1):
        if not (a is None or isinstance(a, (bool, int)) or isinstance(a, list) and all(type(x) is int for x in a)):
            raise _bad(path, f"answer {i} of the save is {_show(a)}: not an answer ({_ANSWER})",
                       at=("answers", i - 1))


# ---------------------------------------------------------------- resuming

def ruleset_of(data: dict, path: str) -> str:
    """The ruleset file of a save: where it was, else, for a shipped ruleset named by its name
    (it moves with the package), where it is now; the content hash says whether it is the same."""
    if os.path.isfile(data["ruleset_path"]):
        return indirect_ruleset(data["ruleset_path"], "ruleset of the save", _at(path, "ruleset_path"))
    shipped = packaged_rulesets()
    if data["ruleset"] in shipped:
        return shipped[data["ruleset"]]
    raise _bad(path, f"the ruleset of this save is gone: `{data['ruleset_path']}` does not exist",
               hint="put the ruleset back where it was, then resume", at=("ruleset_path",))


def resume(data: dict, path: str, check_invariants: bool = False, max_steps: Optional[int] = DEFAULT_MAX_STEPS) -> Game:
    """The game of a save (read by :func:`read_save`), made again and fed its answers: it waits
    at the decision it was saved at (`game.pending`). A CglError (E002) when the ruleset is
    gone, when it or a deck list changed since, or when an answer does not fit."""
    options = {k: v if isinstance(v, str) else json.dumps(v) for k, v in data["options"].items()}
    found = ruleset_of(data, path)
    try:
        rs = load(found, options)
    except CglError as e:
        raise _option_error(e, data, path) or e from None
    _refuse_changes(rs, _hashes(rs, ruleset_files(rs)), data, path, ruleset_hash(rs) != data["ruleset_sha256"])
    bots = [spec for seat, spec in enumerate(data["agents"], 1) if seat not in data["humans"]]
    game = Game(rs, data["players"], data["seed"], check_invariants,
                {int(seat) - 1: deck for seat, deck in data["decks"].items()}, forkable=needs_worlds(bots),
                max_steps=max_steps)
    _refuse_changes(rs, fingerprint(game)["files"], data, path)
    d = game.start()
    answers = data["answers"]
    for i, a in enumerate(answers, 1):
        if d is None:
            raise _bad(path, f"the game ends after answer {i - 1}, but the save has {len(answers)} answers",
                       at=("answers", i - 1))
        try:
            d = game.answer(a)
        except AnswerError as e:
            raise _bad(path, f"answer {i} of the save, {_show(a)}, does not fit the game ({d.describe()}): {e}",
                       hint="was the save edited? (answers count options from 0)", at=("answers", i - 1)) from None
    return game


def _option_error(e: CglError, data: dict, path: str) -> Optional[CglError]:
    """An option of the save that its ruleset refuses (E007), as an error at that option in
    the save, naming the declaration; None for any other error of the load."""
    d = e.diagnostics[0]
    named = [k for k in data["options"] if f"`{k}`" in d.message]
    if d.code != "E007" or not named:
        return None
    where = (f"the option is declared at {d.span}",) if d.span and d.span.line else ()
    return CglError(Diagnostic("E007", f"{d.message} (an option of the save)", _at(path, "options", named[0]),
                               hint=d.hint, related=where))


def _refuse_changes(rs, files: dict, data: dict, path: str, changed: bool = False) -> None:
    """Refuse a save when a file differs from the one it was made with (`files`: their
    hashes now), naming it; `changed`: the ruleset's own hash differs."""
    base = os.path.dirname(os.path.abspath(rs.path))
    keys = [k for k, h in files.items() if data["files"].get(k) != h]
    if keys or changed:
        shown = ", ".join(f"`{os.path.normpath(os.path.join(base, k))}`" for k in keys) or f"`{rs.path}`"
        raise _bad(path, f"{shown} changed since the game was saved",
                   hint="a saved game goes on only with the rules and deck lists it began with: "
                        "put the old version back to resume it",
                   at=("files", keys[0]) if keys else ("ruleset_sha256",))


def restore_agents(agents: list, data: dict, humans, path: str) -> None:
    """Give each agent its saved state where its seat is played as it was saved (by a person,
    or by the bot the save names). A state the agent cannot take is an E002."""
    was_human = set(data["humans"])
    for i, agent in enumerate(agents):
        state = data["states"].get(str(i + 1))
        if state is None or ((i + 1) in was_human) != ((i + 1) in humans) or not hasattr(agent, "restore"):
            continue
        try:
            agent.restore(state)
        except ValueError as e:
            raise _bad(path, f"the saved state of P{i + 1} does not fit: {e}", at=("states", str(i + 1))) from None
