"""The export's state (:mod:`sphragis.state`): what the last export read and wrote, kept beside it
in ``<out>.state/``, so that an export with nothing changed does nothing, units already validated
are not validated again and unchanged configuration splits are linked rather than rewritten.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pyarrow as pa

from sphragis import state
from sphragis.benchmark import CONFIGS, SPLITS
from sphragis.queries import query

from .card import CARD_NAME

#: The export's code: the exporter's module and every module of the package it imports (its
#: state's reads, :func:`sphragis.state.reads`, derived from the imports, with the named queries,
#: seeds, templates and tables the export reads as it runs).
STEP = "sphragis.export.writer"


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
                and all((out / f).exists() for f in (CARD_NAME, "metadata")))

    def unvalidated(self, hashes: pa.Array) -> list[bool]:
        """Per unit: True when it must be validated (its content hash is not in the cache)."""
        return [h not in self.validated for h in hashes.to_pylist()]

    def file_fingerprints(self, con, units: pa.Table, hashes: pa.Array) -> dict[tuple[str, str], str]:
        """(config, split) → sha256 of what its file is written from (the code is the state's
        ``code`` fingerprint): the rows of ``mart_benchmark_rows`` in output order and the content
        hashes (``hashes``, in the order of ``units``) of the units those rows hold, in the order
        they hold them. Units the file does not hold are not in it: an edit that changes some
        published rows leaves the fingerprint of every file not holding them as it was, so those
        files are linked, not rewritten (their bytes would be the same)."""
        con.register("unit_h", pa.table({"row_id": units.column("row_id"), "h": hashes}))
        try:
            got = con.sql(query("export_file_fingerprints")).fetchall()
        finally:
            con.unregister("unit_h")  # registered for this query only: the state records no scratch relation
        fps = {(c, s): hashlib.sha256(f"rows+units|{h}".encode()).hexdigest() for c, s, h in got}
        return {(c, s): fps.get((c, s), "empty") for c in CONFIGS for s in SPLITS}

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
