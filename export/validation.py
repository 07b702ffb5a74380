"""Validation of the published units while the export writes (SPEC §10, §13).

Every distinct published unit is checked against the SPEC §5 invariants
(:func:`.conllu_units.unit_problems`), rendered (:func:`.conllu_units.render_units`) and re-parsed
with the CoNLL 2018 loader (:func:`.conllu_units.loader_problem`): :class:`UnitValidation` runs the
loader in worker processes while the files are written, and the export is swapped in only once
every unit passed. The rules, the renderer and the loader call live in :mod:`.conllu_units`; this
module only schedules them and names the first failing unit.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sphragis.workers import exit_with_parent

from .arrays import column, list_of
from .assembly import fetch_units
from .conllu_units import (
    Unit,
    UnitValidationError,
    loader_problem,
    render_units,
    tokens_array,
    unit_problems,
)

#: Units per document handed to the CoNLL 2018 loader at once (bounds its memory).
VALIDATION_BATCH = 2_500


class UnitValidation:
    """The SPEC §10 validation of published units, with the CoNLL 2018 loader in worker processes
    (SPEC §13).

    Creating it starts the worker processes (forked now, while the exporter is still small:
    a worker forked later would share, and be counted with, the memory of the units).
    :meth:`submit` renders the units (:func:`render_units`) ``batch`` at a time and hands the loader
    (``conllu_units.loader_problem``) each batch as one document as soon as it is rendered, so the
    loader (pure Python, the largest cost of an export) runs on every core while this process
    writes the Parquet files; the SPEC §5 invariants are checked column-wise
    (:func:`.conllu_units.unit_problems`) in a thread meanwhile. :meth:`result` collects both verdicts. Either
    failure names the unit, and the first failing unit wins
    as when the batches are checked one after the other: per batch in order, an invariant failure
    before a loader failure. Use as a context manager (the workers are stopped on exit).

    Args:
        batch: units per loader document (bounds a worker's memory).
        workers: loader processes (default ``os.cpu_count()``); with 1, or a single batch, the
            loader runs in this process when :meth:`result` is called.
    """

    def __init__(self, batch: int = VALIDATION_BATCH, workers: int | None = None):
        self.batch = batch
        self.workers = workers or os.cpu_count() or 1
        self.units: pa.Table | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list = []
        self._tasks: list[tuple[str, list[int]]] = []
        self._checks: ThreadPoolExecutor | None = None
        self._problems = None
        if self.workers > 1:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                             initializer=exit_with_parent, initargs=(os.getpid(),))
            self._pool.submit(int).result()  # forks every worker now

    def submit(self, units: pa.Table) -> UnitValidation:
        """Render ``units`` (columns ``row_id``, ``text``, ``tokens`` as :func:`fetch_units` returns
        them) and start the loader on them, batch by batch (a worker starts on the first batch while
        the next is rendered); then start the SPEC §5 checks (:func:`.conllu_units.unit_problems`) in a thread of
        this process. Returns self."""
        self.units = units
        n = units.num_rows
        self.bounds = [(start, min(start + self.batch, n)) for start in range(0, n, self.batch)]
        tokens = column(units, "tokens")
        parallel = self._pool is not None and len(self.bounds) > 1
        for start, stop in self.bounds:
            task = _loader_task(render_units(tokens.slice(start, stop - start)))
            if parallel:
                self._futures.append(self._pool.submit(loader_problem, *task))
            else:
                self._tasks.append(task)
        self._checks = ThreadPoolExecutor(max_workers=1)
        self._problems = self._checks.submit(unit_problems, units) if n else None
        return self

    def result(self) -> int:
        """Wait for the validation of the submitted units; returns how many.

        Raises:
            UnitValidationError: naming the first unit that fails (an invariant broken, or a
                loader error traced back to its unit by line number).
        """
        units = self.units
        problems = self._problems.result() if self._problems is not None else {}
        first_invalid = min(problems) if problems else None
        for k, (start, stop) in enumerate(self.bounds):
            if first_invalid is not None and first_invalid < stop:
                raise UnitValidationError(column(units, "row_id")[first_invalid].as_py(), problems[first_invalid])
            failed = self._futures[k].result() if self._futures else loader_problem(*self._tasks[k])
            if failed is not None:
                raise UnitValidationError(column(units, "row_id")[start + failed[0]].as_py(), failed[1])
        return units.num_rows

    def close(self) -> None:
        """Stop the worker processes (cancelling what has not started) and the checks' thread."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._checks is not None:
            self._checks.shutdown(wait=True)
            self._checks = None

    def __enter__(self) -> UnitValidation:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _loader_task(rendered: pa.StringArray) -> tuple[str, list[int]]:
    """The loader's arguments for a batch of rendered units: the units as one document and the
    1-based line on which each unit starts (a unit starts one line after its predecessors end)."""
    if not len(rendered):
        return "", []
    newlines = np.cumsum(pc.count_substring(rendered, "\n").to_numpy(zero_copy_only=False), dtype=np.int64)
    starts = np.concatenate([[0], newlines[:-1]]) + 1
    return pc.binary_join(list_of(pa.array([0, len(rendered)], pa.int32()), rendered), "")[0].as_py(), starts.tolist()


def validate_units_table(units: pa.Table, batch: int = VALIDATION_BATCH, workers: int | None = None) -> int:
    """Validate every unit of ``units`` (SPEC §10); returns how many.

    Each unit goes through the SPEC §5 invariants (against its ``text``;
    :func:`.conllu_units.unit_problems`), is rendered (:func:`render_units`) and the
    rendered documents are re-parsed, ``batch`` units at a time and in ``workers`` processes, with
    the CoNLL 2018 shared-task loader ``udtools.udeval.load_conllu`` (ten columns, integer ids from
    1, heads in range, exactly one root, no cycles, sentence termination). See
    :class:`UnitValidation`, which ``writer.export`` runs while it writes.

    Args:
        units: columns ``row_id``, ``text`` and ``tokens`` as :func:`fetch_units` returns them.

    Raises:
        UnitValidationError: naming the first unit that fails (a loader error is traced back to
            its unit by line number).
    """
    with UnitValidation(batch, workers if len(units) > batch else 1) as validation:
        return validation.submit(units).result()


def validate_published_units(con: duckdb.DuckDBPyConnection, units: pa.Table | None = None) -> int:
    """Render and re-parse every distinct published unit (SPEC §10); returns how many.

    Args:
        con: the warehouse.
        units: :func:`fetch_units` of ``con`` if already fetched.

    Raises:
        UnitValidationError: naming the first unit that fails.
    """
    return validate_units_table(fetch_units(con) if units is None else units)


def validate_units(units: Iterable[tuple[str, Unit, str]]) -> int:
    """Validate units given as Python lists: :func:`validate_units_table` of their table, in this
    process.

    Args:
        units: (unit_id, unit, text) triples; each unit one sentence (as every published unit).

    Returns:
        The number of units checked.

    Raises:
        UnitValidationError: naming the first unit that fails.
        ValueError: a unit that is not exactly one sentence.
    """
    triples = list(units)
    for unit_id, unit, _text in triples:
        if len(unit) != 1:
            raise ValueError(f"unit {unit_id}: {len(unit)} sentences; a published unit has one")
    table = pa.table({"row_id": pa.array([u for u, _x, _t in triples], pa.string()),
                      "text": pa.array([t for _u, _x, t in triples], pa.string()),
                      "tokens": tokens_array([x[0] for _u, x, _t in triples])})
    return validate_units_table(table, workers=1)
