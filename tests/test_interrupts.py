"""Ctrl-C at any moment of a `cgl` command ends it with one line and exit 130, never a
traceback (issue 34): while Python imports the command (the entry point, `cli/entry.py`,
catches it), while click reads the options, while it works, and as it shuts down."""
from __future__ import annotations

import contextlib
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# a batch that does not end by itself within the test
_ENDLESS = ["simulate", "examples/war.cgl", "-n", "1000000", "-w", "1", "-s", "1", "--agent", "random"]


def _script() -> list:
    """The `cgl` console script as an installer writes it, from pyproject's entry point."""
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["cgl"]
    module, func = entry.split(":")
    return [sys.executable, "-c", f"import sys\nfrom {module} import {func}\nsys.argv[0] = 'cgl'\n"
                                  f"sys.exit({func}())\n"]


def test_the_entry_point_is_light():
    """The console script's module imports nothing heavy before its `try`: a Ctrl-C while the
    command is imported must find it in place."""
    out = subprocess.run([sys.executable, "-c", "import sys\nbefore = set(sys.modules)\nimport cgl.cli.entry\n"
                          "print(' '.join(sorted(set(sys.modules) - before)))"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) <= {"cgl", "cgl.cli", "cgl.cli.entry", "cgl.cli.interrupt", "signal"}, out.stdout
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"] == {"cgl": "cgl.cli.entry:main"}


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def _endless(**kw):
    """`cgl` running a batch that does not end by itself, as started from a terminal: with
    Ctrl-C's default action (a background job of a shell without job control ignores SIGINT,
    and its children inherit that, so that started so the command would never see the test's
    Ctrl-C), and killed when the test is over, whatever it found."""
    p = subprocess.Popen(_script() + _ENDLESS, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, preexec_fn=_default_sigint, **kw)
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def _ended(p, shown):
    try:
        return p.communicate(timeout=60)[1]   # (a guard against a hang, not a timing)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"cgl still runs 60 s after Ctrl-C ({shown})")


def _last_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip() and not x.startswith("import time:")]
    return lines[-1] if lines else ""


# what has just been imported when the signal is sent: the entry point, click, lark, the
# engines, the whole command (then click reads the options and the batch begins)
_AFTER = ["cgl.cli.entry", "click", "lark", "cgl.interpreter.walker.engine", "cgl.cli.main"]


@pytest.mark.parametrize("after", _AFTER)
def test_ctrl_c_while_cgl_starts_is_one_line_and_exit_130(after):
    """(Ctrl-C while Python imported the command printed a KeyboardInterrupt traceback. Issue
    34.) The moment is found on the process's stderr: Python writes a line as each import
    ends (PYTHONPROFILEIMPORTTIME), and the line of `after` is the cue."""
    with _endless(env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}) as p:
        seen = []
        for line in p.stderr:
            seen.append(line)
            name = line.rstrip().split("|")[-1].strip() if line.startswith("import time:") else None
            if name == after:
                p.send_signal(signal.SIGINT)
                break
            if name == _AFTER[-1]:   # (the whole command imported, and no `after` on the way)
                p.kill()
                p.wait()
                raise AssertionError(f"`{after}` was not imported before the command:\n{''.join(seen[-20:])}")
        else:
            raise AssertionError(f"`{after}` was never imported:\n{''.join(seen[-20:])}")
        err = "".join(seen) + _ended(p, after)
        assert "Traceback" not in err and "Aborted" not in err, err[-3000:]
        assert p.returncode == 130, (p.returncode, err[-3000:])
        assert _last_line(err) == "interrupted" or _last_line(err).startswith("cgl: stopped (signal 2) after"), err[-3000:]


@pytest.mark.parametrize("delay", [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6])
def test_ctrl_c_at_any_moment_after_the_start(delay):
    """Ctrl-C sent at a moment counted from the start, as a person would: the command ends
    with one line and exit 130. Before any cgl code runs, a Ctrl-C is Python's, as for every
    Python program: before Python handles the signal the system ends the process without a
    word; while the interpreter starts (`site`) Python says "Fatal Python error"; while the
    console script imports the entry point (finding the `cgl` package) Python prints a
    KeyboardInterrupt traceback. The test accepts those only where no frame is cgl's."""
    with _endless() as p:
        time.sleep(delay)   # (when to press Ctrl-C; what the test asserts holds at any moment)
        p.send_signal(signal.SIGINT)
        try:
            err = p.communicate(timeout=30)[1]   # (a guard against a hang, not a timing)
        except subprocess.TimeoutExpired as e:
            # Python 3.11's `site` runs each `.pth` file's import line (an editable install's
            # finder) and reports any Exception there and goes on; a Ctrl-C inside a class's
            # `__set_name__` (functools) reaches it wrapped in a RuntimeError, so Python goes on as
            # if no key was pressed, before any line of cgl runs. A person presses Ctrl-C again.
            early = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            assert "Error processing line" in early and ".pth" in early, (f"cgl still runs 30 s after Ctrl-C "
                                                                           f"(after {delay} s)", early[-3000:])
            p.send_signal(signal.SIGINT)
            err = _ended(p, f"after {delay} s, and again").split("Remainder of file ignored")[-1]
        if p.returncode == 130:
            assert "Traceback" not in err, err[-3000:]
            assert _last_line(err) == "interrupted" or _last_line(err).startswith("cgl: stopped (signal 2) after"), err
        else:   # Python's own start-up, before the entry point's first line
            assert p.returncode in (-signal.SIGINT, 1), (p.returncode, err[-3000:])
            # no frame is cgl's: Python's own frames may name the venv, which CI makes inside the
            # checkout, and the import system's messages the checkout itself (a `KeyError` of the
            # path it was looking in: the directory is on `sys.path`), neither of them cgl's code
            frames = re.findall(r'File "([^"]+)"', err.replace(sys.prefix, "<venv>"))
            assert not any(str(ROOT) in f or "cgl/" in f.replace("__editable___cgl", "") for f in frames), err[-3000:]
            assert p.returncode == -signal.SIGINT or err.startswith("Fatal Python error: init_"), err[-3000:]


def test_ctrl_c_while_click_reads_the_options(monkeypatch, capsys):
    """(click calls a Ctrl-C while it parses the command line "Aborted!", exit 1.)"""
    import click
    from cgl.cli.main import main

    def interrupt(self, ctx, args):
        raise KeyboardInterrupt
    monkeypatch.setattr(click.Command, "parse_args", interrupt)
    with pytest.raises(SystemExit) as e:
        main(["lint", "examples/war.cgl"])
    assert e.value.code == 130 and capsys.readouterr().err == "\ninterrupted\n"


def test_ctrl_c_as_python_shuts_down_ends_the_process_by_the_signal():
    """After the command has ended, a Ctrl-C in an exit handler (a pool being joined) is no
    traceback: the process ends by the signal."""
    code = ("import atexit, os, signal, sys\n"
            "atexit.register(lambda: (sys.stderr.write('exiting\\n'), sys.stderr.flush(), "
            "os.kill(os.getpid(), signal.SIGINT), print('still here')))\n")
    python, flag, script = _script()
    out = subprocess.run([python, flag, code + script, "--version"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert "exiting" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert out.returncode == -signal.SIGINT and "still here" not in out.stdout, (out.returncode, out.stdout)


# ---------------------------------------------------------------- a batch stopped by a signal

class _Reads:
    """An engine whose expressions are interrupted: SIGTERM comes while one is worked out."""
    def ev(self, *args):
        signal.raise_signal(signal.SIGTERM)


@pytest.mark.parametrize("site", ["seat view", "terminal table"])
def test_a_stop_is_not_taken_for_an_error(site):
    """`Stopped`, a batch's SIGTERM or Ctrl-C, is not an Exception: the catch-alls of errors on
    its way must let it through. (A card variable's first value that reads the game is worked
    out under `except Exception` in the seat view and the terminal table: a stop there was
    taken for a value that cannot be shown, the batch went on, and the further signals were
    ignored. Issue 34.)"""
    import types
    from cgl.cli import table
    from cgl.interpreter.analytics import simulate as sim
    from cgl.interpreter.walker import seatview
    with pytest.raises(sim.Stopped):
        with sim._stopping([]):
            if site == "seat view":
                seatview.start_value(_Reads(), types.SimpleNamespace(init=None))
            else:
                table._default(_Reads(), types.SimpleNamespace(default=None))
    assert not issubclass(sim.Stopped, Exception) and issubclass(sim.Stopped, BaseException)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # (the lost one)
def test_a_stop_lost_on_its_way_still_stops_the_batch(monkeypatch):
    """Python runs a signal's handler wherever the main thread is: what the handler raises in
    an object's finaliser (or in C code that clears errors) is lost. The batch still stops
    once the game being played has finished, with the games that finished."""
    from cgl.interpreter.analytics import simulate as sim
    from cgl.interpreter.analytics.batchspec import BatchSpec
    real = sim.play_one

    class Lost:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)

    def play(rs, spec, index):
        if index == 2:
            Lost()
        return real(rs, spec, index)
    monkeypatch.setattr(sim, "play_one", play)
    spec = BatchSpec.make(str(ROOT / "examples" / "war.cgl"), {"battles": "5"}, 2, ["random"], 1)
    with pytest.raises(sim.Stopped) as e:
        sim.run_batch(spec, 6, workers=1)
    assert e.value.signum == signal.SIGTERM and [r["game"] for r in e.value.records] == [1, 2]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
