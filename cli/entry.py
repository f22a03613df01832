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
import signal
import sys

from .interrupt import interrupted, interrupted_at_once

# From here until `main` has imported the command, wherever Python is in the meantime. (Not
# where Ctrl-C is ignored, as for a job a script starts in the background: it stays so.)
_PYTHONS = signal.getsignal(signal.SIGINT)
if _PYTHONS is signal.default_int_handler:
    signal.signal(signal.SIGINT, interrupted_at_once)


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
