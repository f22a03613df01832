"""The `cgl` command: a thin layer that parses options, calls the library, and maps
results to exit codes (0 ok, 1 a failed test or a game error, 2 a usage or ruleset error).
"""
from __future__ import annotations

import json
import os
import random
import shlex
import sys
from typing import Optional

import attrs
import click
from click.core import ParameterSource

from cgl.interpreter.play import logs, saves
from cgl.interpreter.base.diagnostics import CglError, render_all, use_colour
from cgl.interpreter.base.files import check_target, read_text, write_text
from cgl.interpreter.walker.engine import AnswerError
from cgl.interpreter.play import game as _game_module
from cgl.interpreter.play.game import ENGINES, Game, make_agent, needs_worlds
from cgl.interpreter.check.loader import load, packaged_rulesets, resolve
from cgl.interpreter.base.protocol import DEFAULT_MAX_STEPS

from . import table as T
from .interrupt import interrupted
from .human import HumanAgent, Interrupted, QuitGame
from .options import AGENT_METAVAR, agent_specs, agents_help, check_agent

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("cgl")
    except Exception:  # pragma: no cover - running from a source tree without metadata
        return "unknown"


def _report(err: CglError, code: int):
    click.echo(render_all(err.diagnostics, colour=use_colour(sys.stderr)), err=True)
    sys.exit(code)


def _parse_options(pairs) -> dict:
    out = {}
    for raw in pairs:
        key, sep, value = raw.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"`{raw}` is not key=value (for example: --option rounds=4)",
                                     param_hint="--option")
        out[key.strip()] = value
    return out


def _load(ruleset: str, options: dict):
    try:
        return load(ruleset, options)
    except CglError as e:
        _report(e, EXIT_USAGE)


class _Main(click.Group):
    def make_context(self, *args, **kwargs):
        try:   # (click would call a Ctrl-C while it reads the options "Aborted!", exit 1)
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            interrupted()

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except CglError as e:
            _report(e, EXIT_FAIL)
        except KeyboardInterrupt:
            interrupted()
        except BrokenPipeError:  # `cgl run … | head`: the reader has seen enough
            try:
                sys.stdout = open(os.devnull, "w")
            finally:
                sys.exit(0)
        except Exception as e:  # an internal bug: say so plainly, traceback only on request
            if os.environ.get("CGL_DEBUG"):
                raise
            click.echo(f"cgl: internal error: {e.__class__.__name__}: {e}\n"
                       "This is a bug in cgl, not in your ruleset; set CGL_DEBUG=1 to see where it happened.",
                       err=True)
            sys.exit(3)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), prog_name="cgl")
@click.option("--engine", type=click.Choice(ENGINES, case_sensitive=False), envvar="CGL_ENGINE",
              help="What plays the games of this command: `compiled` (the default: the ruleset compiled to Python) "
                   "or `tree` (the tree walker, which defines what a ruleset means; both play the same games). "
                   "Also from CGL_ENGINE.")
@click.pass_context
def main(ctx, engine):
    """cgl, the card-game language: play, test and check card games written in CGL.

    \b
    Examples:
      cgl run mgt --players 4 --seed 1        play a bot game of a shipped ruleset
      cgl run rulesets/mgt.cgl --human 1      play seat 1 yourself
      cgl test tests/scenarios                run scenario files
      cgl lint rulesets                       check rulesets without playing
      cgl fmt rulesets                        format files in the one house layout
      cgl explain E004                        what a diagnostic code means
      cgl new my-game                         start a new ruleset folder
      cgl --engine tree run mgt -s 1          the same game, on the tree walker
    """
    if engine is not None:   # every game of this command (and of its worker processes), and no other
        before, _game_module.DEFAULT_ENGINE = _game_module.DEFAULT_ENGINE, engine.lower()
        ctx.call_on_close(lambda: setattr(_game_module, "DEFAULT_ENGINE", before))


# ---------------------------------------------------------------- run

def _print_entry(entry, quiet):
    if quiet or entry.get("hidden") or entry.get("quiet"):
        return
    kind = entry["type"]
    text = entry["text"]
    if kind == "round":
        click.secho(f"\n== {text} ==", bold=True)
    elif kind == "turn":
        click.secho(text, bold=True)
    elif kind == "game_over":
        pass
    else:
        private = " (private)" if entry.get("to") is not None and kind not in ("decision", "action") else ""
        click.echo(f"  {text}{private}")


@attrs.define
class _Table:
    """A game at the terminal, its agents, and what a log or a save says it was made from."""

    ruleset: str          # as the user named it
    options: dict         # as the user gave them
    specs: list           # the agent spec of every seat
    humans: tuple         # seats (1-based) played by people
    game: Game
    agents: list
    hashes: Optional[dict] = None   # the files' hashes when the game began (for --save, --log)
    # a seed drawn for a game a person plays is not shown until the game ends: with it, a
    # bot game of the same seed would show every hand and the order of the deck
    seed_hidden: bool = False


# what a save fixes: these options cannot be given with --resume
_FIXED_BY_SAVE = {"players": "--players", "seed": "--seed", "options": "--option", "deck_files": "--deck",
                  "agent": "--agent", "agent_list": "--agents"}


@main.command()
@click.argument("ruleset", required=False)
@click.option("--players", "-p", type=int, help="Number of players (default: the fewest the game allows).")
@click.option("--seed", "-s", type=int, help="Random seed; the same seed plays the same game (default: random, printed; "
                   "with a --human seat, shown only when the game ends).")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="Set a ruleset option, e.g. -o rounds=4 (repeatable). `cgl info` lists them.")
@click.option("--human", "humans", type=int, multiple=True, metavar="SEAT",
              help="Seat (1-based) played by you at the terminal (repeatable). With --resume: "
                   "the seats people take now (default: the saved ones).")
@click.option("--agent", metavar=AGENT_METAVAR, default="greedy", show_default=True, callback=check_agent,
              help=f"The bot that plays the other seats. {agents_help()}.")
@click.option("--agents", "agent_list", metavar="A,B,…",
              help="One bot per seat, e.g. greedy,random,random (overrides --agent; a human seat ignores its entry).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, writable=True),
              help="Write every event and answer as JSON Lines (replay with `cgl replay`).")
@click.option("--deck", "deck_files", multiple=True, metavar="SEAT=FILE",
              help="The deck list a seat brings (for games whose players bring decks), e.g. --deck 1=my.yaml.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="When you quit at your prompt (`quit`, end of input, Ctrl-C), save the game to FILE "
                   "(JSON) to go on later with `cgl run --resume FILE`. Needs a --human seat.")
@click.option("--resume", "resume_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Go on with a game saved with --save, at the decision where it stopped. The save fixes "
                   "the ruleset (RULESET may be left out), players, seed, options, decks and bots.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the result.")
@click.option("--check/--no-check", default=False, help="Check invariants while playing (slower).")
@click.option("--max-steps", "max_steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              help="The game's budget of steps (statements run and turns played): past it the game stops "
                   "with E011.")
@click.pass_context
def run(ctx, ruleset, players, seed, options, humans, agent, agent_list, deck_files, log_path, save_path,
        resume_path, quiet, check, max_steps):
    """Play one game of RULESET (a .cgl file, or the name of a shipped ruleset).

    Bots play every seat not given to --human. The play-by-play shows everything
    (a bot game has no secrets); with a human seat it shows only what that seat sees.

    \b
    A game you play can be saved when you quit, and resumed:
      cgl run mgt --human 1 --save game.json     (type `quit` at a prompt)
      cgl run --resume game.json
    """
    if resume_path:
        table = _resumed_table(ctx, resume_path, ruleset, humans, check, max_steps)
    elif ruleset is None:
        raise click.UsageError("Missing argument 'RULESET' (a .cgl file or a shipped ruleset's name), "
                               "or --resume FILE to go on with a saved game.")
    else:
        table = _new_table(ruleset, players, seed, _parse_options(options), humans, agent, agent_list,
                           _parse_decks(deck_files), check, max_steps)
    if save_path and not table.humans:
        raise click.BadParameter("a game is saved when you quit at your prompt: play a seat with --human SEAT",
                                 param_hint="--save")
    if save_path and not os.path.isdir(os.path.dirname(os.path.abspath(save_path))):
        raise click.BadParameter(f"there is no folder `{os.path.dirname(save_path)}` to save into",
                                 param_hint="--save")
    if (save_path or log_path) and table.hashes is None:
        table.hashes = saves.fingerprint(table.game)   # the files as the game began
    # the outputs are checked before the game: a person's whole game must not end in "cannot write"
    inputs = saves.inputs_of({"ruleset_path": os.path.abspath(table.game.ruleset.path), **(table.hashes or {})})
    try:
        for path, kind in ((log_path, "log"), (save_path, "save")):
            if path:
                check_target(path, kind, inputs)
    except CglError as e:
        _report(e, EXIT_USAGE)
    _play(table, quiet, log_path, save_path, resumed_from=resume_path)


def _agents(specs: list, humans, seed: int) -> list:
    n = len(specs)
    for h in humans:
        if not 1 <= h <= n:
            raise click.BadParameter(f"seat {h} does not exist in a {n}-player game (seats 1 to {n})",
                                     param_hint="--human")
    return [HumanAgent(i) if (i + 1) in humans else make_agent(specs[i], i, seed) for i in range(n)]


def _new_table(ruleset, players, seed, opts, humans, agent, agent_list, decks, check,
               max_steps=DEFAULT_MAX_STEPS) -> _Table:
    rs = _load(ruleset, opts)
    hidden = seed is None and bool(humans)
    if seed is None:
        # with a person at the table, from a range too big to find by trying seeds against one's hand
        seed = random.SystemRandom().randrange(1, 2**63 if humans else 10**6)
    try:
        game = Game(rs, players, seed, check_invariants=check, decks=decks, max_steps=max_steps)
    except CglError as e:
        _report(e, EXIT_USAGE)
    specs = agent_specs(agent, agent_list, game.players, "greedy")
    if needs_worlds([s for i, s in enumerate(specs) if i + 1 not in humans]):
        game = Game(rs, players, seed, check_invariants=check, decks=decks, forkable=True,   # search bots fork it
                    max_steps=max_steps)
    return _Table(ruleset, opts, specs, tuple(humans), game, _agents(specs, humans, seed), seed_hidden=hidden)


def _resumed_table(ctx, path, ruleset, humans, check, max_steps=DEFAULT_MAX_STEPS) -> _Table:
    """The table of a saved game, waiting at the decision where it stopped."""
    given = [flag for name, flag in _FIXED_BY_SAVE.items()
             if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)]
    if given:
        raise click.UsageError(f"{', '.join(given)} cannot be given with --resume: the save fixes the players, "
                               "seed, options, deck lists and bots")
    try:
        data = saves.read_save(path)
        if ruleset is not None and os.path.realpath(resolve(ruleset)) != \
                os.path.realpath(saves.ruleset_of(data, path)):
            raise click.UsageError(f"`{path}` is a game of {data['ruleset']}, not of {ruleset}: "
                                   "leave RULESET out with --resume")
        game = saves.resume(data, path, check, max_steps)
        humans = tuple(humans or data["humans"])
        agents = _agents(data["agents"], humans, data["seed"])
        saves.restore_agents(agents, data, humans, path)
    except CglError as e:
        _report(e, EXIT_USAGE)
    return _Table(data["ruleset"], data["options"], data["agents"], humans, game, agents,
                  {"ruleset_sha256": data["ruleset_sha256"], "files": data["files"]})


def _play(t: _Table, quiet: bool, log_path, save_path, resumed_from=None):
    """Play the table's game from where it stands to its end, or until a person quits."""
    game, rs, n = t.game, t.game.ruleset, t.game.players
    watcher = t.humans[0] - 1 if t.humans else None

    def show(entry):
        if watcher is not None:
            return  # the human agent prints what its seat sees
        _print_entry(entry, quiet)

    def log():
        _write_log(t, log_path)

    game.engine.listeners.append(show)
    people = [t.agents[h - 1] for h in t.humans if isinstance(t.agents[h - 1], HumanAgent)]
    for person in people:
        person.game, person.save_path = game, save_path
        person.hot_seat = len(people) > 1
    if people:
        def round_end(entry):   # a round ends where the next begins (or the game ends): a pause
            if entry["type"] == "round" and entry.get("round", 0) > 1:
                people[0].round_over(entry["round"] - 1)
            elif entry["type"] == "game_over" and game.state.round_no > 0:
                people[0].round_over(game.state.round_no, last=True)
        game.engine.listeners.append(round_end)
    if not quiet:
        seed = "seed shown when the game ends" if t.seed_hidden else f"seed {game.seed}"
        title = (f"{rs.title} {rs.game.version or ''} · {n} players · {seed}"
                 + (f" · options {', '.join(f'{k}={v}' for k, v in t.options.items())}" if t.options else ""))
        click.secho(f"Resumed {title} at decision {len(game.answers) + 1} ({resumed_from})" if resumed_from
                    else title, bold=True)
    d = game.pending if resumed_from else game.start()
    last_person = None
    try:
        while d is not None:
            agent = t.agents[d.player]
            if isinstance(agent, HumanAgent) and len(people) > 1 and last_person not in (None, d.player):
                _pass_device(agent)
            if isinstance(agent, HumanAgent):
                last_person = d.player
            a = agent.decide(d)
            try:
                d = game.answer(a)
            except AnswerError as e:
                if isinstance(t.agents[d.player], HumanAgent):
                    click.echo(f"That answer does not fit: {e}")
                    continue
                raise
    except (QuitGame, KeyboardInterrupt) as e:   # (Ctrl-C at a prompt asks first: QuitGame)
        click.echo("\nYou left the game." if isinstance(e, KeyboardInterrupt) else "You left the game.")
        to = getattr(e, "save_to", None)
        if to and t.hashes is None:
            t.hashes = saves.fingerprint(t.game)
        _save_on_quit(t, to or save_path, err=False)
        log()
        sys.exit(EXIT_OK)
    except click.exceptions.Abort:
        click.echo("\nThe game was stopped (end of input).", err=True)
        _save_on_quit(t, save_path, err=True)
        log()
        sys.exit(EXIT_USAGE)
    except CglError as e:
        log()
        _report(e, EXIT_FAIL)
    if watcher is not None:  # what the human has not seen yet: how the game ended
        people[0].catch_up(public_only=len(people) > 1)
    res = game.result
    click.echo("")
    click.secho(res.summary(), bold=True)
    _print_scores(res, T.score_var(rs), score_only=bool(people), may_read=game.engine.may_read)
    if t.seed_hidden:
        click.echo(f"  (seed {game.seed}" + (f"; the game is in {log_path}: `cgl replay {shlex.quote(log_path)}`"
                                             if log_path else "") + ")")
    log()


def _pass_device(agent: HumanAgent):
    """Hot seat: clear the screen (and its scrollback) so that the next person sees nothing
    of the last one's, and wait until they have the device."""
    tty = sys.stdout.isatty()

    def clear():
        if tty:
            click.echo("\033[2J\033[3J\033[H", nl=False)
        else:
            click.echo("\n" + "=" * 40)
    clear()
    agent.out(f"[bold]Pass the device to P{agent.seat + 1}[/bold], then press Enter.")
    try:
        agent.ask(f"P{agent.seat + 1}, press Enter")
    except Interrupted:   # Ctrl-C here: the person at the device may leave
        agent._confirm_quit()
    clear()


def _save_on_quit(t: _Table, save_path, err: bool):
    if not save_path:
        click.echo("(Not saved: play with --save FILE to keep a game you leave, then `cgl run --resume FILE`.)", err=err)
        return
    try:
        saves.write_save(save_path, saves.save_data(t.game, t.ruleset, t.options, t.specs, t.humans, t.agents,
                                                    t.hashes))
    except CglError as e:
        _report(e, EXIT_USAGE)
    click.echo(f"Saved to {save_path}: go on with `cgl run --resume {shlex.quote(save_path)}`", err=err)


def _parse_decks(pairs) -> dict:
    out = {}
    for raw in pairs:
        seat, sep, path = raw.partition("=")
        if not sep or not seat.strip().isdigit() or not path.strip():
            raise click.BadParameter(f"`{raw}` is not SEAT=FILE (for example: --deck 1=decks/mine.yaml)",
                                     param_hint="--deck")
        out[int(seat) - 1] = path.strip()
    return out


def _print_scores(res, score=None, score_only=False, may_read=None):
    """Each player's variables at the end that everyone may read (`Engine.may_read`, for
    no seat: not `internal`, not `private`), the ruleset's score (`Ruleset.score`) first;
    with people at the table (`score_only`) only the score, when the ruleset has one."""
    for i, pv in enumerate(res.players, 1):
        shown = {k: v for k, v in pv.items() if (isinstance(v, (int, bool)) or isinstance(v, str))
                 and (may_read is None or may_read(k, None, i - 1))}
        if score is not None and score in pv:
            shown = {score: pv[score]} if score_only else {score: pv[score], **shown}
        parts = ", ".join(f"{k} {v}" for k, v in shown.items())
        click.echo(f"  P{i}: {parts}")
    click.echo(f"  ({res.rounds} round{'s' if res.rounds != 1 else ''}, {res.turns} turns, {res.decisions} decisions)")


def _write_log(t: _Table, path):
    if not path:
        return
    try:
        logs.write_log(path, logs.log_header(t.game, t.ruleset, t.options, t.specs, t.humans, t.hashes, _version()),
                       t.game)
    except CglError as e:
        _report(e, EXIT_USAGE)


# ---------------------------------------------------------------- replay

@main.command()
@click.argument("log_file", type=click.Path(exists=True))
@click.option("--html", "as_html", is_flag=True,
              help="Also write the game as one self-contained HTML page that steps through every decision "
                   "(no server or network needed to open it), showing any seat's view or every card.")
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Where --html writes the page (default: the log's name with .html). An existing file "
                   "is replaced.")
def replay(log_file, as_html, output):
    """Re-play a game from its --log file and check that it reproduces event for event.

    Exit 0 when it does, 1 when it does not (the message names the line where the log and the
    game differ), 2 when the file is not a log (the message says where and why).

    \b
    To step through a game in a browser:
      cgl run mgt -p 3 -s 1 --log game.jsonl
      cgl replay --html game.jsonl -o game.html
    """
    if output and not as_html:
        raise click.BadParameter("--output names the page --html writes: add --html", param_hint="--output")
    try:
        log = logs.read_log(log_file)
    except CglError as e:
        _report(e, EXIT_USAGE)
    try:
        game = logs.replay(log)
    except logs.NotReproduced as e:
        _report(e, EXIT_FAIL)
    except CglError as e:   # the ruleset does not load
        _report(e, EXIT_USAGE)
    n = len(log.answers.value["answers"])
    click.echo(f"Reproduced: {len(log.events)} events, {n} decisions, "
               + (game.result.summary() if game.over else f"a game left after {n} answers"))
    if as_html:
        from . import replay_html
        target = output or os.path.splitext(log_file)[0] + ".html"
        data = replay_html.frames(logs.fresh_game(log), log.answers.value["answers"])
        try:
            write_text(target, replay_html.page(data), "replay page", inputs=(log_file,))
        except CglError as e:
            _report(e, EXIT_USAGE)
        click.echo(f"Wrote {target}: {len(data['frames'])} steps; open it in a browser.")


# ---------------------------------------------------------------- test

@main.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--verbose", "-v", is_flag=True, help="Print every scenario, and the play of failed ones.")
@click.option("-k", "pattern", help="Run only scenarios whose name contains this text.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), metavar="N",
              help="Run N scenario files at once, in N processes (default: the number of cores; 1: in this process).")
@click.option("--max-steps", "max_steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              help="Each scenario game's budget of steps (statements run and turns played).")
def test_cmd(paths, verbose, pattern, jobs, max_steps):
    """Run the scenario files (YAML) under PATHS. Exit 1 if any fails.

    Failures are printed as they happen; the summary at the end lists them in file order.
    """
    from cgl.interpreter.play import scenario
    skipped: list = []
    try:
        files = scenario.collect(paths, skipped)
    except CglError as e:
        _report(e, EXIT_USAGE)
    if skipped:
        click.echo(f"Skipped {len(skipped)} YAML file{'s' if len(skipped) != 1 else ''} with no `scenario:` or "
                   f"`scenarios:` key (card data, deck lists): {', '.join(sorted(skipped)[:3])}"
                   + (" …" if len(skipped) > 3 else ""), err=True)
    if not files:
        click.echo("No scenario files (*.yaml with a `scenario:` or `scenarios:` key) found.", err=True)
        sys.exit(EXIT_USAGE)
    jobs = min(jobs or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()) or 1,
               len(files))
    tty = sys.stdout.isatty()
    done = passed = 0
    failed: dict = {}    # file's index -> names of its failed scenarios (None: the file itself)

    def progress(clear: bool = False):
        if tty:
            line = "" if clear else f"[{done}/{len(files)} files] {passed} passed, {sum(map(len, failed.values()))} failed"
            click.echo(f"\r\x1b[K{line}", nl=False)

    def show(i: int, results: list):
        nonlocal done, passed
        done += 1
        for r in results:
            if r["passed"]:
                passed += 1
                if verbose:
                    progress(clear=True)
                    click.echo(r["report"])
                continue
            failed.setdefault(i, []).append(r["name"])
            progress(clear=True)
            if r["diagnostics"] is not None:
                if r["name"] is not None:
                    click.echo(f"FAIL {r['name']}  ({r['path']})")
                click.echo(r["diagnostics"], err=True)
            else:
                click.echo(r["report"])
                if verbose:
                    click.echo("\n".join("      | " + t for t in r["transcript"]))
        progress()

    for i, results in scenario.run_many(files, pattern, jobs, max_steps):
        show(i, results)
    progress(clear=True)
    total = sum(map(len, failed.values()))
    if total and len(files) > 1:
        click.echo("Failed:")
        for i in sorted(failed):
            for name in failed[i]:
                click.echo(f"  {files[i]}" + (f": {name}" if name is not None else " (cannot be read)"))
    click.echo(f"{passed} passed, {total} failed")
    sys.exit(EXIT_FAIL if total else EXIT_OK)


# ---------------------------------------------------------------- lint and info

@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
              help="text for people, json for tools, github for GitHub Actions annotations.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--select", metavar="CODES", help="Only these codes, comma-separated (e.g. W101,E008).")
def lint(paths, fmt, strict, select):
    """Check rulesets without playing them: files, or folders searched for *.cgl.

    A card data YAML file stands for the rulesets that read it (`cards from "…"`, in its
    folder or the folders above it): they are linted.

    Reports syntax errors, unknown names (with did-you-mean), bad card data, wrong types,
    unused and unreachable code, triggers that can never fire, conditions no card meets,
    and more: every code is explained in docs/lint.md.

    Exit 0 when no errors are found (warnings allowed), 1 when errors are found (or
    warnings, with --strict), 2 when a path cannot be read.
    """
    from cgl.interpreter.base.codes import CODES
    from cgl.interpreter.base.diagnostics import render_github
    from cgl.interpreter.check.lint import collect_files, lint_file
    chosen = None
    if select:
        chosen = {s.strip().upper() for s in select.split(",") if s.strip()}
        unknown = sorted(chosen - set(CODES))
        if unknown:
            raise click.BadParameter(f"unknown code(s): {', '.join(unknown)}", param_hint="--select")
    try:
        files = collect_files(paths)
    except CglError as e:
        _report(e, EXIT_USAGE)
    if not files:
        if all(p.endswith((".yaml", ".yml")) and os.path.isfile(p) for p in paths):
            # (a pre-commit hook run on YAML files: scenarios, deck lists, data no ruleset reads)
            click.echo("No ruleset reads these YAML files: nothing to lint.")
            sys.exit(EXIT_OK)
        click.echo("No .cgl files found.", err=True)
        sys.exit(EXIT_USAGE)
    found = []
    for f in files:
        found += [d for d in lint_file(f) if chosen is None or d.code in chosen]
    errors = sum(1 for d in found if d.level == "error")
    warnings = len(found) - errors
    if fmt == "json":
        click.echo(json.dumps({"files": files, "errors": errors, "warnings": warnings,
                               "diagnostics": [d.to_json() for d in found]}, indent=2))
    elif fmt == "github":
        for d in found:
            click.echo(render_github(d))
    else:
        for d in found:
            click.echo(render_all([d], colour=use_colour(sys.stdout)))
        click.echo(f"{len(files)} file{'s' if len(files) != 1 else ''} checked: "
                   f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}")
    unreadable = any(d.code == "E002" for d in found)
    sys.exit(EXIT_USAGE if unreadable else EXIT_FAIL if errors or (strict and warnings) else EXIT_OK)


@main.command("fmt")
@click.argument("paths", nargs=-1, required=True)
@click.option("--check", is_flag=True, help="Change nothing; list the files that would change (exit 1 if any).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Change nothing; print what would change as a unified diff (exit 1 if anything would).")
def fmt_cmd(paths, check, show_diff):
    """Format .cgl files in the one house layout: files, or folders searched for *.cgl.

    Keeps your line breaks and every comment; sets indentation (two spaces a block,
    continuation lines keep their offset), spacing around operators and after commas,
    two spaces between statements sharing a line, and blank lines (at most one in a row,
    one around each top-level block that spans several lines). What a file means never
    changes: the result is parsed again and compared with the original before writing.
    Running it twice changes nothing the second time. `-` formats standard input to
    standard output.

    \b
    Examples:
      cgl fmt rulesets examples              rewrite the files in place
      cgl fmt --check rulesets examples      what CI runs: exit 1 if a file would change
      cgl fmt --diff rulesets/mgt.cgl        show the changes without making them

    Exit 0 when nothing is (or would be) changed or the files were rewritten, 1 with
    --check or --diff when a file would change, 2 when a file cannot be read or parsed.
    """
    from cgl.interpreter.tools.fmt import diff, format_text
    from cgl.interpreter.check.lint import collect_files
    if paths == ("-",):
        text = sys.stdin.read()
        try:
            new = format_text(text, "<stdin>")
        except CglError as e:
            _report(e, EXIT_USAGE)
        if show_diff:
            click.echo(diff(text, new, "<stdin>"), nl=False)
        else:
            click.echo(new, nl=False)
        sys.exit(EXIT_FAIL if (check or show_diff) and new != text else EXIT_OK)
    try:
        files = collect_files(paths)
    except CglError as e:
        _report(e, EXIT_USAGE)
    if not files:
        click.echo("No .cgl files found.", err=True)
        sys.exit(EXIT_USAGE)
    changed, broken = [], 0
    for f in files:
        try:
            text = read_text(f, "ruleset")   # (the reading layer: special files, size, encoding)
        except CglError as e:
            click.echo(render_all(e.diagnostics, colour=use_colour(sys.stderr)), err=True)
            broken += 1
            continue
        try:
            new = format_text(text, f)
        except CglError as e:
            click.echo(render_all(e.diagnostics, colour=use_colour(sys.stderr)), err=True)
            broken += 1
            continue
        if new == text:
            continue
        changed.append(f)
        if show_diff:
            click.echo(diff(text, new, f), nl=False)
        elif check:
            click.echo(f"Would reformat: {f}")
        else:
            try:
                write_text(f, new, "ruleset")   # (whole, or not at all)
            except CglError as e:
                click.echo(render_all(e.diagnostics, colour=use_colour(sys.stderr)), err=True)
                changed.pop()
                broken += 1
    n, unchanged = len(changed), len(files) - len(changed) - broken

    def plural(k):
        return "file" if k == 1 else "files"
    verb = "would be reformatted" if check or show_diff else "reformatted"
    summary = f"{n} {plural(n)} {verb}, {unchanged} {plural(unchanged)} left unchanged"
    if broken:
        summary += f", {broken} {plural(broken)} could not be formatted"
    click.echo(summary, err=True)
    sys.exit(EXIT_USAGE if broken else EXIT_FAIL if changed and (check or show_diff) else EXIT_OK)


@main.command()
@click.argument("name")
def new(name):
    """Start a new ruleset: write NAME/NAME.cgl, its card data and a scenario file.

    The game it holds is small and works: it lints, plays and its scenarios pass. It never
    overwrites a file (exit 2 when one is already there).

    \b
    Then:
      cgl lint NAME
      cgl run NAME/NAME.cgl --seed 1
      cgl test NAME/scenarios
    """
    from .new import NewError, write
    try:
        paths = write(name)
    except NewError as e:
        click.echo(f"cgl new: {e}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as e:
        click.echo(f"cgl new: cannot write in `{name}`: {e.strerror or e}", err=True)
        sys.exit(EXIT_USAGE)
    for p in paths:
        click.echo(f"wrote {p}")
    stem = os.path.basename(os.path.normpath(name))
    click.echo(f"Next: cgl lint {name}; cgl run {os.path.join(name, stem + '.cgl')} --seed 1; "
               f"cgl test {os.path.join(name, 'scenarios')} (docs/tutorial.md goes on from here)")


@main.command()
@click.argument("code")
def explain(code):
    """Explain a diagnostic CODE (E001, W101, …): what it means, a mistake and its fix.

    The same text as the code's section of docs/lint.md. Exit 2 for a code that does not exist.
    """
    from cgl.interpreter.base.codes import CODES, page
    key = code.strip().upper()
    if key not in CODES:
        def distance(a: str, b: str) -> int:   # edits from one code to the other (codes are short)
            row = list(range(len(b) + 1))
            for i, x in enumerate(a, 1):
                prev, row[0] = row[0], i
                for j, y in enumerate(b, 1):
                    prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
            return row[-1]
        best = min(CODES, key=lambda c: (distance(key, c), c))
        click.echo(f"cgl explain: there is no code `{code}`", err=True)
        if distance(key, best) <= 2:
            click.echo(f"  help: did you mean `{best}`?", err=True)
        click.echo("  help: the codes are " + ", ".join(sorted(CODES)) + " (see docs/lint.md)", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(page(key))


@main.group()
def deck():
    """Deck lists: the cards a player brings, for games that have deck-building rules."""


@deck.command("check")
@click.argument("deck_files", nargs=-1, required=True, type=click.Path())
@click.option("--ruleset", "-r", required=True, help="The ruleset whose deck-building rules apply.")
def deck_check(deck_files, ruleset):
    """Check DECK_FILES against the ruleset's deck-building rules (its `deck` block).

    Exit 0 when every deck is legal, 1 when one is not, 2 when a file cannot be read.
    """
    from cgl.interpreter.play.decks import check_deck, load_deck
    rs = _load(ruleset, {})
    if rs.deck is None:
        click.echo(f"{rs.title} has no deck-building rules (its ruleset has no `deck` block).", err=True)
        sys.exit(EXIT_USAGE)
    from cgl.interpreter.walker.engine import Engine
    engine = Engine(rs, rs.game.min_players, 0)  # only to evaluate the rules
    worst = EXIT_OK
    for f in deck_files:
        try:
            problems = check_deck(engine, load_deck(rs, f))
        except CglError as e:
            click.echo(render_all(e.diagnostics, colour=use_colour(sys.stdout)))
            worst = max(worst, EXIT_USAGE if any(d.code == "E002" for d in e.diagnostics) else EXIT_FAIL)
            continue
        if problems:
            click.echo(render_all(problems, colour=use_colour(sys.stdout)))
            click.echo(f"{f}: illegal ({len(problems)} problem{'s' if len(problems) != 1 else ''})")
            worst = max(worst, EXIT_FAIL)
        else:
            click.echo(f"{f}: legal")
    sys.exit(worst)


@main.command()
@click.argument("ruleset", required=False)
def info(ruleset):
    """Describe RULESET: players, options with defaults, zones, cards. Without one, list shipped rulesets."""
    if ruleset is None:
        click.echo("Shipped rulesets (use the name or the path):")
        for name, path in sorted(packaged_rulesets().items()):
            click.echo(f"  {name:<12} {path}")
        return
    rs = _load(ruleset, {})
    g = rs.game
    click.secho(f"{g.title} {g.version or ''}", bold=True)
    if g.about:
        click.echo(g.about)
    click.echo(f"Players: {g.min_players}" + (f" to {g.max_players}" if g.max_players != g.min_players else ""))
    click.echo(f"Cards: {len(rs.cards)}")
    if rs.options:
        click.echo("Options (set with -o name=value):")
        for o in rs.options.values():
            rng = f" ({o.lo}..{o.hi})" if o.lo is not None else ""
            click.echo(f"  {o.name} = {rs.option_values[o.name]}  [{o.type}{rng}]  {o.doc or ''}")
    def whose(z):
        return (("per card per player" if z.per_player else "per card") if z.per_card
                else "per player" if z.per_player else "shared")
    click.echo("Zones: " + ", ".join(f"{z.name} ({whose(z)}, {z.visibility})" for z in rs.zones.values()))
    from cgl.interpreter.codegen import compiled_for
    from cgl.interpreter.check.resolver import facts
    if _game_module.DEFAULT_ENGINE == "tree":
        click.echo("Engine: the tree walker (`--engine tree`)")
    elif compiled_for(rs) is not None:
        click.echo("Engine: compiled to Python (`cgl --engine tree …` runs the tree walker)")
    else:
        click.echo(f"Engine: tree walker ({facts(rs).compiled_why or 'not compiled'})")


@main.command()
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only transport; "
              "accepted because many editors pass it).")
def lsp(stdio):
    """Run the CGL language server (LSP) over stdin/stdout, for editors.

    An editor starts it and talks to it; you do not run it by hand. It gives the
    diagnostics of `cgl lint` as you type (for .cgl rulesets, their card YAML and scenario
    files), hover (cards, built-ins, declarations), go to definition, completion and the
    outline of a ruleset.

    \b
    To use it, tell the editor's LSP client to start the command `cgl lsp` for
    .cgl files (and, if you like, the card and scenario YAML files). Neovim 0.11+:
      vim.lsp.config('cgl', { cmd = { 'cgl', 'lsp' }, filetypes = { 'cgl' } })
      vim.lsp.enable('cgl')
    Helix (languages.toml):
      [language-server.cgl]
      command = "cgl"
      args = ["lsp"]
    See README.md, "Editor support".
    """
    try:
        import pygls  # noqa: F401  (a dependency of cgl; only this command loads it)
    except ImportError:
        click.echo("cgl lsp needs the pygls package: pip install 'pygls>=2.0'", err=True)
        sys.exit(EXIT_USAGE)
    from cgl.interpreter.tools.server import serve
    serve(_version())


from .analytics import compare, simulate  # noqa: E402
from .serve import serve  # noqa: E402
main.add_command(simulate)
main.add_command(compare)
main.add_command(serve)

if __name__ == "__main__":  # pragma: no cover
    main()
