"""``sphragis score``: score an authorship submission against the export, the same way for every
model, and compare it with the leakage floor (issue 34; SPEC §11; seed 000 "Residual leakage",
"Source-held-out track").

**Input.** A predictions file, JSON Lines (``.jsonl``, ``.ndjson``, ``.json``; one object per line)
or CSV (``.csv``; a header row), with one record per predicted test row:

* ``id``: the row's ``id`` in ``data/<config>/test-*.parquet``;
* ``config``: the configuration (``sentence_1`` … ``source_held_out_50``);
* ``author``: the predicted author label;
* ``scores`` (optional): the model's score per author label, an object ``{label: number}``
  (CSV: one column ``scores.<label>`` per label, empty cells allowed). When every row of a
  configuration has a score for each of its labels, top-3 accuracy is reported from them
  (``sklearn.metrics.top_k_accuracy_score``, ties broken by label order).

A file may cover any of the configurations; each one it names must have every test row exactly
once. Checked against the export (:func:`load_truth`), each failure is one
:class:`SubmissionError` naming the file and line: a malformed line (not JSON / not an object / a
missing, mistyped or unknown field / a CSV row of the wrong width), an unknown configuration, an id
that is not a test row of that configuration, a row given twice (naming the line of the first), an
author label the configuration does not have (its training authors), a score that is not a finite
number or names an unknown label; after the last line, a configuration with test rows missing.

**Figures** per configuration (:func:`score_config`; fractions in [0, 1]): accuracy, macro-F1
(``sklearn.metrics.accuracy_score`` / ``f1_score(average="macro", zero_division=0)``, the audit's
own calls), per-author precision, recall and F1 (``precision_recall_fscore_support``), each with
a percentile-bootstrap CI over test rows: the evaluation toolkit's bootstrap
(:mod:`sphragis.evaluation.bootstrap`; 999 resamples, ``default_rng(776)`` fresh per
configuration, 95 %). A resample's figures are computed from summed per-row counts (correct;
per author true positives, gold and predicted rows), which equals the sklearn call on the resampled
rows; an author absent from a resample's gold and predictions scores 0 there, as sklearn's
``zero_division=0`` does. Beside them, from ``metadata/leakage_report.json`` (``sphragis audit``):
the **floor** (markup → author), the **text baseline** and the majority baseline (test), and
``beats_floor``: whether the CI's lower bound is above the floor (accuracy and macro-F1).

**Track gap** per chunk size whose two configurations (``sentence_k``, ``source_held_out_k``) are
both scored: main − held-out accuracy and macro-F1, with a percentile CI of the difference of
independent resamples: one ``default_rng(seed)`` draws the main configuration's resamples (the same
as its own CI's) and then the held-out one's.

**Export fingerprint** (:func:`sphragis.predictions.export_fingerprint`, the sha256 of the
export's Parquet files' hashes): every scored submission records it; the leaderboard
(:mod:`sphragis.leaderboard`, ``sphragis leaderboard``, whose command line is here) takes only
submissions scored against the export it is rendered for.

**Outputs**: a plain-text table (stdout), ``--json`` (the scored submission: what the
leaderboard collects) and ``--markdown``.

The reference submission (``metadata/reference_submission.jsonl``, :data:`sphragis.predictions.REFERENCE`)
is the text baseline's test predictions, written by ``sphragis audit``; scoring it reproduces the
audit's text-baseline accuracies and macro-F1.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import config, leaderboard
from .benchmark import BY_NAME, CHUNK_SIZES, CONFIGS, config_of
from .files import JSON_DECIMALS, rounded, write_json, write_text_atomic
from .predictions import (
    CSV_SCORE_PREFIX,
    EVAL_SPLIT,
    FIELDS,
    FORMAT,
    SCORES,
    SubmissionError,
    export_fingerprint,
)

__all__ = [
    "SubmissionError", "Truth", "load_truth", "read_predictions", "render_markdown", "render_table",
    "score_config", "score_submission",
]

#: k of the top-k accuracy reported from complete scores.
TOP_K = 3
#: Decimals of the fractions in the JSON and Markdown outputs (as ``leakage_report.json``).
DECIMALS = JSON_DECIMALS


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


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line, record)`` of a predictions file: a dict per JSON line, or per CSV row (scores
    gathered from the ``scores.<label>`` columns); a malformed line is raised at once."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{path}: not UTF-8 text ({exc})") from exc
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot read the predictions ({exc.strerror})") from exc
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
            if not isinstance(rec, dict):
                raise SubmissionError(f"{path}:{line}: malformed line: a JSON object is expected, "
                                      f"found {type(rec).__name__}")
            yield line, rec
        return
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if header is None:
        raise SubmissionError(f"{path}:1: malformed line: no CSV header")
    unknown = [c for c in header if c not in FIELDS and not c.startswith(CSV_SCORE_PREFIX)]
    if unknown or any(f not in header for f in FIELDS):
        raise SubmissionError(f"{path}:1: malformed line: the CSV header needs the columns {', '.join(FIELDS)} "
                              f"and optional {CSV_SCORE_PREFIX}<author> columns, found {', '.join(header)}")
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
                        raise SubmissionError(f"{path}:{line}: malformed line: {col} {cell!r} is not a "
                                              "number") from None
            else:
                rec[col] = cell
        if scores:
            rec[SCORES] = scores
        yield line, rec


def read_predictions(path: Path, truth: dict[str, Truth]) -> dict[str, Predictions]:
    """Read and check a predictions file against the export (see the module docstring).

    Returns:
        {config: :class:`Predictions`} for every configuration the file names, in
        :data:`~sphragis.benchmark.CONFIGS` order.

    Raises:
        SubmissionError: the first problem, as ``<file>:<line>: <what>`` (a missing row:
            ``<file>: <config>: ...`` with the count and the first missing id).
    """
    seen: dict[str, dict[str, tuple[int, str, dict | None]]] = {}
    for line, rec in _records(path):
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
                                      f"{json.dumps(rec[f], ensure_ascii=False)}")
        cfg, row_id, author = rec["config"], rec["id"], rec["author"]
        if cfg not in truth:
            raise SubmissionError(f"{where}: unknown configuration {cfg!r} (this export has {', '.join(truth)})")
        t = truth[cfg]
        if row_id not in t.position:
            raise SubmissionError(f"{where}: unknown id {row_id!r}: not a {EVAL_SPLIT} row of {cfg}")
        rows = seen.setdefault(cfg, {})
        if row_id in rows:
            raise SubmissionError(f"{where}: duplicate row: id {row_id!r} of {cfg} is already on line "
                                  f"{rows[row_id][0]}")
        if author not in t.labels:
            raise SubmissionError(f"{where}: unknown author label {author!r}: not an author of {cfg} "
                                  f"({len(t.labels)} labels, e.g. {t.labels[0]!r})")
        scores = rec.get(SCORES)
        if scores is not None:
            if not isinstance(scores, dict):
                raise SubmissionError(f"{where}: malformed line: {SCORES} must be an object {{author: number}}")
            for label, value in scores.items():
                if label not in t.labels:
                    raise SubmissionError(f"{where}: unknown author label {label!r} in {SCORES}: not an "
                                          f"author of {cfg}")
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise SubmissionError(f"{where}: malformed line: the score of {label!r} must be a finite "
                                          f"number, found {json.dumps(value)}")
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
# scoring


def _row_counts(y: np.ndarray, p: np.ndarray, labels: list[str]) -> np.ndarray:
    """Per row: ``[correct, tp per label…, gold per label…, predicted per label…]`` (n × (1 + 3L))."""
    index = {label: j for j, label in enumerate(labels)}
    n, k = len(y), len(labels)
    gold = np.zeros((n, k))
    pred = np.zeros((n, k))
    gold[np.arange(n), [index[a] for a in y]] = 1
    pred[np.arange(n), [index[a] for a in p]] = 1
    correct = (y == p).astype(np.float64)[:, None]
    return np.hstack([correct, gold * pred, gold, pred])


def _resampled(counts: np.ndarray, indices: np.ndarray, n_labels: int) -> dict[str, np.ndarray]:
    """Accuracy, macro-F1 (B) and per-label F1 (B × L) of every resample from the summed counts."""
    from .evaluation.bootstrap import resampled_sums

    sums = resampled_sums(counts, indices)
    n = indices.shape[1]
    tp, gold, pred = (sums[:, 1 + i * n_labels: 1 + (i + 1) * n_labels] for i in range(3))
    den = gold + pred
    present = den > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(present, 2 * tp / den, 0.0)
    return {"accuracy": sums[:, 0] / n, "macro_f1": f1.sum(axis=1) / present.sum(axis=1), "per_label": f1}


def _interval(samples: np.ndarray, confidence: float) -> list[float]:
    from .evaluation.bootstrap import percentile_interval

    low, high = percentile_interval(samples, confidence)
    return [float(low), float(high)]


def score_config(t: Truth, pred: Predictions, *, bootstrap: int, seed: int, confidence: float) -> dict[str, Any]:
    """Figures of one configuration (module docstring), unrounded fractions.

    Returns:
        {"config", "track", "chunk_size", "rows", "accuracy": {"value", "ci"}, "macro_f1": {...},
        "per_author": {label: {"precision", "recall", "f1", "ci", "support", "predicted"}},
        "top_k_accuracy": {"k", "value"} | None, "resamples": {"accuracy", "macro_f1"} (arrays,
        for the track gap; None without bootstrap)}; every ``ci`` is ``[low, high]`` or None when
        ``bootstrap`` is 0.
    """
    from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support, top_k_accuracy_score

    from .evaluation.bootstrap import draw

    y, p = t.authors, pred.authors
    labels = sorted(set(y) | set(p))
    precision, recall, f1, support = precision_recall_fscore_support(y, p, labels=labels, zero_division=0)
    predicted = {label: int((p == label).sum()) for label in labels}
    doc: dict[str, Any] = {
        "config": t.config, "track": t.track, "chunk_size": t.chunk_size, "rows": len(y),
        "accuracy": {"value": float(accuracy_score(y, p)), "ci": None},
        "macro_f1": {"value": float(f1_score(y, p, average="macro", zero_division=0)), "ci": None},
        "per_author": {label: {"precision": float(precision[j]), "recall": float(recall[j]), "f1": float(f1[j]),
                               "ci": None, "support": int(support[j]), "predicted": predicted[label]}
                       for j, label in enumerate(labels)},
        "top_k_accuracy": None, "resamples": None,
    }
    if pred.scores is not None and len(t.labels) > TOP_K:
        doc["top_k_accuracy"] = {"k": TOP_K, "value": float(top_k_accuracy_score(
            y, pred.scores, k=TOP_K, labels=list(t.labels)))}
    if bootstrap:
        res = _resampled(_row_counts(y, p, labels), draw(len(y), bootstrap, seed), len(labels))
        doc["accuracy"]["ci"] = _interval(res["accuracy"], confidence)
        doc["macro_f1"]["ci"] = _interval(res["macro_f1"], confidence)
        for j, label in enumerate(labels):
            doc["per_author"][label]["ci"] = _interval(res["per_label"][:, j], confidence)
        doc["resamples"] = {"accuracy": res["accuracy"], "macro_f1": res["macro_f1"]}
    return doc


def _leakage(out: Path) -> dict | None:
    path = out / config.LEAKAGE_REPORT
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise SubmissionError(f"{path}: unreadable leakage report ({exc})") from exc


def _held_out_resamples(main: dict, held_t: Truth, held_pred: Predictions, *, bootstrap: int, seed: int) -> dict:
    """The held-out configuration's resamples for the gap: drawn after the main configuration's
    from one ``default_rng(seed)``, so that the two are independent (module docstring)."""
    from .evaluation.bootstrap import draw

    rng = np.random.default_rng(seed)
    draw(main["rows"], bootstrap, rng)  # the main configuration's own resamples (its CI's)
    labels = sorted(set(held_t.authors) | set(held_pred.authors))
    return _resampled(_row_counts(held_t.authors, held_pred.authors, labels),
                      draw(len(held_t.ids), bootstrap, rng), len(labels))


def score_submission(path: Path, out: Path, *, bootstrap: int, seed: int, confidence: float,
                     name: str | None = None, link: str | None = None) -> dict[str, Any]:
    """Check and score the predictions file ``path`` against the export ``out``.

    Returns:
        The scored submission (JSON-ready after :func:`rounded`): ``format``, ``name``, ``link``,
        ``predictions`` (file name and sha256), ``export`` (path and :func:`export_fingerprint`),
        ``protocol``, ``configs`` ({config: :func:`score_config` result without ``resamples``,
        plus ``floor``, ``text_baseline``, ``majority`` and ``beats_floor``}), ``not_submitted``,
        ``track_gap`` ({k: {"main", "held_out", "accuracy": {"gap", "ci"}, "macro_f1": {...}}}),
        ``leakage_report`` (None when the export was not audited).

    Raises:
        SubmissionError: the file does not fit the export (see :func:`read_predictions`).
    """
    truth = load_truth(out)
    preds = read_predictions(path, truth)
    leakage = _leakage(out)
    configs: dict[str, dict] = {}
    resamples: dict[str, dict | None] = {}
    for cfg, pred in preds.items():
        doc = score_config(truth[cfg], pred, bootstrap=bootstrap, seed=seed, confidence=confidence)
        resamples[cfg] = doc.pop("resamples")
        audit = (leakage or {}).get("configs", {}).get(cfg)
        doc["floor"] = audit["markup_author"]["test"] if audit else None
        doc["text_baseline"] = audit["text_author"]["test"] if audit else None
        doc["majority"] = audit["markup_author"]["majority"]["test"] if audit else None
        doc["beats_floor"] = ({m: doc[m]["ci"][0] > doc["floor"][m] for m in ("accuracy", "macro_f1")}
                              if audit and bootstrap else None)
        configs[cfg] = doc
    gaps = {}
    for k in CHUNK_SIZES:
        main, held = config_of("main", k), config_of("source_held_out", k)
        if main not in configs or held not in configs:
            continue
        gap: dict[str, Any] = {"main": main, "held_out": held}
        held_res = (_held_out_resamples(configs[main], truth[held], preds[held], bootstrap=bootstrap, seed=seed)
                    if bootstrap else None)
        for m in ("accuracy", "macro_f1"):
            gap[m] = {"gap": configs[main][m]["value"] - configs[held][m]["value"],
                      "ci": _interval(resamples[main][m] - held_res[m], confidence) if bootstrap else None}
        gaps[str(k)] = gap
    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    return {
        "format": FORMAT,
        "name": name or path.stem,
        "link": link,
        "predictions": {"file": path.name, "sha256": digest},
        "export": {"path": str(out), "fingerprint": export_fingerprint(out)},
        "protocol": {
            "split": EVAL_SPLIT, "figures": "fractions in [0, 1]",
            "ci": f"percentile bootstrap over {EVAL_SPLIT} rows (sphragis.evaluation.bootstrap), fresh "
                  "default_rng(seed) per configuration",
            "gap_ci": "percentile CI of main minus held-out over independent resamples (one default_rng(seed): "
                      "the main configuration's draws, then the held-out one's)",
            "bootstrap": bootstrap, "seed": seed, "confidence": confidence,
            "floor": "markup -> author test figures of metadata/leakage_report.json; beats_floor: the CI's "
                     "lower bound is above the floor",
        },
        "configs": configs,
        "not_submitted": [c for c in CONFIGS if c not in configs],
        "track_gap": gaps,
        "leakage_report": str(config.LEAKAGE_REPORT) if leakage else None,
    }


# --------------------------------------------------------------------------------------------
# rendering


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _ci(ci: list[float] | None) -> str:
    return "" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _verdict(doc: dict) -> str:
    if doc["beats_floor"] is None:
        return "no floor (not audited)" if doc["floor"] is None else "no CI"
    return "yes" if doc["beats_floor"]["accuracy"] else "NO"


def _summary_rows(scored: dict) -> list[list[str]]:
    rows = []
    for cfg, d in scored["configs"].items():
        rows.append([cfg, f"{d['rows']:,}", _pct(d["accuracy"]["value"]), _ci(d["accuracy"]["ci"]),
                     _pct(d["macro_f1"]["value"]), _ci(d["macro_f1"]["ci"]),
                     _pct((d["floor"] or {}).get("accuracy")), _pct((d["text_baseline"] or {}).get("accuracy")),
                     _verdict(d)])
    return rows


SUMMARY_HEAD = ["configuration", "rows", "accuracy", "CI", "macro-F1", "CI", "floor", "text baseline",
                "beats floor (CI low)"]
GAP_HEAD = ["chunk size", "main", "held-out", "accuracy gap", "CI", "macro-F1 gap", "CI"]


def _gap_rows(scored: dict) -> list[list[str]]:
    return [[k, g["main"], g["held_out"], _pct(g["accuracy"]["gap"]), _ci(g["accuracy"]["ci"]),
             _pct(g["macro_f1"]["gap"]), _ci(g["macro_f1"]["ci"])] for k, g in scored["track_gap"].items()]


def _caption(scored: dict) -> list[str]:
    p = scored["protocol"]
    lines = [f"{scored['name']}: {scored['predictions']['file']} scored against the export "
             f"{scored['export']['path']} (fingerprint {scored['export']['fingerprint'][:16]}…), {p['split']} split; "
             "figures in %",
             f"CI: {round(100 * p['confidence'])} % percentile bootstrap over rows, {p['bootstrap']} resamples, "
             f"seed {p['seed']}" if p["bootstrap"] else "CI: none (bootstrap = 0)"]
    if scored["leakage_report"] is None:
        lines.append("floor and baselines: none, the export has no metadata/leakage_report.json (run `sphragis audit`)")
    if scored["not_submitted"]:
        lines.append(f"not submitted: {', '.join(scored['not_submitted'])}")
    return lines


def render_table(scored: dict) -> str:
    """Plain-text tables of a scored submission (:func:`score_submission`): one row per
    configuration, then the track gaps, then per-author F1 with its CI."""
    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        width = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        return ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in [head, *rows]]

    lines = [*_caption(scored), "", *table(SUMMARY_HEAD, _summary_rows(scored))]
    if scored["track_gap"]:
        lines += ["", "Track gap (main − source-held-out):", *table(GAP_HEAD, _gap_rows(scored))]
    for cfg, d in scored["configs"].items():
        lines += ["", f"{cfg}: per-author F1", *table(
            ["author", "test rows", "predicted", "F1", "CI"],
            [[a, str(s["support"]), str(s["predicted"]), _pct(s["f1"]), _ci(s["ci"])]
             for a, s in d["per_author"].items()])]
    return "\n".join(lines) + "\n"


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows)]


def render_markdown(scored: dict) -> str:
    """The Markdown report of a scored submission (the same tables as :func:`render_table`)."""
    title = f"[{scored['name']}]({scored['link']})" if scored["link"] else scored["name"]
    lines = [f"# {title}", "", *(f"{line}  " for line in _caption(scored)), "",
             *_md_table(SUMMARY_HEAD, [[f"`{r[0]}`", *r[1:]] for r in _summary_rows(scored)])]
    if scored["track_gap"]:
        lines += ["", "## Track gap (main − source-held-out)", "", *_md_table(GAP_HEAD, _gap_rows(scored))]
    lines += ["", "## Per-author F1"]
    for cfg, d in scored["configs"].items():
        lines += ["", f"### `{cfg}`", "", *_md_table(
            ["author", "test rows", "predicted", "F1", "CI"],
            [[a, str(s["support"]), str(s["predicted"]), _pct(s["f1"]), _ci(s["ci"])]
             for a, s in d["per_author"].items()])]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# command line


def _cmd_score(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else config.settings().out
    scored = score_submission(Path(args.predictions), out, bootstrap=args.bootstrap, seed=args.seed,
                              confidence=args.confidence, name=args.name, link=args.link)
    sys.stdout.write(render_table(scored))
    if args.json:
        print(f"score: wrote {write_json(args.json, rounded(scored))}", file=sys.stderr)
    if args.markdown:
        print(f"score: wrote {write_text_atomic(args.markdown, render_markdown(scored))}", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add ``sphragis score`` and ``sphragis leaderboard`` to the CLI (loaded by :mod:`sphragis.cli`)."""
    from .evaluation.cli import add_bootstrap_options

    s = subparsers.add_parser(
        "score", help="score authorship predictions against the export, with CIs and the leakage floor",
        description="Check a predictions file (JSON Lines or CSV: id, config, author; optional scores per "
        "author) against the export's test splits (every test row of each configuration it names, once; "
        "known ids and author labels) and report per configuration accuracy, macro-F1 and per-author F1 "
        "with percentile-bootstrap CIs over rows, the markup floor and the text baseline of "
        "metadata/leakage_report.json, whether the CI's lower bound beats the floor, and per chunk size "
        "the main minus source-held-out gap with its CI. Prints tables; --json writes the scored "
        "submission the leaderboard collects (sphragis leaderboard).")
    s.add_argument("predictions", metavar="PREDICTIONS", help="predictions file (.jsonl or .csv)")
    s.add_argument("--out", help="export directory (default: SPHRAGIS_OUT)")
    s.add_argument("--name", help="submission name (default: the file name without extension)")
    s.add_argument("--link", help="URL of the model or paper (shown on the leaderboard)")
    s.add_argument("--json", metavar="PATH", help="write the scored submission as JSON (e.g. into leaderboard/)")
    s.add_argument("--markdown", metavar="PATH", help="write the report as Markdown")
    add_bootstrap_options(s, "test rows")
    s.set_defaults(func=_cmd_score)
    register_leaderboard(subparsers)


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else config.settings().out
    path, doc = leaderboard.write(Path(args.folder), out)
    for r in doc["refused"]:
        print(f"leaderboard: refused {r['file']}: {r['reason']}", file=sys.stderr)
    sys.stdout.write(leaderboard.render_table(leaderboard.board(out)))
    from .audit import rerender_card  # the audit's re-rendering, with its note

    print(f"leaderboard: {len(doc['entries'])} submission(s) accepted, {len(doc['refused'])} refused; wrote "
          f"{path}; {rerender_card(out)}", file=sys.stderr)
    return 0


def register_leaderboard(subparsers) -> None:
    """Add ``sphragis leaderboard`` (:mod:`sphragis.leaderboard`) to the CLI."""
    a = subparsers.add_parser(
        "leaderboard", help="collect scored submissions into the export's leaderboard (card and docs site)",
        description="Take every scored submission (`sphragis score --json`) of FOLDER that was scored against "
        "this export (same export fingerprint) and scores every source_held_out_* configuration; refuse "
        "the others with the reason. Writes metadata/leaderboard.json into the export, re-renders the "
        "dataset card and prints the leaderboard: the submissions with the leakage floor and the "
        "baselines of metadata/leakage_report.json, sorted by the source-held-out track.")
    a.add_argument("folder", nargs="?", default=str(leaderboard.DEFAULT_DIR), metavar="FOLDER",
                   help=f"folder of scored submissions (default {leaderboard.DEFAULT_DIR}/)")
    a.add_argument("--out", help="export directory (default: SPHRAGIS_OUT)")
    a.set_defaults(func=_cmd_leaderboard)
