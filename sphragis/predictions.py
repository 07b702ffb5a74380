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
* **What a submission may hold** (SPEC §13: submissions are data): a name (:func:`check_name`: one
  line of at most :data:`NAME_LIMIT` printable characters), an optional link (:func:`check_link`:
  an ``http(s)`` URL of at most :data:`LINK_LIMIT` characters, RFC 3986 characters only), a
  predictions file of at most :data:`PREDICTIONS_LIMIT` bytes and a scored submission of at most
  :data:`SCORED_LIMIT` bytes, each a regular file (:func:`sphragis.files.read_regular`). Renderers
  escape them besides (:mod:`sphragis.submission_report`).
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from .files import write_text_atomic

__all__ = ["CSV_SCORE_PREFIX", "EVAL_SPLIT", "FIELDS", "FORMAT", "LINK_LIMIT", "NAME_LIMIT", "PREDICTIONS_LIMIT",
           "REFERENCE", "SCORED_LIMIT", "SCORES", "TOP_K", "SubmissionError", "check_link", "check_name",
           "export_fingerprint", "shown", "write_jsonl"]

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


#: Longest submission name (characters): one line of the leaderboard's tables.
NAME_LIMIT = 100
#: Longest submission link (characters).
LINK_LIMIT = 2000
#: Largest predictions file read (bytes): the reference submission
#: (``metadata/reference_submission.jsonl``, one record per test row of the audited
#: configurations) is about 1 MB; every configuration with a score per author fits many times over.
PREDICTIONS_LIMIT = 256 << 20
#: Largest scored submission read (bytes): its figures per configuration and author are well
#: under 1 MB.
SCORED_LIMIT = 16 << 20
#: The characters a link may hold besides letters and digits: RFC 3986's unreserved and reserved
#: characters and ``%`` (percent-encoding); everything else (spaces, quotes, ``<>``, ``\``,
#: ``|``, non-ASCII) must be percent-encoded.
LINK_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")


class SubmissionError(ValueError):
    """A predictions file does not fit the export (one line, naming the file and line), or the
    export cannot be read."""


def shown(value: object, limit: int = 60) -> str:
    """``value`` as a message shows a value read from a submission: its ``repr`` (control, format
    and line-break characters escaped, so it stays one line of plain text), cut after ``limit``
    characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def check_name(name: object, where: str) -> str:
    """``name`` if it is a submission name: a string of 1 to :data:`NAME_LIMIT` printable
    characters (``str.isprintable``: no control or format character, no line break), not only
    spaces.

    Raises:
        SubmissionError: ``<where>: the submission name ...``, with the rule and the limit.
    """
    if not isinstance(name, str):
        raise SubmissionError(f"{where}: the submission name must be a string, found {shown(name)}")
    if len(name) > NAME_LIMIT:
        raise SubmissionError(f"{where}: the submission name has {len(name):,} characters, over the limit of "
                              f"{NAME_LIMIT} (one line of the leaderboard)")
    if not name.strip() or not name.isprintable():
        raise SubmissionError(f"{where}: the submission name {shown(name)} is not one line of printable "
                              f"characters (1 to {NAME_LIMIT}; no control character or line break)")
    return name


def check_link(link: object, where: str) -> str | None:
    """``link`` if it is None or a submission link: an ``http`` or ``https`` URL with a host, of at
    most :data:`LINK_LIMIT` characters from :data:`LINK_CHARACTERS`.

    Raises:
        SubmissionError: ``<where>: the submission link ...``, with the rule.
    """
    if link is None:
        return None
    if not isinstance(link, str):
        raise SubmissionError(f"{where}: the submission link must be a string, found {shown(link)}")
    rule = (f"an http:// or https:// URL with a host, at most {LINK_LIMIT:,} characters, spaces, quotes, "
            "<, >, \\, | and non-ASCII characters percent-encoded")
    if len(link) > LINK_LIMIT or not set(link) <= LINK_CHARACTERS:
        raise SubmissionError(f"{where}: the submission link {shown(link)} is not {rule}")
    try:
        parts = urlsplit(link)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise SubmissionError(f"{where}: the submission link {shown(link)} is not {rule}")
    return link


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
