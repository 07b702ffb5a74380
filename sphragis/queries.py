"""Named SQL queries: the ``.sql`` files of ``sql/queries/`` loaded by name.

SQL that reads the warehouse (or an in-memory DuckDB) for a Python caller but is not a model
lives here, one query per file, linted by ``make lint`` like the models. A query is plain DuckDB
SQL; values are passed as prepared-statement parameters (``?`` or ``$name``), never formatted
into the text.

Example: ``con.execute(query("overlap_resolution_counts")).fetchall()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import cache

import duckdb

from . import config
from .config import SQL_DIR
from .state import note_read

QUERIES_DIR = SQL_DIR / "queries"


@cache
def query(name: str) -> str:
    """The text of ``sql/queries/<name>.sql``.

    Raises:
        LookupError: no such query file (the message names the path and the known queries).
    """
    path = QUERIES_DIR / f"{name}.sql"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in QUERIES_DIR.glob("*.sql")))
        raise LookupError(f"no named query {path}; known: {known}")
    note_read(path)  # an input of the steps that read it (sphragis.state)
    return path.read_text(encoding="utf-8")


def open_warehouse(path=None) -> duckdb.DuckDBPyConnection:
    """Open the warehouse ``path`` (default ``SPHRAGIS_WAREHOUSE``) read-only.

    Raises:
        FileNotFoundError: no warehouse file there (run ``sphragis build``).
        RuntimeError: DuckDB cannot open it (e.g. another process holds it for writing).
    """
    path = path or config.settings().warehouse
    if not path.is_file():
        raise FileNotFoundError(f"no warehouse at {path}; run `sphragis build` (or set SPHRAGIS_WAREHOUSE)")
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise RuntimeError(f"cannot open the warehouse {path} read-only: {exc}") from exc


def relations(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Names of the tables and views (not temporary, not DuckDB's internal views) of ``con``'s
    warehouse (named query ``warehouse_relations``): the one check every program makes that the
    tables it reads exist; a model materialized as a view (``mart_published_tokens``) counts."""
    return {name for (name,) in con.execute(query("warehouse_relations")).fetchall()}


def missing_relations(con: duckdb.DuckDBPyConnection, needed: Iterable[str]) -> list[str]:
    """The names of ``needed`` that are neither a table nor a view of ``con``'s warehouse
    (:func:`relations`), in the order given."""
    have = relations(con)
    return [name for name in needed if name not in have]


def require_relations(con: duckdb.DuckDBPyConnection, needed: Iterable[str],
                      error: type[Exception] = RuntimeError, where: str = "the warehouse") -> None:
    """The one check that the tables a program reads are in the warehouse before it reads them.

    Raises:
        error: ``"<where> has no <names>; rebuild it with `sphragis build`"`` when any of
            ``needed`` is missing (:func:`missing_relations`).
    """
    missing = missing_relations(con, needed)
    if missing:
        raise error(f"{where} has no {', '.join(missing)}; rebuild it with `sphragis build`")


def records(con, sql: str, params: list | dict | None = None) -> list[dict]:
    """Rows of ``sql`` (run on the DuckDB connection ``con`` with ``params``) as dicts keyed by
    column name, in result order."""
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


#: Types a JSON value keeps as it is (checked by exact type first: most values are strings and
#: integers, and the metadata of an export holds about a million of them).
_AS_IS = frozenset((str, int, bool, type(None)))


def json_value(v):
    """A value of a DuckDB row as the export's JSON files hold it: DECIMAL → float, DOUBLE rounded
    to 6 decimals, lists and structs (dicts) converted element by element, the rest unchanged."""
    if type(v) in _AS_IS:
        return v
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, list):
        return [x if type(x) in _AS_IS else json_value(x) for x in v]
    if isinstance(v, dict):
        return {k: x if type(x) in _AS_IS else json_value(x) for k, x in v.items()}
    return v


def json_records(con, sql: str, params: list | dict | None = None) -> list[dict]:
    """:func:`records` with every value made JSON-ready by :func:`json_value` (the metadata of an
    export and the training treebank's manifest)."""
    return [{k: json_value(v) for k, v in r.items()} for r in records(con, sql, params)]
