"""The authorship-predictions format of ``sphragis score`` and the export fingerprint (SPEC §11):
the one home of the field names, the file locations and the fingerprint rule, shared by the
scorer (:mod:`sphragis.submission`), the audit that writes the reference submission
(:mod:`sphragis.audit`) and the leaderboard (:mod:`sphragis.leaderboard`).

* A predictions record: ``id`` (a test row's id), ``config``, ``author`` (the predicted label) and
  optionally ``scores`` (``{label: number}``); JSON Lines, or CSV with ``scores.<label>`` columns.
* The **export fingerprint** (:func:`export_fingerprint`): the sha256 of the ``sha256sum``-style
  listing ``<sha256>  data/<config>/<file>.parquet`` of every Parquet file of the export, sorted
  by path, i.e. ``cd <export> && find data -name '*.parquet' | LC_ALL=C sort | xargs sha256sum |
  sha256sum``. The metadata and the card are left out: the audit and the leaderboard write there
  without changing what a model is scored on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from .files import write_text_atomic

__all__ = ["CSV_SCORE_PREFIX", "EVAL_SPLIT", "FIELDS", "FORMAT", "REFERENCE", "SCORES", "TOP_K", "SubmissionError",
           "export_fingerprint", "write_jsonl"]

#: The split a submission predicts.
EVAL_SPLIT = "test"
#: Fields of a prediction record, in this order; ``scores`` is optional.
FIELDS = ("id", "config", "author")
SCORES = "scores"
#: CSV column prefix of a per-author score.
CSV_SCORE_PREFIX = "scores."
#: The scored-submission format written by ``sphragis score --json`` (read by the leaderboard).
FORMAT = "sphragis-score/1"
#: k of the top-k accuracy that ``sphragis score`` (from complete scores) and ``sphragis audit``
#: (from the classifiers' decision functions) report.
TOP_K = 3
#: Where ``sphragis audit`` writes the reference submission (the text baseline's predictions),
#: inside the export.
REFERENCE = Path("metadata") / "reference_submission.jsonl"


class SubmissionError(ValueError):
    """A predictions file does not fit the export (one line, naming the file and line), or the
    export cannot be read."""


def write_jsonl(path: Path, records: Iterable[tuple[str, str, str]]) -> Path:
    """Write ``(id, config, author)`` records as JSON Lines (UTF-8, atomically) to ``path``."""
    return write_text_atomic(path, "".join(
        json.dumps(dict(zip(FIELDS, rec)), ensure_ascii=False) + "\n" for rec in records))


def export_fingerprint(out: Path) -> str:
    """The fingerprint of the export ``out`` (module docstring): sha256 hex digest.

    Raises:
        SubmissionError: the export has no ``data/<config>/*.parquet`` file.
    """
    files = sorted(p.relative_to(out).as_posix() for p in (out / "data").glob("*/*.parquet"))
    if not files:
        raise SubmissionError(f"{out / 'data'}: no Parquet files; run `sphragis export` first")
    listing = []
    for rel in files:
        with open(out / rel, "rb") as fh:
            listing.append(f"{hashlib.file_digest(fh, 'sha256').hexdigest()}  {rel}\n")
    return hashlib.sha256("".join(listing).encode()).hexdigest()
