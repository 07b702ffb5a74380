"""The raw layer's state: the sha256 of every source file (cached by stat,
:func:`source_digests`), the fingerprint of what an ingest would make (:func:`ingest_fingerprint`:
the files and the ingest code, derived from the import closure of the ingest package by
:func:`sphragis.state.module_closure`, the function the export, audit and treebank states use)
and the fingerprints the models see of the raw tables (:func:`source_fingerprints`)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pkgutil
import re
import time
from pathlib import Path

import duckdb

from . import config, pins, state
from .files import read_json_record, read_regular, write_json


def sources_cache_path(warehouse: Path) -> Path:
    """The sha256 of each source file with the file's stat when hashed: ``<warehouse>.sources.json``
    (:func:`ingest_fingerprint`)."""
    return warehouse.with_name(warehouse.name + ".sources.json")


#: A file changed this close (seconds) before it was hashed is not cached: a write in the same
#: timestamp tick could leave size, mtime and ctime as they were (git's "racy" index entries).
RACY_SECONDS = 3


def source_digests(files, cache: Path | None = None, *, trust_cache: bool = True) -> dict[str, str]:
    """``str(abspath)`` → sha256 of each source file (``files``: :class:`SourceFile` list).

    Args:
        cache: a JSON file of earlier sha256s (:func:`sources_cache_path`), or None to hash every
            file. A file's cached sha256 is used only while its size, mtime, ctime, inode and device
            (``os.stat``, ns) are all as they were when it was hashed; ctime is set by the kernel on
            every write and cannot be restored by ``touch``, ``cp -p``, ``tar`` or ``rsync``, and a
            file modified less than :data:`RACY_SECONDS` before it was hashed is never cached. The
            cache is rewritten only when an entry changed. Saves hashing every
            source file on every build. A cache that cannot be used (not a regular file, not JSON, not
            an object; :func:`sphragis.files.read_json_record`) is no cache, and an entry of the
            wrong shape is no entry: those files are hashed again.
        trust_cache: False hashes every file (``--full``) and still refreshes ``cache``.
    """
    from .ingest.sources import escape_bad_bytes

    known = (read_json_record(cache) or {}) if cache is not None else {}
    fresh: dict = {}
    digests: dict[str, str] = {}
    racy_before = time.time_ns() - RACY_SECONDS * 1_000_000_000
    for f in files:
        key = escape_bad_bytes(str(f.abspath))  # the cache is UTF-8 JSON
        st = os.stat(f.abspath)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        entry = known.get(key)
        if trust_cache and isinstance(entry, list) and entry[:-1] == stamp and _is_sha256(entry[-1]):
            digest = entry[-1]
        else:  # the bytes an ingest would read (regular files only, bounded)
            digest = hashlib.sha256(read_regular(f.abspath, config.MAX_SOURCE_BYTES)).hexdigest()
        if max(st.st_mtime_ns, st.st_ctime_ns) < racy_before:
            fresh[key] = [*stamp, digest]
        digests[str(f.abspath)] = digest
    if cache is not None and fresh != known:
        write_json(cache, fresh, sort_keys=True)
    return digests


def _is_sha256(value) -> bool:
    """True for a sha256 as the cache records it: 64 lowercase hex digits."""
    return isinstance(value, str) and len(value) == 64 and not value.strip("0123456789abcdef")


#: The ingest package: its modules, and every module of ``sphragis`` they import, are the ingest's code.
INGEST_PACKAGE = "sphragis.ingest"
_QUERY_CALL = re.compile(r"""\bquery\(\s*["']([\w-]+)["']\s*\)""")


def _queries_called(modules: list[str]) -> list[Path]:
    """The named queries that the source of ``modules`` names in ``query(...)`` calls by a literal
    (a docstring's example too: over-inclusive at worst, an edit to such a query re-ingests once more)."""
    from .queries import QUERIES_DIR

    names = set()
    for name in modules:
        path = state.module_file(name)
        if path is not None:
            names.update(_QUERY_CALL.findall(path.read_text(encoding="utf-8")))
    return [QUERIES_DIR / f"{n}.sql" for n in sorted(names)]


def ingest_reads() -> dict:
    """What an ingest reads besides the source files, as a :func:`sphragis.state.reads` document:
    ``modules``, the import closure (:func:`sphragis.state.module_closure`) of every module of the
    ingest package; ``files``, the raw tables' DDL ``sql/ddl/raw.sql``, the named queries that code
    runs, the pin list and the seed ``layer_attributes`` (the attributes a multi-layer dialect
    parser checks); ``variables``, the depth limit ``config.MAX_TREE_DEPTH`` (the parser's
    rejection limit), the size limit ``config.MAX_SOURCE_BYTES`` and what the ingest reads of the
    project registry: each project's ``format`` (its parser), ``published_layer`` (the layer a
    dialect checks) and ``in_benchmark`` (the order files are numbered in), so that another
    registry edit (an attribution, a rule) rebuilds the models that read it but re-ingests nothing;
    ``libraries``, the versions of the libraries that code imports (lxml, pyarrow, …)."""
    spec = importlib.util.find_spec(INGEST_PACKAGE)
    roots = (INGEST_PACKAGE,
             *(f"{INGEST_PACKAGE}.{m.name}" for m in pkgutil.iter_modules(spec.submodule_search_locations)))
    modules = state.module_closure(roots)
    files = [config.SQL_DIR / "ddl" / "raw.sql", *_queries_called(modules), config.SOURCES_FILE,
             config.SEEDS_DIR / "layer_attributes.csv"]
    registry = {p["project"]: [p["format"], p["published_layer"], p["in_benchmark"]] for p in config.projects()}
    return {"modules": modules, "files": [str(f) for f in files], "tables": [],
            "variables": {"max_tree_depth": config.MAX_TREE_DEPTH, "max_source_bytes": config.MAX_SOURCE_BYTES,
                          "registry": registry},
            "libraries": state.libraries_of(roots)}


def ingest_fingerprint(files, cache: Path | None = None, *, trust_cache: bool = True,
                       digests: dict[str, str] | None = None) -> str:
    """Content hash of the raw layer a build would ingest: sha256 over every source file's (snapshot,
    path, sha256 of its bytes) and over the fingerprint (:func:`sphragis.state.fingerprint`, the
    one of every step's state) of what the ingest code reads (:func:`ingest_reads`: its modules
    found by their imports, DDL, named queries, pin list, depth limit, library versions). Equal
    fingerprints mean equal raw tables (ingest is deterministic, SPEC §9).

    ``cache`` and ``trust_cache``: as :func:`source_digests`, which gives the files' sha256 unless
    ``digests`` (its result) is passed.
    """
    if digests is None:
        digests = source_digests(files, cache, trust_cache=trust_cache)
    h = hashlib.sha256(state.fingerprint(state.digests(ingest_reads())).encode() + b"\n")
    for f in files:
        h.update(f"{f.snapshot['name']}\0{f.path}\0{digests[str(f.abspath)]}\n".encode())
    return h.hexdigest()


RAW_TABLES = ("raw_files", "raw_sentences", "raw_tokens", "raw_file_elements", "raw_metadata_files", "ingest_rejects")


def source_fingerprints(con: duckdb.DuckDBPyConnection, raw_fingerprint: str | None) -> dict[str, str]:
    """``"raw.<table>"`` → fingerprint of every source the models read: the raw tables share
    :func:`ingest_fingerprint`; ``pin_missing_files`` (made anew by every build from the pin list,
    :func:`sphragis.pins.load_missing_files`, and read here from ``con``) the sha256 of its rows."""
    fps = {f"raw.{t}": raw_fingerprint for t in RAW_TABLES} if raw_fingerprint else {}
    pin_rows = con.execute("select * from pin_missing_files order by all").fetchall()
    fps["raw.pin_missing_files"] = hashlib.sha256(repr(pin_rows).encode()).hexdigest()
    return fps


def source_fingerprints_of(settings: config.Settings, raw_fingerprint: str | None) -> dict[str, str]:
    """:func:`source_fingerprints` without a warehouse: the pin list loaded into a scratch database."""
    mem = duckdb.connect()
    try:
        pins.load_missing_files(mem, settings)
        return source_fingerprints(mem, raw_fingerprint)
    finally:
        mem.close()

