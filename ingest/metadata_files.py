"""Metadata files of a snapshot (SPEC §1.1, §2): upstream files that describe the treebank files
instead of holding trees (pin-list key ``metadata_files``, e.g. UNESP Trees' site configuration
``src/config.json``, which maps each file to author, work and locus), read verbatim into
``raw_metadata_files``; the staging models parse them (DuckDB's JSON functions), so a new
metadata file needs no Python.
"""

from __future__ import annotations

import hashlib

import duckdb
import pyarrow as pa

from .sources import SourceFile, escape_bad_bytes


def load_metadata_files(con: duckdb.DuckDBPyConnection, files: list[SourceFile]) -> int:
    """Insert ``files`` (:func:`sphragis.ingest.sources.discover` with ``kind="metadata_files"``)
    into ``raw_metadata_files`` (created by the raw DDL): snapshot, project, path, sha256, bytes and
    the text (UTF-8; an undecodable byte written ``\\xNN``, :func:`escape_bad_bytes`).

    Returns:
        The number of files inserted.

    Raises:
        OSError: a file cannot be read (names it).
    """
    cols: dict[str, list] = {c: [] for c in ("snapshot", "project", "path", "sha256", "bytes", "content")}
    for f in files:
        data = f.abspath.read_bytes()
        text = escape_bad_bytes(data.decode("utf-8", "surrogateescape"))
        for column, value in zip(cols, (f.snapshot["name"], f.snapshot["project"], f.path,
                                        hashlib.sha256(data).hexdigest(), len(data), text)):
            cols[column].append(value)
    table = pa.Table.from_pydict(cols, schema=pa.schema([
        ("snapshot", pa.string()), ("project", pa.string()), ("path", pa.string()), ("sha256", pa.string()),
        ("bytes", pa.int64()), ("content", pa.string())]))
    con.register("_metadata_in", table)
    con.execute("insert into raw_metadata_files by name select * from _metadata_in")
    con.unregister("_metadata_in")
    return len(files)
