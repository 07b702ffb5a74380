"""Named SQL queries: the ``.sql`` files of ``sql/queries/`` loaded by name.

SQL that a program runs with parameters lives here, one query per file, linted by ``make lint``
like the models: values are passed as prepared-statement parameters (``?`` or ``$name``), never
formatted into the text, or as tables the program registers (an export's Parquet files, an
annotation's selection). A query names warehouse tables with ``{{ ref('…') }}`` and
``{{ source('raw', '…') }}`` and is rendered by the runner's Jinja environment
(:func:`sphragis.dag.render_query`), so its edges are in the build manifest (``queries``).
Parameter-free SQL over warehouse tables is a model (a reporting mart) that the program reads.

Example: ``con.execute(query("variant_authors"), {"config": "sentence_1"}).fetchall()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import cache

import duckdb

from . import config
from .dag import QUERIES_DIR, render_query
from .state import note_read, relations


@cache
def query(name: str) -> str:
    """The SQL of ``sql/queries/<name>.sql``, rendered (``ref()``/``source()`` resolved to
    table names; :func:`sphragis.dag.render_query`).

    Raises:
        LookupError: no such query file (the message names the path and the known queries).
        sphragis.runner.ModelError: the template does not render (names the file and line).
    """
    path = QUERIES_DIR / f"{name}.sql"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in QUERIES_DIR.glob("*.sql")))
        raise LookupError(f"no named query {path}; known: {known}")
    note_read(path)  # an input of the steps that read it (sphragis.state)
    return render_query(path.read_text(encoding="utf-8"), renderer(), str(path))[0]


@cache
def _macros_renderer():
    from .runner.render import Renderer

    return Renderer(sorted(config.MACROS_DIR.glob("*.sql")), {})


def renderer(project=None):
    """The runner's Jinja environment that renders named queries (:func:`sphragis.dag.render_query`):
    the ``sphragis.runner.Project`` ``project``'s, or without one the macros of ``sql/macros`` with
    ``ref``/``source``/``var`` (made once per process: what a program running a query needs). The
    one place outside the runner that reaches into its rendering."""
    from .runner.render import renderer as project_renderer

    return project_renderer(project) if project is not None else _macros_renderer()


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


def missing_relations(con: duckdb.DuckDBPyConnection, needed: Iterable[str]) -> list[str]:
    """The names of ``needed`` that are neither a table nor a view of ``con``'s warehouse
    (:func:`sphragis.state.relations`), in the order given."""
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
