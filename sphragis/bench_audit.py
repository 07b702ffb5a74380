"""``make bench-audit`` (``python -m sphragis.bench_audit``, also ``sphragis bench-audit``): re-measure
the audit's stopping rule (:data:`sphragis.audit_fits.STOPPING_RULE`, which the leakage report and
the dataset card quote) on the export in ``SPHRAGIS_OUT``.

Every (configuration, feature set) of the export is fitted and scored as ``sphragis audit`` does
(:func:`sphragis.audit_fits.fit_feature_set`, the same rows, features and weighting), once per
tolerance, one fit at a time in this process, so each fit's CPU time (``time.process_time``: user +
system of the process) is its own. The first tolerance is the reference (scikit-learn's default
1e-4); for each other one the report gives the fits' CPU seconds against the reference's, and per
task (``markup_author``, ``markup_project``, ``text_author``) and evaluation split the largest and
the mean absolute change of accuracy and macro-F1 over the configurations, in points (percentage
points), with the configuration of the largest. Two tolerances on the pinned sources take about
twice the audit's fits.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from . import config
from .audit_fits import FEATURE_SETS, SVC_TOL, TASKS, empty_splits, fit_feature_set, load_rows
from .benchmark import CONFIGS, EVAL_SPLITS
from .files import check_output_file, write_json

#: scikit-learn's default tolerance for ``LinearSVC``: the reference the audit's is measured against.
REFERENCE_TOL = 1e-4
DEFAULT_JSON = config.REPO_ROOT / "reports" / "bench_audit.json"
METRICS = ("accuracy", "macro_f1")


def fit_all(out: Path, tols: tuple[float, ...], configs: tuple[str, ...] = CONFIGS) -> dict[float, dict[str, Any]]:
    """Fit every configuration's feature sets once per tolerance.

    Returns:
        {tol: {"cpu_seconds": float (the fits, tf-idf and predictions summed, CPU seconds),
        "scores": {"<config>/<feature set>_<target>": {split: {"accuracy", "macro_f1"} (fractions)}}}}.

    Raises:
        AuditError: the export is incomplete (names the file), or a configuration has a split
            without rows (nothing to fit).
    """
    from .audit_features import AuditError

    units, rows, twins = load_rows(out, configs)
    for cfg, empty in empty_splits(rows).items():
        if empty:
            raise AuditError(f"{out / 'data' / cfg}: no rows in {', '.join(empty)}: nothing to fit")
    done: dict[float, dict[str, Any]] = {}
    for tol in tols:
        cpu, scores = 0.0, {}
        for cfg in configs:
            for fs in FEATURE_SETS:
                t0 = time.process_time()
                fits = fit_feature_set(units, rows[cfg], fs, None if twins is None else twins.get(cfg, {}), tol)
                cpu += time.process_time() - t0
                for task in (f"{fs}_{tg}" for f, tg in TASKS if f == fs):
                    scores[f"{cfg}/{task}"] = {s: fits[task][s] for s in EVAL_SPLITS}
        done[tol] = {"cpu_seconds": cpu, "scores": scores}
        print(f"bench-audit: tol={tol:g}: {len(scores)} classifiers, {cpu:.1f} CPU-s", file=sys.stderr, flush=True)
    return done


def compare(done: dict[float, dict[str, Any]]) -> dict[str, Any]:
    """Each tolerance of :func:`fit_all` against the first (the reference).

    Returns:
        {"reference_tol": float, "tols": [{"tol", "cpu_seconds", "cpu_change_percent" (negative:
        less CPU than the reference), "tasks": {task: {split: {metric: {"max_points", "mean_points",
        "max_config"}}}}}]}, points = 100 × |fraction − reference fraction|.
    """
    ref_tol, *_ = done
    ref = done[ref_tol]
    tasks = list(dict.fromkeys(key.split("/", 1)[1] for key in ref["scores"]))
    rows = []
    for tol, d in done.items():
        per_task: dict[str, Any] = {}
        for task in tasks:
            keys = [k for k in ref["scores"] if k.endswith("/" + task)]
            per_task[task] = {}
            for split in EVAL_SPLITS:
                per_task[task][split] = {}
                for metric in METRICS:
                    diffs = {k.split("/")[0]: 100 * abs(d["scores"][k][split][metric] - ref["scores"][k][split][metric])
                             for k in keys}
                    worst = max(diffs, key=lambda c: diffs[c])
                    per_task[task][split][metric] = {"max_points": round(diffs[worst], 4), "max_config": worst,
                                                     "mean_points": round(sum(diffs.values()) / len(diffs), 4)}
        rows.append({"tol": tol, "cpu_seconds": round(d["cpu_seconds"], 2),
                     "cpu_change_percent": round(100 * (d["cpu_seconds"] / ref["cpu_seconds"] - 1), 1),
                     "tasks": per_task})
    return {"reference_tol": ref_tol, "tols": rows}


def render(doc: dict[str, Any]) -> str:
    """The comparison as plain text: per tolerance other than the reference, one line per task and
    evaluation split."""
    lines = [f"reference tol={doc['reference_tol']:g}: fits {doc['tols'][0]['cpu_seconds']:.1f} CPU-s; changes "
             "in points (largest over the configurations, with its configuration; mean)"]
    for r in doc["tols"][1:]:  # the first is the reference itself
        lines.append(f"tol={r['tol']:g}: fits {r['cpu_seconds']:.1f} CPU-s ({r['cpu_change_percent']:+.1f} %)")
        for task, splits in r["tasks"].items():
            for split in EVAL_SPLITS:
                said = [f"{label} max {m['max_points']:.2f}" + (f" ({m['max_config']})" if m["max_points"] else "")
                        + f" mean {m['mean_points']:.2f}"
                        for label, m in (("accuracy", splits[split]["accuracy"]),
                                         ("macro-F1", splits[split]["macro_f1"]))]
                lines.append(f"  {task:15s} {split:10s} " + "; ".join(said))
    return "\n".join(lines) + "\n"


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", metavar="DIR", help="the export to measure on (default: SPHRAGIS_OUT)")
    p.add_argument("--tol", type=float, action="append", metavar="T",
                   help=f"a tolerance to measure against {REFERENCE_TOL:g} (repeatable; default: the "
                        f"audit's, {SVC_TOL:g})")
    p.add_argument("--config", action="append", choices=CONFIGS, help="configuration(s) to fit (default: all)")
    p.add_argument("--json", default=str(DEFAULT_JSON), metavar="PATH", help="where to write the figures")


def _run(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else config.settings().out
    tols = (REFERENCE_TOL, *dict.fromkeys(args.tol or [SVC_TOL]))
    doc = compare(fit_all(out, tols, tuple(args.config) if args.config else CONFIGS))
    doc["export"] = str(out)
    path = write_json(check_output_file(args.json, protected=config.settings().inputs(), force=True), doc,
                      sort_keys=True)
    sys.stdout.write(render(doc))
    print(f"bench-audit: figures written to {path}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench-audit`` to the ``sphragis`` CLI (see :mod:`sphragis.cli`)."""
    p = subparsers.add_parser("bench-audit", help="re-measure the audit's stopping rule against tol 1e-4",
                              description=__doc__.split("\n\n")[0])
    _add_arguments(p)
    p.set_defaults(func=_run)


def main(argv: list[str] | None = None) -> int:
    """``python -m sphragis.bench_audit [--out DIR] [--tol T ...] [--config C ...] [--json PATH]``."""
    p = argparse.ArgumentParser(prog="python -m sphragis.bench_audit", description=__doc__.split("\n\n")[0])
    _add_arguments(p)
    return _run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
