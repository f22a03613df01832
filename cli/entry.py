"""The `cgl` command's entry point (`[project.scripts]` in pyproject.toml), kept light.

The command's own modules (click, lark, the engines) take most of a second to import, and
Python turns a Ctrl-C meanwhile into a KeyboardInterrupt traceback. This module's first
act is to take Ctrl-C itself, until the command is imported and can take it (as
KeyboardInterrupt: a person's seat asks before it quits, a batch keeps what finished); so a
Ctrl-C while cgl starts ends as one does anywhere else in the command: `interrupted` on
stderr and exit 130 (128 + SIGINT). Once the command has ended, a Ctrl-C during Python's
shut-down ends the process by the signal itself (the shell reports 130 too), never with a
traceback from an exit handler.

What runs before this module is Python's own start-up (the interpreter and `site`, tens
of milliseconds): a Ctrl-C there is Python's, as for any Python program.
"""
import _signal   # (what `signal` wraps, loaded with Python: taken at once, before `signal` builds its enums)
import os
import sys


def _at_once(signum, frame):
    """Ctrl-C while nothing is open yet (the command being imported): `interrupted` and exit
    130 here and now. (An exception raised by a handler can be lost: Python runs it wherever
    it is, and one run inside the compiler, for a module imported from source, vanished and
    the start-up went on.) The words are `interrupt.MESSAGE`'s."""
    try:
        os.write(2, b"\ninterrupted\n")
    except OSError:
        pass
    os._exit(130)


# From here until `main` has imported the command, wherever Python is in the meantime. (Not
# where Ctrl-C is ignored, as for a job a script starts in the background: it stays so.)
_PYTHONS = _signal.getsignal(_signal.SIGINT)
if _PYTHONS is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _at_once)

import signal  # noqa: E402

from .interrupt import interrupted  # noqa: E402


def main():
    try:
        from cgl.cli.main import main as command   # (the heavy part of the start-up)
        signal.signal(signal.SIGINT, _PYTHONS)
        return command()
    except KeyboardInterrupt:   # one the command did not take (while click set out to read the options)
        interrupted()
    finally:
        if _PYTHONS is signal.default_int_handler:   # Python's shut-down: a Ctrl-C ends it by the signal
            signal.signal(signal.SIGINT, signal.SIG_DFL)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
