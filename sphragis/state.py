"""One state for the incremental steps after the models: export, audit, treebank (SPEC §13
"Nothing is stale").

A step redoes its work when anything it reads changed. What it reads (:func:`reads`, a JSON
document kept in its state) is derived, never listed by hand:

* **modules**: the step's module and every module of the ``sphragis`` package it imports,
  transitively (:func:`module_closure`: the ``import`` statements of each module's source,
  those inside functions included);
* **files**: every package file read by the process so far, recorded as it is read
  (:func:`note_read`): named queries (:func:`sphragis.queries.query`), seeds
  (:func:`sphragis.config.read_seed`), the pin list (:func:`sphragis.config.snapshots`),
  templates (:func:`template_loader`); plus the files a step names itself (the audit's Parquet
  inputs);
* **tables**: every warehouse table named by the SQL the step runs (:class:`RecordingConnection`,
  by DuckDB's own parser), fingerprinted by the build manifest (a model's output fingerprint,
  which early cutoff keeps; a seed's; a raw table's), or by a hash of its rows when the manifest
  does not know it;
* **variables**: the step's options; **libraries**: the versions of the distributions it uses.

:func:`digests` gives one digest per input, :func:`fingerprint` (the one function) hashes them;
:class:`Store` keeps a step's state in ``<out>.state/<step>.json``, written to a temporary file
and renamed (:func:`sphragis.files.write_json`). Before it works, a step recomputes the digests of
what its last run read; equal fingerprints (and its outputs as it wrote them) mean nothing to do,
and :func:`changed` names what differs otherwise.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .files import read_json_record, write_json

if TYPE_CHECKING:  # imported where used: sphragis.config imports this module
    import duckdb
    import pyarrow as pa

#: The package whose modules count as a step's code (``sphragis.export``, ``sphragis.ingest``, …
#: are its sub-packages).
PACKAGE = "sphragis"
#: The table name recorded when a statement's tables cannot be told: the step then depends on
#: every table of the manifest.
ALL_TABLES = "*"

_lock = threading.Lock()
_read: set[str] = set()


def note_read(path: str | Path) -> None:
    """Record that this process read the file ``path`` (called where package files are read)."""
    with _lock:
        _read.add(str(Path(path).resolve()))


def files_read() -> list[str]:
    """Every file recorded by :func:`note_read` in this process, sorted (absolute paths)."""
    with _lock:
        return sorted(_read)


def template_loader(folder: str | Path):
    """A ``jinja2.FileSystemLoader`` of ``folder`` that records every template it loads
    (includes and parents too) with :func:`note_read`."""
    import jinja2

    class _Recording(jinja2.FileSystemLoader):
        def get_source(self, environment, template):
            source, filename, uptodate = super().get_source(environment, template)
            note_read(filename)
            return source, filename, uptodate

    return _Recording(str(folder))


# --------------------------------------------------------------------------------------------
# modules


def module_file(name: str) -> Path | None:
    """The source file of module ``name`` (its ``__file__`` when imported, else where the import
    system would find it, without importing it); None for a name that is not a module (e.g. a
    function imported with ``from … import``) or has no ``.py`` source."""
    mod = sys.modules.get(name)
    if mod is not None:
        origin = getattr(mod, "__file__", None)
        return Path(origin) if origin and origin.endswith(".py") else None
    parent, _, last = name.rpartition(".")
    if parent:
        parent_file = module_file(parent)
        if parent_file is None or parent_file.name != "__init__.py":
            return None  # a name inside a module, not a sub-module
        for candidate in (parent_file.parent / f"{last}.py", parent_file.parent / last / "__init__.py"):
            if candidate.is_file():
                return candidate
    try:  # e.g. a sub-package mapped to another folder (pyproject's package-dir)
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None and spec.has_location else None
    return Path(origin) if origin and origin.endswith(".py") else None


_imports_cache: dict[tuple[str, int, int], frozenset[str]] = {}


def _imports(name: str, path: Path) -> frozenset[str]:
    """Names ``path`` (module ``name``) imports, relative imports resolved, ``from x import y``
    giving both ``x`` and ``x.y``; cached per file stat."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _imports_cache:
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
        _imports_cache[key] = frozenset(found)
    return _imports_cache[key]


def _closure(roots: tuple[str, ...] | list[str]) -> tuple[list[str], set[str]]:
    """(:func:`module_closure` of ``roots``, the top-level names of the other modules they import)."""
    seen: set[str] = set()
    outside: set[str] = set()
    todo = list(roots)
    for root in roots:
        if module_file(root) is None:
            raise LookupError(f"no source file for module {root}")
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = module_file(name)
        if path is None:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # the enclosing packages
        for imported in _imports(name, path):
            if imported == PACKAGE or imported.startswith(PACKAGE + "."):
                todo.append(imported)
            elif imported:
                outside.add(imported.split(".")[0])
    return sorted(seen), outside


def module_closure(roots: tuple[str, ...] | list[str]) -> list[str]:
    """``roots`` and every module of :data:`PACKAGE` they import, directly or not (imports inside
    functions included: the code a step may run), with the packages that contain them; sorted.

    Raises:
        LookupError: a root is not an importable module with a source file.
    """
    return _closure(roots)[0]


def libraries_of(roots: tuple[str, ...] | list[str]) -> list[str]:
    """The installed distributions (e.g. ``scikit-learn``, ``pyarrow``) providing the modules
    outside :data:`PACKAGE` and the standard library that the closure of ``roots`` imports; sorted."""
    tops = {t for t in _closure(roots)[1] if t not in sys.stdlib_module_names}
    dists: set[str] = set()
    by_module = None
    for top in sorted(tops):
        try:
            importlib.metadata.distribution(top)
            dists.add(top)
            continue
        except importlib.metadata.PackageNotFoundError:
            pass
        if by_module is None:  # scans every installed distribution (slow): only when needed
            by_module = importlib.metadata.packages_distributions()
        dists.update(by_module.get(top, []))
    return sorted(dists)


# --------------------------------------------------------------------------------------------
# tables

_PARAMETER = re.compile(r"\$\w+|\?")


def tables_named(sql: str) -> set[str] | None:
    """The tables and views ``sql`` names (DuckDB's parser; CTE names and table functions are
    not tables), or None when it cannot tell (several statements, a file that a table function
    would have to open, …)."""
    import duckdb

    try:
        return set(duckdb.get_table_names(_PARAMETER.sub("NULL", sql), qualified=False))
    except duckdb.Error:
        return None


class RecordingConnection:
    """A DuckDB connection (or cursor) that records in ``tables`` the tables named by the SQL run
    through ``sql``, ``query``, ``execute`` and ``table`` (:func:`tables_named`; a statement it
    cannot read records :data:`ALL_TABLES`). Its cursors record into the same set; every other
    attribute is the wrapped connection's."""

    def __init__(self, con: duckdb.DuckDBPyConnection, tables: set[str] | None = None):
        self._con = con
        self.tables = tables if tables is not None else set()

    def _note(self, sql: object) -> None:
        if isinstance(sql, str):
            names = tables_named(sql)
            self.tables.update(names if names is not None else {ALL_TABLES})

    def sql(self, query: str, *args, **kwargs):
        self._note(query)
        return self._con.sql(query, *args, **kwargs)

    def query(self, query: str, *args, **kwargs):
        self._note(query)
        return self._con.query(query, *args, **kwargs)

    def execute(self, query: str, *args, **kwargs):
        self._note(query)
        return self._con.execute(query, *args, **kwargs)

    def table(self, name: str):
        self.tables.add(name)
        return self._con.table(name)

    def cursor(self) -> RecordingConnection:
        return RecordingConnection(self._con.cursor(), self.tables)

    def __getattr__(self, name: str):
        return getattr(self._con, name)

    def __enter__(self) -> RecordingConnection:
        return self

    def __exit__(self, *exc) -> None:
        self._con.close()


def relations(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Names of the tables and views (not temporary, not DuckDB's internal views) of ``con``'s
    warehouse: the one check every program makes that the tables it reads exist
    (:func:`sphragis.queries.require_relations`); a model materialized as a view (``mart_published_tokens``)
    counts."""
    return {name for (name,) in con.execute(
        "select table_name from duckdb_tables() where not temporary union all "
        "select view_name from duckdb_views() where not internal and not temporary").fetchall()}


def table_fingerprints(con: duckdb.DuckDBPyConnection, names: list[str] | set[str], manifest: dict) -> dict[str, str]:
    """``"table:<name>"`` → fingerprint of each table of ``names`` in the warehouse ``con``: the
    build ``manifest``'s (:func:`sphragis.runner.read_manifest` of ``con``: a model's
    ``output_fingerprint``, kept by early cutoff when a rebuilt model's rows are unchanged; a
    seed's; a raw table's), else a hash of its rows (count and the sum of the row hashes:
    order-insensitive), ``missing`` when there is no such table. With :data:`ALL_TABLES` among the
    names, the whole manifest counts as one input."""
    known = {n: m.get("output_fingerprint") or m.get("fingerprint") for n, m in manifest.get("models", {}).items()}
    known.update({n: s.get("fingerprint") for n, s in manifest.get("seeds", {}).items()})
    known.update({n.removeprefix("raw."): s.get("fingerprint") for n, s in manifest.get("sources", {}).items()})
    present = relations(con)
    out = {}
    for name in sorted(names):
        if name == ALL_TABLES:
            out["table:*"] = hashlib.sha256(json.dumps(known, sort_keys=True).encode()).hexdigest()
        elif name not in present:
            out[f"table:{name}"] = "missing"
        elif known.get(name):
            out[f"table:{name}"] = known[name]
        else:
            rows, total = con.execute(f'select count(*), sum(hash(t)) from "{name}" as t').fetchone()
            out[f"table:{name}"] = f"rows {rows} hash {total}"
    return out


# --------------------------------------------------------------------------------------------
# the fingerprint


def reads(roots: tuple[str, ...], *, tables: set[str] | list[str] = (), files: list[str | Path] = (),
          variables: dict | None = None) -> dict[str, Any]:
    """What a step read (see the module docstring), as a JSON document for its state.

    Args:
        roots: the step's module(s) (e.g. ``("sphragis.audit",)``); their closure is recorded.
        tables: warehouse tables it read (:attr:`RecordingConnection.tables`).
        files: files it read besides those :func:`note_read` recorded.
        variables: its options (JSON values).

    The libraries recorded are :func:`libraries_of` ``roots``.

    Returns:
        ``{"modules": [...], "files": [...], "tables": [...], "variables": {...}, "libraries": [...]}``.
    """
    return {"modules": module_closure(roots),
            "files": sorted(set(files_read()) | {str(Path(f).resolve()) for f in files}),
            "tables": sorted(tables), "variables": variables or {}, "libraries": libraries_of(roots)}


def _file_digest(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return "missing"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def digests(read: dict[str, Any], con: duckdb.DuckDBPyConnection | None = None,
            manifest: dict | None = None) -> dict[str, str]:
    """One digest per input of ``read`` (:func:`reads`), as they are now: ``module:<name>``
    (sha256 of its source), ``file:<path>`` (sha256), ``table:<name>`` (:func:`table_fingerprints`
    over the warehouse ``con`` and its ``manifest``; with tables but no ``con``, ``table:*`` is
    ``unknown``),
    ``library:<dist>`` (its version), ``variables`` (their JSON).
    """
    out = {"variables": json.dumps(read.get("variables", {}), sort_keys=True)}
    for name in read.get("modules", []):
        path = module_file(name)
        out[f"module:{name}"] = _file_digest(path) if path is not None else "missing"
    for f in read.get("files", []):
        out[f"file:{f}"] = _file_digest(Path(f))
    for dist in read.get("libraries", []):
        out[f"library:{dist}"] = _version(dist)
    if read.get("tables"):
        out.update(table_fingerprints(con, read["tables"], manifest or {}) if con is not None
                   else {"table:*": "unknown"})
    return out


def fingerprint(digest: dict[str, str], *, code_only: bool = False) -> str:
    """sha256 of ``digest`` (:func:`digests`); ``code_only`` leaves the tables out (what a step's
    code, files, options and libraries make of the same rows)."""
    kept = {k: v for k, v in digest.items() if not (code_only and k.startswith("table:"))}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()


#: The digest :func:`settle` gives an input that changed while a step ran.
CHANGED_WHILE_RUNNING = "changed while the step ran"


def settle(at_start: dict[str, str], at_end: dict[str, str]) -> dict[str, str]:
    """The digests to save after a run: ``at_end`` (:func:`digests` once the outputs are in place),
    except that an input whose digest differs from ``at_start`` (taken before the run) was edited
    while the step read it, and gets :data:`CHANGED_WHILE_RUNNING`, so the next run redoes the work.
    (``variables`` are this run's options, not something read: they may differ from the last run's.)"""
    return {k: CHANGED_WHILE_RUNNING if k != "variables" and k in at_start and at_start[k] != v else v
            for k, v in at_end.items()}


def changed(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The inputs whose digest differs between ``before`` and ``now`` (added or gone too), sorted."""
    return sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))


#: What :func:`check` and the steps give as the change when there is nothing to compare: no state
#: of an earlier run, or ``--full``.
NOTHING_TO_COMPARE = (["no state"], ["--full"])


def describe(keys: list[str], limit: int = 3) -> str:
    """A short phrase naming changed inputs (:func:`changed`), e.g. ``file variant_chunks.sql,
    module sphragis.udfs and 2 more``."""
    names = [k.split(":", 1)[0] + " " + Path(k.split(":", 1)[1]).name if k.startswith("file:")
             else k.replace(":", " ", 1) for k in keys]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


# --------------------------------------------------------------------------------------------
# the store


def state_dir(out: Path) -> Path:
    """The state folder of the output folder ``out``: ``<out>.state`` beside it, outside what is
    published."""
    return out.with_name(out.name + ".state")


class Store:
    """A step's state: ``<out>.state/<step>.json`` (:func:`state_dir`), one JSON document."""

    def __init__(self, out: Path, step: str):
        self.path = state_dir(out) / f"{step}.json"

    def load(self) -> dict[str, Any]:
        """The saved document, or {} when there is none or it cannot be read."""
        return read_json_record(self.path) or {}

    def save(self, doc: dict[str, Any]) -> Path:
        """Write ``doc`` atomically (temporary file, then rename)."""
        return write_json(self.path, doc, sort_keys=True)

    def table_path(self, name: str) -> Path:
        """Where the step's Arrow table ``name`` is kept: ``<out>.state/<name>.parquet``."""
        return self.path.with_name(f"{name}.parquet")

    def save_table(self, name: str, table: pa.Table) -> Path:
        """Write ``table`` atomically to :meth:`table_path` (temporary file, then rename)."""
        import pyarrow.parquet as pq

        path = self.table_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return path

    def load_table(self, name: str) -> pa.Table | None:
        """The table :meth:`save_table` kept, or None when there is none or it cannot be read."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return pq.read_table(self.table_path(name))
        except (OSError, pa.ArrowInvalid):
            return None


def check(doc: dict[str, Any], con: duckdb.DuckDBPyConnection | None = None,
          manifest: dict | None = None) -> tuple[dict[str, str], list[str]]:
    """Compare a step's saved state ``doc`` (keys ``reads``, ``digests``) with its inputs now (the
    tables in the warehouse ``con`` with its build ``manifest``: :func:`digests`).

    Returns:
        (the digests now of what the last run read, the inputs that changed; ``["no state"]``
        when ``doc`` records no reads).
    """
    if not doc.get("reads") or not doc.get("digests"):
        return {}, ["no state"]
    now = digests(doc["reads"], con, manifest)
    return now, changed(doc["digests"], now)


def stamps(root: Path, rels: list[str] | None = None) -> dict[str, list[int]]:
    """``{relative path: [size, mtime_ns]}`` of the files ``rels`` under ``root`` (default every
    file), to tell later whether outputs are still the ones written (:func:`intact`)."""
    paths = [root / r for r in rels] if rels is not None else sorted(p for p in root.rglob("*") if p.is_file())
    out = {}
    for p in paths:
        st = p.stat()
        out[p.relative_to(root).as_posix()] = [st.st_size, st.st_mtime_ns]
    return out


def intact(root: Path, recorded: dict[str, list[int]]) -> bool:
    """Whether every file of ``recorded`` (:func:`stamps`) is under ``root`` with the size and
    mtime recorded."""
    try:
        return bool(recorded) and stamps(root, list(recorded)) == recorded
    except OSError:
        return False
