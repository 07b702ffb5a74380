"""Input of ``sphragis score`` (SPEC §11; the format is in :mod:`sphragis.submission`): the gold
labels of each configuration's test split read from the export (:func:`load_truth`), and a
predictions file read and checked against them (:func:`read_predictions`), each failure one
:class:`sphragis.predictions.SubmissionError` naming the file and line.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .benchmark import BY_NAME, CONFIGS
from .files import InputFileError, read_regular
from .predictions import CSV_SCORE_PREFIX, EVAL_SPLIT, FIELDS, PREDICTIONS_LIMIT, SCORES, SubmissionError, shown

__all__ = ["Predictions", "Truth", "load_truth", "read_bytes", "read_predictions"]


# --------------------------------------------------------------------------------------------
# the export: gold labels


@dataclass(frozen=True)
class Truth:
    """One configuration's test split as a submission is checked and scored against it.

    Attributes:
        config: configuration name; ``track``, ``chunk_size`` from :mod:`sphragis.benchmark`.
        ids: the test rows' ids, in file order.
        authors: their gold author labels (object array, file order).
        labels: the configuration's author labels (those of its train split), sorted.
        position: id → row index.
    """

    config: str
    track: str
    chunk_size: int
    ids: tuple[str, ...]
    authors: np.ndarray
    labels: tuple[str, ...]
    position: dict[str, int]


def load_truth(out: Path) -> dict[str, Truth]:
    """Read the ids and gold authors of every configuration's test split, and the author labels
    of its train split, from the export ``out`` (``data/<config>/<split>-*.parquet``; the
    configurations that have a folder there, in :data:`CONFIGS` order).

    Raises:
        SubmissionError: no configuration, a split's file is missing, or an id occurs twice in a
            test split.
    """
    import pyarrow.parquet as pq

    from .audit import AuditError, config_files

    present = tuple(c for c in CONFIGS if (out / "data" / c).is_dir())
    if not present:
        raise SubmissionError(f"{out / 'data'}: no configuration; run `sphragis export` first")
    try:
        files = config_files(out, present)
    except AuditError as exc:
        raise SubmissionError(str(exc)) from exc
    truth = {}
    for cfg in present:
        test = pq.read_table(files[cfg][EVAL_SPLIT], columns=["id", "author"])
        ids = tuple(str(i) for i in test.column("id").to_pylist())
        position = {i: k for k, i in enumerate(ids)}
        if len(position) != len(ids):
            raise SubmissionError(f"{files[cfg][EVAL_SPLIT]}: ids are not unique")
        labels = tuple(sorted(set(pq.read_table(files[cfg]["train"], columns=["author"]).column("author")
                                  .to_pylist())))
        truth[cfg] = Truth(cfg, BY_NAME[cfg].track, BY_NAME[cfg].chunk_target_size, ids,
                           np.array(test.column("author").to_pylist(), dtype=object), labels, position)
    return truth


# --------------------------------------------------------------------------------------------
# reading and checking a predictions file


@dataclass
class Predictions:
    """The validated predictions of one configuration, aligned to :attr:`Truth.ids`.

    ``authors`` holds the predicted label per test row; ``scores`` is an array (rows × labels,
    :attr:`Truth.labels` order) when every row gave a score for every label, else None.
    """

    authors: np.ndarray
    scores: np.ndarray | None
    lines: dict[str, int]


def read_bytes(path: Path) -> bytes:
    """The bytes of the predictions file ``path``: a regular file (or a link to one) of at most
    :data:`~sphragis.predictions.PREDICTIONS_LIMIT` bytes, read without waiting on a FIFO
    (:func:`sphragis.files.read_regular`).

    Raises:
        SubmissionError: ``path`` is missing, unreadable, not a regular file or over the limit
            (one line naming it, what it is, and the limit).
    """
    try:
        return read_regular(path, PREDICTIONS_LIMIT)
    except InputFileError as exc:
        raise SubmissionError(f"{exc} (predictions)") from None
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot read the predictions ({exc.strerror})") from None


def _records(path: Path, data: bytes) -> Iterator[tuple[int, Any]]:
    """``(line, record)`` of a predictions file of bytes ``data``: a dict per JSON line, or per CSV
    row (scores gathered from the ``scores.<label>`` columns); a malformed line is raised at once."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{path}: not UTF-8 text ({exc})") from exc
    is_csv = path.suffix.lower() == ".csv" or (
        path.suffix.lower() not in (".jsonl", ".ndjson", ".json") and not text.lstrip().startswith("{"))
    if not is_csv:
        for line, raw in enumerate(text.split("\n"), start=1):  # JSON strings may hold U+2028
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except ValueError as exc:
                raise SubmissionError(f"{path}:{line}: malformed line: not JSON ({exc.msg})") from exc
            except RecursionError:
                raise SubmissionError(f"{path}:{line}: malformed line: JSON nested too deeply") from None
            if not isinstance(rec, dict):
                raise SubmissionError(f"{path}:{line}: malformed line: a JSON object is expected, "
                                      f"found {type(rec).__name__}")
            yield line, rec
        return
    yield from _csv_records(path, text)


def _csv_records(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """The CSV side of :func:`_records`. A field may be as long as the file: the csv module's limit
    of 128 KiB per field (its one error on text split into lines) is raised to the text's length
    while it reads."""
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, len(text)))
    try:
        yield from _csv_rows(path, csv.reader(text.splitlines()))
    finally:
        csv.field_size_limit(previous)


def _csv_rows(path: Path, reader) -> Iterator[tuple[int, Any]]:
    header = next(reader, None)
    if header is None:
        raise SubmissionError(f"{path}:1: malformed line: no CSV header")
    unknown = [c for c in header if c not in FIELDS and not c.startswith(CSV_SCORE_PREFIX)]
    if unknown or any(f not in header for f in FIELDS):
        raise SubmissionError(f"{path}:1: malformed line: the CSV header needs the columns {', '.join(FIELDS)} "
                              f"and optional {CSV_SCORE_PREFIX}<author> columns, found "
                              f"{', '.join(map(shown, header))}")
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise SubmissionError(f"{path}:{line}: malformed line: {len(row)} CSV fields, the header has "
                                  f"{len(header)}")
        rec: dict[str, Any] = {}
        scores: dict[str, Any] = {}
        for col, cell in zip(header, row):
            if col.startswith(CSV_SCORE_PREFIX):
                if cell.strip():
                    try:
                        scores[col[len(CSV_SCORE_PREFIX):]] = float(cell)
                    except ValueError:
                        raise SubmissionError(f"{path}:{line}: malformed line: {shown(col)} {shown(cell)} is not "
                                              "a number") from None
            else:
                rec[col] = cell
        if scores:
            rec[SCORES] = scores
        yield line, rec


def read_predictions(path: Path, truth: dict[str, Truth], data: bytes | None = None) -> dict[str, Predictions]:
    """Read and check a predictions file against the export (see the module docstring): its bytes
    ``data`` when given (read once by the caller, who hashes them), else :func:`read_bytes`.

    Returns:
        {config: :class:`Predictions`} for every configuration the file names, in
        :data:`~sphragis.benchmark.CONFIGS` order.

    Raises:
        SubmissionError: the first problem, as ``<file>:<line>: <what>`` (a missing row:
            ``<file>: <config>: ...`` with the count and the first missing id).
    """
    seen: dict[str, dict[str, tuple[int, str, dict | None]]] = {}
    for line, rec in _records(path, read_bytes(path) if data is None else data):
        where = f"{path}:{line}"
        missing = [f for f in FIELDS if f not in rec]
        extra = sorted(set(rec) - set(FIELDS) - {SCORES})
        if missing or extra:
            what = (f"missing field(s) {', '.join(missing)}" if missing else f"unknown field(s) {', '.join(extra)}")
            raise SubmissionError(f"{where}: malformed line: {what} (fields: {', '.join(FIELDS)}, "
                                  f"optional {SCORES})")
        for f in FIELDS:
            if not isinstance(rec[f], str):
                raise SubmissionError(f"{where}: malformed line: {f} must be a string, found "
                                      f"{shown(rec[f])}")
        cfg, row_id, author = rec["config"], rec["id"], rec["author"]
        if cfg not in truth:
            raise SubmissionError(f"{where}: unknown configuration {shown(cfg)} (this export has {', '.join(truth)})")
        t = truth[cfg]
        if row_id not in t.position:
            raise SubmissionError(f"{where}: unknown id {shown(row_id)}: not a {EVAL_SPLIT} row of {cfg}")
        rows = seen.setdefault(cfg, {})
        if row_id in rows:
            raise SubmissionError(f"{where}: duplicate row: id {shown(row_id)} of {cfg} is already on line "
                                  f"{rows[row_id][0]}")
        if author not in t.labels:
            raise SubmissionError(f"{where}: unknown author label {shown(author)}: not an author of {cfg} "
                                  f"({len(t.labels)} labels, e.g. {t.labels[0]!r})")
        scores = rec.get(SCORES)
        if scores is not None:
            if not isinstance(scores, dict):
                raise SubmissionError(f"{where}: malformed line: {SCORES} must be an object {{author: number}}")
            for label, value in scores.items():
                if label not in t.labels:
                    raise SubmissionError(f"{where}: unknown author label {shown(label)} in {SCORES}: not an "
                                          f"author of {cfg}")
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise SubmissionError(f"{where}: malformed line: the score of {shown(label)} must be a finite "
                                          f"number, found {shown(value)}")
        rows[row_id] = (line, author, scores)
    if not seen:
        raise SubmissionError(f"{path}: no predictions")
    result = {}
    for cfg in CONFIGS:
        if cfg not in seen:
            continue
        t, rows = truth[cfg], seen[cfg]
        if len(rows) != len(t.ids):
            absent = [i for i in t.ids if i not in rows]
            raise SubmissionError(f"{path}: {cfg}: missing rows: {len(absent):,} of the {len(t.ids):,} {EVAL_SPLIT} "
                                  f"rows have no prediction (first: id {absent[0]!r}); a configuration "
                                  "the file names must have every test row once")
        ordered = [rows[i] for i in t.ids]
        scores = None
        if all(s is not None and len(s) == len(t.labels) for _, _, s in ordered):
            scores = np.array([[s[label] for label in t.labels] for _, _, s in ordered], dtype=np.float64)
        result[cfg] = Predictions(np.array([a for _, a, _ in ordered], dtype=object), scores,
                                  {i: rows[i][0] for i in t.ids})
    return result


# --------------------------------------------------------------------------------------------
