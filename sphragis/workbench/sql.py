"""``sphragis sql``: read-only SQL on the warehouse (issue #16).

* ``sphragis sql "select …"`` runs one query and prints the result (``--format
  table|csv|json|markdown``, ``--output FILE``);
* ``sphragis sql -f FILE`` runs a ``.sql`` file, or an analysis of ``sql/analyses/`` by name
  (``sphragis sql -f top_annotator_gaps``);
* ``sphragis sql`` with no query opens an interactive shell on the warehouse, read-only
  (:func:`shell`: harlequin, the ``workbench`` extra, else DuckDB's own CLI when installed).

The warehouse is always opened with ``read_only=True``: a statement that would write (``create``,
``insert``, ``drop``, ...) is refused by DuckDB, the file is never modified (no WAL is created),
and a running build, which writes ``<warehouse>.building-<pid>`` and renames it into place
(:mod:`sphragis.build`), is not disturbed. A query error is raised as :class:`QueryError` with
DuckDB's message, which names the position (``LINE n:`` and a caret); the CLI prints it as one
error and exits with status 1, never a traceback.
"""

from __future__ import annotations

import csv
import datetime as _dt
import decimal
import io
import json
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .. import config
from ..queries import open_warehouse

FORMATS = ("table", "csv", "json", "markdown")

#: Rows the table format shows by default (first and last halves), like DuckDB's CLI.
DEFAULT_MAX_ROWS = 40


class QueryError(RuntimeError):
    """A query failed or could not be run; the message is DuckDB's (with the position)."""


def analyses_dir() -> Path:
    """The folder of the named analyses (``sql/analyses/``, beside the seeds)."""
    return config.SEEDS_DIR.parent / "analyses"


def analyses() -> dict[str, Path]:
    """Named analyses: file stem → path of every ``sql/analyses/*.sql``, sorted by name."""
    d = analyses_dir()
    return {p.stem: p for p in sorted(d.glob("*.sql"))} if d.is_dir() else {}


def resolve_file(name: str) -> Path:
    """The ``.sql`` file ``name`` names: an existing path, else an analysis by stem.

    Raises:
        QueryError: neither a file nor an analysis (the message lists the analyses).
    """
    p = Path(name).expanduser()
    if p.is_file():
        return p
    known = analyses()
    stem = Path(name).stem if name.endswith(".sql") else name
    if stem in known:
        return known[stem]
    raise QueryError(f"no SQL file {name!r} and no analysis of that name in {analyses_dir()} "
                     f"(analyses: {', '.join(known) or 'none'})")


def connect(warehouse: Path | None = None) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only.

    Args:
        warehouse: the DuckDB file (default ``SPHRAGIS_WAREHOUSE``).

    Raises:
        QueryError: no warehouse file there, or DuckDB cannot open it (message names the path).
    """
    try:
        return open_warehouse(warehouse)
    except (FileNotFoundError, RuntimeError) as exc:
        raise QueryError(str(exc)) from exc


@dataclass
class Result:
    """A query result: ``columns`` (names), ``types`` (DuckDB type names) and the Arrow ``table``."""

    columns: list[str]
    types: list[str]
    table: object  # pyarrow.Table

    @property
    def rows(self) -> list[tuple]:
        """The rows as Python tuples (DuckDB's Python types: int, float, Decimal, str, list, dict, ...)."""
        cols = [c.to_pylist() for c in self.table.columns]
        return list(zip(*cols)) if cols else []


def query(con: duckdb.DuckDBPyConnection, sql: str) -> Result:
    """Run ``sql`` (one statement, or several of which the last gives the result).

    Raises:
        QueryError: DuckDB's message (parser, binder, conversion, read-only refusal, ...), which
            carries the position as ``LINE n: …`` and a caret; or the statement returns no rows.
    """
    if not sql.strip():
        raise QueryError("empty query")
    try:
        cur = con.execute(sql)
        if cur is None or cur.description is None:
            raise QueryError("the statement returned no result (the warehouse is read-only: run a select)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "extra copy" note of DB-API Arrow output
            table = cur.to_arrow_table()
        types = [str(d[1]) for d in cur.description]
    except duckdb.Error as exc:
        raise QueryError(_message(exc)) from exc
    return Result([d[0] for d in cur.description], types, table)


def _message(exc: duckdb.Error) -> str:
    msg = str(exc).strip()
    if "read-only mode" in msg or "read only mode" in msg:
        msg += "\n(sphragis sql opens the warehouse read-only; writes are refused)"
    return msg


# --------------------------------------------------------------------------------------------
# output formats


def _plain(v: object) -> object:
    """A JSON-ready value: Decimal → float, dates → ISO strings, bytes → hex, nested kept."""
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (_dt.date, _dt.datetime, _dt.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, dict)):
        return json.dumps(_plain(v), ensure_ascii=False)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def render(result: Result, fmt: str = "table", max_rows: int | None = DEFAULT_MAX_ROWS,
           max_width: int | None = None) -> str:
    """The result as text.

    Args:
        result: from :func:`query`.
        fmt: ``table`` (DuckDB's box rendering with column types, first/last rows when longer
            than ``max_rows``), ``csv`` (RFC 4180, header row, NULL as empty, nested values as
            JSON), ``json`` (an array of objects), ``markdown`` (a pipe table).
        max_rows: table format only; ``None`` or 0 shows every row.
        max_width: table format only: characters per line (DuckDB elides middle columns beyond
            it); default unlimited.

    Raises:
        ValueError: unknown format.
    """
    if fmt == "table":
        buf = io.StringIO()
        rel = duckdb.connect().from_arrow(result.table)
        rows = result.table.num_rows if not max_rows else max_rows
        from contextlib import redirect_stdout

        with redirect_stdout(buf):
            rel.show(max_rows=max(rows, 1), max_width=max_width or 1_000_000)
        return buf.getvalue().rstrip("\n") + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(result.columns)
        w.writerows([_cell(v) for v in row] for row in result.rows)
        return buf.getvalue()
    if fmt == "json":
        recs = [{c: _plain(v) for c, v in zip(result.columns, row)} for row in result.rows]
        return json.dumps(recs, ensure_ascii=False, indent=1) + "\n"
    if fmt == "markdown":
        def esc(s: str) -> str:
            return s.replace("|", "\\|").replace("\n", " ")

        lines = ["| " + " | ".join(esc(c) for c in result.columns) + " |",
                 "|" + "|".join("---" for _ in result.columns) + "|"]
        lines += ["| " + " | ".join(esc(_cell(v)) for v in row) + " |" for row in result.rows]
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


# --------------------------------------------------------------------------------------------
# interactive shell


def shell_command(warehouse: Path) -> list[str]:
    """The interactive read-only shell to run on ``warehouse``.

    Harlequin (PyPI ``harlequin``, the ``workbench`` extra; a maintained terminal SQL IDE whose
    DuckDB adapter uses the ``duckdb`` Python package installed here, so it reads the warehouse's
    storage version) with ``--read-only``; else the ``duckdb`` CLI with ``-readonly`` when one is on
    PATH.

    Raises:
        QueryError: neither is installed (names the extra to install).
    """
    bindir = Path(sys.executable).parent
    harlequin = shutil.which("harlequin", path=str(bindir)) or shutil.which("harlequin")
    if harlequin:
        return [harlequin, "--adapter", "duckdb", "--read-only", str(warehouse)]
    cli = shutil.which("duckdb", path=str(bindir)) or shutil.which("duckdb")
    if cli:
        return [cli, "-readonly", str(warehouse)]
    raise QueryError("no interactive SQL shell installed: install harlequin with the workbench extra "
                     "(in a checkout `.venv/bin/pip install -e '.[workbench]'`, else "
                     "`pip install 'sphragis-warehouse[workbench]'`), or run one query with `sphragis sql \"select …\"`")


def shell(warehouse: Path | None = None) -> int:
    """Open the interactive shell (:func:`shell_command`) on the warehouse; returns its exit status.

    Raises:
        QueryError: no warehouse, or no shell installed.
    """
    path = warehouse or config.settings().warehouse
    if not path.is_file():
        raise QueryError(f"no warehouse at {path}; run `sphragis build` (or set SPHRAGIS_WAREHOUSE)")
    return subprocess.call(shell_command(path))
