"""What Ctrl-C does where no part of the command asks first: one line and exit 130 (the
entry point says the same while the command is being imported, `entry._at_once`). Light:
the standard library's `signal` and `sys` only."""
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

