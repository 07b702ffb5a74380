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
    """One upstream file to ingest: its snapshot (pin-list dict), absolute path, and repo path
    (``path``: a name that is not valid UTF-8 has its bad bytes written ``\\xNN``,
    :func:`escape_bad_bytes`, so that it can be stored and printed; ``abspath`` is the real one)."""

    snapshot: dict
    abspath: Path
    path: str


def discover(snapshot_roots: dict[str, Path], snapshots: Iterable[dict]) -> list[SourceFile]:
    """List the treebank files of every snapshot, sorted by (snapshot name, path).

    Args:
        snapshot_roots: snapshot name → folder holding the unpacked upstream tree.
        snapshots: pin-list entries (``treebank_files`` and ``exclude`` globs, relative paths).

    Raises:
        FileNotFoundError: a snapshot folder is missing, or its globs match no file (names both).
        sphragis.files.InputFileError: a name the globs match is neither a folder (skipped) nor a
            regular file: a FIFO, a device, a socket, a link to nothing (SPEC §13: regular files only).
    """
    out: list[SourceFile] = []
    for snap in sorted(snapshots, key=lambda s: s["name"]):
        root = snapshot_roots.get(snap["name"])
        if root is None or not root.is_dir():
            raise FileNotFoundError(f"snapshot {snap['name']!r} is not unpacked at {root}; run `sphragis fetch`")
        matched = {p.relative_to(root).as_posix() for pattern in snap["treebank_files"] for p in root.glob(pattern)
                   if not p.is_dir()}
        found = {f for f in matched if not any(fnmatch.fnmatch(f, ex) for ex in snap.get("exclude", []))}
        for f in sorted(found):
            require_regular(root / f)
        if not found:
            raise FileNotFoundError(f"snapshot {snap['name']!r}: no file under {root} matches {snap['treebank_files']}")
        out.extend(SourceFile(snap, root / f, escape_bad_bytes(f)) for f in sorted(found))
    return out
