"""The ``sphragis`` console script (``pyproject.toml``): the command line of :mod:`sphragis.cli`,
with Ctrl-C handled from its first statement to the interpreter's exit (:mod:`sphragis.interrupts`)."""

from __future__ import annotations

from . import interrupts


def main(argv: list[str] | None = None) -> int:
    """Run the ``sphragis`` command line (:func:`sphragis.cli.main`); returns its exit status."""
    interrupts.hold()
    from .cli import main as cli_main

    status = cli_main(argv)
    interrupts.end_at_once()
    return status
