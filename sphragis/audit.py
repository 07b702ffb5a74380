"""``sphragis audit``: the leakage audit and the text baselines (SPEC §11; seed 000 "Residual
leakage").

For each configuration of an export (``SPHRAGIS_OUT``, default ``dist/sphragis``;
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
Both read only the export's declared input columns (``input_columns`` of
``metadata/dataset_variants.json``: ``text`` and ``conllu``), checked when the export is loaded
(:func:`sphragis.audit_features.check_inputs`); ``dedup_key`` identifies a unit, ``author`` and
``treebank_source`` are the labels.

* **text → author** (the first leaderboard rows): character n-grams (1–4, ``char_wb``) of
  ``text``, the row's units joined by single spaces. It is scored a second time on the evaluation
  rows without a near-twin in train (``<split>_without_twins``; the ids of
  ``metadata/overlap_twins.json``, SPEC §7.1), so the report shows how much the twins inflate it.

Both feature sets are counted per unit once and summed into rows (a chunk's counts are the sum
of its units', exactly what counting the joined row would give), then restricted to the
features of at least two training rows, weighted with sublinear TF-IDF (l2) fitted on train, and
classified with a one-vs-rest ``LinearSVC`` (``C=0.5``, ``random_state=0``, stopping tolerance
:data:`sphragis.audit_fits.SVC_TOL`, chosen by measurement). Token-level work is SQL (DuckDB
over the Parquet files; the named queries ``sql/queries/audit_*.sql``); nothing is subsampled.
A majority-class baseline (the most frequent training label) is reported beside each target.

The work is split by job: :mod:`sphragis.audit_features` reads the export and counts the units,
:mod:`sphragis.audit_fits` fits (every configuration's fits scheduled on the cores, the feature
restriction and weighting shared by the targets of one feature set), this module writes the
outputs and runs the command.

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
import os
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

from . import config, state
from .audit_features import (CHAR_NGRAMS, AuditError, _sklearn, char_wb_counts,  # noqa: F401
                             config_files, declared_inputs, load, split_rows)
from .audit_fits import (MIN_TRAIN_DF, RANDOM_STATE, REFERENCE_TASK, STOPPING_RULE,
                         SVC_C, SVC_TOL, TASKS, run_audit)
from .audit_claims import THIN_ROWS, report_claims
from .benchmark import CHUNK_SIZES, CONFIGS, EVAL_SPLITS, SPLITS, config_of  # noqa: F401
from .files import rounded, write_json
from .queries import query

# --------------------------------------------------------------------------------------------
# outputs


#: What the audit's results keep for its own use and the report leaves out: fit times, the test
#: predictions (the text baseline's are the reference submission) and the test rows' authors.
UNREPORTED = ("seconds", "predictions", "test_authors")


def _strip_timings(obj: Any) -> Any:
    """``obj`` without :data:`UNREPORTED`."""
    if isinstance(obj, dict):
        return {k: _strip_timings(v) for k, v in obj.items() if k not in UNREPORTED}
    return obj


def report_document(results: dict[str, Any]) -> dict[str, Any]:
    """The ``leakage_report.json`` document: method, per-configuration figures, and the gaps.

    Deterministic: no timings or timestamps; floats rounded to 4 decimals (fractions, not %).
    ``text_minus_markup`` per configuration is the text baseline's test score minus the markup
    classifier's (author); ``track_gap`` per chunk size is the seed's gap, main-track minus
    source-held-out-track test score for each classifier, each track on its own authors;
    ``same_author_gap`` and ``track_means`` are :func:`sphragis.audit_claims.report_claims`,
    ``floor_reading`` :func:`floor_reading`.
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
    claims = report_claims(results)
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
            "classifier": f"LinearSVC(C={SVC_C}, tol={SVC_TOL:g}, random_state={RANDOM_STATE}), one-vs-rest",
            "stopping_rule": STOPPING_RULE,
            "project_label": "treebank_source of the chosen parse; for chunks the most frequent among the "
                             "units (ties: the first in unit order)",
            "majority_baseline": "the most frequent training label predicted for every row",
            "inputs": "the text and markup features read only the export's declared input columns (text, conllu; "
                      "metadata/dataset_variants.json), checked when the export is loaded",
            "intervals": "test_ci: 95 % percentile bootstrap over test rows (999 resamples, default_rng(776) fresh "
                         "per configuration, sphragis/evaluation/bootstrap.py); test_top_k: top-3 accuracy of the "
                         "decision function (majority: the 3 most frequent training authors)",
            "lookup_baselines": "genre_author and project_author: the training author looked up by the row's genre or "
                                "project label alone (sql/queries/label_lookup.sql)",
            "floor_decomposition": "main track: markup -> author refitted inside each project with two or more "
                                   "training authors (the annotator fixed) and markup -> project inside each author "
                                   "with two or more training projects (the author fixed), pooled over their test "
                                   "rows against each group's majority label",
            "same_author_gap": "per held-out configuration: the main-track configuration of its chunk size scored "
                               "on the held-out track's authors only (its classifier unchanged), the held-out track, "
                               "and their gap, with CIs of independent resamples (main first, then held-out, one "
                               "default_rng(776))",
            "confounds": f"per configuration: authors with fewer than {THIN_ROWS} rows per evaluation split, the "
                         "largest author's share of training rows; source_held_out_1: per author whether the held-out "
                         "project is also a held-out work; atomic configurations: evaluation rows with the sentence "
                         "before or after one of their records (same source file) in train",
            "subsampling": "none (every row of every split of every configuration is used)",
        },
        "configs": configs,
        "track_gap": track_gap,
        "track_gap_note": "the seed's gap: main-track minus source-held-out test score, each track on its own "
                          "authors (different author sets); same_author_gap compares them on the held-out track's "
                          "authors",
        "same_author_gap": claims["same_author_gap"],
        "track_means": claims["track_means"],
        "floor_reading": floor_reading(results),
    })


def floor_reading(results: dict[str, Any]) -> dict[str, Any] | None:
    """How much of the floor is annotator signal and how much syntax, on the main track's atomic
    configuration: the floor (markup → author) beside markup → author within each project (the
    annotator fixed: the authors' syntax) and markup → project within each author (the author fixed:
    the annotators' conventions), each with its majority baseline and CI (pooled test rows), and
    each gain over its majority in points. None without that configuration's decomposition."""
    cfg = next((c for c in CONFIGS if c in results and "floor_decomposition" in results[c]), None)
    if cfg is None:
        return None
    r, dec = results[cfg], results[cfg]["floor_decomposition"]

    def gain(d: dict) -> float | None:
        return None if d["accuracy"] is None else d["accuracy"] - d["majority_accuracy"]

    floor = {"accuracy": r["markup_author"]["test"]["accuracy"], "ci": r["markup_author"]["test_ci"]["accuracy"],
             "majority_accuracy": r["markup_author"]["majority"]["test"]["accuracy"]}
    return {"config": cfg, "floor": {**floor, "gain": gain(floor)},
            **{k: {**dec[k]["pooled"], "gain": gain(dec[k]["pooled"]), "groups": len(dec[k]["groups"])}
               for k in ("within_project", "within_author")}}


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
    ``metadata/overlap_twins.json`` (the text baseline is also scored without those rows) and
    ``metadata/dataset_variants.json`` (the declared input columns), the configurations, and the
    libraries (NumPy, SciPy, scikit-learn, …). The fits are deterministic
    (fixed ``random_state``), so equal digests mean equal results.

    Raises:
        AuditError: a configuration's file is missing (as :func:`config_files`).
    """
    files = config_files(out, configs)
    twins = out / config.OVERLAP_TWINS  # an input even while absent: its appearing is a change
    return state.reads((STEP,), files=[*(p for cfg in configs for p in files[cfg].values()), twins,
                                       out / config.DATASET_VARIANTS],
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


def _cmd_audit(args: argparse.Namespace, on_step=None) -> int:
    from .build_summary import console
    from .progress import StepLog

    settings = config.settings()
    out = Path(args.out) if args.out else settings.out
    t0 = time.perf_counter()
    # to a log, a line per step of an audit that fits; one that reuses its results says one line
    log = StepLog(console())
    configs = tuple(args.config) if args.config else CONFIGS
    _sklearn()
    results, changed, at_start = reusable_results(out, configs)
    if args.full:
        results, changed = None, ["--full"]
    store = state_store(out)
    # one message: whether the fits ran or their results were reused, then what was written
    step = on_step or (lambda _name: None)
    if results is not None:
        how = (f"up to date (nothing it reads changed since the last audit: exported files, code, named queries, "
               f"libraries): results of {store.path} reused, not fitted again;")
    else:
        step = on_step or log
        results = run_audit(out, configs, progress=not args.quiet, on_step=step)
        reads = audit_reads(out, configs)
        store.save({"reads": reads, "digests": state.settle(at_start, state.digests(reads)), "results": results})
        how = ("fitted (no earlier audit of this export to reuse);" if "no state" in changed
               else "fitted (--full);" if changed == ["--full"]
               else f"fitted (changed since the last audit: {state.describe(changed)});")
    step("audit: outputs")
    before = _mtimes(out)
    write_report(report_document(results), out)
    write_reference(out, results)
    card = rerender_card(out)
    note = write_table(results, settings.warehouse)
    after = _mtimes(out)
    written = [str(p) for p, t in after.items() if t is not None and t != before[p]]
    kept = [p.name for p, t in after.items() if t is not None and t == before[p]]
    said = "; ".join([*([f"{', '.join(written)} written from them"] if written else []),
                      *([f"{', '.join(kept)} unchanged (already held them)"] if kept else [])])
    seconds = time.perf_counter() - t0
    if card is None:
        said += f"; {card_note(out, None)}"
    print(f"audit {how} {said}; {note}; {len(results)} configuration(s) in {seconds:.1f}s",
          file=sys.stderr)
    if args.report:  # the same as `sphragis report --out <out> --report-dir <dir>`
        from . import report

        return report.cmd_report(args)
    return 0


def _mtimes(out: Path) -> dict[Path, tuple[int, int] | None]:
    """(inode, modification time in ns) of each file an audit writes into ``out`` (None: absent):
    a file written again is a new inode (``write_text_atomic`` renames a new file over it), so a
    rewrite is seen even where the file system's clock is coarser than two writes."""
    from .export.card import CARD_NAME
    from .predictions import REFERENCE

    paths = (out / config.LEAKAGE_REPORT, out / REFERENCE, out / CARD_NAME)
    return {p: ((st := p.stat()).st_ino, st.st_mtime_ns) if p.is_file() else None for p in paths}


def write_reference(out: Path, results: dict[str, Any]) -> Path:
    """Write the reference submission ``<out>/metadata/reference_submission.jsonl``: the
    :data:`REFERENCE_TASK` fit's test prediction of every row of each audited configuration, in the
    format ``sphragis score`` reads (:mod:`sphragis.predictions`), rows in test-file order."""
    import pyarrow.parquet as pq

    from .predictions import EVAL_SPLIT, REFERENCE, write_jsonl

    files = config_files(out, tuple(results))
    records = []
    # in CONFIGS order, whatever the order of ``results`` (reused results come back from the state
    # file with sorted keys: `sentence_10` before `sentence_5`), so a reused audit writes the same bytes
    for cfg, r in sorted(results.items(), key=lambda kv: CONFIGS.index(kv[0])):
        ids = pq.read_table(files[cfg][EVAL_SPLIT], columns=["id"]).column("id").to_pylist()
        records += [(str(i), cfg, a) for i, a in zip(ids, r["_".join(REFERENCE_TASK)]["predictions"][EVAL_SPLIT],
                                                       strict=True)]
    return write_jsonl(out / REFERENCE, records)


def rerender_card(out: Path) -> Path | None:
    """Re-render the export's dataset card so its leaderboard shows the report just written
    (export/card.py reads metadata/leakage_report.json); its path, or None when ``out`` has no
    build report to render it from (:func:`card_note` says so)."""
    from .export import card

    return card.write_card(out) if (out / "metadata" / "build_report.json").is_file() else None


def card_note(out: Path, path: Path | None) -> str:
    """One clause on :func:`rerender_card`'s outcome for the command's last line."""
    return (f"dataset card {path} rendered with the leaderboard" if path
            else f"no build report in {out}: dataset card not rendered")


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
                   help="audit only this configuration (repeatable; default all)")
    a.add_argument("--report", action="store_true", help="also render the human-readable report")
    add_report_dir_option(a)
    a.add_argument("--quiet", action="store_true", help="no progress output")
    a.add_argument("--full", action="store_true",
                   help="fit again even if the exported files are unchanged since the last audit "
                        "(by default its results, kept in <out>.state/audit.json, are reused)")
    a.set_defaults(func=_cmd_audit)
