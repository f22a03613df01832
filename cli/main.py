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

from cgl.interpreter import saves
from cgl.interpreter.diagnostics import CglError, render_all, use_colour
from cgl.interpreter.engine import AnswerError
from cgl.interpreter.game import Game, ScriptedAgent, make_agent, needs_worlds
from cgl.interpreter.loader import load, packaged_rulesets, resolve
from cgl.interpreter.protocol import DEFAULT_MAX_STEPS

from .human import HumanAgent, QuitGame
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
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except CglError as e:
            _report(e, EXIT_FAIL)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            sys.exit(130)
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
def main():
    """cgl, the card-game language: play, test and check card games written in CGL.

    \b
    Examples:
      cgl run mgt --players 4 --seed 1        play a bot game of a shipped ruleset
      cgl run rulesets/mgt.cgl --human 1      play seat 1 yourself
      cgl test tests/scenarios                run scenario files
      cgl lint rulesets                       check rulesets without playing
    """


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
        private = " (private)" if entry.get("to") is not None and kind != "decision" else ""
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
    hashes: Optional[dict] = None   # the files' hashes when the game began (for --save)


# what a save fixes: these options cannot be given with --resume
_FIXED_BY_SAVE = {"players": "--players", "seed": "--seed", "options": "--option", "deck_files": "--deck",
                  "agent": "--agent", "agent_list": "--agents"}


@main.command()
@click.argument("ruleset", required=False)
@click.option("--players", "-p", type=int, help="Number of players (default: the fewest the game allows).")
@click.option("--seed", "-s", type=int, help="Random seed; the same seed plays the same game (default: random, printed).")
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
    if save_path and table.hashes is None:
        table.hashes = saves.fingerprint(table.game)
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
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    try:
        game = Game(rs, players, seed, check_invariants=check, decks=decks, max_steps=max_steps)
    except CglError as e:
        _report(e, EXIT_USAGE)
    specs = agent_specs(agent, agent_list, game.players, "greedy")
    if needs_worlds([s for i, s in enumerate(specs) if i + 1 not in humans]):
        game = Game(rs, players, seed, check_invariants=check, decks=decks, forkable=True,   # search bots fork it
                    max_steps=max_steps)
    return _Table(ruleset, opts, specs, tuple(humans), game, _agents(specs, humans, seed))


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
        _write_log(log_path, rs, t.ruleset, t.options, game.seed, n, t.specs, t.humans, game)

    game.engine.listeners.append(show)
    if not quiet:
        title = (f"{rs.title} {rs.game.version or ''} · {n} players · seed {game.seed}"
                 + (f" · options {', '.join(f'{k}={v}' for k, v in t.options.items())}" if t.options else ""))
        click.secho(f"Resumed {title} at decision {len(game.answers) + 1} ({resumed_from})" if resumed_from
                    else title, bold=True)
    d = game.pending if resumed_from else game.start()
    try:
        while d is not None:
            a = t.agents[d.player].decide(d)
            try:
                d = game.answer(a)
            except AnswerError as e:
                if isinstance(t.agents[d.player], HumanAgent):
                    click.echo(f"That answer does not fit: {e}")
                    continue
                raise
    except QuitGame:
        click.echo("You left the game.")
        _save_on_quit(t, save_path, err=False)
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
        for entry in game.state.log[t.agents[watcher].seen:]:
            if not entry.get("hidden") and ("to" not in entry or watcher in entry["to"]):
                click.echo(f"  · {entry['text']}")
    res = game.result
    click.echo("")
    click.secho(res.summary(), bold=True)
    _print_scores(res)
    log()


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


def _print_scores(res):
    for i, pv in enumerate(res.players, 1):
        shown = {k: v for k, v in pv.items() if isinstance(v, (int, bool)) or isinstance(v, str)}
        if "points" in pv:
            shown = {"points": pv["points"], **shown}
        parts = ", ".join(f"{k} {v}" for k, v in shown.items())
        click.echo(f"  P{i}: {parts}")
    click.echo(f"  ({res.rounds} round{'s' if res.rounds != 1 else ''}, {res.turns} turns, {res.decisions} decisions)")


def _write_log(path, rs, ruleset, opts, seed, n, agent, humans, game):
    if not path:
        return
    header = {"type": "header", "cgl": _version(), "ruleset": ruleset, "ruleset_path": os.path.abspath(rs.path),
              "options": opts, "players": n, "seed": seed, "agents": agent, "humans": list(humans)}
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(header) + "\n")
            for entry in game.state.log:
                f.write(json.dumps(entry, default=str) + "\n")
            f.write(json.dumps({"type": "answers", "answers": game.answers, "result": {
                "winners": game.result.winners, "reason": game.result.reason}}) + "\n")
    except OSError as e:
        click.echo(f"cgl: cannot write the log `{path}`: {e.strerror}", err=True)
        sys.exit(EXIT_USAGE)


# ---------------------------------------------------------------- replay

@main.command()
@click.argument("log_file", type=click.Path(exists=True, dir_okay=False))
def replay(log_file):
    """Re-play a game from its --log file and check that it reproduces event for event."""
    lines = []
    with open(log_file, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError as e:
                click.echo(f"{log_file}:{n}:{e.colno}: E002 this line is not JSON: {e.msg}", err=True)
                sys.exit(EXIT_USAGE)
    if not lines or lines[0].get("type") != "header" or lines[-1].get("type") != "answers":
        click.echo(f"{log_file}: E002 not a cgl game log (it needs the header and answers lines `cgl run --log` writes)",
                   err=True)
        sys.exit(EXIT_USAGE)
    header, events, answers = lines[0], lines[1:-1], lines[-1]["answers"]
    ruleset = header["ruleset"] if os.path.exists(header["ruleset"]) else header.get("ruleset_path", header["ruleset"])
    rs = _load(ruleset, header.get("options") or {})
    game = Game(rs, header["players"], header["seed"])
    agent = ScriptedAgent(answers)
    d = game.start()
    try:
        while d is not None:
            d = game.answer(agent.decide(d))
    except AnswerError:
        pass
    got = [json.loads(json.dumps(e, default=str)) for e in game.state.log]
    for i, (a, b) in enumerate(zip(events, got)):
        if a != b:
            click.echo(f"Diverges at event {i + 1}:\n  log:    {a.get('text')}\n  replay: {b.get('text')}")
            sys.exit(EXIT_FAIL)
    if len(events) != len(got):
        click.echo(f"The log has {len(events)} events, the replay {len(got)}.")
        sys.exit(EXIT_FAIL)
    click.echo(f"Reproduced: {len(events)} events, {len(answers)} decisions, {game.result.summary()}")


# ---------------------------------------------------------------- test

@main.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--verbose", "-v", is_flag=True, help="Print every scenario, and the play of failed ones.")
@click.option("-k", "pattern", help="Run only scenarios whose name contains this text.")
@click.option("--max-steps", "max_steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              help="Each scenario game's budget of steps (statements run and turns played).")
def test_cmd(paths, verbose, pattern, max_steps):
    """Run the scenario files (YAML) under PATHS. Exit 1 if any fails."""
    from cgl.interpreter import scenario
    try:
        files = scenario.collect(paths)
    except CglError as e:
        _report(e, EXIT_USAGE)
    if not files:
        click.echo("No scenario files (*.yaml) found.", err=True)
        sys.exit(EXIT_USAGE)
    passed = failed = 0
    for f in files:
        try:
            items = scenario.read(f)
        except CglError as e:
            click.echo(render_all(e.diagnostics), err=True)
            failed += 1
            continue
        for item in items:
            if pattern and pattern not in str(item.get("scenario")):
                continue
            try:
                out = scenario.run(f, item, max_steps=max_steps)
            except CglError as e:
                click.echo(f"FAIL {item.get('scenario')}  ({f})")
                click.echo(render_all(e.diagnostics), err=True)
                failed += 1
                continue
            if out.passed:
                passed += 1
                if verbose:
                    click.echo(out.report())
            else:
                failed += 1
                click.echo(out.report())
                if verbose:
                    click.echo("\n".join("      | " + t for t in out.transcript))
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(EXIT_FAIL if failed else EXIT_OK)


# ---------------------------------------------------------------- lint and info

@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
              help="text for people, json for tools, github for GitHub Actions annotations.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--select", metavar="CODES", help="Only these codes, comma-separated (e.g. W101,E008).")
def lint(paths, fmt, strict, select):
    """Check rulesets without playing them: files, or folders searched for *.cgl.

    Reports syntax errors, unknown names (with did-you-mean), bad card data, wrong types,
    unused and unreachable code, triggers that can never fire, conditions no card meets,
    and more: every code is explained in docs/lint.md.

    Exit 0 when no errors are found (warnings allowed), 1 when errors are found (or
    warnings, with --strict), 2 when a path cannot be read.
    """
    from cgl.interpreter.codes import CODES
    from cgl.interpreter.diagnostics import render_github
    from cgl.interpreter.lint import collect_files, lint_file
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
    from cgl.interpreter.decks import check_deck, load_deck
    rs = _load(ruleset, {})
    if rs.deck is None:
        click.echo(f"{rs.title} has no deck-building rules (its ruleset has no `deck` block).", err=True)
        sys.exit(EXIT_USAGE)
    from cgl.interpreter.engine import Engine
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
    click.echo("Zones: " + ", ".join(f"{z.name} ({'per player' if z.per_player else 'shared'}, {z.visibility})"
                                      for z in rs.zones.values()))
    from cgl.interpreter.codegen import compiled_for
    from cgl.interpreter.resolver import facts
    if compiled_for(rs) is not None:
        click.echo("Engine: compiled to Python (CGL_ENGINE=tree runs the tree walker)")
    else:
        click.echo(f"Engine: tree walker ({facts(rs).compiled_why or 'not compiled'})")


from .analytics import compare, simulate  # noqa: E402
main.add_command(simulate)
main.add_command(compare)

if __name__ == "__main__":  # pragma: no cover
    main()
