"""`cgl simulate` and `cgl compare`: thin commands over :mod:`cgl.interpreter.analytics.simulate`.

Exit codes as for every cgl command: 0 ok, 1 some simulated game stopped with an error
(the report is still printed, and names the game and its seed), 2 a usage or ruleset error.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import random
import signal
import sys
import time
from typing import Optional

import click

from cgl.interpreter.analytics import simulate as sim
from cgl.interpreter.analytics import skill as skill_mod
from cgl.interpreter.base.diagnostics import CglError, did_you_mean, render_all, use_colour
from cgl.interpreter.base.files import check_target, write_text
from cgl.interpreter.play import game as game_module
from cgl.interpreter.play.game import Game
from cgl.interpreter.check.loader import load, option_text, resolve, ruleset_files
from cgl.interpreter.base.protocol import DEFAULT_MAX_STEPS

from .options import AGENT_METAVAR, agent_specs, agents_help, check_agent, check_skill

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
DASK_HINT = 'pip install "cgl[dask]"'


def _fail(message: str, code: int = EXIT_USAGE):
    click.echo(f"cgl: {message}", err=True)
    sys.exit(code)


def _report_error(err: CglError, code: int = EXIT_USAGE):
    click.echo(render_all(err.diagnostics, colour=use_colour(sys.stderr)), err=True)
    sys.exit(code)


def _parse_options(pairs, hint: str) -> dict:
    out = {}
    for raw in pairs:
        key, sep, value = raw.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"`{raw}` is not key=value (for example: {hint} rounds=4)", param_hint=hint)
        out[key.strip()] = value
    return out


DEFAULT_AGENT = "greedy"


def _agents(agent: Optional[str], agents_csv: Optional[str], skill: Optional[tuple], players: int) -> tuple:
    """(the agent spec of each seat, whether the lineup rotates)."""
    if agent and agents_csv:
        raise click.BadParameter("give --agent (every seat) or --agents (one per seat), not both",
                                 param_hint="--agents")
    if skill:
        if agent or agents_csv:
            raise click.BadParameter(f"--skill A,B sets every seat (A at one, B at the others), so it does not go "
                                     f"with {'--agent' if agent else '--agents'}", param_hint="--skill")
        if players < 2:
            raise click.BadParameter("a skill tournament needs at least 2 players", param_hint="--skill")
        a, b = skill
        return [a] + [b] * (players - 1), True
    return agent_specs(agent, agents_csv, players, DEFAULT_AGENT), False


def _unset_defaults_that_differ(rs_a, rs_b, given: set) -> list:
    """(name, A's value, B's value) of each option both rulesets declare, that nobody set
    and whose defaults differ: `cgl compare` would measure the defaults, not the rules."""
    both = [k for k in rs_a.option_values if k in rs_b.option_values and k not in given]
    return [(k, rs_a.option_values[k], rs_b.option_values[k]) for k in both
            if rs_a.option_values[k] != rs_b.option_values[k]]


def _prepare(ruleset: str, opts: dict, players: Optional[int], agent, agents_csv, seed: int, score: Optional[str],
             skill: Optional[tuple] = None, direction: Optional[str] = None):
    """Load and check everything before playing: (ruleset, spec). Exits 2 on a bad input."""
    try:
        found = resolve(ruleset)
        rs = load(found, opts)           # as the user named it, so messages show their path
        game = Game(rs, players, 0)      # checks the player count, with the ruleset's own message
    except CglError as e:
        _report_error(e)
    n = game.players
    lineup, rotate = _agents(agent, agents_csv, skill, n)
    if score is None:
        score = sim.default_score(rs)
        if score is None and direction == "low":
            names = ", ".join(rs.player_vars()) or "none"
            raise click.BadParameter(f"there is no score to follow: this ruleset declares none (`var … per player = "
                                     f"0 as score`) and has no `points`; name one of its player variables with "
                                     f"--score ({names})", param_hint="--score-direction")
    elif score not in rs.player_vars():
        hint = did_you_mean(score, rs.player_vars()) or (
            "its player variables: " + ", ".join(rs.player_vars()) if rs.player_vars() else "it has none")
        raise click.BadParameter(f"`{score}` is not a player variable of this ruleset ({hint})", param_hint="--score")
    if direction is None:   # the way the ruleset's declared score leads, for that score
        direction = sim.default_direction(rs) if score == sim.default_score(rs) else "high"
    # workers (other processes, or a Dask cluster) load the ruleset themselves: an absolute path
    spec = sim.BatchSpec.make(os.path.abspath(found), opts, n, lineup, seed, score, rotate, direction)
    # the engine `cgl --engine` chose: a worker elsewhere (Dask) plays on it too
    spec = dataclasses.replace(spec, engine=game_module.DEFAULT_ENGINE)
    sim.remember_ruleset(spec, rs)
    return rs, spec


def _check_dask(address: Optional[str]):
    if address is None:
        return
    try:
        import distributed  # noqa: F401
    except ImportError:
        _fail(f"--dask runs the games on a Dask cluster, and dask.distributed is not installed; "
              f"it is an optional extra: {DASK_HINT}")


class _Progress:
    """A text progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, label: str = ""):
        self.enabled = sys.stderr.isatty()
        self.label = label
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int):
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        width = 30
        fill = int(width * done / total) if total else width
        spent = now - self.start
        left = spent / done * (total - done) if done else 0
        sys.stderr.write(f"\r{self.label}[{'#' * fill}{'.' * (width - fill)}] {done}/{total} games, "
                         f"{spent:.0f} s, ~{left:.0f} s left ")
        sys.stderr.flush()

    def close(self, games: int, where: str):
        if self.enabled:
            sys.stderr.write(f"\r\x1b[K{self.label}{games} games in {time.monotonic() - self.start:.1f} s ({where})\n")
            sys.stderr.flush()


#: The most games one batch plays (`-n`): about a day of MGT on 16 cores.
MAX_GAMES = 10_000_000


def _workers(workers: Optional[int], oversubscribe: bool) -> Optional[int]:
    """`-w`, at most one per core unless `--oversubscribe` (more only slows a batch down)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if workers is not None and workers > cores and not oversubscribe:
        click.echo(f"cgl: -w {workers}: this machine gives cgl {cores} core{'s' if cores != 1 else ''}; playing on "
                   f"{cores} workers (--oversubscribe to start {workers})", err=True)
        return cores
    return workers


def _play(spec, games, workers, dask, label="", on_stop=None):
    """The records of the batch; stopped by a signal, `on_stop(records)` keeps what finished
    (it returns what it did, for the message) and cgl exits 128 + the signal's number."""
    bar = _Progress(label)
    try:
        records = sim.run_batch(spec, games, workers=workers, progress=bar, dask=dask)
    except sim.Stopped as e:
        bar.close(len(e.records), "stopped")
        kept = ""
        if on_stop is not None:
            # (another signal now would leave a temporary file behind: they wait until it is written)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
            kept = on_stop(sorted(e.records, key=lambda r: r["game"]))
        click.echo(f"cgl: stopped (signal {e.signum}) after {len(e.records)} of {games} games; every worker "
                   f"stopped with it{kept}", err=True)
        sys.exit(128 + e.signum)
    except OSError as e:   # (a process limit: workers cannot start)
        _fail(f"cannot run the batch: {e.strerror or e}" + (f"; if the system refused {workers} worker processes, "
                                                             "try fewer with -w" if workers else ""))
    except sim.DaskUnavailable:
        _fail(f"--dask needs dask.distributed, which is not installed; it is an optional extra: {DASK_HINT}")
    except sim.ClusterError as e:
        _fail(str(e))
    where = f"Dask cluster {dask}" if dask else f"{max(1, min(workers or os.cpu_count() or 1, games))} workers"
    bar.close(games, where)
    return records


def _check_trace(ctx, param, value: Optional[str]):
    """Click callback of `--skill-trace NAME:LO..HI`: (agent name, the agent specs of each budget)."""
    if value is None:
        return None
    try:
        return skill_mod.trace_budgets(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param=param)


def _trace(spec, trace, games, workers, dask, side: str = ""):
    """Play the skill trace `trace` (from `_check_trace`) on the ruleset of `spec`: one
    seat-rotated batch per budget step, on the batch's seeds; its summary (None without a trace)."""
    if not trace:
        return None
    agent, specs = trace
    steps = []
    for strong, weak in zip(specs[1:], specs[:-1]):
        step = skill_mod.trace_spec(spec, strong, weak)
        steps.append((step, _play(step, games, workers, dask, f"{side}trace {strong} vs {weak} ")))
    return skill_mod.skill_trace(agent, specs, steps)


def _common(f):
    """The options simulate and compare share."""
    for deco in reversed([
        click.option("-n", "--games", "games", type=click.IntRange(min=1, max=MAX_GAMES), required=True,
                     help=f"Number of games to play (at most {MAX_GAMES:,})."),
        click.option("--players", "-p", type=int, help="Number of players (default: the fewest the game allows)."),
        click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                     help="Set a ruleset option, e.g. -o rounds=4 (repeatable)."),
        click.option("--agent", metavar=AGENT_METAVAR, default=None, callback=check_agent,
                     help=f"The bot at every seat (default: {DEFAULT_AGENT}). {agents_help()}."),
        click.option("--agents", "agents_csv", metavar="A,B,…",
                     help="One bot per seat, e.g. --agents greedy,random."),
        click.option("--skill", metavar="A,B", callback=check_skill,
                     help="A seat-rotated tournament: bot A at one seat, bot B at every other; in game i A sits at "
                          "seat ((i-1) mod players)+1. Reports A's skill gap (its win rate beyond the fair share "
                          "1/players, with a 95% interval and a test). E.g. --skill greedy,random. Not with "
                          "--agent/--agents."),
        click.option("--skill-trace", "trace", metavar="NAME:LO..HI", callback=_check_trace,
                     help="A skill trace: the bot NAME with each budget LO, 2·LO, … HI against the previous budget, "
                          "seat-rotated (--trace-games games a step), e.g. --skill-trace mcts:25..400. Win rates with "
                          "95% intervals, p corrected by Holm over the steps; a curve in --report."),
        click.option("--trace-games", "trace_games", type=click.IntRange(min=1, max=MAX_GAMES),
                     help="Games per step of --skill-trace (default: -n)."),
        click.option("--seed", "-s", type=int,
                     help="Seed of the batch: game i plays with a seed derived from (seed, i) "
                          "(default: random, printed)."),
        click.option("--workers", "-w", type=click.IntRange(min=1),
                     help="Local worker processes (default: one per core; more than the cores only with "
                          "--oversubscribe). The results do not depend on it. SIGTERM or Ctrl-C stops every worker."),
        click.option("--oversubscribe", is_flag=True, help="Allow -w above the number of cores."),
        click.option("--score", metavar="VAR", help="Player variable whose leader is followed for lead changes, "
                                                    "decisiveness and drama (default: the one the ruleset declares "
                                                    "`as score`, else `points` if it has it)."),
        click.option("--score-direction", "direction", type=click.Choice(["high", "low"]),
                     help="Which scores are better: high, or low (the lowest score leads). Default: as the ruleset "
                          "declares its score (`as low score`: low), else high."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every metric."),
        click.option("--dask", "dask", metavar="ADDRESS",
                     help='Run the games on the Dask cluster at ADDRESS (needs pip install "cgl[dask]").'),
    ]):
        f = deco(f)
    return f


# ---------------------------------------------------------------- simulate

@click.command()
@click.argument("ruleset")
@_common
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False),
              help="Write one row per game to this CSV file (stopped by SIGTERM or Ctrl-C: the games that finished).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help='Write a self-contained HTML report with plots (needs pip install "cgl[plot]").')
@click.option("--max-steps", "max_steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              help="Each game's budget of steps (statements run and turns played): past it the game stops "
                   "with E011.")
def simulate(ruleset, games, players, options, agent, agents_csv, skill, trace, trace_games, seed, workers,
             oversubscribe, score, direction, as_json, dask, csv_path, report_path, max_steps):
    """Play N bot games of RULESET and report what happened.

    Win rates by seat (with 95% intervals and a test of the first-seat advantage), game
    length, how games end, scores, lead changes, decisiveness and drama, decisions and
    options per decision, and every trigger, reaction, rule, action, event and card that
    never fired. The bots are greedy unless told otherwise; with --skill A,B, the skill gap.

    \b
    Examples:
      cgl simulate rulesets/mgt.cgl -n 200 --players 4 --seed 1
      cgl simulate mgt -n 1000 -p 4 -s 1 --json > mgt.json
      cgl simulate mgt -n 500 -p 3 --agents greedy,random,random --report mgt.html
      cgl simulate mgt -n 200 -p 2 --skill greedy,random
      cgl simulate monkic -n 200 -p 2 --skill-trace mcts:25..400 --trace-games 40 --report monkic.html
    """
    opts = _parse_options(options, "--option")
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    rs, spec = _prepare(ruleset, opts, players, agent, agents_csv, seed, score, skill, direction)
    spec = dataclasses.replace(spec, max_steps=max_steps)
    if report_path:
        from cgl.interpreter.analytics import report
        try:
            report.require_matplotlib()
        except report.PlotUnavailable as e:
            _fail(str(e))
    _check_dask(dask)
    # check the output files before playing, so a bad path fails at once, not after the games;
    # each is written whole at the end (a failed run leaves the old file as it was; a run stopped by
    # SIGTERM or SIGINT writes the CSV of the games that finished)
    inputs = ruleset_files(rs)   # (no file the ruleset is made of is ever overwritten by an output)
    for path, kind in ((csv_path, "CSV file"), (report_path, "report")):
        if path:
            _check_output(path, kind, inputs)

    def write_csv(records) -> str:
        if csv_path:
            try:
                _write_csv(csv_path, records, spec, inputs)
            except CglError as e:
                return f"; {e.diagnostics[0].message}"
            return f"; the {len(records)} finished games are in {csv_path}"
        return ""
    workers = _workers(workers, oversubscribe)
    records = _play(spec, games, workers, dask, on_stop=write_csv)
    summary = sim.summarize(rs, spec, records, ruleset)
    summary["skill_trace"] = _trace(spec, trace, trace_games or games, workers, dask)
    text = sim.format_summary(summary)
    if as_json:
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        click.echo(text)
    try:
        if csv_path:
            _write_csv(csv_path, records, spec, inputs)
        if report_path:
            from cgl.interpreter.analytics import report
            write_text(report_path, report.render_html(summary, text), "report", inputs)
    except CglError as e:
        _fail(e.diagnostics[0].message)
    sys.exit(EXIT_FAIL if summary["failed"] else EXIT_OK)


def _write_csv(path: str, records: list, spec, inputs) -> None:
    """One row per game of `records` (whole: written to a temporary file, then renamed)."""
    header, rows = sim.csv_rows(records, spec.players, spec)
    out = io.StringIO(newline="")
    w = csv.writer(out)
    w.writerow(header)
    w.writerows(rows)
    write_text(path, out.getvalue(), "CSV file", inputs, newline="")


def _check_output(path: str, kind: str, inputs) -> None:
    """An output file cgl may write (`files.check_target`), or the command stops here."""
    try:
        check_target(path, kind, inputs)
    except CglError as e:
        _fail(e.diagnostics[0].message)


# ---------------------------------------------------------------- compare

@click.command()
@click.argument("ruleset_a")
@click.argument("ruleset_b", required=False)
@_common
@click.option("--a-option", "a_options", multiple=True, metavar="KEY=VALUE", help="An option for A only.")
@click.option("--b-option", "b_options", multiple=True, metavar="KEY=VALUE", help="An option for B only.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help='Write a self-contained HTML report with plots: the verdict, the differences with their '
                   'intervals, each figure side by side (needs pip install "cgl[plot]").')
def compare(ruleset_a, ruleset_b, games, players, options, agent, agents_csv, skill, trace, trace_games, seed,
            workers, oversubscribe, score, direction, as_json, dask, a_options, b_options, report_path):
    """Play N games of two rulesets (or one with two option sets) on the same seeds,
    and show every metric side by side with the difference B − A, its 95% interval
    and whether it is significant. With --skill A,B: the skill gap of each version, and
    whether skill matters more in one of them.

    \b
    Examples:
      cgl compare rulesets/mgt-v0.1.cgl rulesets/mgt.cgl -n 2000 --players 4 -o rounds=3
      cgl compare mgt -n 500 -p 4 --a-option rounds=3 --b-option rounds=4
      cgl compare rulesets/mgt-v0.1.cgl rulesets/mgt.cgl -n 400 -p 2 --skill greedy,random
      cgl compare rulesets/mgt-v0.1.cgl rulesets/mgt.cgl -n 1000 -p 4 --report mgt-compare.html

    -o sets an option for both A and B; --a-option and --b-option for one side
    only (they win over -o). Where the two rulesets give one option different
    defaults and nothing sets it (v0.1 of MGT plays 1 round, v0.2 3), a note on
    stderr says so: set it for both to compare like with like.
    """
    common = _parse_options(options, "--option")
    opts_a = {**common, **_parse_options(a_options, "--a-option")}
    opts_b = {**common, **_parse_options(b_options, "--b-option")}
    ruleset_b = ruleset_b or ruleset_a
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    rs_a, spec_a = _prepare(ruleset_a, opts_a, players, agent, agents_csv, seed, score, skill, direction)
    rs_b, spec_b = _prepare(ruleset_b, opts_b, players, agent, agents_csv, seed, score, skill, direction)
    for name, a_value, b_value in _unset_defaults_that_differ(rs_a, rs_b, set(opts_a) | set(opts_b)):
        click.echo(f"note: option `{name}` is {option_text(a_value)} in A and {option_text(b_value)} in B (their "
                   f"defaults): -o {name}=VALUE compares like with like", err=True)
    if report_path:
        from cgl.interpreter.analytics import report
        try:
            report.require_matplotlib()
        except report.PlotUnavailable as e:
            _fail(str(e))
    _check_dask(dask)
    inputs = [rs_a.path, rs_b.path]
    if report_path:
        _check_output(report_path, "report", inputs)
    workers = _workers(workers, oversubscribe)
    rec_a = _play(spec_a, games, workers, dask, "A ")
    rec_b = _play(spec_b, games, workers, dask, "B ")
    sa = sim.summarize(rs_a, spec_a, rec_a, ruleset_a)
    sb = sim.summarize(rs_b, spec_b, rec_b, ruleset_b)
    sa["skill_trace"] = _trace(spec_a, trace, trace_games or games, workers, dask, "A ")
    sb["skill_trace"] = _trace(spec_b, trace, trace_games or games, workers, dask, "B ")
    result = sim.compare(sa, rec_a, sb, rec_b)
    text = sim.format_compare(result)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        click.echo(text)
    if report_path:
        from cgl.interpreter.analytics import compare_report
        try:
            write_text(report_path, compare_report.render_compare_html(result, text), "report", inputs)
        except CglError as e:
            _fail(e.diagnostics[0].message)
    sys.exit(EXIT_FAIL if sa["failed"] or sb["failed"] else EXIT_OK)
