"""Ctrl-C in the ``sphragis`` command line (SPEC §13): one line, exit status 130, at any moment.

The console script (:func:`sphragis.entry.main`) calls :func:`hold` before it imports the command
line (those imports take a good part of a second on a loaded machine, and Python's default handler
would end them in a ``KeyboardInterrupt`` traceback); :func:`sphragis.cli.main` calls
:func:`take_interrupts` once its own handling is in place, so that an interrupted build still runs
its clean-up; :func:`end_at_once` covers the interpreter's exit after the command has returned.
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


def hold() -> None:
    """Until :func:`take_interrupts`: Ctrl-C prints :data:`INTERRUPTED` and exits (``SystemExit``)."""
    signal.signal(signal.SIGINT, _during_start)


def take_interrupts() -> None:
    """From here on Ctrl-C raises ``KeyboardInterrupt`` (Python's default handler), when :func:`hold`
    installed its handler; a library call of :func:`sphragis.cli.main` (tests) keeps its process's."""
    if signal.getsignal(signal.SIGINT) is _during_start:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def end_at_once() -> None:
    """After the command has returned: a Ctrl-C during the interpreter's exit (its clean-up
    handlers) prints :data:`INTERRUPTED` and ends the process at once."""
    signal.signal(signal.SIGINT, _during_exit)


def _during_start(_signum, _frame) -> None:
    raise SystemExit(interrupted())


def _during_exit(_signum, _frame) -> None:
    sys.stdout.flush()
    print(INTERRUPTED, file=sys.stderr, flush=True)
    os._exit(INTERRUPTED_STATUS)
