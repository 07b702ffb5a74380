"""The ``sphragis`` console script (``pyproject.toml``): Ctrl-C at any moment of a command prints
one line and exits with status 130 (SPEC §13), from the first statement of sphragis code run to
the interpreter's exit.

:func:`main` installs a SIGINT handler before anything heavy is imported (the command line's
imports take a good part of a second on a loaded machine, and Python's default handler would end
them in a ``KeyboardInterrupt`` traceback); :func:`sphragis.cli.main` puts Python's default back
once its own handling is in place, so that an interrupted build still runs its clean-up; once the
command has returned, a Ctrl-C during the interpreter's shutdown ends it at once.
"""

from __future__ import annotations

import os
import signal
import sys

#: The line Ctrl-C prints, whenever it comes.
INTERRUPTED = "sphragis: interrupted; previous outputs are untouched"
#: The exit status of an interrupted command (128 + SIGINT, as a shell reports it).
INTERRUPTED_STATUS = 130


def interrupted() -> int:
    """Print :data:`INTERRUPTED` to stderr and return :data:`INTERRUPTED_STATUS`."""
    print(INTERRUPTED, file=sys.stderr)
    return INTERRUPTED_STATUS


def take_interrupts() -> None:
    """From here on Ctrl-C raises ``KeyboardInterrupt`` (Python's default handler), when the console
    script's start handler is the one installed; a library call of :func:`sphragis.cli.main`
    (tests) keeps its process's handler."""
    if signal.getsignal(signal.SIGINT) is _during_start:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _during_start(_signum, _frame) -> None:
    raise SystemExit(interrupted())


def _during_exit(_signum, _frame) -> None:
    sys.stdout.flush()
    print(INTERRUPTED, file=sys.stderr, flush=True)
    os._exit(INTERRUPTED_STATUS)


def main(argv: list[str] | None = None) -> int:
    """Run the ``sphragis`` command line (:func:`sphragis.cli.main`); returns its exit status."""
    signal.signal(signal.SIGINT, _during_start)
    from .cli import main as cli_main

    status = cli_main(argv)
    signal.signal(signal.SIGINT, _during_exit)
    return status
