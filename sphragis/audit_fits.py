"""The audit's fits (:mod:`sphragis.audit`, SPEC §11): per configuration the three classifiers of
:data:`TASKS`, fitted on ``train`` and scored on ``validation`` and ``test``, all configurations'
fits scheduled on the machine's cores."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from . import config
from .audit_features import SplitRows, Units, _sklearn, config_files, declared_inputs, load, split_rows
from .benchmark import BY_NAME, CONFIGS, EVAL_SPLITS, SPLITS
from .predictions import EVAL_SPLIT

#: Classifier settings (recorded in the report).
SVC_C = 0.5
#: liblinear's stopping tolerance, chosen by measurement (its effect: :data:`STOPPING_RULE`).
SVC_TOL = 1e-2
#: The tolerance's measured effect on the pinned sources (every LinearSVC fit of the 12 configurations
#: at 1e-4, 1e-2 and 1e-1; :mod:`sphragis.bench_audit` measures it again), as the report and the
#: dataset card state it. 1e-1 was cheaper still but moved a text → author test figure.
STOPPING_RULE = (f"liblinear stops at tol={SVC_TOL:g} instead of scikit-learn's default 1e-4, chosen by measurement on "
                 "all 12 configurations (`make bench-audit`): against 1e-4, 17 % less CPU time in the fits on an "
                 "idle 2-core machine (13 % under load), every text → author test figure unchanged, markup test "
                 "figures moved by at most 0.23 points of accuracy and 0.50 points of macro-F1 (validation: at "
                 "most 1.02 and 4.04, on sentence_50's 98 rows)")
RANDOM_STATE = 0
MIN_TRAIN_DF = 2
#: Fits run at once, each in a worker process of its own (forked: the matrices are shared, not
#: copied), at most the machine's cores.
N_JOBS = 2
#: What the forked fit workers read (:func:`_fit_job`): set by :func:`run_audit` before the pool
#: starts its processes, cleared after.
_SHARED: dict[str, Any] = {}

#: (feature set, target) pairs fitted per configuration.
TASKS = (("markup", "author"), ("markup", "project"), ("text", "author"))
#: The feature sets of :data:`TASKS`, each fitted once per configuration for all its targets.
FEATURE_SETS = tuple(dict.fromkeys(fs for fs, _ in TASKS))
#: The fit whose test predictions become the reference submission (:mod:`sphragis.submission`).
REFERENCE_TASK = ("text", "author")


def _scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, f1_score

    return {"accuracy": float(accuracy_score(y_true, y_pred)),
            "macro_f1": float(f1_score(y_true, y_pred, average="macro", zero_division=0))}


def fit_and_score(x_train, y_trains: dict[str, np.ndarray], evals: dict[str, tuple[Any, dict[str, np.ndarray]]],
                  predictions_of: dict[str, tuple[str, ...]] | None = None, tol: float = SVC_TOL
                  ) -> dict[str, dict[str, Any]]:
    """Restrict to features of >= MIN_TRAIN_DF training rows, sublinear TF-IDF, LinearSVC; the
    restriction and weighting are done once and shared by every target of the same rows.

    Args:
        x_train: CSR counts (rows × features) of the training rows.
        y_trains: target name → training labels (one fit per target).
        evals: split name → (CSR counts with the same columns, target name → labels).
        predictions_of: target name → evaluation splits whose predictions are returned too.
        tol: liblinear's stopping tolerance (:data:`SVC_TOL`; :mod:`sphragis.bench_audit` measures others).

    Returns:
        Per target: {"n_features": int, "n_classes": int, "seconds": float (the shared preparation
        included), "<split>": {"accuracy", "macro_f1"}, "majority": {"<split>": {...}}} (accuracy
        and macro-F1 as fractions), and with ``predictions_of`` "predictions": {"<split>": [label
        per row, in row order]}.
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    t0 = time.perf_counter()
    df = np.asarray((x_train > 0).sum(axis=0)).ravel()
    keep = np.flatnonzero(df >= MIN_TRAIN_DF)
    tfidf = TfidfTransformer(sublinear_tf=True)
    xt = tfidf.fit_transform(x_train[:, keep])
    xe = {split: tfidf.transform(x[:, keep]) for split, (x, _) in evals.items()}
    prepared = time.perf_counter() - t0
    return {target: _fit_target(xt, y, {s: (xe[s], ys[target]) for s, (_, ys) in evals.items()},
                                (predictions_of or {}).get(target, ()), len(keep), prepared, tol)
            for target, y in y_trains.items()}


def _fit_target(xt, y_train: np.ndarray, evals: dict[str, tuple[Any, np.ndarray]], predictions_of: tuple[str, ...],
                n_features: int, prepared: float, tol: float = SVC_TOL) -> dict[str, Any]:
    """One ``LinearSVC`` (liblinear's one-vs-rest) on the weighted training rows ``xt``, scored on ``evals``."""
    from sklearn.svm import LinearSVC

    t0 = time.perf_counter()
    classes, counts = np.unique(y_train, return_counts=True)
    majority = classes[np.argmax(counts)]  # np.unique sorts, so ties go to the first label
    out: dict[str, Any] = {"n_features": int(n_features), "n_classes": int(len(classes)), "majority": {},
                           "majority_label": str(majority)}
    if len(classes) < 2:
        model = None
    else:
        # liblinear's own one-vs-rest (one binary problem per class, dual coordinate descent, one
        # random_state: deterministic): the same predictions as sklearn's OneVsRestClassifier around
        # a binary LinearSVC on all 12 configurations, without copying the rows into
        # liblinear once per class
        model = LinearSVC(C=SVC_C, tol=tol, dual=True, random_state=RANDOM_STATE, max_iter=5000)
        model.fit(xt, y_train)
    for split, (x, y) in evals.items():
        pred = np.array([majority] * x.shape[0], dtype=object) if model is None else model.predict(x)
        out[split] = _scores(y, pred)
        if split in predictions_of:
            out.setdefault("predictions", {})[split] = [str(label) for label in pred]
        out["majority"][split] = _scores(y, np.array([majority] * len(y), dtype=object))
        if split == EVAL_SPLIT:  # the leaderboard's figures: CIs and top-k on test
            out |= test_intervals(y, pred, majority, classes[np.argsort(-counts, kind="stable")],
                                  None if model is None else (model.decision_function(x), model.classes_))
    out["seconds"] = prepared + time.perf_counter() - t0
    return out


def test_intervals(y: np.ndarray, pred: np.ndarray, majority: str, by_frequency: np.ndarray,
                   decision: tuple[np.ndarray, np.ndarray] | None) -> dict[str, Any]:
    """The test split's percentile-bootstrap CIs (accuracy, macro-F1) of a fit and of its majority
    baseline (:func:`sphragis.evaluation.bootstrap.classification_interval`: a fresh
    ``default_rng(776)``, 999 resamples, as ``sphragis score``), and the top-k accuracy
    (:data:`sphragis.predictions.TOP_K`) of the fit's decision function and of the k most
    frequent training labels (None when there are no more than k labels).

    Returns:
        {"test_ci": {"accuracy", "macro_f1"}, "majority_test_ci": {...}, "test_top_k": {"k",
        "accuracy", "majority_accuracy"} | None}.
    """
    from .evaluation.bootstrap import classification_interval
    from .predictions import TOP_K

    ci = classification_interval(y, pred)
    base = classification_interval(y, np.array([majority] * len(y), dtype=object))
    out: dict[str, Any] = {"test_ci": {m: ci[m] for m in ("accuracy", "macro_f1")},
                           "majority_test_ci": {m: base[m] for m in ("accuracy", "macro_f1")}, "test_top_k": None}
    if decision is not None and len(decision[1]) > TOP_K and len(y):
        scores, labels = decision
        top = labels[np.argsort(-scores, axis=1, kind="stable")[:, :TOP_K]]
        out["test_top_k"] = {"k": TOP_K, "accuracy": float(np.mean([a in t for a, t in zip(y, top)])),
                             "majority_accuracy": float(np.isin(y, by_frequency[:TOP_K]).mean())}
    return out


def overlap_twins(out: Path) -> dict[str, dict[str, list[str]]] | None:
    """The evaluation rows with a near-twin in train, ``{config: {split: [id, ...]}}``, from the
    export's ``metadata/overlap_twins.json`` (SPEC §7.1); None when the export has no such file."""
    path = out / config.OVERLAP_TWINS
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def config_rows(con: duckdb.DuckDBPyConnection, units: Units, cfg: str) -> dict[str, SplitRows]:
    """Every split of configuration ``cfg`` (:func:`sphragis.audit_features.split_rows`)."""
    return {split: split_rows(con, units, cfg, split) for split in SPLITS}


def config_summary(cfg: str, rows: dict[str, SplitRows]) -> dict[str, Any]:
    """What a configuration's result says besides its fits: track, chunk size, rows per split,
    training authors, projects per split and the evaluation projects without a training row."""
    result: dict[str, Any] = {
        "track": BY_NAME[cfg].track,
        "chunk_size": BY_NAME[cfg].chunk_target_size,
        "rows": {split: int(rows[split].incidence.shape[0]) for split in SPLITS},
        "n_authors": int(len(set(rows["train"].authors))),
        "projects": {split: sorted({str(p) for p in rows[split].projects}) for split in SPLITS},
    }
    # on the source-held-out track a held-out project may have no training row at all: a project
    # classifier cannot predict it, so its rows count as errors (stated, not hidden)
    result["eval_projects_not_in_train"] = sorted(
        (set(result["projects"]["validation"]) | set(result["projects"]["test"])) - set(result["projects"]["train"]))
    return result


def fit_feature_set(units: Units, rows: dict[str, SplitRows], feature_set: str,
                    twins: dict[str, list[str]] | None = None, tol: float = SVC_TOL) -> dict[str, Any]:
    """The fits of one configuration's ``feature_set`` (every target :data:`TASKS` pairs with it),
    on row counts summed from the unit counts once; ``twins``: the configuration's entry of
    :func:`overlap_twins` (text → author is also scored without them); ``tol`` as in
    :func:`fit_and_score`.

    Returns:
        {"<feature_set>_<target>": :func:`fit_and_score` result}, and for the text features with
        ``twins`` also "rows_without_twins": {split: rows}.
    """
    u = {"markup": units.markup, "text": units.text}[feature_set]
    xs = {split: (rows[split].incidence @ u).tocsr() for split in SPLITS}
    targets = [tg for fs, tg in TASKS if fs == feature_set]
    labels = {split: {tg: (rows[split].authors if tg == "author" else rows[split].projects) for tg in targets}
              for split in SPLITS}
    evals = {s: (xs[s], labels[s]) for s in EVAL_SPLITS}
    out: dict[str, Any] = {}
    if feature_set == "text" and twins is not None:
        keep = {s: ~np.isin(rows[s].ids, twins.get(s, [])) for s in EVAL_SPLITS}
        evals |= {f"{s}_without_twins": (xs[s][keep[s]], {tg: y[keep[s]] for tg, y in labels[s].items()})
                  for s in EVAL_SPLITS}
        out["rows_without_twins"] = {s: int(keep[s].sum()) for s in EVAL_SPLITS}
    # every target's test predictions: the reference submission (text → author) and the
    # same-author gaps (sphragis.audit_claims)
    fits = fit_and_score(xs["train"], labels["train"], evals, {tg: (EVAL_SPLIT,) for tg in targets}, tol)
    return out | {f"{feature_set}_{tg}": fit for tg, fit in fits.items()}


#: The job of :func:`sphragis.audit_claims.fit_within` (the floor decomposed) beside the feature sets.
WITHIN = "within"


def _fit_job(job: tuple[str, str]) -> dict[str, Any]:
    """:func:`fit_feature_set` of one (configuration, feature set) over the units, rows and twins
    :func:`run_audit` left in :data:`_SHARED` (run in a forked worker, or in-process); for the
    feature set :data:`WITHIN`, the floor's decomposition (:func:`sphragis.audit_claims.fit_within`)."""
    cfg, feature_set = job
    if feature_set == WITHIN:
        from .audit_claims import fit_within

        return fit_within(_SHARED["units"], _SHARED["rows"][cfg], cfg, fit_and_score)
    twins = _SHARED["twins"]
    return fit_feature_set(_SHARED["units"], _SHARED["rows"][cfg], feature_set,
                           None if twins is None else twins.get(cfg, {}))


def load_rows(out: Path, configs: tuple[str, ...] = CONFIGS
              ) -> tuple[Units, dict[str, dict[str, SplitRows]], dict[str, dict[str, list[str]]] | None]:
    """What the fits of ``configs`` read from the export ``out``: the units counted once
    (:func:`sphragis.audit_features.load`, which checks that the features read only the columns
    ``metadata/dataset_variants.json`` declares inputs), every configuration's :func:`config_rows`
    (the DuckDB connection closed after), and :func:`overlap_twins`.

    Raises:
        AuditError: the export is incomplete (names the file), or the features would read a
            column that is not a declared input.
    """
    con, units = load(config_files(out, configs), declared_inputs(out, configs))
    try:
        rows = {cfg: config_rows(con, units, cfg) for cfg in configs}
    finally:
        con.close()
    return units, rows, overlap_twins(out)


def claims_of(rows: dict[str, SplitRows], cfg: str, files: dict[str, Path], within: dict | None) -> dict[str, Any]:
    """What a configuration's result carries for :mod:`sphragis.audit_claims` besides its fits: the
    lookup baselines, the confounds, the floor's decomposition (main track), and the test and
    training authors the cross-configuration figures need."""
    from .audit_claims import confounds, lookup_baselines

    out = {**lookup_baselines(rows, _scores), "confounds": confounds(rows, cfg, files),
           "test_authors": [str(a) for a in rows[EVAL_SPLIT].authors],
           "train_authors": sorted({str(a) for a in rows["train"].authors})}
    if within is not None:
        out["floor_decomposition"] = within
    return out


def empty_splits(rows: dict[str, dict[str, SplitRows]]) -> dict[str, list[str]]:
    """Per configuration, its splits without a row (nothing to fit or score)."""
    return {cfg: [s for s in SPLITS if r[s].incidence.shape[0] == 0] for cfg, r in rows.items()}


def run_audit(out: Path, configs: tuple[str, ...] = CONFIGS, progress: bool = False,
              jobs: int = N_JOBS, on_step: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Audit every configuration of the export in ``out``; ``on_step`` is called with the name of
    each step as it starts (``audit: load``, ``audit: fits``; :mod:`sphragis.bench` measures them).

    The units are counted once (:func:`sphragis.audit_features.load`); every configuration's rows
    and labels are read, the DuckDB connection closed, then the fits of every (configuration,
    feature set) run ``jobs`` at a time, the costliest first (training nonzeros times classes), in
    forked worker processes, never in threads: liblinear (scikit-learn's ``LinearSVC``) draws its
    coordinate order from one random generator per process, reseeded by every fit, so two fits in
    threads of one process would interleave their draws and the figures would depend on the
    schedule (seen at a looser tolerance). One fit per process at a time is
    deterministic, whatever the schedule.

    Returns:
        {config: :func:`config_summary` with every feature set's :func:`fit_feature_set` and
        :func:`claims_of`} (raw floats, fit times included) for every
        configuration whose splits all have rows (the others are named on stderr and left out).

    Raises:
        AuditError: scikit-learn missing, or the export incomplete (names the file).
    """
    step = on_step or (lambda _name: None)
    _sklearn()
    t0 = time.perf_counter()
    step("audit: load")
    units, rows, twins = load_rows(out, configs)
    if progress:
        print(f"audit: {units.n:,} distinct units, {len(units.markup_vocab):,} markup features, "
              f"{len(units.text_vocab):,} character n-grams ({time.perf_counter() - t0:.1f}s)", file=sys.stderr)
    # a configuration with a split without rows (e.g. the work-held-out track of a small fraction
    # of the sources, `make bench --fraction`) has nothing to fit or score: left out, and said
    empty = empty_splits(rows)
    for cfg in [c for c in configs if empty[c]]:
        print(f"audit: {cfg}: no rows in {', '.join(empty[cfg])}: not audited", file=sys.stderr)
    configs = tuple(c for c in configs if not empty[c])
    per_unit = {fs: getattr(units, fs).nnz / max(units.n, 1) for fs in FEATURE_SETS}

    def cost(job: tuple[str, str]) -> float:
        cfg, fs = job
        classes = {"author": len(set(rows[cfg]["train"].authors)), "project": len(set(rows[cfg]["train"].projects))}
        if fs == WITHIN:  # per group: the markup rows of its project (author) and its few classes
            return rows[cfg]["train"].incidence.nnz * per_unit["markup"] * 4
        return rows[cfg]["train"].incidence.nnz * per_unit[fs] * sum(classes[tg] for f, tg in TASKS if f == fs)

    within = [(cfg, WITHIN) for cfg in configs if BY_NAME[cfg].track == "main"]
    todo = sorted([*((cfg, fs) for cfg in configs for fs in FEATURE_SETS), *within], key=cost, reverse=True)
    t1 = time.perf_counter()
    step("audit: fits")
    _SHARED.update(units=units, rows=rows, twins=twins)
    try:
        if jobs > 1 and len(todo) > 1 and "fork" in multiprocessing.get_all_start_methods():
            with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
                done = dict(zip(todo, pool.map(_fit_job, todo)))
        else:
            done = {job: _fit_job(job) for job in todo}
    finally:
        _SHARED.clear()
    results = {}
    files = config_files(out, configs)
    for cfg in configs:
        results[cfg] = config_summary(cfg, rows[cfg])
        for fs in FEATURE_SETS:
            results[cfg] |= done[(cfg, fs)]
        results[cfg]["seconds"] = sum(results[cfg][f"{fs}_{tg}"]["seconds"] for fs, tg in TASKS)
        results[cfg] |= claims_of(rows[cfg], cfg, files[cfg], done.get((cfg, WITHIN)))
        if progress:
            r = results[cfg]
            print(f"audit: {cfg:20s} markup→author {r['markup_author']['test']['accuracy']:.3f}  "
                  f"markup→project {r['markup_project']['test']['accuracy']:.3f}  "
                  f"text→author {r['text_author']['test']['accuracy']:.3f}  ({r['seconds']:.1f}s of fits)",
                  file=sys.stderr)
    if progress:
        n_fits = sum(1 for cfg in configs for _ in TASKS)
        print(f"audit: {n_fits} classifiers fitted ({len(todo)} jobs of a configuration's feature set, {jobs} at a "
              f"time) in {time.perf_counter() - t1:.1f}s", file=sys.stderr)
    return results
