"""What the leakage report says beyond each configuration's three fits (SPEC §11; :mod:`sphragis.audit`):
the figures a reviewer needs to read the floor and the tracks' gaps without over-claiming.

* **The floor, decomposed** (:func:`fit_within`, main-track configurations): markup → author
  fitted again inside each project (the annotator fixed: what is left is the authors' syntax and
  style) and markup → project inside each author that two projects annotate (the author fixed:
  what is left is the annotators' conventions); each pooled over its test rows against the
  majority label of its group, with a bootstrap CI.
* **Baselines of their own** (:func:`lookup_baselines`): genre → author and project → author, the
  train-author lookup of :mod:`sphragis.label_lookup` by the row's genre and by its project label.
* **Confounds** (:func:`confounds`): per evaluation split the authors with fewer than
  :data:`THIN_ROWS` rows; the largest author's share of training rows; on the source-held-out
  track, per author whether the held-out project is also a held-out work (no evaluation work in
  train); on the atomic configurations, the evaluation sentences with a neighbouring sentence of
  the same source file in train (``sql/queries/audit_neighbours.sql``).
* **Like-for-like gaps and track means** (:func:`report_claims`, from the fits' test predictions):
  per held-out configuration, the main-track configuration of its chunk size scored on the
  held-out track's authors only, and the gap on the same authors, each with a CI of independent
  resamples (the main configuration's draws, then the held-out one's, from one generator, as
  ``sphragis score``'s gap); per system and track, the mean test accuracy over the track's
  configurations with a CI (each configuration's resamples averaged).

Every CI is the evaluation toolkit's percentile bootstrap (:mod:`sphragis.evaluation.bootstrap`:
999 resamples, seed 776, 95 %).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .benchmark import BY_NAME, CHUNK_SIZES, CONFIGS, EVAL_SPLITS, config_of
from .evaluation.bootstrap import (CONFIDENCE, RESAMPLES, SEED, classification_interval, draw, percentile_interval,
                                   resampled_sums)
from .predictions import EVAL_SPLIT

#: An evaluation split's authors with fewer rows than this are a thin cell (their scores are noise).
THIN_ROWS = 5
MAIN_TRACK = "main"
#: The tracks that hold something out, each compared with the main track on its own authors.
HELD_OUT_TRACKS = ("source_held_out", "work_held_out")
#: The systems whose scores the report gives per configuration: (name, result key, what it reads).
SYSTEMS = (("markup_author", "markup → author (leakage floor)"), ("text_author", "text → author (character n-grams)"),
           ("genre_author", "genre → author (lookup)"), ("project_author", "project → author (lookup)"))


def _interval(y, p) -> dict[str, Any]:
    ci = classification_interval(np.asarray(y, dtype=object), np.asarray(p, dtype=object))
    return {"accuracy": float(np.mean(np.asarray(y) == np.asarray(p))) if len(y) else None, "ci": ci["accuracy"]}


def fit_within(units, rows: dict, cfg: str, fit_and_score) -> dict[str, Any]:
    """The floor decomposed on one configuration (module docstring), markup features only.

    Args:
        units: :class:`sphragis.audit_features.Units`.
        rows: the configuration's :class:`sphragis.audit_features.SplitRows` per split.
        cfg: its name.
        fit_and_score: :func:`sphragis.audit_fits.fit_and_score` (the audit's own fit).

    Returns:
        {"within_project": group summary, "within_author": group summary}, each {"groups": {name:
        {"train_rows", "test_rows", "labels", "accuracy", "majority_accuracy"}}, "pooled": {"test_rows",
        "accuracy", "ci", "majority_accuracy", "majority_ci"}}: markup → author per project with at
        least two training authors, markup → project per author with at least two training
        projects; groups without a test row are left out.
    """
    xs = {s: (rows[s].incidence @ units.markup).tocsr() for s in ("train", EVAL_SPLIT)}
    out = {}
    for name, group_by, target in (("within_project", "projects", "authors"), ("within_author", "authors", "projects")):
        groups, gold, pred, base = {}, [], [], []
        train_groups = getattr(rows["train"], group_by)
        test_groups = getattr(rows[EVAL_SPLIT], group_by)
        for g in sorted(set(train_groups) & set(test_groups)):
            tr, te = train_groups == g, test_groups == g
            y_train, y_test = getattr(rows["train"], target)[tr], getattr(rows[EVAL_SPLIT], target)[te]
            if len(set(y_train)) < 2:
                continue
            fit = fit_and_score(xs["train"][tr], {"y": y_train}, {EVAL_SPLIT: (xs[EVAL_SPLIT][te], {"y": y_test})},
                                {"y": (EVAL_SPLIT,)})["y"]
            labels, counts = np.unique(y_train, return_counts=True)
            majority = labels[np.argmax(counts)]
            groups[str(g)] = {"train_rows": int(tr.sum()), "test_rows": int(te.sum()), "labels": int(len(labels)),
                              "accuracy": fit[EVAL_SPLIT]["accuracy"],
                              "majority_accuracy": fit["majority"][EVAL_SPLIT]["accuracy"]}
            gold += list(y_test)
            pred += fit["predictions"][EVAL_SPLIT]
            base += [majority] * len(y_test)
        pooled = _interval(gold, pred)
        majority = _interval(gold, base)
        out[name] = {"groups": groups, "pooled": {"test_rows": len(gold), "accuracy": pooled["accuracy"],
                                                  "ci": pooled["ci"], "majority_accuracy": majority["accuracy"],
                                                  "majority_ci": majority["ci"]}}
    return out


def lookup_baselines(rows: dict, scores) -> dict[str, Any]:
    """genre → author and project → author on one configuration (module docstring): {"genre_author":
    fit, "project_author": fit}, each shaped as a classifier's result ({"test": {"accuracy",
    "macro_f1"}, "test_ci", "majority": {"test": ...}, "majority_test_ci", "predictions":
    {"test": [...]}}; no top-k: a lookup names one author). ``scores``: the audit's accuracy and
    macro-F1 of (gold, predicted) (:func:`sphragis.audit_fits._scores`)."""
    import pyarrow as pa

    from . import label_lookup

    splits = ("train", EVAL_SPLIT)
    lookups = {key: {s: label_lookup.leaf_values(pa.array(list(getattr(rows[s], attr)), pa.string()), key)
                     for s in splits}
               for key, attr in (("genre", "genres"), ("project", "projects"))}
    got = label_lookup.predict(lookups, {s: rows[s].authors for s in splits})
    out = {}
    for key in lookups:
        r = got[key][EVAL_SPLIT]
        ci, base = classification_interval(r["author"], r["predicted"]), classification_interval(r["author"], r["majority"])
        out[f"{key}_author"] = {
            "test": scores(r["author"], r["predicted"]), "test_ci": {m: ci[m] for m in ("accuracy", "macro_f1")},
            "majority": {"test": scores(r["author"], r["majority"])},
            "majority_test_ci": {m: base[m] for m in ("accuracy", "macro_f1")}, "test_top_k": None,
            "predictions": {EVAL_SPLIT: [str(a) for a in r["predicted"]]}}
    return out


def confounds(rows: dict, cfg: str, files: dict[str, Path] | None = None) -> dict[str, Any]:
    """The confounds of one configuration (module docstring).

    Args:
        rows: its :class:`sphragis.audit_features.SplitRows` per split.
        cfg: its name.
        files: its Parquet file per split (:func:`sphragis.audit_features.config_files`): the
            neighbour leakage of an atomic configuration is measured on them (None: not measured).

    Returns:
        {"thin_authors": {split: {author: rows}} (below :data:`THIN_ROWS`, every training author
        counted), "largest_train_share": {"author", "share"}, "held_out_works": {author:
        {"held_out_project_is_held_out_work", "evaluation_works", "evaluation_rows_of_a_training_work"}}
        (source-held-out atomic configurations), "neighbours": {split: {"rows", "with_neighbour_in_train",
        "share"}} (atomic configurations with ``files``)}.
    """
    train = rows["train"].authors
    names, counts = np.unique(train, return_counts=True) if len(train) else (np.array([]), np.array([]))
    out: dict[str, Any] = {"thin_authors": {}, "largest_train_share": None}
    for split in EVAL_SPLITS:
        have = dict(zip(*np.unique(rows[split].authors, return_counts=True))) if len(rows[split].authors) else {}
        out["thin_authors"][split] = {str(a): int(have.get(a, 0)) for a in names if have.get(a, 0) < THIN_ROWS}
    if len(names):
        top = int(np.argmax(counts))
        out["largest_train_share"] = {"author": str(names[top]), "share": float(counts[top] / counts.sum())}
    atomic = BY_NAME[cfg].chunk_target_size == 1
    if atomic and BY_NAME[cfg].track == "source_held_out":
        works = {}
        for author in names:
            seen = set(rows["train"].work_ids[train == author])
            ev = np.concatenate([rows[s].work_ids[rows[s].authors == author] for s in EVAL_SPLITS])
            works[str(author)] = {"held_out_project_is_held_out_work": not (set(ev) & seen),
                                  "evaluation_works": sorted(str(w) for w in set(ev)),
                                  "evaluation_rows_of_a_training_work": int(np.isin(ev, list(seen)).sum())}
        out["held_out_works"] = works
    if atomic and files is not None:
        out["neighbours"] = neighbours(files)
    return out


def neighbours(files: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Per evaluation split of an atomic configuration: its rows, those with a neighbouring sentence
    (the one before or after it in the same source file, through any of its records) among the
    training rows, and their share (``sql/queries/audit_neighbours.sql``)."""
    import duckdb

    from .queries import query

    con = duckdb.connect()
    try:
        got = con.execute(query("audit_neighbours"), {"train": str(files["train"]),
                                                      "evaluation": [str(files[s]) for s in EVAL_SPLITS]}).fetchall()
    finally:
        con.close()
    return {split: {"rows": int(n), "with_neighbour_in_train": int(k), "share": float(k / n) if n else None}
            for split, n, k in got}


def _accuracy_resamples(y: list, p: list, rng, bootstrap: int = RESAMPLES) -> np.ndarray:
    correct = (np.asarray(y, dtype=object) == np.asarray(p, dtype=object)).astype(np.float64)
    return resampled_sums(correct, draw(len(correct), bootstrap, rng)) / len(correct)


def _ci(samples: np.ndarray, confidence: float = CONFIDENCE) -> list[float]:
    low, high = percentile_interval(samples, confidence)
    return [float(low), float(high)]


def gap_entry(y_main, p_main, y_held, p_held, *, seed: int = SEED, bootstrap: int = RESAMPLES,
              confidence: float = CONFIDENCE) -> dict[str, Any] | None:
    """Main-track and held-out test accuracy and their gap, each with a CI: the main rows' resamples
    drawn first, then the held-out ones', from one ``default_rng(776)`` (independent draws, as
    ``sphragis score``'s gap). ``y_main``/``p_main`` are already restricted to the held-out track's
    authors (:func:`same_author_rows`).

    Returns:
        {"main_same_authors": {"accuracy", "ci"}, "held_out": {"accuracy", "ci"}, "gap": {"accuracy",
        "ci"}}, or None when either side has no row.
    """
    if not len(y_main) or not len(y_held):
        return None
    acc_main, acc_held = _accuracy(y_main, p_main), _accuracy(y_held, p_held)
    out = {"main_same_authors": {"accuracy": acc_main, "ci": None}, "held_out": {"accuracy": acc_held, "ci": None},
           "gap": {"accuracy": acc_main - acc_held, "ci": None}}
    if bootstrap:
        rng = np.random.default_rng(seed)
        a, b = _accuracy_resamples(y_main, p_main, rng, bootstrap), _accuracy_resamples(y_held, p_held, rng, bootstrap)
        for key, samples in (("main_same_authors", a), ("held_out", b), ("gap", a - b)):
            out[key]["ci"] = _ci(samples, confidence)
    return out


def same_author_rows(y_main, held_authors) -> np.ndarray:
    """Mask of the main-track test rows whose author is one of ``held_authors`` (the held-out
    configuration's training authors)."""
    return np.isin(np.asarray(y_main, dtype=object), list(held_authors))


def mean_entry(pairs: list[tuple[Any, Any]], *, seed: int = SEED, bootstrap: int = RESAMPLES,
               confidence: float = CONFIDENCE) -> dict[str, Any]:
    """The mean test accuracy over configurations (``[(gold, predictions), ...]``) with a CI: each
    configuration's own resamples (a fresh ``default_rng(seed)``, its CI's draws), averaged (no CI
    when ``bootstrap`` is 0)."""
    value = float(np.mean([_accuracy(y, p) for y, p in pairs]))
    if not bootstrap:
        return {"accuracy": value, "ci": None}
    samples = [_accuracy_resamples(y, p, seed, bootstrap) for y, p in pairs]
    return {"accuracy": value, "ci": _ci(np.mean(samples, axis=0), confidence)}


def _accuracy(y, p) -> float:
    return float(np.mean(np.asarray(y, dtype=object) == np.asarray(p, dtype=object)))


def _predictions(result: dict[str, Any], system: str) -> list:
    if system == "majority":
        return [result["markup_author"]["majority_label"]] * len(result["test_authors"])
    return result[system]["predictions"][EVAL_SPLIT]


def report_claims(results: dict[str, Any]) -> dict[str, Any]:
    """The cross-configuration figures (module docstring) from the audit's results (each
    configuration's ``test_authors``, ``train_authors`` and every system's test predictions).

    Returns:
        {"same_author_gap": {held-out config: {"main", "authors", "main_rows", "held_out_rows",
        "<system>": :func:`gap_entry`}}, "track_means": {system: {track: {"configs", "accuracy",
        "ci"}}}} for every system of :data:`SYSTEMS` and ``majority`` (fractions, unrounded).
    """
    systems = [name for name, _ in SYSTEMS] + ["majority"]
    gaps: dict[str, Any] = {}
    for track in HELD_OUT_TRACKS:
        for k in CHUNK_SIZES:
            main, held = config_of(MAIN_TRACK, k), config_of(track, k)
            if main not in results or held not in results:
                continue
            keep = same_author_rows(results[main]["test_authors"], results[held]["train_authors"])
            y_main = np.asarray(results[main]["test_authors"], dtype=object)[keep]
            entry: dict[str, Any] = {"main": main, "authors": results[held]["train_authors"],
                                     "main_rows": int(keep.sum()), "held_out_rows": len(results[held]["test_authors"])}
            for system in systems:
                entry[system] = gap_entry(y_main, np.asarray(_predictions(results[main], system), dtype=object)[keep],
                                          results[held]["test_authors"], _predictions(results[held], system))
            gaps[held] = entry
    means: dict[str, Any] = {}
    for system in systems:
        for track in dict.fromkeys(BY_NAME[c].track for c in CONFIGS if c in results):
            cfgs = [c for c in CONFIGS if c in results and BY_NAME[c].track == track]
            means.setdefault(system, {})[track] = {
                "configs": cfgs, **mean_entry([(results[c]["test_authors"], _predictions(results[c], system))
                                               for c in cfgs])}
    return {"same_author_gap": gaps, "track_means": means}
