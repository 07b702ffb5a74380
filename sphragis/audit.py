"""``sphragis audit``: the leakage audit and the text baselines (SPEC §11; seed 000 "Residual
leakage").

For each of the eight configurations of an export (``SPHRAGIS_OUT``, default ``dist/sphragis``;
``data/<config>/<split>-*.parquet``) three linear classifiers are fitted on ``train`` and scored
(accuracy, macro-F1) on ``validation`` and ``test``:

* **markup → author** and **markup → project**: features from the annotation markup only, never
  forms, lemmas or ``text``: per token the UPOS, DEPREL, UPOS/DEPREL pair, UPOS+full FEATS,
  each FEATS ``Feature=Value``, UPOS bigrams and trigrams and DEPREL bigrams in token order, the
  signed head distance (clipped to ±8), the relation with the head's UPOS and with the head's
  DEPREL, the depth in the tree (clipped at 12) and the number of dependents per UPOS (clipped
  at 5); per sentence its length, maximum depth (log2 bins) and the relative position of the
  root. The project label is the unit's ``treebank_source`` (the chosen parse); for a chunk, the
  most frequent one among its units (ties: the first in unit order).
* **text → author** (the first leaderboard rows): character n-grams (1–4, ``char_wb``) of
  ``text``, the row's units joined by single spaces. It is scored a second time on the evaluation
  rows without a near-twin in train (``<split>_without_twins``; the ids of
  ``metadata/overlap_twins.json``, SPEC §7.1), so the report shows how much the twins inflate it.

Both feature sets are counted per unit once and summed into rows (a chunk's counts are the sum
of its units', exactly what counting the joined row would give), then restricted to the
features of at least two training rows, weighted with sublinear TF-IDF (l2) fitted on train, and
classified with a one-vs-rest ``LinearSVC`` (``C=0.5``, ``random_state=0``). Token-level work
is SQL (DuckDB over the Parquet files; the named queries ``sql/queries/audit_*.sql``); nothing is
subsampled. A majority-class baseline (the most frequent training label) is reported beside
each target.

Outputs: ``<out>/metadata/leakage_report.json`` (deterministic: sorted keys, 4 decimals, no
timestamps or timings), ``<out>/metadata/reference_submission.jsonl`` (the text baseline's test
predictions as a ``sphragis score`` submission, :func:`write_reference`) and the warehouse table
``audit_results`` (one row per configuration × feature set × target × evaluation split, with fit
times), written in one short read-write connection at the end; without a warehouse that table is skipped with a note. ``--report``
renders the human-readable report afterwards (:mod:`sphragis.report`).

scikit-learn is an optional dependency (extras ``audit`` / ``dev``); without it the command
fails with one clear message.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from . import config, state
from .benchmark import BY_NAME, CHUNK_SIZES, CONFIGS, EVAL_SPLITS, SPLITS, config_of
from .files import rounded, write_json
from .queries import query

#: Classifier settings (recorded in the report).
SVC_C = 0.5
RANDOM_STATE = 0
MIN_TRAIN_DF = 2
#: Parallel one-vs-rest fits (the audit's time budget is set for a 2-core machine).
N_JOBS = 2
CHAR_NGRAMS = (1, 4)

#: (feature set, target) pairs fitted per configuration.
TASKS = (("markup", "author"), ("markup", "project"), ("text", "author"))
#: The fit whose test predictions become the reference submission (:mod:`sphragis.submission`).
REFERENCE_TASK = ("text", "author")


class AuditError(RuntimeError):
    """The export is missing, incomplete or malformed, or scikit-learn is not installed."""


def _sklearn():
    """Import scikit-learn lazily (optional extra)."""
    import importlib

    try:
        for name in ("scipy.sparse", "sklearn"):
            importlib.import_module(name)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise AuditError("the leakage audit needs scikit-learn: pip install 'sphragis-warehouse[audit]' "
                         f"(or the dev extra) ({exc})") from exc


# --------------------------------------------------------------------------------------------
# reading the export and extracting features (DuckDB)


def config_files(out: Path, configs: tuple[str, ...] = CONFIGS) -> dict[str, dict[str, Path]]:
    """The Parquet file of every (configuration, split) in the export directory ``out``.

    Raises:
        AuditError: a configuration or split has no ``data/<config>/<split>-*.parquet`` file
            (the message names the missing path), or it has more than one shard.
    """
    files: dict[str, dict[str, Path]] = {}
    for cfg in configs:
        files[cfg] = {}
        for split in SPLITS:
            found = sorted((out / "data" / cfg).glob(f"{split}-*.parquet"))
            if len(found) != 1:
                raise AuditError(f"{out / 'data' / cfg / (split + '-00000-of-00001.parquet')}: "
                                 f"expected exactly one file, found {len(found)}; run `sphragis export` first")
            files[cfg][split] = found[0]
    return files


@dataclass
class Units:
    """Every distinct unit (by ``dedup_key``) of the audited configurations.

    Attributes:
        n: number of units; unit ``k`` is row ``k`` of the matrices.
        markup: scipy CSR (n × len(markup_vocab)) of markup feature counts.
        markup_vocab: feature names, sorted (column order of ``markup``).
        text: scipy CSR (n × len(text_vocab)) of character n-gram counts of the unit text.
        text_vocab: the n-grams (column order of ``text``).
    """

    n: int
    markup: Any
    markup_vocab: list[str]
    text: Any
    text_vocab: list[str] = field(repr=False)


@dataclass
class SplitRows:
    """One (configuration, split): rows × units incidence and the two labels per row."""

    incidence: Any
    authors: np.ndarray
    projects: np.ndarray
    ids: np.ndarray


def load(files: dict[str, dict[str, Path]]) -> tuple[duckdb.DuckDBPyConnection, Units]:
    """Read every file into an in-memory DuckDB and count the unit features once.

    Returns:
        (connection holding ``audit_rows`` and ``audit_units``, :class:`Units`).

    Raises:
        AuditError: a file lacks a required column, or rows disagree on a unit's length.
    """
    import scipy.sparse as sp

    import pyarrow as pa

    con = duckdb.connect()
    inputs = pa.table({
        "path": [str(path) for splits in files.values() for path in splits.values()],
        "cfg": [cfg for cfg, splits in files.items() for _ in splits],
        "split": [split for splits in files.values() for split in splits],
    })
    con.register("audit_inputs", inputs)
    try:
        _temp_table(con, "audit_files", query("audit_files"), {"paths": inputs.column("path").to_pylist()})
    except duckdb.Error as exc:
        raise AuditError(f"cannot read the export's Parquet files: {exc}") from exc
    con.unregister("audit_inputs")
    bad = con.execute(query("audit_ragged_rows")).fetchone()
    if bad:
        raise AuditError(f"{files[bad[0]][bad[1]]}: row {bad[2]} has lists of different lengths "
                         "(dedup_key, text, conllu and treebank_source need one entry per unit)")
    _temp_table(con, "audit_units", query("audit_units"))
    _temp_table(con, "audit_rows", query("audit_rows"))
    _temp_table(con, "audit_tokens", query("audit_tokens"))
    con.execute("drop table audit_files")
    n = con.table("audit_units").count("*").fetchall()[0][0]

    _temp_table(con, "audit_markup", query("audit_markup"))
    vocab = [f for (f,) in con.execute(query("audit_vocabulary")).fetchall()]
    trip = con.execute(query("audit_markup_triplets")).fetchnumpy()
    markup = sp.csr_matrix((trip["n"].astype(np.float64), (trip["unit_idx"], trip["j"])), shape=(n, len(vocab)))

    texts = [t for (t,) in con.execute(query("audit_texts")).fetchall()]
    text, text_vocab = char_wb_counts(texts)
    return con, Units(n=n, markup=markup, markup_vocab=vocab, text=text, text_vocab=text_vocab)


def char_wb_counts(texts: list[str]) -> tuple[Any, list[str]]:
    """The ``CountVectorizer(analyzer="char_wb", ngram_range=CHAR_NGRAMS, lowercase=False)`` counts
    of ``texts``, counted once per distinct word instead of once per occurrence.

    ``char_wb`` n-grams never cross a word boundary (each whitespace-separated word is padded with
    one space and cut alone), so a text's counts are the sum of its words' counts: texts × words
    (occurrences) @ words × n-grams. Same columns (the sorted n-grams), same values (sums of
    integers, exact in float64) as counting every text; about five times less Python work on the
    real export (54,319 units, far fewer distinct words than word occurrences).

    Returns:
        (CSR float64 matrix len(texts) × len(vocabulary), the n-grams in column order).
    """
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    word_idx: dict[str, int] = {}
    rows, cols = [], []
    for i, t in enumerate(texts):
        for w in t.split():  # the words char_wb cuts (it splits on whitespace the same way)
            rows.append(i)
            cols.append(word_idx.setdefault(w, len(word_idx)))
    occurrences = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), len(word_idx)))
    cv = CountVectorizer(analyzer="char_wb", ngram_range=CHAR_NGRAMS, lowercase=False, dtype=np.float64)
    per_word = cv.fit_transform(list(word_idx)).tocsr()
    counts = (occurrences @ per_word).tocsr()
    counts.sort_indices()
    return counts, list(cv.get_feature_names_out())


def _temp_table(con: duckdb.DuckDBPyConnection, name: str, sql: str, params: dict | None = None) -> None:
    """Create the temporary table ``name`` holding the result of ``sql`` (a named query)."""
    con.execute(f"create temp table {name} as " + sql, params)


def split_rows(con: duckdb.DuckDBPyConnection, units: Units, cfg: str, split: str) -> SplitRows:
    """Incidence (rows × units, 1 where the row holds the unit) and author / project labels.

    The project of a row is the most frequent ``treebank_source`` of its units (ties: the
    earliest unit); for ``_1`` rows simply the chosen parse's.
    """
    import scipy.sparse as sp

    params = {"cfg": cfg, "split": split}
    n_rows = con.execute("select count(*) from audit_rows where cfg = $cfg and split = $split", params).fetchone()[0]
    inc = con.execute(query("audit_split_incidence"), params).fetchnumpy()
    incidence = sp.csr_matrix((np.ones(len(inc["r"])), (inc["r"], inc["unit_idx"])), shape=(n_rows, units.n))
    labels = con.execute(query("audit_split_labels"), params).fetchall()
    return SplitRows(incidence=incidence,
                     authors=np.array([a for _, a, _, _ in labels], dtype=object),
                     projects=np.array([p for _, _, p, _ in labels], dtype=object),
                     ids=np.array([i for _, _, _, i in labels], dtype=object))


# --------------------------------------------------------------------------------------------
# classification


def _scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, f1_score

    return {"accuracy": float(accuracy_score(y_true, y_pred)),
            "macro_f1": float(f1_score(y_true, y_pred, average="macro", zero_division=0))}


def fit_and_score(x_train, y_train: np.ndarray, evals: dict[str, tuple[Any, np.ndarray]],
                  predictions_of: tuple[str, ...] = ()) -> dict[str, Any]:
    """Restrict to features of >= MIN_TRAIN_DF training rows, sublinear TF-IDF, LinearSVC.

    Args:
        x_train: CSR counts (rows × features) of the training rows.
        y_train: their labels.
        evals: split name → (CSR counts with the same columns, labels).
        predictions_of: evaluation splits whose predictions are returned too.

    Returns:
        {"n_features": int, "n_classes": int, "seconds": float, "<split>": {"accuracy", "macro_f1"},
        "majority": {"<split>": {...}}} (accuracy and macro-F1 as fractions), and with ``predictions_of``
        "predictions": {"<split>": [label per row, in row order]}.
    """
    from joblib import parallel_config
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    t0 = time.perf_counter()
    df = np.asarray((x_train > 0).sum(axis=0)).ravel()
    keep = np.flatnonzero(df >= MIN_TRAIN_DF)
    tfidf = TfidfTransformer(sublinear_tf=True)
    xt = tfidf.fit_transform(x_train[:, keep])
    classes, counts = np.unique(y_train, return_counts=True)
    majority = classes[np.argmax(counts)]  # np.unique sorts, so ties go to the first label
    out: dict[str, Any] = {"n_features": int(len(keep)), "n_classes": int(len(classes)), "majority": {}}
    if len(classes) < 2:
        model = None
    else:
        # one binary problem per class, N_JOBS at a time in threads (liblinear releases the GIL);
        # deterministic: each is fitted with the same random_state. The dual solver is the
        # fastest here for both feature sets (measured on sentence_1).
        model = OneVsRestClassifier(
            LinearSVC(C=SVC_C, dual=True, random_state=RANDOM_STATE, max_iter=5000), n_jobs=N_JOBS)
        with parallel_config(backend="threading", n_jobs=N_JOBS):
            model.fit(xt, y_train)
    for split, (x, y) in evals.items():
        if model is None:
            pred = np.array([majority] * x.shape[0], dtype=object)
        else:
            pred = model.predict(tfidf.transform(x[:, keep]))
        out[split] = _scores(y, pred)
        if split in predictions_of:
            out.setdefault("predictions", {})[split] = [str(label) for label in pred]
        out["majority"][split] = _scores(y, np.array([majority] * len(y), dtype=object))
    out["seconds"] = time.perf_counter() - t0
    return out


def overlap_twins(out: Path) -> dict[str, dict[str, list[str]]] | None:
    """The evaluation rows with a near-twin in train, ``{config: {split: [id, ...]}}``, from the
    export's ``metadata/overlap_twins.json`` (SPEC §7.1); None when the export has no such file."""
    path = out / config.OVERLAP_TWINS
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def audit_config(con: duckdb.DuckDBPyConnection, units: Units, cfg: str,
                 twins: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Fit and score the three classifiers of one configuration (see module docstring); ``twins``:
    the configuration's entry of :func:`overlap_twins` (text → author is also scored without them)."""
    rows = {split: split_rows(con, units, cfg, split) for split in SPLITS}
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
    matrices = {"markup": units.markup, "text": units.text}
    row_counts: dict[str, dict[str, Any]] = {}  # the current feature set's, shared by its targets
    for feature_set, target in TASKS:
        if feature_set not in row_counts:  # TASKS lists a feature set's targets together
            u = matrices[feature_set]
            row_counts = {feature_set: {split: (rows[split].incidence @ u).tocsr() for split in SPLITS}}
        xs = row_counts[feature_set]
        ys = {split: (rows[split].authors if target == "author" else rows[split].projects) for split in SPLITS}
        evals = {s: (xs[s], ys[s]) for s in EVAL_SPLITS}
        if feature_set == "text" and twins is not None:
            keep = {s: ~np.isin(rows[s].ids, twins.get(s, [])) for s in EVAL_SPLITS}
            evals |= {f"{s}_without_twins": (xs[s][keep[s]], ys[s][keep[s]]) for s in EVAL_SPLITS}
            result["rows_without_twins"] = {s: int(keep[s].sum()) for s in EVAL_SPLITS}
        result[f"{feature_set}_{target}"] = fit_and_score(
            xs["train"], ys["train"], evals,
            predictions_of=("test",) if (feature_set, target) == REFERENCE_TASK else ())
    return result


def run_audit(out: Path, configs: tuple[str, ...] = CONFIGS, progress: bool = False) -> dict[str, Any]:
    """Audit every configuration of the export in ``out``.

    Returns:
        {config: :func:`audit_config` result} (raw floats, fit times included).

    Raises:
        AuditError: scikit-learn missing, or the export incomplete (names the file).
    """
    _sklearn()
    files = config_files(out, configs)
    t0 = time.perf_counter()
    con, units = load(files)
    twins = overlap_twins(out)
    if progress:
        print(f"audit: {units.n:,} distinct units, {len(units.markup_vocab):,} markup features, "
              f"{len(units.text_vocab):,} character n-grams ({time.perf_counter() - t0:.1f}s)", file=sys.stderr)
    results = {}
    try:
        for cfg in configs:
            t1 = time.perf_counter()
            results[cfg] = audit_config(con, units, cfg, None if twins is None else twins.get(cfg, {}))
            results[cfg]["seconds"] = time.perf_counter() - t1
            if progress:
                r = results[cfg]
                print(f"audit: {cfg:20s} markup→author {r['markup_author']['test']['accuracy']:.3f}  "
                      f"markup→project {r['markup_project']['test']['accuracy']:.3f}  "
                      f"text→author {r['text_author']['test']['accuracy']:.3f}  ({r['seconds']:.1f}s)",
                      file=sys.stderr)
    finally:
        con.close()
    return results


# --------------------------------------------------------------------------------------------
# outputs


def _strip_timings(obj: Any) -> Any:
    """``obj`` without fit times and the reference predictions (published in their own file)."""
    if isinstance(obj, dict):
        return {k: _strip_timings(v) for k, v in obj.items() if k not in ("seconds", "predictions")}
    return obj


def report_document(results: dict[str, Any]) -> dict[str, Any]:
    """The ``leakage_report.json`` document: method, per-configuration figures, and the gaps.

    Deterministic: no timings or timestamps; floats rounded to 4 decimals (fractions, not %).
    ``text_minus_markup`` per configuration is the text baseline's test score minus the markup
    classifier's (author); ``track_gap`` per chunk size is main-track minus source-held-out-track
    test score for each classifier.
    """
    configs = {}
    for cfg, r in results.items():
        doc = _strip_timings(r)
        doc["text_minus_markup_author"] = {
            m: r["text_author"]["test"][m] - r["markup_author"]["test"][m] for m in ("accuracy", "macro_f1")}
        configs[cfg] = doc
    track_gap = {}
    for k in CHUNK_SIZES:
        main, held = results.get(config_of("main", k)), results.get(config_of("source_held_out", k))
        if not (main and held):
            continue
        track_gap[str(k)] = {
            f"{fs}_{tg}": {m: {"sentence": main[f"{fs}_{tg}"]["test"][m],
                               "source_held_out": held[f"{fs}_{tg}"]["test"][m],
                               "gap": main[f"{fs}_{tg}"]["test"][m] - held[f"{fs}_{tg}"]["test"][m]}
                           for m in ("accuracy", "macro_f1")}
            for fs, tg in TASKS}
    return rounded({
        "spec": "SPEC §11; seed 000 'Residual leakage'",
        "what": "Test (and validation) accuracy and macro-F1 of classifiers that see annotation markup only "
                "(never forms, lemmas or text) predicting the author and the project, the floor a real "
                "model must clear; and a character n-gram text baseline predicting the author. Scores are "
                "fractions in [0, 1].",
        "method": {
            "markup_features": "per token: UPOS, DEPREL, UPOS/DEPREL, UPOS+FEATS, each FEATS Feature=Value, "
                               "UPOS bigrams and trigrams, DEPREL bigrams, signed head distance (clipped to +-8), "
                               "relation with head UPOS and with head DEPREL, tree depth (clipped at 12), "
                               "dependents per UPOS (clipped at 5); per sentence: length, maximum depth "
                               "(log2 bins), relative root position",
            "text_features": f"character n-grams {CHAR_NGRAMS[0]}-{CHAR_NGRAMS[1]} (char_wb) of the row's units "
                             "joined by single spaces",
            "weighting": f"features of >= {MIN_TRAIN_DF} training rows; sublinear TF-IDF (l2) fitted on train",
            "classifier": f"LinearSVC(C={SVC_C}, random_state={RANDOM_STATE}), one-vs-rest",
            "project_label": "treebank_source of the chosen parse; for chunks the most frequent among the "
                             "units (ties: the first in unit order)",
            "majority_baseline": "the most frequent training label predicted for every row",
            "subsampling": "none (every row of every split of every configuration is used)",
        },
        "configs": configs,
        "track_gap": track_gap,
    })


def write_report(doc: dict[str, Any], out: Path) -> Path:
    """Write ``<out>/metadata/leakage_report.json`` (sorted keys, UTF-8, trailing newline)."""
    return write_json(out / config.LEAKAGE_REPORT, doc, sort_keys=True)


def results_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per configuration × feature set × target × evaluation split (the
    ``audit_results`` table; scores as fractions, ``seconds`` the fit time)."""
    rows = []
    for cfg, r in results.items():
        for fs, tg in TASKS:
            fit = r[f"{fs}_{tg}"]
            for split in EVAL_SPLITS:
                rows.append({
                    "config": cfg, "track": r["track"], "chunk_size": r["chunk_size"], "feature_set": fs,
                    "target": tg, "eval_split": split, "accuracy": fit[split]["accuracy"],
                    "macro_f1": fit[split]["macro_f1"], "majority_accuracy": fit["majority"][split]["accuracy"],
                    "majority_macro_f1": fit["majority"][split]["macro_f1"], "n_train": r["rows"]["train"],
                    "n_eval": r["rows"][split], "n_classes": fit["n_classes"], "n_features": fit["n_features"],
                    "seconds": fit["seconds"],
                })
    return rows


def write_table(results: dict[str, Any], warehouse: Path) -> str:
    """Replace the warehouse table ``audit_results`` (one short read-write connection), holding the
    build lock of the warehouse (:func:`sphragis.build.build_lock`) as every writer of it does.

    Returns:
        A one-line note of what was done (or why the table was skipped: no warehouse file, or
        DuckDB cannot open it for writing).

    Raises:
        sphragis.build.BuildLocked: a build (or another audit) holds the warehouse's lock; the
            audit's results stay in its state, so running it again reuses them.
    """
    import pyarrow as pa

    from .build import build_lock

    if not warehouse.is_file():
        return f"no warehouse at {warehouse}: table audit_results skipped"
    warehouse = Path(os.path.realpath(warehouse))  # a symlinked warehouse: the build locks its target
    table = pa.Table.from_pylist(results_rows(results))
    with build_lock(warehouse):
        if _table_holds(warehouse, table):  # e.g. a reused audit: the warehouse file is left untouched
            return f"table audit_results of {warehouse} unchanged ({table.num_rows} rows)"
        try:
            con = duckdb.connect(str(warehouse))
        except duckdb.Error as exc:
            return f"cannot open {warehouse} for writing ({exc}): table audit_results skipped"
        try:
            con.register("audit_results_in", table)
            con.execute("create or replace table audit_results as select * from audit_results_in "
                        "order by config, feature_set, target, eval_split")
        finally:
            con.close()
    return f"table audit_results ({table.num_rows} rows) written to {warehouse}"


def _table_holds(warehouse: Path, table) -> bool:
    """Whether the warehouse's ``audit_results`` already holds exactly the rows of ``table`` (same
    columns; compared as multisets, read-only). False when the table is missing or unreadable."""
    try:
        con = duckdb.connect(str(warehouse), read_only=True)
    except duckdb.Error:
        return False
    try:
        con.register("audit_results_in", table)
        if con.table("audit_results").columns != table.column_names:
            return False
        return con.execute(query("audit_results_changed_rows")).fetchone()[0] == 0
    except duckdb.Error:
        return False
    finally:
        con.close()


# --------------------------------------------------------------------------------------------
# command line


#: The audit's code: this module and every module of the package it imports (its state's reads,
#: :func:`sphragis.state.reads`, derived from the imports, with the named queries it reads).
STEP = __name__


def audit_reads(out: Path, configs: tuple[str, ...] = CONFIGS) -> dict[str, Any]:
    """What an audit of ``out`` reads (:func:`sphragis.state.reads`): its code and named queries,
    the Parquet file of every configuration audited (:func:`config_files`), the export's
    ``metadata/overlap_twins.json`` (the text baseline is also scored without those rows), the
    configurations, and the libraries (NumPy, SciPy, scikit-learn, …). The fits are deterministic
    (fixed ``random_state``), so equal digests mean equal results.

    Raises:
        AuditError: a configuration's file is missing (as :func:`config_files`).
    """
    files = config_files(out, configs)
    twins = out / config.OVERLAP_TWINS  # an input even while absent: its appearing is a change
    return state.reads((STEP,), files=[*(p for cfg in configs for p in files[cfg].values()), twins],
                       variables={"configs": list(configs)})


def state_store(out: Path) -> state.Store:
    """The audit's state: ``<out>.state/audit.json`` (:class:`sphragis.state.Store`), beside the
    export's state, outside the published dataset; holds the last audit's reads, their digests
    and its results."""
    return state.Store(out, "audit")


def reusable_results(out: Path, configs: tuple[str, ...] = CONFIGS
                     ) -> tuple[dict[str, Any] | None, list[str], dict[str, str]]:
    """(the results the last audit of ``out`` recorded, if nothing it read changed and it audited
    ``configs``, else None; the inputs that changed, :func:`sphragis.state.check`; their digests
    now, for :func:`sphragis.state.settle`)."""
    doc = state_store(out).load()
    now, changed = state.check(doc)
    files = config_files(out, configs)  # the files audited now: any other set is a change
    wanted = {str(p.resolve()) for cfg in configs for p in files[cfg].values()}
    if doc.get("reads", {}).get("variables") != {"configs": list(configs)} or not wanted <= set(doc["reads"]["files"]):
        changed = sorted(set(changed) | {"variables"})
    return (doc.get("results") if not changed else None), changed, now


def _cmd_audit(args: argparse.Namespace) -> int:
    settings = config.settings()
    out = Path(args.out) if args.out else settings.out
    t0 = time.perf_counter()
    configs = tuple(args.config) if args.config else CONFIGS
    _sklearn()
    results, changed, at_start = reusable_results(out, configs)
    if args.full:
        results, changed = None, ["--full"]
    store = state_store(out)
    # one message: whether the fits ran or their results were reused, then what was written
    if results is not None:
        how = (f"up to date (nothing it reads changed since the last audit: exported files, code, named queries, "
               f"libraries): results of {store.path} reused, not fitted again;")
    else:
        results = run_audit(out, configs, progress=not args.quiet)
        reads = audit_reads(out, configs)
        store.save({"reads": reads, "digests": state.settle(at_start, state.digests(reads)), "results": results})
        how = ("fitted;" if changed in state.NOTHING_TO_COMPARE
               else f"fitted (changed since the last audit: {state.describe(changed)});")
    path = write_report(report_document(results), out)
    reference = write_reference(out, results)
    card_note = rerender_card(out)
    note = write_table(results, settings.warehouse)
    seconds = time.perf_counter() - t0
    print(f"audit {how} report {path} and the reference submission {reference} written from them; {card_note}; "
          f"{note}; {len(results)} configuration(s) in {seconds:.1f}s", file=sys.stderr)
    if args.report:  # the same as `sphragis report --out <out> --report-dir <dir>`
        from . import report

        return report.cmd_report(args)
    return 0


def write_reference(out: Path, results: dict[str, Any]) -> Path:
    """Write the reference submission ``<out>/metadata/reference_submission.jsonl``: the
    :data:`REFERENCE_TASK` fit's test prediction of every row of each audited configuration, in the
    format ``sphragis score`` reads (:mod:`sphragis.predictions`), rows in test-file order."""
    import pyarrow.parquet as pq

    from .predictions import EVAL_SPLIT, REFERENCE, write_jsonl

    files = config_files(out, tuple(results))
    records = []
    for cfg, r in results.items():
        ids = pq.read_table(files[cfg][EVAL_SPLIT], columns=["id"]).column("id").to_pylist()
        records += [(str(i), cfg, a) for i, a in zip(ids, r["_".join(REFERENCE_TASK)]["predictions"][EVAL_SPLIT],
                                                       strict=True)]
    return write_jsonl(out / REFERENCE, records)


def rerender_card(out: Path) -> str:
    """Re-render the export's dataset card so its leaderboard shows the report just written
    (export/card.py reads metadata/leakage_report.json); returns a one-line note."""
    from .export import card

    if not (out / "metadata" / "build_report.json").is_file():
        return f"no build report in {out}: dataset card not re-rendered"
    return f"dataset card {card.write_card(out)} re-rendered with the leaderboard"


def register(subparsers) -> None:
    """Add ``sphragis audit`` to the CLI (loaded by :mod:`sphragis.cli`)."""
    from .report import add_report_dir_option

    a = subparsers.add_parser(
        "audit", help="leakage audit (markup-only classifiers) and text baselines over the export (SPEC §11)",
        description="Fit markup-only classifiers (author, project) and a character n-gram text baseline "
        "(author) on every configuration of the export (SPHRAGIS_OUT, default dist/sphragis), write "
        "metadata/leakage_report.json and the warehouse table audit_results (under the build lock). The fits "
        "are reused when nothing the last audit read changed: the exported files, the audit's code and named "
        "queries, the libraries (--full fits again). Needs scikit-learn (extra 'audit').")
    a.add_argument("--out", help="export directory (default: SPHRAGIS_OUT)")
    a.add_argument("--config", action="append", choices=CONFIGS, metavar="CONFIG",
                   help="audit only this configuration (repeatable; default all eight)")
    a.add_argument("--report", action="store_true", help="also render the human-readable report")
    add_report_dir_option(a)
    a.add_argument("--quiet", action="store_true", help="no progress output")
    a.add_argument("--full", action="store_true",
                   help="fit again even if the exported files are unchanged since the last audit "
                        "(by default its results, kept in <out>.state/audit.json, are reused)")
    a.set_defaults(func=_cmd_audit)
