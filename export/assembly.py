"""Assembly of the published tables (SPEC §9): rows of ``mart_benchmark_rows`` with the payload
of their units filled in with Arrow, and each configuration split written as Parquet.

Rows and their order come from the narrow ``mart_benchmark_rows`` (keys, labels, chunk columns);
the per-unit payload columns (:data:`.layout.UNIT_COLUMNS`) come from one table of the published
units of ``int_eligible_sentences`` with their chosen parse's ``text``, ``tokens`` and
``native_syntax`` from ``int_units`` (:func:`fetch_units`, :func:`assemble_rows`): each row's unit
ids index that table, so the nested values are copied with ``take`` and regrouped with list
offsets, never looped over in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


from .arrays import column, list_of, offsets_of
from .layout import PARQUET_OPTIONS, UNIT_COLUMNS, columns_of


class ExportError(RuntimeError):
    """The warehouse is missing or incomplete, or a published unit failed validation."""


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


def assemble_rows(rows: pa.Table, units: pa.Table, columns: Sequence[str]) -> pa.Table:
    """The published table of one configuration split: ``rows`` with the unit payload filled in.

    Args:
        rows: one row per published row, in output order, with a ``unit_ids`` column
            (list<string>: the row_ids of its units in constituent order, ``[row_id]`` for _1 rows) and every
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
    unit_ids = column(rows, "unit_ids")
    if unit_ids.null_count:
        raise ExportError("mart_benchmark_rows: a row has no unit list")
    row_offsets = offsets_of(unit_ids)
    flat_ids = unit_ids.flatten()
    idx = pc.index_in(flat_ids, value_set=column(units, "row_id"))
    if idx.null_count:
        missing = pc.filter(flat_ids, pc.is_null(idx))[0].as_py()
        raise ExportError(f"unit {missing} of mart_benchmark_rows is not a published int_eligible_sentences row")
    n_flat = len(flat_ids)

    def take(name: str) -> pa.Array:
        return pc.take(column(units, name), idx)

    payload: dict[str, pa.Array] = {}
    for name in ("text", "cts_urn", "passage", "treebank_source", "dedup_key", "native_syntax"):
        payload[name] = list_of(row_offsets, take(name))
    tokens = take("tokens")
    payload["conllu"] = list_of(row_offsets, list_of(pa.array(np.arange(n_flat + 1, dtype=np.int32)), tokens))

    # unit index of each flat unit within its row: position minus its row's first position
    row_of_unit = pc.list_parent_indices(unit_ids)
    unit_pos = pc.cast(pc.subtract(pa.array(np.arange(n_flat, dtype=np.int64)),
                                   pc.take(pc.cast(row_offsets, pa.int64()), row_of_unit)), pa.int32())
    records = take("source_records")
    record_offsets = offsets_of(records)
    flat_records = records.flatten()
    record_unit = pc.take(unit_pos, pc.list_parent_indices(records))
    fields = [flat_records.type.field(i).name for i in range(flat_records.type.num_fields)]
    records_with_unit = pa.StructArray.from_arrays([record_unit, *flat_records.flatten()], names=["unit", *fields])
    payload["source_records"] = list_of(pc.take(record_offsets, row_offsets), records_with_unit)

    licenses = take("licenses")
    pairs = pa.table({
        "row": pc.take(row_of_unit, pc.list_parent_indices(licenses)),
        "license": licenses.flatten(),
    }).group_by(["row", "license"], use_threads=False).aggregate([]).sort_by([("row", "ascending"),
                                                                              ("license", "ascending")])
    counts = np.bincount(pairs.column("row").to_numpy(), minlength=rows.num_rows)
    license_offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]), pa.int32())
    payload["licenses"] = list_of(license_offsets, column(pairs, "license"))

    return pa.table({c: payload[c] if c in payload else column(rows, c) for c in columns})


def config_rows(con: duckdb.DuckDBPyConnection, config_name: str, split: str) -> pa.Table:
    """The ``mart_benchmark_rows`` rows of one configuration split in output order (row_order),
    with the non-payload columns of :func:`columns_of` plus ``unit_ids`` (``row_ids``: the row_ids
    of its units in constituent order, ``[row_id]`` for _1 rows)."""
    cols = [c for c in columns_of(config_name) if c not in UNIT_COLUMNS]
    return con.sql(
        f"select {', '.join(cols)}, row_ids as unit_ids from mart_benchmark_rows "
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
