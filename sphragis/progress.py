"""Progress on long work (GUIDE: "a line per step in logs"): on a terminal, rich's progress bars;
when the output is a log file or a pipe, plain lines, each stamped with the time elapsed since the
command started (``[0:01:05] build: models``), so ``make export > log`` shows where it is.

* :func:`progress`: a task progress (ingest files, models) for a console: rich's
  :class:`~rich.progress.Progress` on a terminal (or with ``SPHRAGIS_PROGRESS=1``), else a
  :class:`LogProgress` that prints a line when a task starts, at every tenth of its total and when
  it ends.
* :class:`StepLog`: the ``on_step`` hook of the build, the export and the audit; prints one line
  per step when the console is not a terminal, nothing on a terminal (the bars say it there).
"""

from __future__ import annotations

import os
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

#: When this process started counting (its import, at the start of a command): the origin of
#: every stamp.
START = time.monotonic()

#: Lines a :class:`LogProgress` task prints between its start and its end: one per tenth.
LOG_STEPS = 10


def stamp(now: float | None = None) -> str:
    """``[h:mm:ss]``: the time since :data:`START` (``now``: a ``time.monotonic()`` value)."""
    secs = int((time.monotonic() if now is None else now) - START)
    return f"[{secs // 3600}:{secs // 60 % 60:02d}:{secs % 60:02d}]"


def to_log(con: Console) -> bool:
    """Whether ``con`` writes to a log (not a terminal) and ``SPHRAGIS_PROGRESS=1`` does not ask for the bars."""
    return not con.is_terminal and os.environ.get("SPHRAGIS_PROGRESS") != "1"


class LogProgress:
    """The part of :class:`rich.progress.Progress` the build uses (``add_task``, ``advance``,
    ``update``, a context manager), written as lines to a console that is not a terminal: a task's
    first line when it is added, one at every tenth of its total (:data:`LOG_STEPS`) and one when it
    completes (or, short of its total, when the progress ends), each ``[elapsed] description:
    done/total``."""

    def __init__(self, con: Console) -> None:
        self.con = con
        self.tasks: dict[int, dict[str, Any]] = {}

    def __enter__(self) -> LogProgress:
        return self

    def __exit__(self, *exc) -> None:
        # a task that stops short of its total (models reused, an error) still ends with its state
        for task, t in self.tasks.items():
            if t["shown"] != (t["done"], t["description"]):
                self._print(task)

    def add_task(self, description: str, total: int | None = None) -> int:
        """Start a task of ``total`` steps; returns its id. Prints its first line."""
        task = len(self.tasks)
        self.tasks[task] = {"description": description, "total": total or 0, "done": 0, "printed": 0, "shown": None}
        self._print(task)
        return task

    def advance(self, task: int, advance: int = 1) -> None:
        """``advance`` more steps of ``task`` done."""
        self.update(task, advance=advance)

    def update(self, task: int, *, advance: int = 0, description: str | None = None) -> None:
        """``advance`` more steps of ``task`` done, its description now ``description``; prints a
        line when the task crosses a tenth of its total or completes."""
        t = self.tasks[task]
        t["done"] += advance
        if description is not None:
            t["description"] = description
        tenth = t["done"] * LOG_STEPS // t["total"] if t["total"] else 0
        if tenth > t["printed"]:
            t["printed"] = tenth
            self._print(task)

    def _print(self, task: int) -> None:
        t = self.tasks[task]
        t["shown"] = (t["done"], t["description"])
        self.con.print(f"{stamp()} {t['description']}: {t['done']:,}/{t['total']:,}", markup=False, highlight=False)


def progress(con: Console) -> Progress | LogProgress:
    """A task progress on ``con``: rich's bars on a terminal (or with ``SPHRAGIS_PROGRESS=1``),
    else a :class:`LogProgress` (lines for a log)."""
    if to_log(con):
        return LogProgress(con)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=con, transient=False)


class StepLog:
    """An ``on_step`` hook: called with the name of each step as it starts, it prints
    ``[elapsed] <prefix><name>`` when ``con`` is not a terminal (nothing on a terminal), then calls
    ``then`` (another hook, e.g. a benchmark's sampler) if given."""

    def __init__(self, con: Console, prefix: str = "", then=None) -> None:
        self.con, self.prefix, self.then = con, prefix, then
        self.enabled = to_log(con)

    def __call__(self, name: str) -> None:
        if self.enabled:
            self.con.print(f"{stamp()} {self.prefix}{name}", markup=False, highlight=False)
        if self.then is not None:
            self.then(name)
