"""What Ctrl-C does where no part of the command asks first: one line and exit 130. Light
(the standard library's `os`, `signal` and `sys` only): the entry point uses it before the
command is imported."""
import os
import signal
import sys

EXIT_INTERRUPTED = 130   # 128 + SIGINT, as a shell reports a program Ctrl-C stopped
MESSAGE = "\ninterrupted\n"


def interrupted():
    """Say so on one line and exit 130 (SystemExit: what is open is closed on the way out). A
    second Ctrl-C meanwhile ends the process by the signal, without a word."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        sys.stderr.write(MESSAGE)
        sys.stderr.flush()
    except (OSError, ValueError):   # (no stderr to say it on)
        pass
    sys.exit(EXIT_INTERRUPTED)


def interrupted_at_once(signum=None, frame=None):
    """The same as a signal handler while nothing is open yet (the command being imported):
    the process ends here. (An exception raised by a handler can be lost: Python runs it
    wherever it is, and one run inside the compiler, for a module imported from source,
    vanished and the start-up went on.)"""
    try:
        os.write(2, MESSAGE.encode())
    except OSError:
        pass
    os._exit(EXIT_INTERRUPTED)
