"""Building one model, and early cutoff: a table rebuilt over its previous version is compared
with it (:func:`content_of`), and the same content hands on the previous output fingerprint."""

from __future__ import annotations

import time

import duckdb

from .base import ModelError
from .project import Model


def build_one(con: duckdb.DuckDBPyConnection, m: Model, sql: str, rels: dict, *, compare: bool = False,
              old_content: list | None = None) -> tuple[int | None, float, list | None, bool]:
    """Create model ``m`` from ``sql`` (replacing what has its name).

    With ``compare`` (a table replacing a table), the new table is made beside the old one and
    compared with it (early cutoff), each check only when the cheaper ones before it found no
    difference: columns (names and types, in order) and row count; the fast row hash; the strict
    row hash (:func:`content_of`). ``old_content`` is the old table's, as the manifest recorded it;
    what it lacks is computed from the old table.

    Returns:
        (rows or None for a view, seconds, the new table's content (None when the columns or the
        row count differ), whether the content equals the old table's).

    Raises:
        ModelError: the SQL failed (names the model file and DuckDB's message).
    """
    kind = "view" if m.materialized == "view" else "table"
    t0 = time.perf_counter()
    new = f"{m.name}__sphragis_new" if compare else m.name
    content, same = None, False
    try:
        if not compare and m.name in rels:
            con.execute(f"drop {rels[m.name]} {m.name}")
        con.execute(f"create {kind} {new} as\n{sql}")
        rows = None if kind == "view" else con.execute(f"select count(*) from {new}").fetchall()[0][0]
        if compare:
            old = list(old_content or []) + [None] * (4 - len(old_content or []))
            if old[0] is None:
                old[0], old[1] = _columns(con, m.name), con.execute(f"select count(*) from {m.name}").fetchone()[0]
            content = [_columns(con, new), rows, None, None]
            if content[:2] == old[:2]:
                content[2] = content_of(con, new)[2]
                if content[2] == (old[2] or content_of(con, m.name)[2]):
                    content[3] = content_of(con, new, strict=True)[3]
                    same = content[3] == (old[3] or content_of(con, m.name, strict=True)[3])
            con.execute(f"drop table {m.name}")
            con.execute(f"alter table {new} rename to {m.name}")
    except duckdb.Error as exc:
        raise ModelError(f"model {m.name} ({m.path}) failed: {exc}") from exc
    return rows, time.perf_counter() - t0, content, same


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[list[str]]:
    return [list(r) for r in con.execute(
        "select column_name, data_type from duckdb_columns() where database_name = current_database() "
        "and schema_name = current_schema() and table_name = ? order by column_index", [table]).fetchall()]


def _nested(data_type: str) -> bool:
    return "[" in data_type or data_type.startswith(("STRUCT", "MAP", "UNION"))


def content_of(con: duckdb.DuckDBPyConnection, table: str, *, strict: bool = False) -> list:
    """What early cutoff compares of a table: ``[columns, rows, row_hash, strict_row_hash]``.

    ``columns`` is ``[[name, type], ...]`` in order. The hashes are ``sum(hash(row)::hugeint)`` over
    the rows, as decimal strings: order-insensitive (a table is a multiset of rows; its physical
    order is not part of what a build reproduces, nor of what the export reads). DuckDB's row hash
    combines the columns in order, but it gives NULL, ``[]``, ``[NULL]`` and ``{'a': NULL}`` the
    same hash; ``strict_row_hash`` (None unless ``strict``) hashes nested columns (lists, structs,
    maps) by their ``to_json`` text, which tells them apart. Like SQL equality, neither tells
    ``-0.0`` from ``0.0``. The strict hash costs about the row hash's time without nested columns
    and several times it with them (``int_units``, whose token lists are nested), so it is
    computed only when the row hash matched.
    """
    cols = _columns(con, table)
    if strict:
        quoted = [('"' + c.replace('"', '""') + '"', t) for c, t in cols]
        expr = "hash(" + ", ".join(f"to_json({q})" if _nested(t) else q for q, t in quoted) + ")"
    else:
        expr = "hash(t)"
    rows, h = con.execute(f"select count(*), coalesce(sum({expr}::hugeint), 0)::varchar from {table} as t").fetchone()
    return [cols, rows, None, h] if strict else [cols, rows, h, None]
