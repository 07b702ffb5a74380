"""The treebank files an ingest reads (SPEC §2): the pin list's ``treebank_files`` globs under each
unpacked snapshot. Kept apart from :mod:`.load` so that checking the sources (every build does)
imports neither Arrow nor NumPy.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sphragis.files import require_regular


#: An undecodable byte, as ``surrogateescape`` decoding (file contents, and POSIX file names in
#: Python) leaves it in a string.
BAD_BYTE = re.compile("[\udc80-\udcff]")


def escape_bad_bytes(text: str | None) -> str | None:
    """``text`` with each undecodable byte (a ``surrogateescape`` surrogate) written ``\\xNN``: such
    a string cannot be stored (UTF-8) as it is. None and clean text are returned unchanged."""
    if text is None or not BAD_BYTE.search(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class SourceFile:
    """One upstream file to ingest: its snapshot (pin-list dict), absolute path, repo path
    (``path``: a name that is not valid UTF-8 has its bad bytes written ``\\xNN``,
    :func:`escape_bad_bytes`, so that it can be stored and printed; ``abspath`` is the real one),
    and its ``kind``, the pin-list key that listed it (a treebank file or a metadata file)."""

    snapshot: dict
    abspath: Path
    path: str
    kind: str = "treebank_files"  # or "metadata_files" (:func:`discover`)


def discover(snapshot_roots: dict[str, Path], snapshots: Iterable[dict], kind: str = "treebank_files") -> list[SourceFile]:
    """List the treebank files (or, with ``kind="metadata_files"``, the metadata files: upstream
    files that describe the treebank files, such as a site's configuration) of every snapshot,
    sorted by (snapshot name, path), the snapshots of the projects the benchmark draws from first
    (pin ``in_benchmark``, :func:`sphragis.config.snapshots`): the ingest numbers files and
    sentences in this order, so a project joining the warehouse outside the benchmark changes no
    id the benchmark's rows carry (``source_records.sentence_uid``).

    Args:
        snapshot_roots: snapshot name → folder holding the unpacked upstream tree.
        snapshots: pin-list entries (``kind`` and ``exclude`` globs, relative paths; a snapshot
            without ``metadata_files`` has none).
        kind: the pin-list key of the globs, ``treebank_files`` or ``metadata_files``.

    Raises:
        FileNotFoundError: a snapshot folder is missing, or its globs match no file (names both).
        sphragis.files.InputFileError: a name the globs match is neither a folder (skipped) nor a
            regular file: a FIFO, a device, a socket, a link to nothing (SPEC §13: regular files only).
    """
    out: list[SourceFile] = []
    for snap in sorted(snapshots, key=lambda s: (s.get("in_benchmark", "true") != "true", s["name"])):
        if kind not in snap and kind != "treebank_files":
            continue
        root = snapshot_roots.get(snap["name"])
        if root is None or not root.is_dir():
            raise FileNotFoundError(f"snapshot {snap['name']!r} is not unpacked at {root}; run `sphragis fetch`")
        matched = {p.relative_to(root).as_posix() for pattern in snap[kind] for p in root.glob(pattern)
                   if not p.is_dir()}
        found = {f for f in matched if not any(fnmatch.fnmatch(f, ex) for ex in snap.get("exclude", []))}
        for f in sorted(found):
            require_regular(root / f)
        if not found:
            raise FileNotFoundError(f"snapshot {snap['name']!r}: no file under {root} matches {snap[kind]}")
        out.extend(SourceFile(snap, root / f, escape_bad_bytes(f), kind) for f in sorted(found))
    return out
