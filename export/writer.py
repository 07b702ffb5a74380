"""Write the Sphragis benchmark from the warehouse (SPEC §9, §10).

Layout of ``SPHRAGIS_OUT`` (default ``dist/sphragis``)::

    README.md                       dataset card (export/card.py, rendered from the files below;
                                    ``sphragis audit`` re-renders it with the leaderboard); its
                                    ``configs:`` YAML lets ``datasets.load_dataset(<out>, "sentence_10")`` work offline
    LICENSES.md                     per-source license, attribution, NC/SA implications
    data/<config>/<split>-00000-of-00001.parquet
    metadata/dataset_variants.json  every config: authors, rows per split, chunk ids, exclusions
    metadata/build_report.json      SPEC §6–§8 counts, repairs, rejects, held-out choices
    metadata/source_revisions.json  pinned snapshots and the files read from each
    metadata/leakage_report.json    SPEC §11 (written by ``sphragis audit`` after the export; `make export` runs it)

Rows and their order come from the narrow ``mart_benchmark_rows`` (keys, labels, chunk columns);
the per-unit payload columns (``text``, ``conllu``, ``cts_urn``, ``passage``, ``treebank_source``,
``dedup_key``, ``native_syntax``, ``source_records``, ``licenses``) are assembled here with Arrow
from one table of the published units of ``int_eligible_sentences`` with their chosen parse's
``text``, ``tokens`` and ``native_syntax`` from ``int_units`` (:func:`fetch_units`,
:func:`assemble_rows`): each row's unit ids index that table, so the nested values are copied with
``take`` and regrouped with list offsets, never looped over in Python.

Every distinct published unit is checked against the SPEC §5 invariants, rendered and re-parsed
with the CoNLL 2018 loader (SPEC §10; :class:`UnitValidation`): the loader runs in worker
processes while the files are written, and the export is swapped in only once every unit passed.
The directory is written beside the old one and swapped in only when complete (SPEC §13). Row
order, column order, Arrow types and JSON key order are fixed, so two exports of the same
warehouse are byte-identical.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sphragis import config, state
from sphragis.benchmark import BY_NAME, CONFIGS, SPLITS
from sphragis.build import build_lock, console, remove_stale_builds
from sphragis.files import replace_dir, restore_dir
from sphragis.hugepages import disable_transparent_huge_pages
from sphragis.queries import query
from sphragis.workers import exit_with_parent

from .conllu_units import (
    DEPREL_INVENTORY,
    UPOS_INVENTORY,
    UnitValidationError,
    check_invariants,
    feats_problem,
    field_problem,
    loader_problem,
    punctuation_problem,
)

#: Columns of every configuration, in order (seed 000 "Principal columns").
BASE_COLUMNS = (
    "id", "author", "work", "work_id", "genre", "text", "conllu", "cts_urn", "passage", "treebank_source",
    "native_syntax", "source_records", "licenses", "dedup_key", "split",
)
CHUNK_COLUMNS = (
    "chunk_size", "chunk_target_size", "constituent_ids", "constituent_provenance", "chunk_work_ids",
    "chunk_works", "chunk_is_mixed_work",
)
#: Extra columns of the held-out tracks, by track (sql/seeds/benchmark_configs.csv).
TRACK_COLUMNS = {"source_held_out": ("held_out_source",), "work_held_out": ("held_out_works",)}

#: Columns assembled per unit from ``int_eligible_sentences`` and ``int_units`` (the others come
#: from ``mart_benchmark_rows``).
UNIT_COLUMNS = (
    "text", "conllu", "cts_urn", "passage", "treebank_source", "dedup_key", "native_syntax", "source_records",
    "licenses",
)

#: Units per document handed to the CoNLL 2018 loader at once (bounds its memory).
VALIDATION_BATCH = 2_500

#: Chosen by measurement (issue #14; sentence_1/train, 44,250 rows, pyarrow CPU time, best of 2):
#: zstd-9 / 2,000-row groups 2.27 s, 13.2 MB; zstd-3 / 2,000 0.97 s, 14.2 MB; zstd-1 / 2,000
#: 0.95 s, 14.8 MB; zstd-3 / 10,000 1.04 s, 13.0 MB; snappy / 2,000 0.85 s, 20.7 MB.
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "row_group_size": 10_000, "write_statistics": True}


class ExportError(RuntimeError):
    """The warehouse is missing or incomplete, or a published unit failed validation."""


def columns_of(config_name: str) -> tuple[str, ...]:
    """Column names of one configuration, in published order."""
    cols = BASE_COLUMNS
    if not config_name.endswith("_1"):
        cols += CHUNK_COLUMNS
    cols += TRACK_COLUMNS.get(BY_NAME[config_name].track, ())
    return cols


def _open(settings: config.Settings) -> duckdb.DuckDBPyConnection:
    if not settings.warehouse.exists():
        raise ExportError(f"no warehouse at {settings.warehouse}; run `sphragis build` (or `make build`) first")
    return duckdb.connect(str(settings.warehouse), read_only=True)


def fetch_units(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """Every published unit (a row_id of ``mart_split_rows``) with its payload, as one Arrow table
    (the view ``mart_export_units``: ``int_eligible_sentences`` joined with ``int_units`` on
    ``sentence_uid``).

    Returns:
        Columns ``row_id``, ``text``, ``tokens`` (list<struct<id, form, lemma, upos, feats, head,
        deprel>>), ``cts_urn``, ``passage``, ``treebank_source``, ``dedup_key``, ``native_syntax``
        (list<struct>), ``source_records`` (list<struct>), ``licenses`` (list<string>), in DuckDB's
        Arrow types; one row per unit, sorted by row_id; chunks combined.
    """
    return con.sql("select * from mart_export_units order by row_id").to_arrow_table().combine_chunks()


def _list(offsets: pa.Array, values: pa.Array) -> pa.ListArray:
    # list<l: ...>: the child name DuckDB gives its lists, so every list column has the same naming
    return pa.ListArray.from_arrays(offsets, values, type=pa.list_(pa.field("l", values.type)))


def _offsets(lists: pa.ListArray) -> pa.Array:
    """int32 offsets of ``lists`` starting at 0 (a sliced array's offsets do not)."""
    offsets = lists.offsets
    return pc.subtract(offsets, offsets[0]) if len(offsets) and offsets[0].as_py() else offsets


def _array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``values`` as one array; a single chunk is returned as it is (``combine_chunks`` would copy it)."""
    if isinstance(values, pa.ChunkedArray):
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    return values


def _column(table: pa.Table, name: str) -> pa.Array:
    return _array(table.column(name))


def assemble_rows(rows: pa.Table, units: pa.Table, columns: Sequence[str]) -> pa.Table:
    """The published table of one configuration split: ``rows`` with the unit payload filled in.

    Args:
        rows: one row per published row, in output order, with a ``unit_ids`` column
            (list<string>: the row's row_ids in constituent order, ``[id]`` for _1 rows) and every
            name of ``columns`` that is not in :data:`UNIT_COLUMNS`.
        units: the table of :func:`fetch_units` (at least every unit ``rows`` refers to).
        columns: the output columns, in order (:func:`columns_of`).

    Returns:
        A table with exactly ``columns``. Per row, with its units u_0..u_{k-1}: ``text``,
        ``cts_urn``, ``passage``, ``treebank_source``, ``dedup_key`` = [u_i.<column>];
        ``conllu`` = [[u_i.tokens]] (units → one sentence → tokens); ``native_syntax`` =
        [u_i.native_syntax]; ``source_records`` = every record of u_0, then of u_1, …, each
        with ``unit`` = i (int32) as first field; ``licenses`` = the distinct licenses of all
        units, sorted. Unit-level nulls stay null entries.

    Raises:
        ExportError: a unit id of ``rows`` is not in ``units``, or a row has no unit list.
    """
    unit_ids = _column(rows, "unit_ids")
    if unit_ids.null_count:
        raise ExportError("mart_benchmark_rows: a row has no unit list")
    row_offsets = _offsets(unit_ids)
    flat_ids = unit_ids.flatten()
    idx = pc.index_in(flat_ids, value_set=_column(units, "row_id"))
    if idx.null_count:
        missing = pc.filter(flat_ids, pc.is_null(idx))[0].as_py()
        raise ExportError(f"unit {missing} of mart_benchmark_rows is not a published int_eligible_sentences row")
    n_flat = len(flat_ids)

    def take(name: str) -> pa.Array:
        return pc.take(_column(units, name), idx)

    payload: dict[str, pa.Array] = {}
    for name in ("text", "cts_urn", "passage", "treebank_source", "dedup_key", "native_syntax"):
        payload[name] = _list(row_offsets, take(name))
    tokens = take("tokens")
    payload["conllu"] = _list(row_offsets, _list(pa.array(np.arange(n_flat + 1, dtype=np.int32)), tokens))

    # unit index of each flat unit within its row: position minus its row's first position
    row_of_unit = pc.list_parent_indices(unit_ids)
    unit_pos = pc.cast(pc.subtract(pa.array(np.arange(n_flat, dtype=np.int64)),
                                   pc.take(pc.cast(row_offsets, pa.int64()), row_of_unit)), pa.int32())
    records = take("source_records")
    record_offsets = _offsets(records)
    flat_records = records.flatten()
    record_unit = pc.take(unit_pos, pc.list_parent_indices(records))
    fields = [flat_records.type.field(i).name for i in range(flat_records.type.num_fields)]
    records_with_unit = pa.StructArray.from_arrays([record_unit, *flat_records.flatten()], names=["unit", *fields])
    payload["source_records"] = _list(pc.take(record_offsets, row_offsets), records_with_unit)

    licenses = take("licenses")
    pairs = pa.table({
        "row": pc.take(row_of_unit, pc.list_parent_indices(licenses)),
        "license": licenses.flatten(),
    }).group_by(["row", "license"], use_threads=False).aggregate([]).sort_by([("row", "ascending"),
                                                                              ("license", "ascending")])
    counts = np.bincount(pairs.column("row").to_numpy(), minlength=rows.num_rows)
    license_offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]), pa.int32())
    payload["licenses"] = _list(license_offsets, _column(pairs, "license"))

    return pa.table({c: payload[c] if c in payload else _column(rows, c) for c in columns})


def config_rows(con: duckdb.DuckDBPyConnection, config_name: str, split: str) -> pa.Table:
    """The ``mart_benchmark_rows`` rows of one configuration split in output order (row_order),
    with the non-payload columns of :func:`columns_of` plus ``unit_ids`` (constituent_ids, or
    ``[id]`` for _1 rows)."""
    cols = [c for c in columns_of(config_name) if c not in UNIT_COLUMNS]
    return con.sql(
        f"select {', '.join(cols)}, coalesce(constituent_ids, [id]) as unit_ids from mart_benchmark_rows "
        "where config = $cfg and split = $split order by row_order",
        params={"cfg": config_name, "split": split},
    ).to_arrow_table()


def write_config(con: duckdb.DuckDBPyConnection, units: pa.Table, config_name: str, split: str,
                 path: Path) -> tuple[int, int]:
    """Assemble and write one configuration split as Parquet (:data:`PARQUET_OPTIONS`).

    Returns:
        (rows, distinct authors).
    """
    rows = config_rows(con, config_name, split)
    table = assemble_rows(rows, units, columns_of(config_name))
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, **PARQUET_OPTIONS)
    return table.num_rows, pc.count_distinct(table.column("author")).as_py()


def _blank(values: pa.Array) -> pa.Array:
    # render_conllu's _field: NULL or '' renders as '_'
    strings = pc.cast(values, pa.string())
    return pc.fill_null(pc.if_else(pc.equal(strings, ""), "_", strings), "_")


def render_units(tokens: pa.ListArray | pa.ChunkedArray) -> pa.Array:
    """CoNLL-U text of every unit of a ``tokens`` column (one sentence per unit), vectorized.

    Equal, unit by unit, to ``conllu_units.render_conllu([tokens])``: ten tab-separated columns,
    XPOS/DEPS/MISC ``_``, a NULL or empty field ``_``, every line ended by a newline and one blank
    line after the sentence. (Only a NULL ``id`` or ``head`` differs: ``_`` here, ``None`` there;
    the loader rejects both.)

    Args:
        tokens: list<struct<id, form, lemma, upos, feats, head, deprel>>, one entry per unit.

    Returns:
        A string array, one CoNLL-U document per unit.
    """
    tokens = _array(tokens)
    flat = tokens.flatten()
    f = {flat.type.field(i).name: col for i, col in enumerate(flat.flatten())}
    underscore = pa.scalar("_")
    lines = pc.binary_join_element_wise(
        _blank(f["id"]), _blank(f["form"]), _blank(f["lemma"]), _blank(f["upos"]), underscore, _blank(f["feats"]),
        _blank(f["head"]), _blank(f["deprel"]), underscore, underscore, "\t")
    lines = pc.binary_join_element_wise(lines, pa.scalar(""), "\n")  # line + "\n"
    per_unit = pc.binary_join(_list(_offsets(tokens), lines), "")
    return pc.binary_join_element_wise(per_unit, pa.scalar(""), "\n")


def _token_dicts(tokens: pa.ListArray | pa.ChunkedArray) -> list[dict]:
    # one dict per token (CoNLL-U field names), built column-wise: much faster than to_pylist()
    flat = _array(tokens).flatten()
    names = [flat.type.field(i).name for i in range(flat.type.num_fields)]
    columns = [col.to_pylist() for col in flat.flatten()]
    return [dict(zip(names, values)) for values in zip(*columns)]


def _values_with_problem(values: pa.Array, problem: Callable[[str], str | None]) -> pa.Array:
    """The distinct non-null values of ``values`` for which ``problem`` returns a message."""
    distinct = pc.unique(values).drop_null().to_pylist()
    return pa.array([v for v in distinct if problem(v)], values.type)


def invalid_units(units: pa.Table) -> np.ndarray:
    """Per unit, whether ``conllu_units.check_invariants`` reports a SPEC §5 problem, computed
    column-wise (SPEC §13: no Python loop over tokens).

    The rules are those of :mod:`.conllu_units`, applied to every distinct value once instead of
    to every token: UPOS and DEPREL in the published inventories; each distinct non-empty FEATS
    through ``feats_problem``, each distinct form through ``field_problem`` and
    ``punctuation_problem``, each distinct lemma through ``field_problem`` (a NULL lemma is
    allowed, a NULL form is not); and the forms of a unit joined by single spaces equal to its
    ``text``. A unit is invalid when any of its tokens or its text fails.

    Args:
        units: columns ``text`` and ``tokens`` (list<struct<id, form, lemma, upos, feats, head,
            deprel>>) as :func:`fetch_units` returns them.

    Returns:
        A bool array, one entry per unit, in the order of ``units``.
    """
    tokens = _column(units, "tokens")
    flat = tokens.flatten()
    f = {flat.type.field(i).name: col for i, col in enumerate(flat.flatten())}

    def among(values: pa.Array, value_set: pa.Array) -> pa.Array:
        return pc.fill_null(pc.is_in(values, value_set=value_set), False)

    bad = pc.invert(among(f["upos"], pa.array(sorted(UPOS_INVENTORY), f["upos"].type)))
    bad = pc.or_(bad, pc.invert(among(f["deprel"], pa.array(sorted(DEPREL_INVENTORY), f["deprel"].type))))
    bad = pc.or_(bad, among(f["feats"], _values_with_problem(f["feats"], lambda v: v and feats_problem(v))))
    bad = pc.or_(bad, pc.is_null(f["form"]))
    bad = pc.or_(bad, among(f["form"], _values_with_problem(
        f["form"], lambda v: field_problem("form", v) or punctuation_problem(v))))
    bad = pc.or_(bad, among(f["lemma"], _values_with_problem(f["lemma"], lambda v: field_problem("lemma", v))))
    invalid = np.zeros(units.num_rows, dtype=bool)
    bad_tokens = np.flatnonzero(bad.to_numpy(zero_copy_only=False))
    if len(bad_tokens):
        invalid[pc.list_parent_indices(tokens).to_numpy()[bad_tokens]] = True
    # A NULL form makes the join NULL; that unit is already invalid. A NULL token list joins as ''.
    joined = pc.fill_null(pc.binary_join(_list(_offsets(tokens), f["form"]), " "), "")
    invalid |= ~pc.fill_null(pc.equal(joined, _column(units, "text")), False).to_numpy(zero_copy_only=False)
    return invalid


def _invariant_error(units: pa.Table, i: int) -> UnitValidationError:
    """The error of unit ``i``, which :func:`invalid_units` found invalid: check_invariants' message."""
    unit = units.slice(i, 1)
    unit_id = _column(unit, "row_id")[0].as_py()
    problem = check_invariants([_token_dicts(_column(unit, "tokens"))], _column(unit, "text")[0].as_py())
    if problem is None:  # the column-wise rules and check_invariants disagree: a bug, never a pass
        raise RuntimeError(f"published unit {unit_id}: writer.invalid_units rejects it but "
                           "conllu_units.check_invariants accepts it")
    return UnitValidationError(unit_id, problem)


class UnitValidation:
    """The SPEC §10 validation of published units, with the CoNLL 2018 loader in worker processes
    (SPEC §13).

    Creating it starts the worker processes (forked now, while the exporter is still small:
    a worker forked later would share, and be counted with, the memory of the units).
    :meth:`submit` renders the units (:func:`render_units`) ``batch`` at a time and hands the loader
    (``conllu_units.loader_problem``) each batch as one document as soon as it is rendered, so the
    loader (pure Python, the largest cost of an export) runs on every core while this process
    writes the Parquet files; the SPEC §5 invariants are checked column-wise
    (:func:`invalid_units`) in a thread meanwhile. :meth:`result` collects both verdicts. Either
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
        self._invalid = None
        if self.workers > 1:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                             initializer=exit_with_parent, initargs=(os.getpid(),))
            self._pool.submit(int).result()  # forks every worker now

    def submit(self, units: pa.Table) -> UnitValidation:
        """Render ``units`` (columns ``row_id``, ``text``, ``tokens`` as :func:`fetch_units` returns
        them) and start the loader on them, batch by batch (a worker starts on the first batch while
        the next is rendered); then start the SPEC §5 checks (:func:`invalid_units`) in a thread of
        this process. Returns self."""
        self.units = units
        n = units.num_rows
        self.bounds = [(start, min(start + self.batch, n)) for start in range(0, n, self.batch)]
        tokens = _column(units, "tokens")
        parallel = self._pool is not None and len(self.bounds) > 1
        for start, stop in self.bounds:
            task = _loader_task(render_units(tokens.slice(start, stop - start)))
            if parallel:
                self._futures.append(self._pool.submit(loader_problem, *task))
            else:
                self._tasks.append(task)
        self._checks = ThreadPoolExecutor(max_workers=1)
        self._invalid = self._checks.submit(invalid_units, units) if n else None
        return self

    def result(self) -> int:
        """Wait for the validation of the submitted units; returns how many.

        Raises:
            UnitValidationError: naming the first unit that fails (an invariant broken, or a
                loader error traced back to its unit by line number).
        """
        units = self.units
        invalid = np.flatnonzero(self._invalid.result()) if self._invalid is not None else []
        first_invalid = int(invalid[0]) if len(invalid) else None
        for k, (start, stop) in enumerate(self.bounds):
            if first_invalid is not None and first_invalid < stop:
                raise _invariant_error(units, first_invalid)
            failed = self._futures[k].result() if self._futures else loader_problem(*self._tasks[k])
            if failed is not None:
                raise UnitValidationError(_column(units, "row_id")[start + failed[0]].as_py(), failed[1])
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
    return pc.binary_join(_list(pa.array([0, len(rendered)], pa.int32()), rendered), "")[0].as_py(), starts.tolist()


def validate_units_table(units: pa.Table, batch: int = VALIDATION_BATCH, workers: int | None = None) -> int:
    """Validate every unit of ``units`` (SPEC §10); returns how many.

    Each unit goes through the SPEC §5 invariants of ``conllu_units.check_invariants`` (against its
    ``text``; column-wise, :func:`invalid_units`), is rendered (:func:`render_units`) and the
    rendered documents are re-parsed, ``batch`` units at a time and in ``workers`` processes, with
    the CoNLL 2018 shared-task loader ``udtools.udeval.load_conllu`` (ten columns, integer ids from
    1, heads in range, exactly one root, no cycles, sentence termination). See
    :class:`UnitValidation`, which :func:`export` runs while it writes.

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


def export(settings: config.Settings | None = None, *, full: bool = False) -> dict:
    """Validate and write every configuration, the metadata and the card (see module docstring).

    Work already done is reused (:class:`ExportState`, kept in ``<out>.state/``): when nothing the
    last export read changed (its code, named queries, seeds, templates, the warehouse tables it
    read, libraries: :mod:`sphragis.state`) and the files are the ones written, nothing is done;
    else, while the code is unchanged, units already validated (by content hash) are not validated
    again, and a configuration split whose rows and units are unchanged is hard-linked from the
    previous export instead of rewritten (same bytes: the writer is deterministic).

    Args:
        full: ignore the saved state (validate every unit, write every file).

    Returns:
        {"configs": {config: {split: {"rows": n, "authors": m}}}, "units_validated": n, "out": str,
        "reuse": {"up_to_date": bool, "units_cached": n, "files_reused": n, "files_written": n,
        "changed": [input, ...] (not up to date: what changed, :func:`sphragis.state.changed`)},
        "timings": {step: seconds}}

    Raises:
        ExportError: no warehouse, or a required table is missing.
        UnitValidationError: a published unit breaks CoNLL-U or a SPEC §5 invariant.
        sphragis.build.BuildLocked: another export into the same directory is running.
    """
    settings = settings or config.settings()
    disable_transparent_huge_pages()
    con = _open(settings)
    timings: dict[str, float] = {}
    try:
        missing = [t for t in ("mart_benchmark_rows", "mart_split_rows", "int_eligible_sentences", "int_units")
                   if not con.execute("select 1 from duckdb_tables() where table_name = ?", [t]).fetchall()]
        if missing:
            raise ExportError(f"warehouse {settings.warehouse} lacks {', '.join(missing)}; rebuild it with `sphragis build`")
        out = settings.out
        previous = ExportState.load(out, con, full=full)
        if previous.up_to_date(out):
            return {**previous.doc["report"], "out": str(out), "reuse": {
                "up_to_date": True, "units_cached": 0, "files_reused": 0, "files_written": 0}, "timings": timings}
        recording = state.RecordingConnection(con)  # the tables the export reads, for its state
        validated = {"n": 0, "wait": 0.0}
        with UnitValidation() as validation:  # its workers start before the units are read
            t0 = time.perf_counter()
            units = fetch_units(recording)
            timings["fetch units"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            if previous.validated:  # units validated before (by content hash) are not validated again
                hashes = unit_hashes(units)
                todo = previous.unvalidated(hashes)
                validation.submit(units.filter(pa.array(todo)) if not all(todo) else units)
            else:  # nothing cached (--full or a first export): the loader starts before the hashing
                validation.submit(units)
                hashes = unit_hashes(units)
            started = time.perf_counter() - t0

            def finish_validation() -> None:  # after writing, before the swap
                t = time.perf_counter()
                validated["n"] = validation.result()
                validated["wait"] = time.perf_counter() - t

            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name(f"{out.name}.building-{os.getpid()}")
            with build_lock(out):  # a second concurrent export fails fast naming the holder
                restore_dir(out)  # an export killed between the two renames of replace_dir's fallback
                remove_stale_builds(out)  # folders left by killed exports
                tmp.mkdir()
                t0 = time.perf_counter()
                summary, files = _write_all(recording, units, tmp, out, previous, hashes,
                                            before_swap=finish_validation)
                # validation: hashing, rendering and the wait for the loader after the writing
                timings["validation"] = started + validated["wait"]
                timings["writing"] = time.perf_counter() - t0 - validated["wait"]
                report = {"configs": summary, "units_validated": units.num_rows, "out": str(out)}
                reused = sum(1 for f in files.values() if f["reused"])
                previous.save(out, con, recording.tables, hashes, files, report)
        n_units = validated["n"]
    finally:
        con.close()
    return {**report, "reuse": {"up_to_date": False, "units_cached": units.num_rows - n_units,
                                "files_reused": reused, "files_written": len(files) - reused,
                                "changed": previous.changed},
            "timings": timings}


#: Threads writing configuration splits at once (DuckDB and pyarrow release the GIL while they
#: query, gather and encode; each file is written by one thread, so its bytes do not depend on this).
WRITER_THREADS = 2


def _write_all(con: duckdb.DuckDBPyConnection, units, tmp: Path, out: Path, previous: ExportState | None = None,
               hashes: pa.Array | None = None, before_swap: Callable[[], None] | None = None) -> tuple[dict, dict]:
    """Write every configuration, the metadata and the card into ``tmp``, then swap it into ``out``.

    A configuration split whose fingerprint (:meth:`ExportState.file_fingerprints`) matches the
    previous export's is hard-linked from ``out`` instead of written. The others are written by
    :data:`WRITER_THREADS` threads (each with its own DuckDB cursor), the training splits first
    (the largest files); the same threads write the metadata (its row and author counts come from
    ``mart_config_summary`` and must equal the files' own) and, when no previous file can be reused,
    compute the fingerprints meanwhile. The card is rendered last, from the files written.
    ``before_swap`` (e.g. waiting for the validation) runs after everything is written and before
    the swap; if it raises, nothing is swapped.

    Returns ({config: {split: {"rows": n, "authors": m}}}, {relative path: file record}). ``tmp`` is
    removed in any case.

    Raises:
        ExportError: a file's row or author count differs from ``mart_config_summary``.
    """
    from . import card, metadata

    previous = previous or ExportState({})
    files: dict[str, dict] = {}
    keys = [(cfg, split) for cfg in CONFIGS for split in SPLITS]

    def rel_of(cfg: str, split: str) -> str:
        return f"data/{cfg}/{split}-00000-of-00001.parquet"

    def on_cursor(fn: Callable, *args):  # a DuckDB connection is used by one thread at a time
        cur = con.cursor()
        try:
            return fn(cur, *args)
        finally:
            cur.close()

    def write(key: tuple[str, str]) -> dict:
        n, authors = on_cursor(write_config, units, *key, tmp / rel_of(*key))
        return {"rows": n, "authors": authors}

    def fingerprints() -> dict[tuple[str, str], str]:
        return on_cursor(previous.file_fingerprints, units, unit_hashes(units) if hashes is None else hashes)

    try:
        with ThreadPoolExecutor(max_workers=WRITER_THREADS) as pool:
            if previous.doc.get("files"):  # a previous export's files may be reused: fingerprints first
                fps = fingerprints()
                reused = {key: previous.reusable(out, rel_of(*key), fps[key]) for key in keys}
            else:
                fps, reused = None, dict.fromkeys(keys)
            todo = sorted((key for key, old in reused.items() if old is None), key=lambda key: key[1] != "train")
            for key in keys:
                (tmp / rel_of(*key)).parent.mkdir(parents=True, exist_ok=True)
                if reused[key] is not None:
                    _link_or_copy(out / rel_of(*key), tmp / rel_of(*key))
            (tmp / "metadata").mkdir()
            expected = on_cursor(metadata.config_summary)
            jobs = {key: pool.submit(write, key) for key in todo if key[1] == "train"}
            meta_job = pool.submit(on_cursor, metadata.write_all, tmp, expected)
            card_job = pool.submit(card.load_validators)  # its imports, while the files are written
            fps_job = pool.submit(fingerprints) if fps is None else None
            jobs.update({key: pool.submit(write, key) for key in todo if key not in jobs})
            written = {key: job.result() for key, job in jobs.items()}
            meta_job.result()
            card_job.result()
            fps = fps_job.result() if fps_job is not None else fps
        summary: dict[str, dict[str, dict]] = {}
        for cfg, split in keys:
            rel, old = rel_of(cfg, split), reused[(cfg, split)]
            got = old["summary"] if old is not None else written[(cfg, split)]
            if got != expected[cfg][split]:
                raise ExportError(f"{rel}: {got} written, mart_config_summary says {expected[cfg][split]}")
            summary.setdefault(cfg, {})[split] = got
            files[rel] = {"fingerprint": fps[(cfg, split)], "summary": got, "reused": old is not None}
        del units
        card.write_card(tmp)  # rendered from the files just written (export/card.py)
        if before_swap is not None:
            before_swap()
        replace_dir(tmp, out)
        return summary, files
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def unit_hashes(units: pa.Table) -> pa.Array:
    """Content hash of every unit of :func:`fetch_units` (sha256 hex of its columns in Arrow IPC form
    would be slow; this is DuckDB's ``md5`` over the unit's payload rendered as text, one per row,
    in the order of ``units``)."""
    con = duckdb.connect()
    try:
        con.register("units_in", units)
        return con.sql(f"select md5(concat_ws(chr(31), {', '.join(f'{c}::varchar' for c in units.column_names)})) "
                       "as h from units_in").to_arrow_table().column("h").combine_chunks()
    finally:
        con.close()


#: The export's code: this module and every module of the package it imports (its state's reads,
#: :func:`sphragis.state.reads`, derived from the imports, with the named queries, seeds, templates
#: and tables the export reads as it runs).
STEP = __name__


def _manifest(con: duckdb.DuckDBPyConnection | None) -> dict:
    """The build manifest of the warehouse ``con`` (tables' fingerprints for the state)."""
    from sphragis import runner

    return runner.read_manifest(con) if con is not None else {}


class ExportState:
    """What the last export read and did (:mod:`sphragis.state`), kept beside it in
    ``<out>.state/export.json`` and ``<out>.state/validated.parquet`` (the content hashes of the
    units it validated).

    ``doc`` keys: ``reads`` (:func:`sphragis.state.reads`: modules, named queries, seeds,
    templates, warehouse tables, libraries), ``digests`` (one per input), ``fingerprint`` (of them
    all), ``code`` (of them without the tables), ``files`` {relative path: {fingerprint, summary,
    size, mtime_ns}}, ``report``. :meth:`load` compares the digests of what the last export read
    with the inputs now: the validated units and the written files are reused only when the code
    fingerprint is unchanged (validator and writer are in it), a file only when its rows and units
    are unchanged too and its size and mtime are still the recorded ones, so a stale or hand-edited
    export is rewritten.

    Attributes:
        changed: the inputs that changed since the last export (``["no state"]`` without one).
        now: their digests before this export (:func:`sphragis.state.settle` compares them with
            the digests after it).
    """

    def __init__(self, doc: dict, validated: set[str] | None = None, changed: list[str] | None = None,
                 now: dict[str, str] | None = None):
        self.doc, self.validated, self.changed, self.now = doc, validated or set(), changed or [], now or {}

    @staticmethod
    def path(out: Path) -> Path:
        return state.state_dir(out)

    @classmethod
    def load(cls, out: Path, con: duckdb.DuckDBPyConnection | None = None, full: bool = False) -> ExportState:
        """The last export's state, checked against the inputs now (the tables in the warehouse
        ``con``); ``full`` ignores it."""
        store = state.Store(out, "export")
        doc = store.load()
        now, changed = state.check(doc, con, _manifest(con))  # with --full too: the digests before it, for settle()
        if full:
            return cls({}, None, ["--full"], now)
        if not now or state.fingerprint(now, code_only=True) != doc.get("code"):
            return cls({}, None, changed, now)
        hashes = store.load_table("validated")
        return cls(doc, set(hashes.column("h").to_pylist()) if hashes is not None else None, changed, now)

    def _intact(self, out: Path, rel: str, rec: dict) -> bool:
        return state.intact(out, {rel: [rec.get("size"), rec.get("mtime_ns")]})

    def up_to_date(self, out: Path) -> bool:
        """Nothing the last export read changed and its files are in place in ``out``, file for file."""
        return (bool(self.doc) and not self.changed
                and all(self._intact(out, rel, rec) for rel, rec in self.doc.get("files", {}).items())
                and all((out / f).exists() for f in ("README.md", "metadata")))

    def unvalidated(self, hashes: pa.Array) -> list[bool]:
        """Per unit: True when it must be validated (its content hash is not in the cache)."""
        return [h not in self.validated for h in hashes.to_pylist()]

    def file_fingerprints(self, con, units: pa.Table, hashes: pa.Array) -> dict[tuple[str, str], str]:
        """(config, split) → sha256 of the rows of ``mart_benchmark_rows`` in output order and the
        content hashes of every published unit (the code is the state's ``code`` fingerprint)."""
        units_fp = hashlib.sha256("".join(hashes.to_pylist()).encode()).hexdigest()
        rows = con.sql(
            "select config, split, md5(string_agg(md5(cast(b as varchar)), '' order by row_order)) "
            "from mart_benchmark_rows as b group by all").fetchall()
        got = {(c, s): hashlib.sha256(f"{units_fp}|{h}".encode()).hexdigest() for c, s, h in rows}
        return {(c, s): got.get((c, s), f"empty|{units_fp}") for c in CONFIGS for s in SPLITS}

    def reusable(self, out: Path, rel: str, fingerprint: str) -> dict | None:
        rec = self.doc.get("files", {}).get(rel)
        if rec and rec.get("fingerprint") == fingerprint and self._intact(out, rel, rec):
            return rec
        return None

    def save(self, out: Path, con: duckdb.DuckDBPyConnection, tables: set[str], hashes: pa.Array, files: dict,
             report: dict) -> None:
        """Record what this export read (``tables``: those its SQL named) and wrote."""
        for rel, rec in files.items():
            st = (out / rel).stat()
            rec.update(size=st.st_size, mtime_ns=st.st_mtime_ns)
            rec.pop("reused", None)
        store = state.Store(out, "export")
        store.save_table("validated", pa.table({"h": hashes}))
        reads = state.reads((STEP,), tables=tables)
        digests = state.settle(self.now, state.digests(reads, con, _manifest(con)))
        store.save({"reads": reads, "digests": digests,
                    "fingerprint": state.fingerprint(digests), "code": state.fingerprint(digests, code_only=True),
                    "files": files, "report": report})


def print_summary(report: dict, seconds: float) -> None:
    """Print rows per configuration and split, and the time taken."""
    from rich.table import Table

    t = Table(title=f"export: {report['out']}")
    for col in ("configuration", "authors", *SPLITS):
        t.add_column(col, justify="left" if col == "configuration" else "right")
    # in benchmark order (a report read back from the JSON state has its keys sorted)
    for cfg, splits in sorted(report["configs"].items(), key=lambda kv: CONFIGS.index(kv[0])):
        authors = max(v["authors"] for v in splits.values())
        t.add_row(cfg, str(authors), *(f"{splits[s]['rows']:,}" for s in SPLITS))
    con = console()
    con.print(t)
    r = report.get("reuse", {})
    if r.get("up_to_date"):
        con.print("export up to date (nothing it reads changed since the last export: code, named queries, seeds, "
                  f"templates, warehouse tables, libraries); time {seconds:.1f}s")
        return
    if r.get("changed") and r["changed"] not in state.NOTHING_TO_COMPARE:
        con.print(f"export redone: changed since the last export: {state.describe(r['changed'])}", markup=False)
    con.print(f"units validated with the CoNLL 2018 loader: {report['units_validated']:,} "
              f"({r.get('units_cached', 0):,} of them validated before, by content hash); files: "
              f"{r.get('files_written', 0)} written, {r.get('files_reused', 0)} reused (rows unchanged); "
              f"time {seconds:.1f}s")
