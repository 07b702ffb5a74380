"""The per-sentence cache of the training treebank's checks (:mod:`.treebank_checks`): one
Parquet file, ``sentences.parquet``, in the cache folder, with a row per sentence
(``level`` null: its key and whether it shows a feature) and a row per incident (line relative to
the sentence's first line, sentence id null for its own, held-back feature warnings marked).
What the key covers is said in :mod:`.treebank_checks`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

#: An incident: (level, type, class, test id, line, sentence id, message).
Record = tuple[int, str, str, str, int, str | None, str]


class Sentence(Protocol):
    """What the cache needs of a sentence (:class:`.treebank_checks.Sentence`): its first line
    (1-based) and its ``sent_id``."""

    first: int
    sent_id: str | None

_CACHE = "sentences.parquet"
_COLUMNS = ("level", "type", "class", "test_id", "line", "sent", "message", "held")


def from_cache(entry: tuple[bool, list], s: Sentence) -> tuple[list[Record], list[Record], bool, bool]:
    """A cached sentence's result with the file's line numbers."""
    saw, rows = entry
    own, held = [], []
    for lvl, typ, cls, test_id, rel, sent, message, delayed in rows:
        (held if delayed else own).append((lvl, typ, cls, test_id, s.first + rel, s.sent_id if sent is None else sent,
                                           message))
    return own, held, saw, False


def read_cache(folder: Path) -> dict[str, tuple[bool, list]]:
    """key → (shows a feature, [(level, type, class, test id, line - first line, sentence id or
    None for its own, message, held back)]); empty when the folder holds no readable cache.

    The one file has a row per sentence (``level`` null) and a row per incident."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        t = pq.read_table(folder / _CACHE).to_pydict()
    except (OSError, pa.ArrowException):
        return {}
    out: dict[str, tuple[bool, list]] = {}
    for key, saw, *row in zip(t["key"], t["saw"], *(t[c] for c in _COLUMNS)):
        if row[0] is None:
            out[key] = (saw, [])
        else:
            out[key][1].append(tuple(row))
    return out


def write_cache(folder: Path, entries: list[tuple[str, Sentence, tuple]]) -> None:
    """Replace the cache with ``entries`` (key, sentence, result): one Parquet file, written to a
    temporary file and renamed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows: dict[str, list] = {c: [] for c in ("key", "saw", *_COLUMNS)}
    for key, s, (own, held, saw, _whole) in entries:
        for c, v in zip(rows, (key, saw, None, None, None, None, None, None, None, None)):
            rows[c].append(v)
        for delayed, incs in ((False, own), (True, held)):
            for lvl, typ, cls, test_id, line, sent, message in incs:
                for c, v in zip(rows, (key, saw, lvl, typ, cls, test_id, line - s.first,
                                       None if sent == s.sent_id else sent, message, delayed)):
                    rows[c].append(v)
    table = pa.table(rows, schema=pa.schema([
        ("key", pa.string()), ("saw", pa.bool_()), ("level", pa.int8()), ("type", pa.string()),
        ("class", pa.string()), ("test_id", pa.string()), ("line", pa.int32()), ("sent", pa.string()),
        ("message", pa.string()), ("held", pa.bool_())]))
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{_CACHE}.tmp-{os.getpid()}"
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, folder / _CACHE)
    finally:
        tmp.unlink(missing_ok=True)
    for old in folder.glob("*.json"):  # the per-file cache of earlier versions
        old.unlink(missing_ok=True)
