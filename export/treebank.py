"""The leakage-clean training treebank for parser builders (seed 001 "Leakage controls").

``sphragis export-treebank`` (``make treebank``) writes CoNLL-U training files of the AGDT-lineage
projects with a manifest beside them:

* **Selection** is relational and lives in SQL models: ``int_training_candidates`` (the
  sentences of the chosen projects), ``mart_training_treebank_exclusions`` (every excluded
  sentence with its reason: AGDT sources of protected UD Perseus folds, SPEC §7 dedup-key
  matches with any protected fold, whole works shared with a fold of ``treebank_work_folds``,
  optional authorship curation, sentences without a word, cross-project duplicates by SPEC §7
  priority) and ``mart_training_treebank`` (the selected sentences, stable ids, seeded split).
  Their parameters are build variables (defaults :data:`sphragis.config.TRAINING_TREEBANK_VARS`):
  the build materializes the defaults; other options re-run the same three model files with the
  options as variables into temporary tables of a read-only connection, which shadow the built
  ones (the warehouse file is never written).
* **Content** is the ``native`` view of :mod:`sphragis.evaluation.annotations` (SPEC §3–§4:
  tag-derived UPOS, XPOS = the normalized AGDT tag, FEATS = ``feats_full``, DEPREL = the UD v2
  relation) rendered on ``int_native_tree_tokens`` (the repaired trees with punctuation kept as
  ``PUNCT``/``punct``). Each sentence has ``# sent_id`` (the stable warehouse id
  ``<project>:<file name>:<position>``, whitespace written ``_``), ``# source = <project>:<upstream path>#<sentence id>``
  and ``# text`` (its forms, punctuation included, joined by single spaces).
* **Validation** (:mod:`sphragis.export.treebank_checks`): every sentence is re-read with the
  CoNLL 2018 loader (``udtools.udeval.load_conllu``) and the ``conllu`` library, and checked with
  the UD validator (``udtools.validator.Validator``, language ``grc``) up to ``--validator-level``
  (default 5), in slices of sentences on every core while the next file is rendered, cached per
  sentence; the export fails, naming the sentence, if a loader rejects a sentence or the validator
  reports an error at or below level 2 (the gate); the messages above it are summarized by kind
  in the manifest.

Python only parses options, reads the reporting marts, runs the named queries in ``sql/queries/``
and writes files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import duckdb

from sphragis import config, state
from sphragis.files import claim_output_dir, write_json
from sphragis.queries import json_records as _records
from sphragis.queries import query

from . import output_step
from .treebank_checks import LEVELS, VALIDATOR_LEVEL, Checks
from .treebank_options import TreebankError, select, variables

#: The treebank export's code: this module and every module of the package it imports (its
#: state's reads, :func:`sphragis.state.reads`).
STEP = __name__
#: Seed 001 ("Leakage controls") numbers the manifest reports next to this export's.
SEED_001 = {"ud_perseus_sentences_resolved_to_agdt": 2443, "gorman_fold_matches": 1591,
            "pedalion_fold_matches": 155}
#: Content description written into the manifest.
CONTENT = {
    "view": "native (sphragis.evaluation.annotations; SPEC §3-§4)",
    "tree": "int_native_tree_tokens: source heads, repaired (SPEC §4), punctuation kept",
    "FORM": "source form, NFC, surrounding whitespace trimmed, inner runs one space",
    "LEMMA": "normalized lemma (NFC, homograph digits stripped, lowercased; SPEC §3)",
    "UPOS": "from the normalized AGDT tag (SPEC §3 mapping); PUNCT for punctuation",
    "XPOS": "the normalized 9-position AGDT tag",
    "FEATS": "full tag-derived UD features (feats_full, before the SPEC §5 type filter)",
    "HEAD": "source head; elliptic nodes removed and their dependents re-attached; repairs of SPEC §4",
    "DEPREL": "UD v2 relation of the native conversion (SPEC §4); punct for punctuation",
    "DEPS": "_",
    "MISC": "_",
    "comments": "# sent_id = <project>:<file name>:<sentence position>, whitespace as _ (stable warehouse id); "
                "# source = <project>:<upstream path>#<upstream sentence id>; # text = forms joined by single spaces",
}


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _file_groups(vars_: dict, merged: bool) -> list[tuple[str, list[str], str]]:
    """(file stem, projects, split) for every file to write."""
    splits = ["train", "dev"] if vars_["treebank_dev_percent"] else ["train"]
    groups = [("treebank", list(vars_["treebank_projects"]))] if merged else \
        [(p, [p]) for p in vars_["treebank_projects"]]
    return [(f"{stem}-{split}", projects, split) for stem, projects in groups for split in splits]


def _sources(projects: list[str], fold_names: list[str]) -> list[dict]:
    """Pinned snapshots (sphragis/sources.json) of the written projects and the protected folds."""
    from sphragis.evaluation import folds

    fold_snaps = {folds.known_folds()[f].snapshot for f in fold_names}
    keys = ("name", "project", "treebank_source", "upstream", "commit", "commit_date", "license", "archive", "sha256")
    return [{**{k: s.get(k) for k in keys}, "role": "training" if s["project"] in projects else "protected fold"}
            for s in config.snapshots() if s["project"] in projects or s["name"] in fold_snaps]


#: The kind of output folder the training treebank is (:func:`sphragis.files.claim_output_dir`).
OUTPUT_KIND = "treebank"


def export_treebank(out: Path, options: dict | None = None, *, merged: bool = False,
                    warehouse: Path | None = None, validate: bool = True, full: bool = False,
                    validator_level: int = VALIDATOR_LEVEL, jobs: int | None = None) -> dict:
    """Write the training treebank and its manifest into ``out`` (replaced atomically).

    Nothing is done when nothing the last export into ``out`` read changed (its code, named
    queries, the pin list, the warehouse tables it read, the options, the libraries:
    :mod:`sphragis.state`, kept in ``<out>.state/treebank.json``) and its files are the ones it
    wrote; the manifest of ``out`` is then returned with ``"up_to_date": True``.

    Args:
        out: the output directory (``<stem>-<split>.conllu`` files and ``manifest.json``).
        options: treebank options (see :func:`variables`); ``None`` = the defaults.
        merged: one ``treebank-<split>.conllu`` for all projects instead of one file per project.
        warehouse: the DuckDB warehouse (default ``SPHRAGIS_WAREHOUSE``), opened read-only.
        validate: run the UD validator (the two loaders always run).
        full: ignore the saved state (write and validate again; sentences whose validator result
            is cached in ``<out>.state/ud_validator`` are not validated again).
        validator_level: the UD validator's level (2-5, :data:`.treebank_checks.LEVELS`); level 2
            (:data:`.treebank_checks.REQUIRED_LEVEL`) is the gate, the levels above it are summed
            up in the manifest.
        jobs: worker processes of the checks (default every core).

    Returns:
        The manifest (also written to ``out/manifest.json``); when the work was redone after a
        change, ``"changed"`` lists the inputs that changed (:func:`sphragis.state.changed`).

    Raises:
        TreebankError: bad options or validator level, a missing model, or a sentence that fails
            validation.
        sphragis.build.BuildLocked: another export into ``out`` is running.
        sphragis.files.OutputRefused: ``out`` is a folder the product did not write, or holds or
            lies inside the sources, the warehouse or the benchmark export.
    """
    from sphragis.evaluation import annotations

    vars_ = variables(**(options or {}))
    settings = config.settings()
    warehouse = warehouse or settings.warehouse
    out = claim_output_dir(out, OUTPUT_KIND, protected=(*settings.inputs(), warehouse, settings.out))
    if not warehouse.is_file():
        raise TreebankError(f"no warehouse at {warehouse}; build it with `sphragis build`")
    options_read = {"options": vars_, "merged": merged, "validate": validate,
                    "validator_level": validator_level if validate else None}
    step = output_step.begin(out, OUTPUT_KIND, STEP, warehouse, options_read, full=full)
    try:
        if step.up_to_date:
            return {**json.loads((out / "manifest.json").read_text(encoding="utf-8")), "up_to_date": True}
        with output_step.writing(step) as (recording, tmp), \
                Checks(validator_level if validate else None, cache=_validator_cache(out), jobs=jobs) as checks:
            t0 = time.perf_counter()
            select(recording, vars_)
            selection = query("training_treebank_file")
            files = []
            for stem, projects, split in _file_groups(vars_, merged):
                ann = annotations.render_selection(recording, stem, selection, {"projects": projects, "split": split},
                                                   view="native", tree="int_native_tree_tokens",
                                                   source_key="source")
                path = tmp / f"{stem}.conllu"
                output_step.write_rendered(ann, path, checks)
                files.append({"file": path.name, "projects": projects, "split": split,
                              "sentences": len(ann.sentences), "tokens": ann.words,
                              "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
            rendered = time.perf_counter() - t0
            validation = checks.result()
            manifest = _manifest(recording, vars_, merged, files, validation)
            # the checks run while the files are rendered: the second figure is the wait after it
            manifest["seconds"] = {"select_and_render": round(rendered, 1),
                                   "loaders_and_validator_after": round(time.perf_counter() - t0 - rendered, 1)}
            write_json(tmp / "manifest.json", manifest)
    finally:
        step.con.close()
    return {**manifest, **step.changes()}


def _validator_cache(out: Path) -> Path:
    """Where :class:`.treebank_checks.Checks` keeps its per-sentence results:
    ``<out>.state/ud_validator`` beside the output directory (outside the published treebank; its
    state folder, as the export's)."""
    return state.state_dir(out) / "ud_validator"


def _manifest(con: duckdb.DuckDBPyConnection, vars_: dict, merged: bool, files: list[dict],
              validation: dict | None) -> dict:
    counts = _records(con, "select * from mart_training_treebank_counts order by project")
    perseus = _records(con, "select * from mart_training_treebank_perseus_sources order by fold")
    excluded = _records(con, "select * exclude (sentence_uid, dedup_key) from mart_training_treebank_exclusions "
                             "order by project, sent_id")
    works = _records(con, "select * from mart_training_treebank_works order by project, work_id nulls last, work")
    by_project = {c["project"]: c for c in counts}
    return {
        "about": "Leakage-clean training treebank (sphragis export-treebank; seed 001 'Leakage controls').",
        "options": {**{k: vars_[k] for k in config.TRAINING_TREEBANK_VARS}, "merged": merged,
                    "split_seed": config.SPLIT_SEED},
        "content": CONTENT,
        "files": files,
        "counts": by_project,
        "seed_001": {
            "reference": SEED_001,
            "ud_perseus_agdt_sources": perseus,
            "gorman_fold_matches": (by_project.get("gorman", {}).get("hit_by_rule") or {}).get("fold_text_match", 0),
            "pedalion_fold_matches": (by_project.get("pedalion", {}).get("hit_by_rule") or {}).get("fold_text_match", 0),
            "note": "seed 001 counts other versions of the sources and matches by NFC form sequence; here a "
                    "sentence matches a fold when its SPEC §7 dedup key equals a fold sentence's.",
        },
        "selected_works": works,
        "excluded": excluded,
        "sources": _sources(vars_["treebank_projects"], vars_["treebank_folds"]),
        "validation": {"loaders": ["udtools.udeval.load_conllu (CoNLL 2018)", "conllu.parse_incr"],
                       "ud_validator": validation},
    }


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _cmd(args: argparse.Namespace) -> int:
    options = {
        "treebank_projects": args.projects,
        "treebank_folds": args.protect,
        "treebank_work_folds": args.work_folds,
        "treebank_exclude_perseus_sources": False if args.keep_perseus_sources else None,
        "treebank_exclude_fold_text": False if args.keep_fold_text else None,
        "treebank_exclude_fold_works": False if args.keep_fold_works else None,
        "treebank_dedup": False if args.no_dedup else None,
        "treebank_curation": True if args.curation else None,
        "treebank_dev_percent": args.dev_percent,
    }
    out = Path(args.out) if args.out else config.settings().out.with_name("treebank")
    t0 = time.perf_counter()
    m = export_treebank(out, options, merged=args.merged, validate=not args.no_validator, full=args.full,
                        validator_level=args.validator_level)
    print_summary(m, out, time.perf_counter() - t0)
    return 0


def print_summary(manifest: dict, out: Path, seconds: float) -> None:
    """Print the files, the counts per project and reason, and the validator result."""
    p = sys.stderr.write
    p(f"export-treebank: {out}\n")
    if manifest.get("up_to_date"):
        p("  up to date (nothing it reads changed since the last export-treebank: code, named queries, pin list, "
          f"warehouse tables, options, libraries); time {seconds:.1f}s\n")
        return
    if manifest.get("changed"):
        p(f"  redone: changed since the last export-treebank: {state.describe(manifest['changed'])}\n")
    for f in manifest["files"]:
        p(f"  {f['file']:<28} {f['sentences']:>7,} sentences {f['tokens']:>9,} tokens\n")
    p("  project      candidates  selected  excluded by reason (first rule) | hit by rule\n")
    for proj, c in manifest["counts"].items():
        reasons = ", ".join(f"{k} {v:,}" for k, v in (c["excluded_by_reason"] or {}).items())
        rules = ", ".join(f"{k} {v:,}" for k, v in (c["hit_by_rule"] or {}).items())
        p(f"  {proj:<12} {c['candidates']:>10,} {c['selected']:>9,}  {reasons or '-'} | {rules or '-'}\n")
    v = manifest["validation"]["ud_validator"]
    if v:
        p(f"  UD validator ({v['lang']}, levels 1-{v['validated_level']}): passes level {v['passed_level']} "
          f"(required {v['required_level']}); {v['errors']:,} errors and {v['warnings']:,} warnings above it, by "
          f"kind in manifest.json (levels 3-5 flag the source annotations' own conventions: reported, not "
          f"enforced); {v['sentences_cached']:,} of {v['sentences']:,} sentences from the cache\n")
    p(f"  time {seconds:.1f}s\n")


def register(sub) -> None:
    """Add the ``export-treebank`` subcommand to the ``sphragis`` command line."""
    d = config.TRAINING_TREEBANK_VARS
    t = sub.add_parser(
        "export-treebank", help="write the leakage-clean CoNLL-U training treebank for parsers (seed 001)",
        description="Write CoNLL-U training files of the AGDT-lineage treebanks (native UD v2 conversion, "
        "punctuation kept, XPOS = normalized AGDT tag, full FEATS, repaired heads) without the sentences "
        "of the protected UD evaluation folds, deduplicated across projects, with manifest.json (selection, "
        "every excluded sentence with its reason, counts, pinned revisions and licenses, validator "
        "summary). Reads SPHRAGIS_WAREHOUSE read-only; the output directory is replaced atomically.")
    t.add_argument("--out", help="output directory (default: 'treebank' beside SPHRAGIS_OUT, i.e. dist/treebank)")
    t.add_argument("--projects", type=_csv, help=f"comma-separated projects (default {','.join(d['treebank_projects'])})")
    t.add_argument("--protect", type=_csv, metavar="FOLDS",
                   help=f"comma-separated protected folds (default {','.join(d['treebank_folds'])})")
    t.add_argument("--work-folds", type=_csv, metavar="FOLDS",
                   help="protected folds whose works are excluded whole (default "
                        f"{','.join(d['treebank_work_folds'])}; seed 001: PROIEL is held out entirely)")
    t.add_argument("--keep-perseus-sources", action="store_true",
                   help="do not exclude the AGDT sources of protected UD Perseus fold sentences")
    t.add_argument("--keep-fold-text", action="store_true",
                   help="do not exclude sentences whose SPEC §7 dedup key occurs in a protected fold")
    t.add_argument("--keep-fold-works", action="store_true", help="do not exclude works shared with --work-folds")
    t.add_argument("--no-dedup", action="store_true", help="keep cross-project duplicates (SPEC §7 key)")
    t.add_argument("--curation", action="store_true", help="apply the authorship curation (SPEC §6; default off)")
    t.add_argument("--dev-percent", type=int, metavar="N",
                   help="draw N%% of each project's sentences into a dev file by the seeded sha256 (default 0: "
                        "train only)")
    t.add_argument("--merged", action="store_true", help="one treebank-<split>.conllu instead of one file per project")
    t.add_argument("--no-validator", action="store_true", help="skip the UD validator (the loaders still run)")
    t.add_argument("--validator-level", type=int, choices=LEVELS, default=VALIDATOR_LEVEL, metavar="N",
                   help=f"UD validator level {LEVELS[0]}-{LEVELS[-1]} (default {VALIDATOR_LEVEL}): level 2 is the gate "
                        "(an error fails the export), the levels above it are counted by kind in manifest.json")
    t.add_argument("--full", action="store_true",
                   help="write and validate again even if nothing it reads changed since the last export-treebank "
                        "(by default its state, kept in <out>.state/treebank.json, says so)")
    t.set_defaults(func=_cmd)
