"""``sphragis eval``: the evaluation toolkit of seed 001 on the command line (SPEC §12, issue 8).

Sub-commands:

* ``sphragis eval overlap [--json PATH]``: print the UD Perseus → AGDT resolution and the
  training-side overlap with the evaluation folds, read from the warehouse
  (``SPHRAGIS_WAREHOUSE``, opened read-only), and write the training-exclusion manifest
  (default ``reports/overlap_manifest.json``; see :mod:`sphragis.evaluation.overlap`).
* ``sphragis eval score --gold FOLD|PATH --pred PATH [--bootstrap 999] [--seed 776]
  [--confidence 0.95] [--by genre|author] [--json PATH]``: CoNLL 2018 F1 with gold
  tokenization and percentile-bootstrap CIs (:mod:`sphragis.evaluation.score`); ``--by`` buckets
  the sentences with the works registry through the warehouse (:func:`folds.bucket_map`).
* ``sphragis eval drift --a FOLD|PATH --b FOLD|PATH [--top 10] [--json PATH]``: convention
  decomposition of ``b`` against ``a`` (:mod:`sphragis.evaluation.drift`).

A FOLD is a named UD fold (``ud_perseus-test``, ``ud_proiel-dev``, …; :func:`folds.known_folds`),
read as published from ``SPHRAGIS_DATA``; an existing file path is read as given. The evaluator
calls the lemma metric ``Lemmas``; output here labels it ``Lemma`` (seed 001's name). Errors
(tokenization mismatch, unknown fold, missing file, missing warehouse) are raised as
``ValueError``/``OSError``/``RuntimeError`` with one clear message, which ``sphragis.cli.main``
prints before exiting with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

from .. import config

DEFAULT_MANIFEST = Path("reports") / "overlap_manifest.json"

_LEMMAS_ROW = re.compile(r"^Lemmas(?=\s)", re.MULTILINE)


def open_warehouse() -> duckdb.DuckDBPyConnection:
    """Open ``SPHRAGIS_WAREHOUSE`` read-only.

    Raises:
        FileNotFoundError: no warehouse file (run ``sphragis build``).
        RuntimeError: DuckDB cannot open it (e.g. another process holds it for writing).
    """
    path = config.settings().warehouse
    if not path.is_file():
        raise FileNotFoundError(f"no warehouse at {path}; run `sphragis build` (or set SPHRAGIS_WAREHOUSE)")
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise RuntimeError(f"cannot open the warehouse {path} read-only: {exc}") from exc


def _write_json(path: str | os.PathLike, doc: Any) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return p


def _rename_lemma(metrics: dict[str, Any]) -> dict[str, Any]:
    """Same dict with the evaluator's ``Lemmas`` key renamed ``Lemma`` (order kept)."""
    return {("Lemma" if k == "Lemmas" else k): v for k, v in metrics.items()}


def score_json(result, *, gold: str, pred: str, by: str | None) -> dict[str, Any]:
    """``ScoreResult.to_dict()`` with ``Lemma`` labels and the inputs recorded."""
    doc = result.to_dict()
    doc["metrics"] = _rename_lemma(doc["metrics"])
    for b in doc["buckets"].values():
        b["metrics"] = _rename_lemma(b["metrics"])
    return {"gold": gold, "pred": pred, "by": by, **doc}


def score_table(result) -> str:
    """``ScoreResult.format_table()`` with the ``Lemmas`` rows labelled ``Lemma``."""
    return _LEMMAS_ROW.sub("Lemma ", result.format_table())


# ------------------------------------------------------------------------------------------
# sub-commands
# ------------------------------------------------------------------------------------------


def _cmd_overlap(args: argparse.Namespace) -> int:
    from . import overlap

    t0 = time.perf_counter()
    with open_warehouse() as con:
        doc = overlap.write_manifest(con, args.json)
    print(overlap.format_summary(doc["summary"]))
    if doc["unresolved"]:
        print(f"\nUnresolved UD Perseus sentences: {len(doc['unresolved'])}")
        for r in doc["unresolved"]:
            print(f"  {r['fold']:<5} {r['sent_id']}: {r['reason']}")
    else:
        print("\nUnresolved UD Perseus sentences: none")
    counts = ", ".join(f"{name} {sum(f['exclude_counts'].values())}" for name, f in doc["folds"].items())
    print(f"\nexclusion manifest ({counts} records) written to {args.json} "
          f"in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from . import folds
    from .score import score

    con = open_warehouse() if args.by else None
    try:
        gold_label, gold_text = folds.read_conllu(con, args.gold, "--gold")
        pred_label, pred_text = folds.read_conllu(None, args.pred, "--pred")
        buckets = None
        if args.by:
            if gold_label in folds.known_folds():
                buckets = folds.bucket_map(con, args.by, fold=gold_label)
            else:
                from .score import parse_sentences

                ids = [s.sent_id for s in parse_sentences(gold_text, side="gold") if s.sent_id]
                buckets = folds.bucket_map(con, args.by, sent_ids=ids)
    finally:
        if con is not None:
            con.close()
    result = score(gold_text, pred_text, bootstrap=args.bootstrap, seed=args.seed,
                   confidence=args.confidence, buckets=buckets)
    print(f"gold: {gold_label}\npred: {pred_label}" + (f"\nbuckets: {args.by}" if args.by else ""))
    print(score_table(result))
    if args.json:
        _write_json(args.json, score_json(result, gold=gold_label, pred=pred_label, by=args.by))
        print(f"scores written to {args.json}", file=sys.stderr)
    return 0


def _cmd_drift(args: argparse.Namespace) -> int:
    from . import folds
    from .drift import decompose

    a_label, a_text = folds.read_conllu(None, args.a, "--a")
    b_label, b_text = folds.read_conllu(None, args.b, "--b")
    result = decompose(a_text, b_text, top=args.top)
    print(f"a: {a_label}\nb: {b_label}")
    print(result.format_report())
    if args.json:
        _write_json(args.json, {"a": a_label, "b": b_label, **result.to_dict()})
        print(f"decomposition written to {args.json}", file=sys.stderr)
    return 0


def _probability(text: str) -> float:
    x = float(text)
    if not 0.0 < x < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
    return x


def _non_negative(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return n


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval`` (with ``overlap``, ``score``, ``drift``) to the ``sphragis`` CLI."""
    fold_help = "a named UD fold (e.g. ud_perseus-test, ud_proiel-dev) or the path of a .conllu file"
    e = subparsers.add_parser(
        "eval", help="evaluation toolkit: overlap manifests, scoring, convention drift (SPEC §12)",
        description="The evaluation toolkit of the benchmark protocol (seed 001). Named folds are the "
        "UD dev/test files as published, read from SPHRAGIS_DATA; the warehouse is SPHRAGIS_WAREHOUSE.")
    sub = e.add_subparsers(dest="eval_command", required=True)

    o = sub.add_parser(
        "overlap", help="resolve UD Perseus dev/test to AGDT and write the training-exclusion manifest",
        description="Print how every UD Perseus dev/test sentence resolves to its AGDT source sentence "
        "(NFC form-sequence equality, punctuation included) and how many AGDT, Gorman, Pedalion and "
        "Harrington sentences overlap the UD Perseus and UD PROIEL evaluation folds, from the "
        "warehouse marts; write the exclusion manifest as JSON.")
    o.add_argument("--json", default=str(DEFAULT_MANIFEST), metavar="PATH",
                   help=f"where to write the manifest (default: {DEFAULT_MANIFEST})")
    o.set_defaults(func=_cmd_overlap)

    s = sub.add_parser(
        "score", help="CoNLL 2018 F1 of a prediction against a gold fold, with bootstrap CIs",
        description="Score predicted CoNLL-U against gold with gold tokenization: UPOS, XPOS, UFeats, "
        "AllTags, Lemma, UAS, LAS, CLAS, MLAS, BLEX as CoNLL 2018 F1 (udtools.udeval), with "
        "percentile-bootstrap confidence intervals over sentences. Tokenization must match the gold "
        "exactly; the first difference is reported.")
    s.add_argument("--gold", required=True, metavar="FOLD|PATH", help=fold_help)
    s.add_argument("--pred", required=True, metavar="PATH", help="predicted CoNLL-U file")
    s.add_argument("--bootstrap", type=_non_negative, default=999,
                   help="bootstrap resamples (default 999; 0 = no CI)")
    s.add_argument("--seed", type=int, default=776, help="resampling seed (default 776)")
    s.add_argument("--confidence", type=_probability, default=0.95,
                   help="confidence level of the CI (default 0.95)")
    s.add_argument("--by", choices=["genre", "author"],
                   help="also score per genre or per author of the works registry (needs the warehouse)")
    s.add_argument("--json", metavar="PATH", help="also write the scores as JSON")
    s.set_defaults(func=_cmd_score)

    d = sub.add_parser(
        "drift", help="decompose the disagreement between two annotations of the same sentences",
        description="Convention decomposition of annotation b against annotation a (a as gold): the "
        "UFeats gap split into scheme-absent feature types and disagreement inside shared types "
        "(per-type agreement), the LAS gap into attachment and label-only errors, and the top "
        "relation and UPOS confusion pairs. Both must have the same tokenization.")
    d.add_argument("--a", required=True, metavar="FOLD|PATH", help=f"annotation a: {fold_help}")
    d.add_argument("--b", required=True, metavar="FOLD|PATH", help=f"annotation b: {fold_help}")
    d.add_argument("--top", type=_non_negative, default=10, help="confusion pairs to list (default 10)")
    d.add_argument("--json", metavar="PATH", help="also write the decomposition as JSON")
    d.set_defaults(func=_cmd_drift)
