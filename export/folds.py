"""The protocol's further evaluation folds (SPEC §12; seed 001 "Documentary Koine: the PapyGreek
fold" and "Verse, out of domain").

``sphragis folds [--out DIR]`` (``make folds``; default ``dist/folds``) writes one folder per fold
of the seed ``protocol_folds`` (``papygreek/``, ``verse/``), each with the fold's CoNLL-U file
(``<fold>.conllu``) and ``manifest.json``:

* **Selection** is relational and lives in SQL models: ``mart_protocol_fold_files`` (the files a
  fold draws from, and those it leaves out with the reason), ``mart_protocol_fold_tokens`` (the
  reading with the editorial apparatus stripped, what is missing, the lemma emitted and its
  repair) and ``mart_protocol_fold_sentences`` (every source sentence with every exclusion test
  and its fate, the first failing test in the order of the seed ``protocol_fold_reasons``).
* **Content** is the ``native`` view of :mod:`sphragis.evaluation.annotations` over
  ``int_native_tree_tokens``, the very conversion, renderer and checks of the training treebank
  (:mod:`sphragis.export.treebank`), except that FORM is the reading text and LEMMA the fold's
  (repaired) lemma (the named query ``protocol_fold_overrides``).
* **Validation**: every sentence is read back with the CoNLL 2018 loader and the ``conllu``
  library and checked with the UD validator at level 2 (the gate) by
  :class:`sphragis.export.treebank_checks.Checks`; the write fails naming the sentence otherwise.
* **The manifest** states the source (pinned commit, licence), the sentences in the source, the
  kept sentences and tokens, the excluded counts and sentence ids by reason, the files left out,
  the leakage and work-disjointness checks, the lemma repairs (before and after) and that every
  emitted lemma is a clean Greek headword, the annotators credited, seed 001's figures beside
  these and ``differences_from_seed`` (the seed ``protocol_fold_seed_differences``, its sentences
  listed and counted from the fold's own selection).

Incremental and atomic as the training treebank: nothing is written when nothing the last run read
changed (:mod:`sphragis.state`, ``<out>.state/folds.json``); the folds are written beside the old
ones and swapped in whole (:func:`sphragis.files.replace_dir`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from sphragis import config, state
from sphragis.files import claim_output_dir, write_json
from sphragis.queries import json_records as _records
from sphragis.queries import query

from . import output_step
from .treebank import CONTENT
from .treebank_checks import REQUIRED_LEVEL, Checks
from .treebank_options import TreebankError

#: The folds' code: this module and what it imports (its state's reads).
STEP = __name__
#: The kind of output folder the folds are (:func:`sphragis.files.claim_output_dir`).
OUTPUT_KIND = "folds"
#: A lemma the folds emit is a clean Greek headword: Greek letters, combining marks, U+2019.
CLEAN_LEMMA = r"[\p{Greek}\p{M}\x{2019}]+"
#: The columns of the native view that differ from the training treebank's.
FOLD_CONTENT = {
    **CONTENT,
    "FORM": "the reading text: the published layer's form with the editorial apparatus stripped (seed "
            "apparatus_rules), NFC",
    "LEMMA": "normalized lemma (SPEC §3); where the fold repairs lemmas, the repaired source lemma normalized "
             "the same way",
    "comments": "# sent_id = <project>:<file name>:<sentence position>, whitespace as _ (stable warehouse id); "
                "# source = <project>:<upstream path>#<upstream sentence id>; # text = readings joined by single "
                "spaces",
}


def default_out() -> Path:
    """``folds`` beside ``SPHRAGIS_OUT`` (``dist/folds`` by default), where the evaluation commands
    read the folds by name (:func:`sphragis.evaluation.folds.protocol_fold_dir`)."""
    from sphragis.evaluation import folds

    return folds.protocol_fold_dir()


def write_folds(out: Path | None = None, *, warehouse: Path | None = None, validate: bool = True,
                full: bool = False, jobs: int | None = None, settings: config.Settings | None = None) -> dict:
    """Write every fold of the seed ``protocol_folds`` into ``out`` (replaced atomically).

    Args:
        out: the output folder (default :func:`default_out`): ``<fold>/<fold>.conllu`` and
            ``<fold>/manifest.json`` per fold.
        warehouse: the DuckDB warehouse (default ``SPHRAGIS_WAREHOUSE``), opened read-only.
        validate: run the UD validator at level 2 (the two loaders always run).
        full: write again even if nothing the last run read changed.
        jobs: worker processes of the checks (default every core).
        settings: the paths the output may not touch (default ``config.settings()``).

    Returns:
        ``{"folds": {fold: manifest}}``, with ``"up_to_date": True`` when nothing was written, or
        ``"changed"`` naming the inputs that changed (:func:`sphragis.state.changed`).

    Raises:
        TreebankError: no warehouse, a missing model, a sentence that fails the loaders or the
            validator, or an emitted lemma that is not a clean Greek headword.
        sphragis.build.BuildLocked: another run writes into ``out``.
        sphragis.files.OutputRefused: ``out`` is a folder the product did not write, or holds or
            lies inside the sources, the warehouse or the benchmark export.
    """
    settings = settings or config.settings()
    warehouse = warehouse or settings.warehouse
    out = claim_output_dir(out or default_out(), OUTPUT_KIND, protected=(*settings.inputs(), warehouse, settings.out))
    if not warehouse.is_file():
        raise TreebankError(f"no warehouse at {warehouse}; build it with `sphragis build`")
    options = {"validate": validate, "validator_level": REQUIRED_LEVEL if validate else None}
    step = output_step.begin(out, OUTPUT_KIND, STEP, warehouse, options, full=full)
    try:
        if step.up_to_date:
            return {"folds": _read_manifests(out), "up_to_date": True}
        with output_step.writing(step) as (con, tmp), Checks(REQUIRED_LEVEL if validate else None, jobs=jobs) as checks:
            folds = _records(con, "select * from protocol_folds order by fold")
            written = {f["fold"]: _write_fold(con, f, tmp / f["fold"], checks) for f in folds}
            validation = checks.result()
            for fold, manifest in written.items():
                manifest["validation"] = {"loaders": ["udtools.udeval.load_conllu (CoNLL 2018)", "conllu.parse_incr"],
                                          "ud_validator": validation}
                write_json(tmp / fold / "manifest.json", manifest)
    finally:
        step.con.close()
    return {"folds": written, **step.changes()}


def _read_manifests(out: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(out.glob("*/manifest.json"))}


def _write_fold(con, fold: dict, folder: Path, checks: Checks) -> dict:
    """Render one fold into ``folder`` (CoNLL-U file, checks started) and return its manifest
    (without the validation, which the caller adds once the checks are done)."""
    from sphragis.evaluation import annotations

    name = fold["fold"]
    folder.mkdir()
    manifest = _manifest(con, fold)
    if manifest["kept"]["sentences"]:
        ann = annotations.render_selection(con, name, query("protocol_fold_file"), {"fold": name}, view="native",
                                           tree="int_native_tree_tokens", source_key="source",
                                           overrides=(query("protocol_fold_overrides"), {"fold": name}))
    else:  # a warehouse without the fold's sentences (a partial build): an empty fold, said so
        ann = annotations.Annotation(name, (), ())
    path = folder / f"{name}.conllu"
    output_step.write_rendered(ann, path, checks)
    lemmas = manifest["lemmas"]
    if fold["repair_lemmas"] and lemmas["not_clean_greek_headwords"]:
        bad = lemmas["not_clean_greek_headwords"][0]
        raise TreebankError(f"fold {name}: {len(lemmas['not_clean_greek_headwords'])} emitted lemma(s) are not a "
                            f"clean Greek headword, e.g. {bad['lemma']!r} of {bad['form']!r} in {bad['sent_id']}")
    if manifest["kept"]["sentences"] != len(ann.sentences) or manifest["kept"]["tokens"] != ann.words:
        raise TreebankError(f"fold {name}: the file holds {len(ann.sentences)} sentences and {ann.words} tokens, "
                            f"the selection {manifest['kept']['sentences']} and {manifest['kept']['tokens']}")
    manifest["file"] = {"name": path.name, "sentences": len(ann.sentences), "tokens": ann.words,
                        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return manifest


def _manifest(con, fold: dict) -> dict:
    """The manifest of one fold from the fold marts (see the module docstring)."""
    name = fold["fold"]
    p = {"fold": name}
    sentences = _records(con, query("protocol_fold_manifest_sentences"), p)
    reasons = _records(con, "select reason, description from protocol_fold_reasons order by reason_order")
    files = _records(con, "select path, n_sentences, author, work, work_id, genre, in_fold, reason, note "
                          "from mart_protocol_fold_files where fold = $fold order by path", p)
    kept = [s for s in sentences if s["is_kept"]]
    excluded = {r["reason"]: [s["sent_id"] for s in sentences if s["reason"] == r["reason"]] for r in reasons}
    pin = next(s for s in config.snapshots() if s["project"] == fold["project"])
    figures = {
        "sentences_in_source": len(sentences), "kept_sentences": len(kept),
        "kept_tokens": sum(s["n_tokens"] for s in kept),
        **{f"excluded_{r}": len(ids) for r, ids in excluded.items()},
    }
    repairs = _records(con, query("protocol_fold_lemma_repairs"), p)
    lemmas = _records(con, query("protocol_fold_lemma_counts"), {**p, "clean": CLEAN_LEMMA})[0]
    not_clean = _records(con, query("protocol_fold_unclean_lemmas"), {**p, "clean": CLEAN_LEMMA})
    return {
        "about": f"Evaluation fold '{name}' of the Greek NLP benchmark protocol (seed 001; sphragis folds): "
                 f"{fold['description']}. Evaluation only: never train on it.",
        "fold": name,
        "source": {**{k: pin.get(k) for k in ("project", "treebank_source", "name", "upstream", "commit", "commit_date",
                                              "archive", "sha256")},
                   "layer": fold["layer"], "files": [f["path"] for f in files if f["in_fold"]]},
        "license": {"license": pin["license"], "statements": pin.get("license_statements") or {},
                    "note": "the fold is published under the pin's licence, the strictest its upstream states"},
        "content": FOLD_CONTENT,
        "sentences_in_source": figures["sentences_in_source"],
        "kept": {"sentences": figures["kept_sentences"], "tokens": figures["kept_tokens"],
                 "documents": len({s["path"] for s in kept})},
        "excluded": {r: len(ids) for r, ids in excluded.items()},
        "exclusion_order": [r["reason"] for r in reasons],
        "exclusion_order_check": _order_check(sentences, [r["reason"] for r in reasons]),
        "reasons": {r["reason"]: r["description"] for r in reasons},
        "excluded_sentences": excluded,
        "files_left_out": [{k: f[k] for k in ("path", "reason", "note", "n_sentences")} for f in files if not f["in_fold"]],
        "leakage": _leakage(con, name, sentences),
        "work_disjointness": _records(con, query("protocol_fold_work_check"), p),
        "lemma_repairs": repairs,
        "lemmas": {"emitted": lemmas["emitted"], "clean_greek_headwords": lemmas["clean"],
                   "not_clean_greek_headwords": not_clean},
        "annotators": _records(con, "select annotator, role, layer, n_files from mart_protocol_fold_annotators "
                                    "where fold = $fold order by n_files desc, annotator, role, layer", p),
        "seed_001": {"figures": (seed := _seed_figures(con, name)), "here": {k: figures.get(k) for k in seed}},
        "differences_from_seed": _differences(con, name, seed, figures, sentences),
    }


def _counts_in_order(sentences: list[dict], order: list[str]) -> dict[str, int]:
    """The excluded sentences per reason when each counts under its first reason in ``order``."""
    counts = dict.fromkeys(order, 0)
    for s in sentences:
        first = next((r for r in order if r in s["reasons"]), None)
        if first is not None:
            counts[first] += 1
    return counts


def _order_check(sentences: list[dict], order: list[str]) -> dict:
    """Whether the order of the reasons changes a count: the counts with each pair of neighbouring
    reasons swapped (seed 001's prose lists leakage before the reading test, its selection runs
    the reading test first), and how many sentences fail more than one test."""
    alternatives = []
    for i in range(len(order) - 1):
        swapped = order[:i] + [order[i + 1], order[i]] + order[i + 2:]
        counts = _counts_in_order(sentences, swapped)
        alternatives.append({"order": swapped, "excluded": counts,
                             "same_counts": counts == _counts_in_order(sentences, order)})
    return {"note": "a sentence failing several tests is counted under the first in exclusion_order",
            "sentences_failing_several_tests": sum(1 for s in sentences if len(s["reasons"]) > 1),
            "alternative_orders": alternatives}


def _leakage(con, name: str, sentences: list[dict]) -> dict:
    projects = [r["project"] for r in _records(con, "select project from protocol_fold_training_projects "
                                                    "where fold = $fold order by project", {"fold": name})]
    leaked = [s for s in sentences if "leakage" in s["reasons"]]
    return {"training_projects": projects,
            "key": "the NFC form sequence of the readings, with or without punctuation tokens (the key of "
                   "mart_eval_fold_overlap)",
            "sentences_matching": len(leaked),
            "matches": [{"sent_id": s["sent_id"], "training_sentence": s["training_sentence_key"],
                         "training_matches": s["n_training_matches"]} for s in leaked],
            "beyond_seed": {
                "rule": "the same key once the dot below (U+0323, a letter the editor reads as uncertain) is "
                        "taken off the readings: seed 001's key keeps it, the training texts do not write it",
                "kept_sentences_matching": [{"sent_id": s["sent_id"], "training_sentence": s["undotted_training_sentence_key"]}
                                            for s in sentences if s["is_kept"] and s["undotted_training_sentence_key"]],
                "note": "reported beside the fold, not excluded: the fold keeps seed 001's selection by default"}}


def _seed_figures(con, name: str) -> dict[str, int]:
    return {r["figure"]: r["value"] for r in _records(
        con, "select figure, value from protocol_fold_seed_figures where fold = $fold order by figure", {"fold": name})}


def _differences(con, name: str, seed: dict[str, int], here: dict[str, int], sentences: list[dict]) -> list[dict]:
    """Every figure that differs from seed 001's, with the explanation of the seed
    ``protocol_fold_seed_differences`` and the fold's own sentences of its form sequence."""
    notes = {r["figure"]: r for r in _records(
        con, "select figure, form_sequence, explanation from protocol_fold_seed_differences where fold = $fold",
        {"fold": name})}
    out = []
    for figure, value in seed.items():
        if here.get(figure) == value:
            continue
        note = notes.get(figure)
        entry = {"figure": figure, "seed": value, "here": here.get(figure),
                 "difference": (here.get(figure) or 0) - value,
                 "explanation": note["explanation"] if note else "unexplained"}
        if note and note["form_sequence"]:
            group = [s for s in sentences if " ".join(s["forms"] or []) == note["form_sequence"]]
            entry["sentences"] = {"form_sequence": note["form_sequence"],
                                  "by_fate": {fate: [s["sent_id"] for s in group if (s["reason"] or "kept") == fate]
                                              for fate in sorted({s["reason"] or "kept" for s in group})},
                                  "tokens_each": sorted({s["n_tokens"] for s in group})}
        out.append(entry)
    return out


# --------------------------------------------------------------------------------------------
# Command line


def print_summary(result: dict, out: Path, seconds: float) -> None:
    """Print per fold the kept sentences and tokens, the exclusions and the differences from seed 001."""
    p = sys.stderr.write
    p(f"folds: {out}\n")
    if result.get("up_to_date"):
        p(f"  up to date (nothing it reads changed since the last `sphragis folds`); time {seconds:.1f}s\n")
        return
    if result.get("changed"):
        p(f"  redone: changed since the last `sphragis folds`: {state.describe(result['changed'])}\n")
    for name, m in result["folds"].items():
        excluded = ", ".join(f"{k} {v:,}" for k, v in m["excluded"].items() if v)
        p(f"  {name:<10} {m['sentences_in_source']:>6,} in source -> {m['kept']['sentences']:>6,} sentences "
          f"{m['kept']['tokens']:>7,} tokens; excluded: {excluded or 'none'}\n")
        for d in m["differences_from_seed"]:
            p(f"    differs from seed 001: {d['figure']} {d['here']:,} (seed {d['seed']:,}, {d['difference']:+,})\n")
        v = m["validation"]["ud_validator"]
        if v:
            p(f"    UD validator ({v['lang']}): passes level {v['passed_level']} (required {v['required_level']})\n")
    p(f"  time {seconds:.1f}s\n")


def _cmd(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else default_out()
    t0 = time.perf_counter()
    result = write_folds(out, validate=not args.no_validator, full=args.full)
    print_summary(result, out, time.perf_counter() - t0)
    return 0


def register(sub) -> None:
    """Add the ``folds`` subcommand to the ``sphragis`` command line."""
    f = sub.add_parser(
        "folds", help="write the protocol's documentary (PapyGreek) and verse evaluation folds (seed 001)",
        description="Write each evaluation fold of the benchmark protocol (seed 001: PapyGreek's documentary "
        "papyri on the reg layer, Euripides' Bacchae 1-169 from UNESP Trees) as UD CoNLL-U through the training "
        "treebank's native conversion, with manifest.json (source commit, sentences in the source, kept "
        "sentences and tokens, every exclusion by reason with the sentence ids, lemma repairs, annotators, "
        "licence, differences from the seed). Reads SPHRAGIS_WAREHOUSE read-only; the output folder is "
        "replaced atomically and left alone when nothing it reads changed.")
    f.add_argument("--out", help="output folder (default: 'folds' beside SPHRAGIS_OUT, i.e. dist/folds)")
    f.add_argument("--no-validator", action="store_true", help="skip the UD validator (the loaders still run)")
    f.add_argument("--full", action="store_true", help="write again even if nothing it reads changed")
    f.set_defaults(func=_cmd)
