"""The warehouse file and its manifest file: where the manifest goes (:func:`manifest_path`), the
stamp of the file it describes (:func:`warehouse_stamp`), every table's recorded content
(:func:`record_contents`) and the check of tables changed behind a build's back
(:func:`changed_tables`, :func:`distrust`; SPEC §13)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb

from . import runner
from .files import read_json_record, write_json


def manifest_path(warehouse: Path) -> Path:
    """Where a build writes the manifest of the warehouse it made: ``<warehouse>.manifest.json``
    (default ``warehouse.duckdb.manifest.json``; format: :func:`sphragis.runner.manifest`)."""
    return warehouse.with_name(warehouse.name + ".manifest.json")


def warehouse_stamp(path: Path) -> list[int]:
    """A cheap stamp of the warehouse file: ``[size, mtime_ns, inode, device]`` (``os.stat``).

    Any write to the file through DuckDB (another connection deleting rows, dropping a table)
    changes its mtime; a rename keeps all four, so the stamp of ``<warehouse>.building-<pid>`` taken
    before the swap is the stamp of the warehouse after it. Recorded in the manifest file under
    ``warehouse_stamp`` (:func:`write_manifest`)."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def write_manifest(path: Path, manifest: dict, stamp: list[int]) -> None:
    """Write ``manifest`` (:func:`sphragis.runner.manifest`) with the ``stamp`` of the warehouse file
    it describes (:func:`warehouse_stamp`) to ``path``, atomically (temporary file and rename)."""
    write_json(path, {**manifest, "warehouse_stamp": stamp}, sort_keys=True)


def _recorded_tables(manifest: dict) -> dict[str, tuple[str, dict]]:
    """table → (kind ``source``/``seed``/``model``, its manifest record) for every table a build made:
    the tables whose content a build records (:func:`record_contents`) and checks when the warehouse
    file changed behind its back (:func:`changed_tables`); views are not checked."""
    out = {k.split(".", 1)[1]: ("source", v) for k, v in manifest.get("sources", {}).items() if k.startswith("raw.")}
    out.update({n: ("seed", v) for n, v in manifest.get("seeds", {}).items()})
    out.update({n: ("model", v) for n, v in manifest.get("models", {}).items() if v.get("materialized") != "view"})
    return out


def record_contents(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    """Put the content (:func:`sphragis.runner.content_of`: columns, rows, order-insensitive row hash)
    of every table of :func:`_recorded_tables` that lacks one into ``manifest`` and store it again
    in ``build_manifest``. A model rebuilt with early cutoff already has it. On the real
    warehouse this is a small share of a full build."""
    present = set(runner.relations(con))
    for name, (_kind, rec) in _recorded_tables(manifest).items():
        c = rec.get("content")
        if name in present and not (isinstance(c, list) and len(c) == 4 and c[2] is not None):
            rec["content"] = runner.content_of(con, name)
    runner.store_manifest(con, manifest)


def changed_tables(target: Path, manifest: dict, *, heal: bool = True) -> dict[str, str] | None:
    """Tables of the warehouse ``target`` whose content is no longer what its build recorded.

    Cheap when nothing happened: only when the file's :func:`warehouse_stamp` differs from the one
    in the manifest file (or that has none) is every recorded table checked, by its row hash
    (:func:`sphragis.runner.content_of`, a few seconds on the real warehouse).

    Returns:
        None when the stamp is unchanged (nothing checked); else table → what changed (``dropped``
        or ``content changed``), empty when every table is as built (then, with ``heal``, the
        manifest file is rewritten with the warehouse's manifest and the new stamp: this is how a
        manifest file left stale by a kill between the swap's two renames is replaced).
    """
    if not target.exists() or not manifest:
        return None
    mpath = manifest_path(target)
    recorded = (read_json_record(mpath) or {}).get("warehouse_stamp")
    stamp = warehouse_stamp(target)
    if recorded == stamp:
        return None
    con = duckdb.connect(str(target), read_only=True)
    try:
        present = set(runner.relations(con))
        changed = {}
        for name, (_kind, rec) in _recorded_tables(manifest).items():
            c = rec.get("content")
            if name not in present:
                if rec.get("fingerprint") or c:
                    changed[name] = "dropped"
            elif isinstance(c, list) and len(c) == 4 and c[2] is not None and runner.content_of(con, name)[:3] != c[:3]:
                changed[name] = "content changed"
    finally:
        con.close()
    if not changed and heal:
        write_manifest(mpath, manifest, stamp)
    return changed


def distrust(manifest: dict, changed: dict[str, str]) -> dict:
    """``manifest`` with the records of the ``changed`` tables marked so that a build remakes them:
    a seed is reloaded, a model rebuilt (reason "changed outside a build"); a raw table changed
    needs a re-ingest (the caller's decision)."""
    out = json.loads(json.dumps(manifest))
    for name, (kind, _rec) in _recorded_tables(out).items():
        if name in changed and kind == "seed":
            out["seeds"][name]["fingerprint"] = None
        elif name in changed and kind == "model":
            out["models"][name].update(fingerprint=None, changed_outside=changed[name])
    return out

