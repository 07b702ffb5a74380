"""The leakage-clean training treebank for parser builders (issue 18; seed 001 "Leakage controls").

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
* **Validation**: every file is re-read with the CoNLL 2018 loader
  (``udtools.udeval.load_conllu``) and the ``conllu`` library, and checked with the UD validator
  (``udtools.validator.Validator``, language ``grc``) at every level 1-5; the export fails, naming
  the sentence, if the loader rejects a sentence or the validator reports an error at or below
  :data:`REQUIRED_LEVEL`; the messages above it are summarized by kind in the manifest.

Python only parses options, reads the reporting marts, runs the named queries in ``sql/queries/``
and writes files.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

import duckdb

from sphragis import config, state
from sphragis.files import replace_dir, restore_dir, write_json
from sphragis.queries import json_records as _records
from sphragis.queries import query

from .treebank_options import TreebankError, select, variables

#: The treebank export's code: this module and every module of the package it imports (its
#: state's reads, :func:`sphragis.state.reads`).
STEP = __name__
#: The UD validator level the native conversion meets: levels 1 (CoNLL-U format) and 2 (UD
#: format: universal UPOS/DEPREL, feature syntax, one root, no cycles, text = forms) have no
#: error on the real sources; level 3 (content: e.g. punctuation attached non-projectively or
#: carrying dependents, which the source heads of AGDT-lineage trees do) and above are reported,
#: not enforced.
REQUIRED_LEVEL = 2
#: Validator language (ISO 639-3 code of Ancient Greek in UD).
VALIDATOR_LANG = "grc"
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
# Validation
# --------------------------------------------------------------------------------------------


def check_loaders(path: Path, sent_ids: list[str]) -> None:
    """Re-read a written file with the CoNLL 2018 loader and the ``conllu`` library (SPEC §10).

    Args:
        path: the CoNLL-U file.
        sent_ids: the sentence ids written, in order.

    Raises:
        TreebankError: a loader rejects the file (naming the file and the sentence) or the
            ``conllu`` library reads other sentence ids than were written.
    """
    import conllu
    from udtools.udeval import UDError, load_conllu

    from sphragis.export.conllu_units import unit_at

    text = path.read_text(encoding="utf-8")
    try:
        load_conllu(io.StringIO(text), str(path), {})
    except UDError as exc:
        starts = [i + 1 for i, line in enumerate(text.split("\n")) if line.startswith("# sent_id = ")]
        raise TreebankError(f"{path}: sentence {sent_ids[unit_at(str(exc), starts)]}: "
                            f"CoNLL 2018 loader: {exc}") from None
    try:
        read = [s.metadata.get("sent_id") for s in conllu.parse_incr(io.StringIO(text))]
    except conllu.exceptions.ParseException as exc:
        raise TreebankError(f"{path}: the conllu library cannot read it: {exc}") from None
    if read != sent_ids:
        first = next((i for i, (a, b) in enumerate(zip(read, sent_ids)) if a != b), min(len(read), len(sent_ids)))
        raise TreebankError(f"{path}: the conllu library reads {len(read)} sentences, {len(sent_ids)} written; "
                            f"first difference at sentence {first + 1}")


def _validator_version() -> str:
    """The installed UD validator's version (part of the cache key of :func:`validate_ud`)."""
    from importlib.metadata import version

    return version("udtools")


def _validate_file(path: str, lang: str) -> list[dict]:
    """Every UD validator incident of one file at level 5, as plain records (run in a worker
    process; the file name is the base name, line numbers are the file's)."""
    from udtools.validator import Validator

    validator = Validator(lang=lang, level=5, output=None, max_store=0)
    state = validator.validate_files([path])
    return [{"level": int(inc.level), "type": str(inc.get_type()), "class": str(inc.testclass),
             "test_id": str(inc.testid), "error": bool(inc.is_error()), "file": Path(inc.filename or path).name,
             "line": inc.lineno, "sent": inc.sentid, "message": str(inc.message)}
            for inc in state.error_tracker]


def _cross_file_sent_ids(paths: list[Path]) -> list[dict]:
    """The one check of the validator that spans files (level 2 ``non-unique-sent-id``), done here
    because :func:`validate_ud` validates each file alone: a sent_id already seen in an earlier file."""
    seen: dict[str, str] = {}
    found = []
    for p in paths:
        in_file: set[str] = set()
        with open(p, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.startswith("# sent_id = "):
                    sid = line[len("# sent_id = "):].strip()
                    if sid in seen and sid not in in_file:
                        found.append({"level": 2, "type": "ERROR", "class": "METADATA", "test_id": "non-unique-sent-id",
                                      "error": True, "file": p.name, "line": lineno, "sent": sid,
                                      "message": f"Non-unique sent_id attribute '{sid}' (also in {seen[sid]})."})
                    in_file.add(sid)
                    seen.setdefault(sid, p.name)
    return found


def validate_ud(paths: list[Path], required_level: int = REQUIRED_LEVEL, lang: str = VALIDATOR_LANG,
                cache: Path | None = None, jobs: int | None = None) -> dict:
    """Run the UD validator (``udtools.validator.Validator``) over the files at level 5 and sum up.

    Each file is validated alone, the files in parallel worker processes (``jobs``, default every
    core); the validator's one check across files, sent_id uniqueness, is done by
    :func:`_cross_file_sent_ids`. With ``cache`` (a directory), a file's incidents are kept under
    the sha256 of its bytes, the validator's version and ``lang``, and reused when the same bytes
    are validated again (entries of other files are removed).

    Args:
        paths: the CoNLL-U files.
        required_level: errors at this level or below make the export fail.
        lang: validator language code.
        cache: directory of cached results, or None (validate everything).
        jobs: worker processes (default ``os.cpu_count()``).

    Returns:
        ``{"lang", "validated_level": 5, "required_level", "passed_level"`` (highest level with no
        error at it or below), ``"errors"``, ``"warnings"``, ``"messages"``: list of
        ``{"level", "type", "class", "test_id", "count", "example"}`` sorted by level and
        count, ``"files_cached"``: files whose results came from the cache}.

    Raises:
        TreebankError: an error at ``required_level`` or below (naming file, line, sentence).
    """
    import json
    from concurrent.futures import ProcessPoolExecutor

    key_of = {}
    for p in paths:
        with open(p, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        key_of[p] = hashlib.sha256(f"{digest}|{_validator_version()}|{lang}|5|{p.name}".encode()).hexdigest()
    results: dict[Path, list[dict]] = {}
    if cache is not None:
        for p in paths:
            try:
                results[p] = json.loads((cache / f"{key_of[p]}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                pass
    todo = [p for p in paths if p not in results]
    n_jobs = max(1, min(len(todo), jobs or os.cpu_count() or 1))
    if n_jobs > 1:
        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            for p, found in zip(todo, pool.map(_validate_file, [str(p) for p in todo], [lang] * len(todo))):
                results[p] = found
    else:
        results |= {p: _validate_file(str(p), lang) for p in todo}
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        for p in todo:
            write_json(cache / f"{key_of[p]}.json", results[p])
        for old in set(cache.glob("*.json")) - {cache / f"{k}.json" for k in key_of.values()}:
            old.unlink(missing_ok=True)
    counts: Counter = Counter()
    examples: dict[tuple, str] = {}
    min_error_level = 6
    first_required: dict | None = None
    for inc in [i for p in paths for i in results[p]] + _cross_file_sent_ids(paths):
        key = (inc["level"], inc["type"], inc["class"], inc["test_id"])
        counts[key] += 1
        examples.setdefault(key, f"{inc['file']} line {inc['line']} sent {inc['sent']}: {inc['message']}")
        if inc["error"]:
            min_error_level = min(min_error_level, inc["level"])
            if inc["level"] <= required_level and first_required is None:
                first_required = inc
    if first_required is not None:
        inc = first_required
        raise TreebankError(f"UD validator (level {required_level}, {lang}): {inc['file']} line {inc['line']} "
                            f"sentence {inc['sent']}: [{inc['test_id']}] {inc['message']}")
    messages = [{"level": k[0], "type": k[1], "class": k[2], "test_id": k[3], "count": n, "example": examples[k]}
                for k, n in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][3]))]
    return {"lang": lang, "validated_level": 5, "required_level": required_level,
            "passed_level": min_error_level - 1,
            "errors": sum(m["count"] for m in messages if m["type"].lower() == "error"),
            "warnings": sum(m["count"] for m in messages if m["type"].lower() == "warning"),
            "messages": messages, "files_cached": len(paths) - len(todo)}


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


def export_treebank(out: Path, options: dict | None = None, *, merged: bool = False,
                    warehouse: Path | None = None, validate: bool = True, full: bool = False) -> dict:
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
        full: ignore the saved state (write and validate again).

    Returns:
        The manifest (also written to ``out/manifest.json``); when the work was redone after a
        change, ``"changed"`` lists the inputs that changed (:func:`sphragis.state.changed`).

    Raises:
        TreebankError: bad options, a missing model, or a sentence that fails validation.
        sphragis.build.BuildLocked: another export into ``out`` is running.
    """
    from sphragis.build import build_lock, remove_stale_builds
    from sphragis.evaluation import annotations

    vars_ = variables(**(options or {}))
    warehouse = warehouse or config.settings().warehouse
    if not warehouse.is_file():
        raise TreebankError(f"no warehouse at {warehouse}; build it with `sphragis build`")
    con = duckdb.connect(str(warehouse), read_only=True)
    store = state.Store(out, "treebank")
    options_read = {"options": vars_, "merged": merged, "validate": validate}
    doc = store.load()
    from sphragis import runner

    built = runner.read_manifest(con)  # the build's manifest: the fingerprints of the tables read
    at_start, changed = state.check(doc, con, built)  # with --full too: the digests before it, for settle()
    if full:
        changed = ["--full"]
    if doc.get("reads", {}).get("variables") not in (None, options_read):
        changed = sorted(set(changed) | {"variables"})
    if not changed and state.intact(out, doc.get("outputs", {})):
        con.close()
        return {**json.loads((out / "manifest.json").read_text(encoding="utf-8")), "up_to_date": True}
    recording = state.RecordingConnection(con)  # the tables the export reads, for its state
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.building-{os.getpid()}")
    try:
        with build_lock(out):
            restore_dir(out)
            remove_stale_builds(out)
            tmp.mkdir()
            t0 = time.perf_counter()
            select(recording, vars_)
            selection = query("training_treebank_file")
            files = []
            for stem, projects, split in _file_groups(vars_, merged):
                ann = annotations.render_selection(recording, stem, selection, {"projects": projects, "split": split},
                                                   view="native", tree="int_native_tree_tokens",
                                                   source_key="source")
                if ann.skipped:
                    s = ann.skipped[0]
                    raise TreebankError(f"{stem}: {len(ann.skipped)} selected sentence(s) could not be rendered, "
                                        f"e.g. {s.sent_id}: {s.reason}")
                path = tmp / f"{stem}.conllu"
                path.write_text(ann.text, encoding="utf-8")
                check_loaders(path, list(ann.sent_ids))
                files.append({"file": path.name, "projects": projects, "split": split,
                              "sentences": len(ann.sentences), "tokens": ann.words,
                              "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
            rendered = time.perf_counter() - t0
            validation = (validate_ud([tmp / f["file"] for f in files], cache=_validator_cache(out))
                          if validate else None)
            manifest = _manifest(recording, vars_, merged, files, validation)
            manifest["seconds"] = {"select_and_render": round(rendered, 1),
                                   "ud_validator": round(time.perf_counter() - t0 - rendered, 1)}
            if validation:
                # the validator's examples name the temporary folder; name the file only
                for m in validation["messages"]:
                    m["example"] = m["example"].replace(str(tmp) + os.sep, "")
            write_json(tmp / "manifest.json", manifest)
            replace_dir(tmp, out)
            reads = state.reads((STEP,), tables=recording.tables, variables=options_read)
            store.save({"reads": reads, "digests": state.settle(at_start, state.digests(reads, con, built)),
                        "outputs": state.stamps(out)})
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return {**manifest, "changed": changed} if changed not in state.NOTHING_TO_COMPARE else manifest


def _validator_cache(out: Path) -> Path:
    """Where :func:`validate_ud` keeps its per-file results: ``<out>.state/ud_validator`` beside the
    output directory (outside the published treebank; its state folder, as the export's)."""
    return out.with_name(out.name + ".state") / "ud_validator"


def _manifest(con: duckdb.DuckDBPyConnection, vars_: dict, merged: bool, files: list[dict],
              validation: dict | None) -> dict:
    counts = _records(con, "select * from mart_training_treebank_counts order by project")
    perseus = _records(con, "select * from mart_training_treebank_perseus_sources order by fold")
    excluded = _records(con, "select * exclude (sentence_uid, dedup_key) from mart_training_treebank_exclusions "
                             "order by project, sent_id")
    works = _records(con, "select * from mart_training_treebank_works order by project, work_id nulls last, work")
    by_project = {c["project"]: c for c in counts}
    return {
        "about": "Leakage-clean training treebank (sphragis export-treebank; issue 18, seed 001 'Leakage controls').",
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
    m = export_treebank(out, options, merged=args.merged, validate=not args.no_validator, full=args.full)
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
        p(f"  UD validator ({v['lang']}): passes level {v['passed_level']} (required {v['required_level']}); "
          f"{v['errors']:,} errors and {v['warnings']:,} warnings above it, by kind in manifest.json\n")
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
    t.add_argument("--full", action="store_true",
                   help="write and validate again even if nothing it reads changed since the last export-treebank "
                        "(by default its state, kept in <out>.state/treebank.json, says so)")
    t.set_defaults(func=_cmd)
