"""``sphragis sql``: read-only SQL on the warehouse.

* ``sphragis sql "select …"`` runs one query and prints the result (``--format
  table|csv|json|markdown``, ``--output FILE``);
* ``sphragis sql -f FILE`` runs a ``.sql`` file, or an analysis of ``sql/analyses/`` by name
  (``sphragis sql -f top_annotator_gaps``);
* ``sphragis sql`` with no query opens an interactive shell on the warehouse, read-only
  (:func:`shell`: harlequin, the ``workbench`` extra, else DuckDB's own CLI when installed).

The warehouse is always opened with ``read_only=True``: a statement that would write (``create``,
``insert``, ``drop``, ...) is refused by DuckDB, the file is never modified (no WAL is created),
and a running build, which writes ``<warehouse>.building-<pid>`` and renames it into place
(:mod:`sphragis.build`), is not disturbed. The connection is then locked down (:data:`LOCKDOWN`,
SPEC §13): no file system access at all (``attach``, ``copy … to``, ``export database``,
``read_csv``/``read_text`` of a path, ``install``/``load`` of an extension are refused), no
extension auto-install or auto-load, and a locked configuration (no ``set`` can undo it). Results
leave only through ``--output``; an analyst's own file is read only when named with ``--table
NAME=FILE`` (:func:`register_files`), read by a separate connection and handed over as a view. A query error is raised as :class:`QueryError` with
DuckDB's message, which names the position (``LINE n:`` and a caret); the CLI prints it as one
error and exits with status 1, never a traceback.
"""

from __future__ import annotations

import csv
import datetime as _dt
import decimal
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .. import config
from ..files import check_output_file
from ..queries import open_warehouse
from ..state import state_dir

FORMATS = ("table", "csv", "json", "markdown")

#: Rows the table format shows by default (first and last halves), like DuckDB's CLI.
DEFAULT_MAX_ROWS = 40


class QueryError(RuntimeError):
    """A query failed or could not be run; the message is DuckDB's (with the position)."""


def analyses_dir() -> Path:
    """The folder of the named analyses (``sql/analyses/``, beside the seeds)."""
    return config.ANALYSES_DIR


def analyses() -> dict[str, Path]:
    """Named analyses: file stem → path of every ``sql/analyses/*.sql``, sorted by name."""
    d = analyses_dir()
    return {p.stem: p for p in sorted(d.glob("*.sql"))} if d.is_dir() else {}


def description(path: Path) -> str:
    """An analysis' description: its whole leading ``--`` comment joined into one line (a
    description spans lines), ``""`` when the file starts with SQL."""
    head = []
    for ln in path.read_text(encoding="utf-8").splitlines():
        if not ln.startswith("--"):
            break
        head.append(ln[2:].strip())
    return " ".join(head)


def resolve_file(name: str) -> Path:
    """The ``.sql`` file ``name`` names: an existing regular ``*.sql`` file, else an analysis by stem.

    Links are followed first and the file they reach is checked: only a regular file whose own
    name ends in ``.sql`` is read, so ``-f`` cannot be used to show (in a parser error) a line of
    another file, through a link named ``x.sql`` or otherwise.

    Raises:
        QueryError: neither a ``.sql`` file nor an analysis (the message lists the analyses).
    """
    p = Path(name).expanduser()
    if p.exists() or p.is_symlink():
        real = Path(os.path.realpath(p))
        if real.suffix.lower() != ".sql" or not real.is_file():
            raise QueryError(f"-f reads only regular .sql files or analyses; {name} is not one "
                             "(to query your own data file, name it with --table NAME=FILE)")
        return real
    known = analyses()
    stem = Path(name).stem if name.endswith(".sql") else name
    if stem in known:
        return known[stem]
    raise QueryError(f"no SQL file {name!r} and no analysis of that name in {analyses_dir()} "
                     f"(analyses: {', '.join(known) or 'none'})")


#: DuckDB settings of every ``sphragis sql`` connection, set in this order right after the
#: warehouse is opened read-only (``tests/test_hostile_shell.py`` checks each refusal on
#: the DuckDB version installed). ``enable_external_access`` off refuses every file system access
#: (attach, copy to, export database, read_* of a path, glob, install); ``lock_configuration`` last,
#: so that no ``set``/``reset``/``pragma`` can undo any of it.
LOCKDOWN = {
    "enable_external_access": "false",
    "autoinstall_known_extensions": "false",
    "autoload_known_extensions": "false",
    "allow_community_extensions": "false",
    "allow_unsigned_extensions": "false",
    "allow_persistent_secrets": "false",
    "lock_configuration": "true",
}


def lockdown_sql() -> str:
    """:data:`LOCKDOWN` as SQL ``set`` statements, one a line (also the interactive shell's init script)."""
    return "".join(f"set {k} = {v};\n" for k, v in LOCKDOWN.items())


def lock_down(con: duckdb.DuckDBPyConnection) -> None:
    """Apply :data:`LOCKDOWN` to ``con``'s database instance.

    DuckDB shares one database instance among the connections of a process to the same file, so a
    second :func:`connect` in one process (the docs site opens the warehouse more than once) finds
    the configuration already locked: then every :data:`LOCKDOWN` setting is checked to hold instead.

    Raises:
        QueryError: the instance's configuration was locked by something else with other settings.
    """
    if _setting(con, "lock_configuration") != "true":
        con.execute(lockdown_sql())
        return
    differ = {k: _setting(con, k) for k, v in LOCKDOWN.items() if _setting(con, k) != v}
    if differ:
        raise QueryError(f"the warehouse is already open in this process with a locked configuration "
                         f"other than sphragis sql's ({', '.join(f'{k}={v}' for k, v in differ.items())})")


def _setting(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """DuckDB setting ``name`` of ``con`` as the lowercase text :data:`LOCKDOWN` writes it in."""
    return str(con.execute("select current_setting(?)", [name]).fetchone()[0]).lower()


def connect(warehouse: Path | None = None, tables: dict[str, Path] | None = None) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only and locked down (:data:`LOCKDOWN`).

    Args:
        warehouse: the DuckDB file (default ``SPHRAGIS_WAREHOUSE``).
        tables: the analyst's own files to offer as views (:func:`register_files`); none by default.

    Raises:
        QueryError: no warehouse file there, DuckDB cannot open it, or a ``tables`` file cannot be
            read (the message names the path).
    """
    try:
        con = open_warehouse(warehouse)
    except (FileNotFoundError, RuntimeError) as exc:
        raise QueryError(str(exc)) from exc
    try:
        lock_down(con)
        register_files(con, tables or {})
    except BaseException:
        con.close()
        raise
    return con


#: File suffix → DuckDB reader of a ``--table`` file.
READERS = {".csv": "read_csv", ".tsv": "read_csv", ".parquet": "read_parquet", ".json": "read_json",
           ".jsonl": "read_json", ".ndjson": "read_json"}


def parse_table_option(text: str) -> tuple[str, Path]:
    """``NAME=FILE`` of ``--table`` as (name, path).

    Raises:
        QueryError: not of that form, NAME not an identifier, or FILE of a kind not in :data:`READERS`.
    """
    name, sep, file = text.partition("=")
    if not sep or not name.isidentifier() or not file:
        raise QueryError(f"--table takes NAME=FILE (NAME a plain identifier), not {text!r}")
    path = Path(file).expanduser()
    if path.suffix.lower() not in READERS:
        raise QueryError(f"--table {text}: {file} is not one of {', '.join(READERS)}")
    return name, path


def output_file(path: str | os.PathLike, warehouse: Path | None = None, *, force: bool = False) -> Path:
    """The file ``sphragis sql --output`` may write (SPEC §13: the shell cannot write anything of
    the product's): never the warehouse (nor a file beside it of its name: manifest, lock, WAL),
    nothing under the mirror, the unpacked sources, the export or the export's state folder, and
    an existing file only with ``force`` (a regular file: never a folder, FIFO or device).

    Returns:
        The absolute path to write.

    Raises:
        sphragis.files.OutputRefused: one line naming the path and why.
    """
    settings = config.settings()
    protected = (*settings.inputs(), warehouse or settings.warehouse, settings.out, state_dir(settings.out))
    return check_output_file(path, protected=protected, force=force)


def register_files(con: duckdb.DuckDBPyConnection, tables: dict[str, Path]) -> None:
    """Offer each of the analyst's ``tables`` (name → CSV/TSV, Parquet or JSON file) on ``con`` as a view.

    The opt-in of ``sphragis sql --table NAME=FILE`` (off by default, README "The warehouse for
    analysts"): each file is read whole by a separate in-memory DuckDB connection and registered
    on ``con`` as Arrow data, so the locked connection itself never gets file access.

    Raises:
        QueryError: a file is missing or DuckDB cannot read it (names the file).
    """
    if not tables:
        return
    reader = duckdb.connect()
    try:
        with tempfile.TemporaryDirectory(prefix="sphragis-table-") as tmp:
            for i, (name, path) in enumerate(tables.items()):
                if not path.is_file():
                    raise QueryError(f"--table {name}={path}: no such regular file")
                # DuckDB's readers expand glob characters (* ? [) in a path; the file is read through
                # a link of a plain name, so FILE is one file, taken literally
                literal = Path(tmp) / f"{i}{path.suffix.lower()}"
                literal.symlink_to(os.path.realpath(path))
                try:
                    data = reader.sql(f"select * from {READERS[path.suffix.lower()]}(?)",
                                      params=[str(literal)]).to_arrow_table()
                except duckdb.Error as exc:
                    raise QueryError(f"--table {name}={path}: cannot read it: {str(exc).splitlines()[0]}") from exc
                con.register(name, data)
    finally:
        reader.close()


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
    elif "disabled by configuration" in msg or "configuration has been locked" in msg:
        msg += ("\n(sphragis sql cannot read or write files, load extensions or change settings: write a "
                "result with --output FILE, offer your own file with --table NAME=FILE)")
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


#: Harlequin profile of the interactive shell (:func:`shell_command`).
SHELL_PROFILE = "sphragis_locked"


def shell_command(warehouse: Path, setup: Path) -> list[str]:
    """The interactive read-only, locked-down shell to run on ``warehouse``.

    Harlequin (PyPI ``harlequin``, the ``workbench`` extra; a maintained terminal SQL IDE whose
    DuckDB adapter uses the ``duckdb`` Python package installed here, so it reads the warehouse's
    storage version) with ``--read-only`` and, as its init script, :func:`lockdown_sql`: its DuckDB
    adapter runs every line right after connecting and refuses to start if one fails, so the
    shell's connection is locked like :func:`connect`'s. The script and a config file
    (``--config-path``, profile :data:`SHELL_PROFILE`: no extensions, init on) are written into
    ``setup``, a folder that must live as long as the shell; the options given on the command line
    override any of the user's own harlequin config files. DuckDB's own CLI is not used: its dot
    commands (``.open``, ``.output``, ``.shell``) reach files outside the SQL lockdown.

    Raises:
        QueryError: harlequin is not installed (names the extra to install).
    """
    bindir = Path(sys.executable).parent
    harlequin = shutil.which("harlequin", path=str(bindir)) or shutil.which("harlequin")
    if not harlequin:
        raise QueryError("no interactive SQL shell installed: install harlequin with the workbench extra "
                         "(in a checkout `.venv/bin/pip install -e '.[workbench]'`, else "
                         "`pip install 'sphragis-warehouse[workbench]'`), or run one query with `sphragis sql \"select …\"`")
    init, conf = setup / "lockdown.sql", setup / "harlequin.toml"
    init.write_text(lockdown_sql(), encoding="utf-8")
    conf.write_text(f'default_profile = "{SHELL_PROFILE}"\n\n[profiles.{SHELL_PROFILE}]\nadapter = "duckdb"\n'
                    f'read_only = true\nno_init = false\nextension = []\nallow_unsigned_extensions = false\n'
                    f'init_path = {json.dumps(str(init))}\n', encoding="utf-8")
    return [harlequin, "--config-path", str(conf), "--profile", SHELL_PROFILE, "--adapter", "duckdb",
            "--read-only", "--init-path", str(init), str(warehouse)]


def shell(warehouse: Path | None = None) -> int:
    """Open the interactive shell (:func:`shell_command`) on the warehouse; returns its exit status.

    Raises:
        QueryError: no warehouse, or no shell installed.
    """
    path = warehouse or config.settings().warehouse
    if not path.is_file():
        raise QueryError(f"no warehouse at {path}; run `sphragis build` (or set SPHRAGIS_WAREHOUSE)")
    with tempfile.TemporaryDirectory(prefix="sphragis-shell-") as setup:
        return subprocess.call(shell_command(path, Path(setup)))
