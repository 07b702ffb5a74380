"""``sphragis score``: score an authorship submission against the export, the same way for every
model, and compare it with the leakage floor (SPEC §11; seed 000 "Residual leakage",
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
(:mod:`sphragis.leaderboard_collect`, ``sphragis leaderboard``) takes only
submissions scored against the export it is rendered for, and re-scores their predictions, which
lie beside the scored JSON (its ``predictions.file`` and ``sha256``).

**Bounded input** (SPEC §13): the predictions file is read once, as a regular file of at most
:data:`~sphragis.predictions.PREDICTIONS_LIMIT` bytes (a FIFO, a device or a larger file is refused
in one line naming it and the limit), and its sha256 is of those bytes; a CSV field may be as long
as the file. The name and link are checked before the scoring
(:func:`~sphragis.predictions.check_name`, :func:`~sphragis.predictions.check_link`).

**Outputs**: a plain-text table (stdout), ``--json`` (the scored submission: what the
leaderboard collects) and ``--markdown``.

The reference submission (``metadata/reference_submission.jsonl``, :data:`sphragis.predictions.REFERENCE`)
is the text baseline's test predictions, written by ``sphragis audit``; scoring it reproduces the
audit's text-baseline accuracies and macro-F1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import config
from .benchmark import BY_NAME, CHUNK_SIZES, CONFIGS, config_of
from .files import check_output_file, rounded, write_json, write_text_atomic
from .predictions import (EVAL_SPLIT, FORMAT, NAME_LIMIT, TOP_K, SubmissionError, check_link, check_name,
                          export_fingerprint)
from .state import state_dir
from .submission_input import Predictions, Truth, load_truth, read_bytes, read_predictions
from .submission_report import render_markdown, render_table

__all__ = [
    "Export", "SubmissionError", "Truth", "load_export", "load_truth", "read_predictions", "render_markdown",
    "render_table", "score_config", "score_submission",
]

# scoring


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

    from .evaluation.bootstrap import draw, label_counts, label_resamples

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
        res = label_resamples(label_counts(y, p, labels), draw(len(y), bootstrap, seed), len(labels))
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


def declared_columns(out: Path, configs) -> dict | None:
    """What a model may read, as the export declares it (``metadata/dataset_variants.json``, SPEC
    §11): {"input_columns", "label_column", "revealing": the metadata columns whose lookup reveals
    the label on some configuration of ``configs``}; None when the export does not declare it."""
    try:
        variants = json.loads((out / config.DATASET_VARIANTS).read_text(encoding="utf-8"))
        entries = [variants[c] for c in configs]
        inputs = {tuple(e["input_columns"]) for e in entries}
        labels = {e["label_column"] for e in entries}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if len(inputs) != 1 or len(labels) != 1:  # one declaration for all of them, or none stated
        return None
    revealing = sorted({c for e in entries for c, m in e.get("metadata_columns", {}).items() if m["reveals_label"]})
    return {"input_columns": list(inputs.pop()), "label_column": labels.pop(), "revealing": revealing}


def _held_out_resamples(main: dict, held_t: Truth, held_pred: Predictions, *, bootstrap: int, seed: int) -> dict:
    """The held-out configuration's resamples for the gap: drawn after the main configuration's
    from one ``default_rng(seed)``, so that the two are independent (module docstring)."""
    from .evaluation.bootstrap import draw, label_counts, label_resamples

    rng = np.random.default_rng(seed)
    draw(main["rows"], bootstrap, rng)  # the main configuration's own resamples (its CI's)
    labels = sorted(set(held_t.authors) | set(held_pred.authors))
    return label_resamples(label_counts(held_t.authors, held_pred.authors, labels),
                      draw(len(held_t.ids), bootstrap, rng), len(labels))


@dataclass(frozen=True)
class Export:
    """What submissions are scored against, read once (the leaderboard re-scores many).

    Attributes:
        out: the export folder.
        truth: {config: :class:`Truth`} (:func:`load_truth`).
        fingerprint: :func:`export_fingerprint`.
        leakage: ``metadata/leakage_report.json``, or None when the export was not audited.
    """

    out: Path
    truth: dict[str, Truth]
    fingerprint: str
    leakage: dict | None


def load_export(out: Path) -> Export:
    """Read the export ``out`` for scoring (:class:`Export`).

    Raises:
        SubmissionError: no configuration or Parquet file, or an unreadable leakage report.
    """
    return Export(out, load_truth(out), export_fingerprint(out), _leakage(out))


def score_submission(path: Path, out: Path, *, bootstrap: int, seed: int, confidence: float,
                     name: str | None = None, link: str | None = None, export: Export | None = None,
                     data: bytes | None = None) -> dict[str, Any]:
    """Check and score the predictions file ``path`` against the export ``out``.

    ``export`` is ``out`` already read (:func:`load_export`) and ``data`` the file's bytes already
    read (:func:`read_bytes`): the leaderboard reads each once. ``name`` (default: the file name
    without extension) and ``link`` are checked first (:func:`sphragis.predictions.check_name`,
    :func:`~sphragis.predictions.check_link`).

    Returns:
        The scored submission (JSON-ready after :func:`rounded`): ``format``, ``name``, ``link``,
        ``predictions`` (file name and sha256 of its bytes), ``export`` (path and
        :func:`export_fingerprint`), ``protocol``, ``inputs`` (:func:`declared_columns`: what a
        model may read), ``configs``
        ({config: :func:`score_config` result without ``resamples``,
        plus ``floor``, ``text_baseline``, ``majority`` and ``beats_floor``}), ``not_submitted``,
        ``track_gap`` ({k: {"main", "held_out", "accuracy": {"gap", "ci"}, "macro_f1": {...}}}: the seed's
        gap, each track on its own authors), ``track_mean`` and ``same_author_gap``
        (:func:`track_claims`), ``leakage_report`` (None when the export was not audited).

    Raises:
        SubmissionError: a bad name or link, or the file does not fit the export (see
            :func:`read_predictions`; a file that is not regular or over its size limit too).
    """
    name = check_name(path.stem, f"{path} (as the name; give another with --name)") if name is None \
        else check_name(name, "name")
    link = check_link(link, "link")
    export = export or load_export(out)
    if data is None:
        data = read_bytes(path)
    truth, leakage = export.truth, export.leakage
    preds = read_predictions(path, truth, data)
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
    claims = track_claims(truth, preds, bootstrap=bootstrap, seed=seed, confidence=confidence)
    return {
        "format": FORMAT,
        "name": name,
        "link": link,
        "predictions": {"file": path.name, "sha256": hashlib.sha256(data).hexdigest()},
        "export": {"path": str(out), "fingerprint": export.fingerprint},
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
        "inputs": declared_columns(out, list(configs)),
        "configs": configs,
        "not_submitted": [c for c in CONFIGS if c not in configs],
        "track_gap": gaps,
        **claims,
        "leakage_report": str(config.LEAKAGE_REPORT) if leakage else None,
    }


def track_claims(truth: dict[str, Truth], preds: dict[str, Predictions], *, bootstrap: int, seed: int,
                 confidence: float) -> dict[str, Any]:
    """The figures the leaderboard ranks and compares by, as the audit computes them for its own rows
    (:mod:`sphragis.audit_claims`): ``track_mean`` ({track: {"accuracy", "ci"}} for each track whose
    every configuration is scored) and ``same_author_gap`` ({held-out config: {"main", "authors",
    "main_rows", "held_out_rows", "gap": :func:`sphragis.audit_claims.gap_entry`}} for each held-out
    configuration scored with the main-track configuration of its chunk size)."""
    from .audit_claims import HELD_OUT_TRACKS, MAIN_TRACK, gap_entry, mean_entry, same_author_rows

    opts = {"seed": seed, "bootstrap": bootstrap, "confidence": confidence}
    means = {}
    for track in dict.fromkeys(BY_NAME[c].track for c in CONFIGS):
        cfgs = [c for c in CONFIGS if BY_NAME[c].track == track and c in truth]
        if cfgs and all(c in preds for c in cfgs):
            means[track] = mean_entry([(truth[c].authors, preds[c].authors) for c in cfgs], **opts)
    gaps = {}
    for track in HELD_OUT_TRACKS:
        for k in CHUNK_SIZES:
            main, held = config_of(MAIN_TRACK, k), config_of(track, k)
            if main in preds and held in preds:
                keep = same_author_rows(truth[main].authors, truth[held].labels)
                gaps[held] = {"main": main, "authors": list(truth[held].labels), "main_rows": int(keep.sum()),
                              "held_out_rows": len(truth[held].ids),
                              "gap": gap_entry(truth[main].authors[keep], preds[main].authors[keep],
                                               truth[held].authors, preds[held].authors, **opts)}
    return {"track_mean": means, "same_author_gap": gaps}


# --------------------------------------------------------------------------------------------
# command line


def _cmd_score(args: argparse.Namespace) -> int:
    settings = config.settings()
    out = Path(args.out) if args.out else settings.out
    # checked before the scoring: the export (its card, reports, leaderboard), its state, the
    # warehouse and the sources are never the scorer's output (SPEC §13)
    protected = (*settings.inputs(), out, state_dir(out))
    targets = {opt: check_output_file(path, protected=protected, force=True)
               for opt, path in (("json", args.json), ("markdown", args.markdown)) if path}
    scored = score_submission(Path(args.predictions), out, bootstrap=args.bootstrap, seed=args.seed,
                              confidence=args.confidence, name=args.name, link=args.link)
    sys.stdout.write(render_table(scored))
    if "json" in targets:
        print(f"score: wrote {write_json(targets['json'], rounded(scored))}", file=sys.stderr)
        beside = targets["json"].parent / scored["predictions"]["file"]
        if not (beside.is_file() and beside.samefile(args.predictions)):
            print(f"score: note: the leaderboard re-scores the predictions file named in it from its folder: "
                  f"copy {args.predictions} to {beside} (the same bytes) before `sphragis leaderboard`",
                  file=sys.stderr)
    if "markdown" in targets:
        print(f"score: wrote {write_text_atomic(targets['markdown'], render_markdown(scored))}", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add ``sphragis score`` to the CLI (loaded by :mod:`sphragis.cli`)."""
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
    s.add_argument("--name", help=f"submission name, one line of at most {NAME_LIMIT} printable characters "
                   "(default: the file name without extension)")
    s.add_argument("--link", help="http(s) URL of the model or paper (shown on the leaderboard)")
    s.add_argument("--json", metavar="PATH", help="write the scored submission as JSON (e.g. leaderboard/NAME.json, "
                   "beside the predictions file leaderboard/NAME.jsonl: the leaderboard re-scores it)")
    s.add_argument("--markdown", metavar="PATH", help="write the report as Markdown")
    add_bootstrap_options(s, "test rows")
    s.set_defaults(func=_cmd_score)
