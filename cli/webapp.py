"""`cgl serve`: a browser table for remote playtesting (Starlette; uvicorn runs it).

The host opens the lobby (its link carries the host key), picks a ruleset, options and
seats (a person, or a bot), and gets one secret link per person's seat to send. Each link
opens the table page of one seat, which is sent only that seat's view (`Game.view(seat)`,
docs/view.md) over a WebSocket and answers only that seat's decisions. A bot that thinks
long answers in a worker thread, so the server keeps serving meanwhile (`Server.advance`).

Each game is a cgl save in the games folder (`<id>.json`; it resumes with `cgl run --resume`
too) beside its seats file (`<id>.seats.json`: the secret tokens) and its answer log
(`<id>.answers`). Every answer is appended to the log before anyone is shown what follows
it (a line, not a rewrite: rewriting the whole save after every answer cost more than
anything else the server does); the save is written whole every `FULL_SAVE_EVERY` answers,
after an undo, and when the server stops, and then the log starts again empty. A restarted
server resumes every game it finds there: the save, then the answers of its log, with the
bots' random generators brought to where they were (a killed server loses nothing).

What a client may send is small and checked: an answer to the decision it is shown (by
its number, so a stale click is refused), as the terminal checks it; anything else is an
error message on the page, never a server error. Nothing outside the served rulesets is
read: the lobby offers rulesets by name, never by path.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
from typing import Optional

import anyio
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.base.files import inside, read_text
from cgl.interpreter.base.protocol import AnswerError
from cgl.interpreter.check.loader import IMAGE_TYPES, load, packaged_rulesets
from cgl.interpreter.play import saves
from cgl.interpreter.play.agents import agent_spec, make_agent, needs_worlds
from cgl.interpreter.play.game import Game

WEB = os.path.join(os.path.dirname(__file__), "web")
MAX_BODY = 16_384            # bytes of one request or message
RATE = 20                    # messages a client may send per second (a burst of as many)
MAX_GAMES = 500              # games one server keeps
HUMAN = "human"
INLINE_BOTS = 0.005          # seconds of quick bots' moves made on the event loop's thread (`Server.advance`)
FULL_SAVE_EVERY = 100        # answers between two whole saves (each one is in the answer log at once)


class Refused(Exception):
    """A request the server says no to, with an HTTP status and a message for people."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


# ---------------------------------------------------------------- rulesets on offer

def offered(folders: list) -> dict:
    """{name: path} of the rulesets the lobby offers: the shipped ones, and every `.cgl` in
    the served folders (or the served files), by file name."""
    out = dict(sorted(packaged_rulesets().items()))
    for f in folders:
        paths = [f] if os.path.isfile(f) else \
            [os.path.join(f, n) for n in sorted(os.listdir(f)) if n.endswith(".cgl")] if os.path.isdir(f) else []
        for p in paths:
            name = os.path.splitext(os.path.basename(p))[0]
            out[name if name not in out else os.path.relpath(p)] = os.path.abspath(p)
    return out


# ---------------------------------------------------------------- one game

class Room:
    """One game on the server: the game, who plays each seat, the seats' secret tokens, and
    the clients watching it."""

    def __init__(self, gid: str, name: str, game: Game, seats: list, options: dict, tokens: dict, folder: str,
                 agents: Optional[list] = None):
        self.id, self.name, self.game, self.seats, self.options = gid, name, game, seats, options
        self.tokens = tokens                      # token -> seat (0-based)
        self.folder = folder
        self.agents = agents or bots(seats, game.seed)
        self.lock = asyncio.Lock()
        self.clients: dict = {}                   # websocket -> its _Client
        self.hashes = saves.fingerprint(game)
        self.error: Optional[str] = None          # a game stopped by an error in its rules
        self.created = time.time()
        self.asked: list = []                     # how each decision read, in order
        self.private: list = []                   # whether each was its asker's alone (`Decision.private`)
        self.saved = -1                           # answers the save holds (-1: none written yet)
        self.logged = 0                           # answers the save and the log hold together

    @property
    def humans(self) -> list:
        return [i + 1 for i, s in enumerate(self.seats) if s == HUMAN]

    def link(self, seat: int) -> str:
        token = next(t for t, s in self.tokens.items() if s == seat)
        return f"/play/{self.id}/{token}"

    @property
    def log_path(self) -> str:
        return os.path.join(self.folder, f"{self.id}.answers")

    def save(self) -> None:
        """Write the whole save (every answer, the bots' states); the answer log starts again."""
        g = self.game
        specs = [s if s != HUMAN else "random" for s in self.seats]
        data = saves.save_data(g, self.name, self.options, specs, self.humans,
                               [a if a is not None else _NoState() for a in self.agents], self.hashes)
        saves.write_save(os.path.join(self.folder, f"{self.id}.json"), data)
        with open(self.log_path, "w", encoding="utf-8"):   # (a log line older than the save is skipped anyway)
            pass
        self.saved = self.logged = len(data["answers"])

    def needs_save(self) -> bool:
        """Whether the next write is the whole save: none yet, an undo (answers taken back),
        or `FULL_SAVE_EVERY` answers since the last."""
        n = len(self.game.answers)
        return self.saved < 0 or n < self.logged or n - self.saved >= FULL_SAVE_EVERY

    def record(self) -> None:
        """Append the answers given since the last write to the answer log, one JSON line
        each: `[number, answer]` (numbered from 0 as the save's `answers`)."""
        answers = self.game.answers
        if len(answers) > self.logged:
            lines = "".join(json.dumps([i, answers[i]], separators=(",", ":")) + "\n"
                            for i in range(self.logged, len(answers)))
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:     # (one write: the lines land whole, even when the process is killed)
                os.write(fd, lines.encode("utf-8"))
            finally:
                os.close(fd)
            self.logged = len(answers)

    def replay_log(self) -> None:
        """Give the game the answers of its log that its save lacks (a server stopped without
        writing it), in order; a bot's seat decides again as it did, so that its random
        generator stands where it stood. A line cut short (a write the stop interrupted)
        ends the log."""
        try:
            with open(self.log_path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except FileNotFoundError:
            return
        g = self.game
        for line in lines:
            try:
                n, a = json.loads(line)
            except (ValueError, TypeError):
                break
            if type(n) is not int:
                raise ValueError(f"the answer log holds a line that is no answer: {line[:40]}")
            if n < len(g.answers):
                continue
            d = g.pending
            if n > len(g.answers) or d is None:
                raise ValueError(f"answer {n + 1} of the answer log does not follow the save's "
                                 f"{len(g.answers)} answers")
            if not (a is None or isinstance(a, (bool, int)) or isinstance(a, list) and all(type(x) is int for x in a)):
                raise ValueError(f"answer {n + 1} of the answer log is not an answer")
            agent = self.agents[d.player]
            if agent is not None:
                agent.decide(d)
            try:
                g.answer(a)
            except AnswerError as e:
                raise ValueError(f"answer {n + 1} of the answer log does not fit the game: {e}") from None
        self.logged = len(g.answers)

    def summary(self) -> dict:
        """The game as the lobby lists it. The lobby's reader, the host, may play a seat: in a
        game a person plays, it tells only what every seat may know (as a spectator's view,
        `Game.view(None)`): whom the game waits for when that question is not its asker's
        alone (`Decision.private`: a reaction window, an optional trigger, a question asked
        while a reaction runs; that it is asked tells what its player holds or what fired
        it), and how many such questions were answered. A game of bots alone has no one at
        the table to tell: the host, who has its designer's seat, is told all."""
        g, d = self.game, self.game.pending
        everything = HUMAN not in self.seats
        told = len(g.answers) if everything else \
            sum(1 for private in self.private[:len(g.answers)] if not private)
        return {"id": self.id, "ruleset": self.name, "players": g.players, "seed": g.seed, "seats": self.seats,
                "links": {f"P{s + 1}": self.link(s) for s in sorted(set(self.tokens.values()))},
                "designer": f"/host/{self.id}", "replay": f"/replay/{self.id}",
                "over": g.over,
                "waiting_for": None if d is None or d.private and not everything else f"P{d.player + 1}",
                "decisions": told, "error": self.error}

    def bot_turns(self, until: Optional[float] = None) -> bool:
        """Let the bots answer until a person must decide or the game ends (True), or until
        the clock (`time.perf_counter`) passes `until` (False: the bots have more to do)."""
        g = self.game
        self.note_decision()
        while g.pending is not None and self.agents[g.pending.player] is not None:
            if until is not None and time.perf_counter() >= until:
                return False
            d = g.pending
            g.answer(self.agents[d.player].decide(d))
            self.note_decision()
        return True

    @property
    def searching(self) -> bool:
        """Whether a bot of this game searches imagined games (one move can take long)."""
        return needs_worlds([s for s in self.seats if s != HUMAN])

    def view(self, seat: Optional[int], since: int) -> dict:
        """What a client is sent: the seat view (seat None: the designer's view of everything),
        the number of the decision waiting (an answer names it), and an error that stopped
        the game."""
        v = self.game.view(seat, since=since, everything=seat is None)
        v["decision_no"] = self.decision_no(seat)
        v["error"] = self.error
        if seat is None:
            v["history"] = [self.asked[i] if i < len(self.asked) else f"decision {i + 1}"
                            for i in range(len(self.game.answers) + (self.game.pending is not None))]
        return v

    def decision_no(self, seat: Optional[int]) -> int:
        """The number of the decision a client answers next: for a seat, how many it has
        answered (counting every decision would tell it how many private questions others
        were asked); for the designer, how many were answered in all."""
        g = self.game
        return len(g.answers) if seat is None else g.answered_by.count(seat)

    def note_decision(self) -> None:
        """Remember how the waiting decision reads (for the designer's undo list) and whether it
        is its asker's alone (the lobby counts only the others: `summary`)."""
        d = self.game.pending
        while len(self.asked) > len(self.game.answers):
            self.asked.pop()
            self.private.pop()
        if d is not None:
            self.asked.append(_asked(d))
            self.private.append(bool(d.private))

    def replayed(self, answers: list, forkable: bool = False) -> Game:
        """The game again from its seed, fed `answers`; how each of its decisions read is
        kept (`asked`, for the designer's undo list)."""
        g = self.game
        twin = Game(g.ruleset, g.players, g.seed, forkable=forkable)
        d, self.asked, self.private = twin.start(), [], []
        for a in answers:
            self.asked.append(_asked(d))
            self.private.append(bool(d.private))
            d = twin.answer(a)
        return twin

    def rebuild_history(self) -> None:
        """How each decision so far read (a resumed game)."""
        self.replayed(self.game.answers)

    def rewind(self, n: int) -> None:
        """The game again with only its first `n` answers (the designer's undo): a new
        branch, played on from there by the same seats."""
        self.game = self.replayed(self.game.answers[:n], forkable=self.game.engine.state.known is not None)
        self.error = None
        self.agents = bots(self.seats, self.game.seed)


def bots(seats: list, seed: int) -> list:
    """The agent of each seat: a bot for a bot's seat, None for a person's."""
    return [None if s == HUMAN else make_agent(s, i, seed) for i, s in enumerate(seats)]


def _asked(d) -> str:
    """How a decision reads in the designer's undo list."""
    return f"P{d.player + 1}: {d.prompt}"


class _NoState:
    """A person's seat in a save: nothing to keep (the browser keeps what it was shown)."""

    def state(self) -> dict:
        return {"read": 0}


def parse_answer(d, raw):
    """An answer from a client, as `Game.answer` takes it, or Refused."""
    if d.kind == "may":
        if not isinstance(raw, bool):
            raise Refused(400, "answer yes or no")
        return raw
    if raw is None:
        if not d.optional:
            raise Refused(400, "this decision must be answered: pick an option")
        return None
    if d.hi > 1:
        if not isinstance(raw, list) or not all(type(x) is int for x in raw):
            raise Refused(400, f"pick {d.lo} to {d.hi} options")
        return sorted(raw)
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if type(raw) is not int:
        raise Refused(400, "pick one option")
    return raw


# ---------------------------------------------------------------- the server

class Server:
    """The rooms of one `cgl serve`, and what its routes do."""

    def __init__(self, folders: list, games_dir: str, host_key: Optional[str] = None):
        self.rulesets = offered(folders)
        self.dir = games_dir
        os.makedirs(games_dir, exist_ok=True)
        self.key = host_key or secrets.token_urlsafe(16)
        self.rooms: dict = {}
        self.loaded: dict = {}         # (ruleset, options) -> the loaded ruleset
        self.problems: list = []       # games found in the folder that could not be resumed
        self.resume_all()

    # -------------------------------------------------------- persistence
    def resume_all(self) -> None:
        for n in sorted(os.listdir(self.dir)):
            if not n.endswith(".seats.json"):
                continue
            gid = n[:-len(".seats.json")]
            try:
                self.rooms[gid] = self._resume(gid)
            except (CglError, ValueError, KeyError, OSError) as e:
                msg = e.diagnostics[0].message if isinstance(e, CglError) else str(e)
                self.problems.append(f"{gid}: {msg}")

    def _resume(self, gid: str) -> Room:
        meta = json.loads(read_text(os.path.join(self.dir, f"{gid}.seats.json"), "seats file", remember=False))
        path = os.path.join(self.dir, f"{gid}.json")
        data = saves.read_save(path)
        game = saves.resume(data, path)
        seats = meta["seats"]
        agents = bots(seats, game.seed)
        saves.restore_agents([a if a is not None else _NoState() for a in agents], data,
                             [i + 1 for i, s in enumerate(seats) if s == HUMAN], path)
        room = Room(gid, data["ruleset"], game, seats, data["options"], {t: int(s) for t, s in meta["tokens"].items()},
                    self.dir, agents)
        room.hashes = {"ruleset_sha256": data["ruleset_sha256"], "files": data["files"]}
        room.saved = len(game.answers)
        room.replay_log()
        room.rebuild_history()
        room.note_decision()
        return room

    # -------------------------------------------------------- games
    def create(self, spec: dict) -> Room:
        if len(self.rooms) >= MAX_GAMES:
            raise Refused(429, f"this server keeps at most {MAX_GAMES} games")
        name = spec.get("ruleset")
        if not isinstance(name, str) or name not in self.rulesets:
            raise Refused(400, f"no ruleset `{name}` is served here: pick one of the list")
        options = spec.get("options") or {}
        if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, bool))
                                                    for k, v in options.items()):
            raise Refused(400, "options are name = value pairs")
        options = {k: v if isinstance(v, str) else json.dumps(v) for k, v in options.items() if v != ""}
        key = (name, tuple(sorted(options.items())))
        rs = self.loaded.get(key)       # (a ruleset is read once: games never change it)
        if rs is None:
            try:
                rs = load(self.rulesets[name], options)
            except CglError as e:
                raise Refused(400, _message(e)) from None
            self.loaded[key] = rs
        seats = spec.get("seats")
        if not isinstance(seats, list) or not seats:
            raise Refused(400, "say who plays each seat: a person (human) or a bot")
        g = rs.game
        if not g.min_players <= len(seats) <= g.max_players:
            raise Refused(400, f"{g.title} is for {g.min_players} to {g.max_players} players, not {len(seats)}")
        specs = []
        for s in seats:
            if s == HUMAN:
                specs.append(HUMAN)
                continue
            try:
                specs.append(agent_spec(str(s)))
            except CglError as e:
                raise Refused(400, _message(e)) from None
        seed = spec.get("seed")
        if seed in (None, ""):
            seed = secrets.randbelow(1_000_000)
        if type(seed) is not int or not 0 <= seed < 2 ** 63:
            raise Refused(400, "the seed is a whole number")
        try:
            game = Game(rs, len(specs), seed, forkable=needs_worlds([s for s in specs if s != HUMAN]))
        except CglError as e:
            raise Refused(400, _message(e)) from None
        gid = secrets.token_hex(6)
        tokens = {secrets.token_urlsafe(18): i for i, s in enumerate(specs) if s == HUMAN}
        room = Room(gid, name, game, specs, options, tokens, self.dir)
        room.game.start()
        self._write_seats(room)
        self.rooms[gid] = room
        return room

    def _write_seats(self, room: Room) -> None:
        from cgl.interpreter.base.files import write_text
        text = json.dumps({"seats": room.seats, "tokens": room.tokens}, indent=1) + "\n"
        write_text(os.path.join(self.dir, f"{room.id}.seats.json"), text, "seats file")

    def seat_of(self, gid: str, token: str) -> tuple:
        room = self.rooms.get(gid)
        if room is None or not isinstance(token, str):
            raise Refused(404, "no such game")
        seat = None
        for t, s in room.tokens.items():   # (compared in constant time, whichever token is tried)
            if secrets.compare_digest(t, token):
                seat = s
        if seat is None:
            raise Refused(404, "no such seat: ask the host for your link")
        return room, seat

    async def advance(self, room: Room, reset: bool = False) -> None:
        """Run the bots, save, and send every client its new view. Quick bots' moves are made
        here for up to `INLINE_BOTS` seconds, the rest in a worker thread (the server keeps
        serving while a bot thinks); a searching bot's always go to the thread. (A worker
        thread for every quick move cost more than the move: the thread and the event loop
        take turns holding the interpreter, and every send of the loop waits its turn.)"""
        try:
            if room.searching or not room.bot_turns(time.perf_counter() + INLINE_BOTS):
                await anyio.to_thread.run_sync(room.bot_turns)
        except CglError as e:
            room.error = _message(e)
        if reset or room.needs_save():    # (in a thread: replacing a file can wait on the disk)
            await anyio.to_thread.run_sync(room.save)
        else:
            room.record()
        await self.push(room, reset)

    def save_all(self) -> None:
        """Write the whole save of every game whose log holds answers (the server stops)."""
        for room in self.rooms.values():
            if room.logged != room.saved:
                room.save()

    async def answer(self, room: Room, seat: int, number, raw) -> None:
        async with room.lock:
            d = room.game.pending
            if d is None:
                raise Refused(409, "the game is over")
            if d.player != seat:
                raise Refused(403, f"it is P{d.player + 1}'s decision, not yours")
            if number != room.decision_no(seat):
                raise Refused(409, "that decision has passed: the table shows the one waiting now")
            answer = parse_answer(d, raw)
            try:
                room.game.answer(answer)
            except AnswerError as e:
                raise Refused(400, str(e)) from None
            except CglError as e:
                room.error = _message(e)
            await self.advance(room)

    async def design(self, room: Room, msg: dict) -> None:
        """The designer's controls: `undo` to an earlier decision, `bots` to play the rest."""
        async with room.lock:
            if msg.get("type") == "undo":
                n = msg.get("to")
                if type(n) is not int or not 0 <= n <= len(room.game.answers):
                    raise Refused(400, f"undo to a decision from 0 to {len(room.game.answers)}")
                try:
                    await anyio.to_thread.run_sync(room.rewind, n)
                except CglError as e:
                    raise Refused(400, _message(e)) from None
            elif msg.get("type") == "bots":
                room.seats = [s if s != HUMAN else "greedy" for s in room.seats]
                room.agents = [a if a is not None else make_agent("greedy", i, room.game.seed)
                               for i, a in enumerate(room.agents)]
                self._write_seats(room)
            else:
                raise Refused(400, "the designer sends {\"type\": \"undo\", \"to\": N} or {\"type\": \"bots\"}")
            for state in room.clients.values():
                state.reset()         # (an undo shortens the log: every client is sent it anew)
            await self.advance(room, reset=True)

    async def push(self, room: Room, reset: bool = False) -> None:
        """Send each client its view when what its seat may see has changed (another seat's
        private question, asked or answered, changes nothing it may see, and a message for
        it would tell that it was asked)."""
        for ws, state in list(room.clients.items()):
            v = room.view(state.seat, state.since)
            if not (reset or state.changed(v)):
                continue
            v = state.news(v)
            try:
                await ws.send_text(encode({"type": "view", "view": v, "reset": reset}))
            except Exception:   # a closed tab: forgotten
                room.clients.pop(ws, None)


def encode(msg: dict) -> str:
    """A message to a client as JSON text, compact. orjson writes a view in a tenth of the
    time the standard library takes (that was a sixth of the server's work for each answer);
    what it refuses (an integer past 64 bits, a key that is not a string) the standard
    library writes, as Starlette's `send_json` would."""
    try:
        return orjson.dumps(msg).decode()
    except TypeError:    # (orjson.JSONEncodeError is one)
        return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def _message(e: CglError) -> str:
    d = e.diagnostics[0]
    return d.message + (f" ({d.hint})" if d.hint else "")


# ---------------------------------------------------------------- routes

def _page(name: str) -> Response:
    return FileResponse(os.path.join(WEB, name), media_type="text/html")


def _refused(e: Refused) -> JSONResponse:
    return JSONResponse({"error": e.message}, status_code=e.status)


async def _json_body(request: Request):
    body = await request.body()
    if len(body) > MAX_BODY:
        raise Refused(413, "the request is too large")
    try:
        return json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise Refused(400, "the request is not JSON") from None


def _server(request) -> Server:
    return request.app.state.server


def _host_only(request: Request) -> None:
    key = request.query_params.get("key") or request.headers.get("x-cgl-key") or ""
    if not secrets.compare_digest(key, _server(request).key):
        raise Refused(403, "the lobby is the host's: open the link `cgl serve` printed")


def _guarded(fn):
    """A route whose Refused is the JSON answer it says (status and message)."""
    async def route(request: Request):
        try:
            return await fn(request)
        except Refused as e:
            return _refused(e)
    route.__name__ = fn.__name__
    return route


def _room(request: Request) -> Room:
    room = _server(request).rooms.get(request.path_params["gid"])
    if room is None:
        raise Refused(404, "no such game")
    return room


def _seat(request) -> tuple:
    return _server(request).seat_of(request.path_params["gid"], request.path_params["token"])


@_guarded
async def lobby(request: Request):
    _host_only(request)
    return _page("lobby.html")


@_guarded
async def rulesets(request: Request):
    _host_only(request)
    out = []
    for name, path in _server(request).rulesets.items():
        try:
            rs = load(path, {})
        except CglError as e:
            out.append({"name": name, "error": _message(e)})
            continue
        g = rs.game
        out.append({"name": name, "title": g.title, "min_players": g.min_players, "max_players": g.max_players,
                    "options": [{"name": o.name, "type": str(o.type), "default": rs.option_values[o.name],
                                 "doc": o.doc or ""} for o in rs.options.values()]})
    return JSONResponse({"rulesets": out, "agents": ["random", "greedy", "mcts:50"]})


@_guarded
async def games(request: Request):
    _host_only(request)
    server = _server(request)
    if request.method == "POST":
        room = server.create(await _json_body(request))
        async with room.lock:
            await server.advance(room)
        return JSONResponse(room.summary(), status_code=201)
    return JSONResponse({"games": [r.summary() for r in server.rooms.values()], "problems": server.problems})


@_guarded
async def host_page(request: Request):
    _host_only(request)
    _room(request)
    return _page("table.html")


@_guarded
async def play_page(request: Request):
    _seat(request)
    return _page("table.html")


async def _replay(room: Room, seat: Optional[int]) -> HTMLResponse:
    from . import replay_html
    g = room.game
    data = await anyio.to_thread.run_sync(
        lambda: replay_html.frames(Game(g.ruleset, g.players, g.seed), list(g.answers), seat))
    return HTMLResponse(replay_html.page(data))


@_guarded
async def seat_replay(request: Request):
    room, seat = _seat(request)
    return await _replay(room, seat)


@_guarded
async def host_replay(request: Request):
    _host_only(request)
    return await _replay(_room(request), None)


@_guarded
async def view(request: Request):
    room, seat = _seat(request)
    since = request.query_params.get("since", "0")
    if not since.isdigit():
        raise Refused(400, "`since` is a log step (a whole number, as the view numbers this seat's lines)")
    async with room.lock:    # (not while a bot thinks in its thread: the game is changing)
        return JSONResponse(room.view(seat, int(since)))


@_guarded
async def answer(request: Request):
    room, seat = _seat(request)
    body = await _json_body(request)
    if not isinstance(body, dict) or "answer" not in body or "decision" not in body:
        raise Refused(400, "send {\"decision\": N, \"answer\": …}")
    await _server(request).answer(room, seat, body["decision"], body["answer"])
    async with room.lock:
        return JSONResponse(room.view(seat, room.game.log_steps(seat)))   # (no log line: the table has them)


def _socket_seat(ws: WebSocket) -> tuple:
    """(room, seat) of a WebSocket: a seat's token, or the designer's (seat None) with the host's key."""
    server = _server(ws)
    if "token" in ws.path_params:
        return server.seat_of(ws.path_params["gid"], ws.path_params["token"])
    room = server.rooms.get(ws.path_params["gid"])
    if room is None or not secrets.compare_digest(ws.query_params.get("key", ""), server.key):
        raise Refused(404, "no such game, or not the host's key")
    return room, None


async def socket(ws: WebSocket):
    """A table's live connection: its view, then a new one after every change; it sends
    answers (a seat) or the designer's controls (the host)."""
    try:
        room, seat = _socket_seat(ws)
    except Refused as e:
        await ws.close(code=4404, reason=e.message)
        return
    await ws.accept()
    state = room.clients[ws] = _Client(seat)
    limit = _Rate()
    try:
        async with room.lock:
            v = room.view(seat, 0)
            state.changed(v)
            v = state.news(v)
        await ws.send_text(encode({"type": "view", "view": v}))
        while True:
            text = await ws.receive_text()
            try:
                await _take(_server(ws), room, seat, text, limit)
            except Refused as e:
                await ws.send_text(encode({"type": "error", "message": e.message}))
    except WebSocketDisconnect:
        pass
    finally:
        room.clients.pop(ws, None)


class _Client:
    """A table's WebSocket: its seat (None: the designer), the first log step it has not been
    sent, and the cards whose printed data it has (a view's `cards` then lists only the
    others: a table keeps what it was sent, and printed data never changes)."""

    def __init__(self, seat: Optional[int]):
        self.seat = seat
        self.reset()

    def reset(self) -> None:
        self.since, self.printed, self.last = 0, set(), None

    def changed(self, v: dict) -> bool:
        """Whether view `v` holds something this client has not been sent (a log line, or
        anything else that differs from the last view sent)."""
        rest = {k: x for k, x in v.items() if k not in ("log", "cards")}
        if v["log"] or rest != self.last:
            self.last = rest
            return True
        return False

    def news(self, v: dict) -> dict:
        """The view `v` as this client is sent it; what it now has is remembered."""
        if v["log"]:
            self.since = v["log"][-1]["step"] + 1
        cards = v["cards"]
        v["cards"] = {name: data for name, data in cards.items() if name not in self.printed}
        self.printed.update(cards)
        return v


class _Rate:
    """A token bucket: RATE messages a second, a burst of as many."""

    def __init__(self):
        self.bucket, self.last = float(RATE), time.monotonic()

    def take(self) -> None:
        now = time.monotonic()
        self.bucket, self.last = min(float(RATE), self.bucket + (now - self.last) * RATE), now
        if self.bucket < 1:
            raise Refused(429, "too many messages: slow down")
        self.bucket -= 1


async def _take(server: Server, room: Room, seat: Optional[int], text: str, limit: _Rate) -> None:
    """One message from a client: checked, then an answer (a seat's) or a control (the designer's)."""
    limit.take()
    if len(text) > MAX_BODY:
        raise Refused(413, "the message is too large")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        raise Refused(400, "the message is not JSON") from None
    if seat is None and isinstance(msg, dict):
        await server.design(room, msg)
        return
    if not isinstance(msg, dict) or msg.get("type") != "answer":
        raise Refused(400, "send {\"type\": \"answer\", \"decision\": N, \"answer\": …}")
    await server.answer(room, seat, msg.get("decision"), msg.get("answer"))


async def art(request: Request):
    """The picture of a card of a game, by the card's name (never by a path: the pictures a
    ruleset may show are the ones its card data names, checked when it was loaded to lie in
    its project; checked again here, in case a file became a symlink since)."""
    room = _server(request).rooms.get(request.path_params["gid"])
    rs = room.game.ruleset if room is not None else None
    path = rs.images.get(request.path_params["card"]) if rs is not None else None
    if path is None or not inside(path, rs.roots) or not os.path.isfile(path):
        return JSONResponse({"error": "no such picture"}, status_code=404)
    kind = IMAGE_TYPES.get(os.path.splitext(path)[1].lower())
    if kind is None:
        return JSONResponse({"error": "no such picture"}, status_code=404)
    # (a picture is shown, never run: an SVG opened on its own gets no script and no origin)
    return FileResponse(path, media_type=kind, headers={"X-Content-Type-Options": "nosniff",
                                                        "Content-Security-Policy": "default-src 'none'; "
                                                        "style-src 'unsafe-inline'; sandbox",
                                                        "Cache-Control": "max-age=3600"})


async def index(request: Request):
    return HTMLResponse("<!doctype html><title>cgl serve</title><p>This is a cgl table. "
                        "Open the link the host sent you.</p>")


ROUTES = [
    Route("/", index),
    Route("/lobby", lobby),
    Route("/api/rulesets", rulesets),
    Route("/api/games", games, methods=["GET", "POST"]),
    Route("/play/{gid}/{token}", play_page),
    Route("/host/{gid}", host_page),
    Route("/replay/{gid}/{token}", seat_replay),
    Route("/replay/{gid}", host_replay),
    WebSocketRoute("/ws/host/{gid}", socket),
    Route("/art/{gid}/{card}", art),
    Route("/api/view/{gid}/{token}", view),
    Route("/api/answer/{gid}/{token}", answer, methods=["POST"]),
    WebSocketRoute("/ws/{gid}/{token}", socket),
    Mount("/static", StaticFiles(directory=WEB), name="static"),
]


def make_app(server: Server) -> Starlette:
    """The Starlette app of `server`: the lobby and the designer's seat (host key), the seat
    pages, their JSON and WebSocket API, the replays."""
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        server.save_all()

    app = Starlette(routes=ROUTES, lifespan=lifespan)
    app.state.server = server
    return app
