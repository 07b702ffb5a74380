"""Metadata files of an export (SPEC §9): dataset_variants.json, build_report.json,
source_revisions.json and LICENSES.md. Every number is read from a warehouse table; this module
only shapes them into files (sorted keys, no timestamps, so exports are reproducible).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from sphragis import config, label_lookup
from sphragis.benchmark import BY_NAME, CONFIGS, EVAL_SPLITS, SPLITS
from sphragis.config import DATASET_VARIANTS, OVERLAP_TWINS
from sphragis.files import rounded, write_json, write_text_atomic
from sphragis.queries import json_records as _records
from sphragis.queries import query

from .layout import INPUT_COLUMNS, LABEL_COLUMN, data_path, is_chunked, metadata_columns


def _table(con: duckdb.DuckDBPyConnection, name: str, order_by: str = "all") -> list[dict]:
    return _records(con, f"select * from {name} order by {order_by}")


def _benchmark_table(con: duckdb.DuckDBPyConnection, name: str, order_by: str = "all") -> list[dict]:
    """Rows of the per-project table ``name`` whose project the benchmark draws from (registry
    ``in_benchmark``); a staged raw table (``stg_raw__*``) without its ``project`` column, in the
    shape of the raw table it stages."""
    keep = "* exclude (project)" if name.startswith("stg_raw__") else "*"
    return _records(con, f"select {keep} from {name} where project in (select project from projects where in_benchmark) "
                         f"order by {order_by}")


def build_report(con: duckdb.DuckDBPyConnection) -> dict:
    """SPEC §6–§8 counts from ``mart_sentence_fates`` and the report marts.

    The benchmark's build: every per-project figure is of the projects it draws from (registry
    ``in_benchmark``); ``warehouse_inventory`` (``mart_project_inventory``) lists every project
    the warehouse holds.

    Returns a dict with: ``pipeline`` (overall counts in the seed's terms: raw sentences, retained
    after curation, removed as duplicates, omitted for conflicts (rows and groups), eligible),
    ``per_project`` and ``per_author`` (the same, split), ``exclusions`` (sentences per reason),
    ``ingest_rejects``, ``tree_repairs``, ``tag_quality``, ``relation_fallbacks``,
    ``source_held_out_track``, ``work_held_out_track`` (``mart_work_held_out_choices``: every
    author's works with their split, candidate and published rows, the decision) and
    ``configurations``.
    """
    fates = _table(con, "mart_fate_counts", "scope, key")
    counts = {(r.pop("scope"), r.pop("key")): r for r in fates}
    overall = counts[("pipeline", None)]
    conflicts = _records(con, "select groups from mart_dedup_group_counts where status = 'author_conflict'")
    overall["omitted_for_author_conflict_groups"] = conflicts[0]["groups"] if conflicts else 0
    exclusions = _table(con, "mart_curation_exclusions", "reason")
    return {
        "pipeline": overall,
        "per_project": {key: r for (scope, key), r in counts.items() if scope == "project"},
        "per_author": {key: r for (scope, key), r in counts.items() if scope == "author"},
        "exclusions": exclusions,
        "excluded_documents": _table(con, "mart_excluded_documents"),
        "ingest_rejects": _benchmark_table(con, "stg_raw__ingest_rejects", "file_id, line"),
        "tree_repairs": _benchmark_table(con, "mart_tree_repairs"),
        "tag_quality": _benchmark_table(con, "mart_tag_quality"),
        "relation_fallbacks": _table(con, "mart_relation_rules"),
        "source_held_out_track": _table(con, "mart_held_out_choices"),
        "work_held_out_track": _table(con, "mart_work_held_out_choices", "author"),
        "configurations": _table(con, "mart_config_summary"),
        "passage_overlap": passage_overlap(con),
        "warehouse_inventory": _table(con, "mart_project_inventory", "priority"),
        **card_sections(con),
    }


def passage_overlap(con: duckdb.DuckDBPyConnection) -> dict:
    """The build report's ``passage_overlap`` section (SPEC §7.1): ``summary`` (the one
    row of ``mart_overlap_summary``: settings, pairs per class, groups, rows excluded per track,
    straddling pairs before/after) and ``leaks`` (``mart_overlap_leaks``: per configuration,
    evaluation split and class, evaluation rows with a near-twin in train before and after)."""
    return {"summary": _table(con, "mart_overlap_summary")[0],
            "leaks": _table(con, "mart_overlap_leaks", "config, split, class_order")}


def overlap_twins(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, list[str]]]:
    """``metadata/overlap_twins.json``: {config: {split: [id, ...]}}, the validation and test rows
    with a near-twin in train (``mart_overlap_twin_rows``, ids sorted) for every configuration and
    evaluation split (empty lists included); the audit scores the text baseline without them."""
    out: dict[str, dict[str, list[str]]] = {cfg: {s: [] for s in EVAL_SPLITS} for cfg in CONFIGS}
    for r in _table(con, "mart_overlap_twin_rows", "config, split, id"):
        out[r["config"]][r["split"]].append(r["id"])
    return out


def card_sections(con: duckdb.DuckDBPyConnection) -> dict:
    """The build-report sections the dataset card is rendered from (SPEC §9), each a warehouse
    mart as records: ``registry_profile`` (the profile that built the warehouse, the profiles
    available and every document a non-default profile decides differently), ``seed_reconciliation``
    (``mart_seed_reconciliation`` rows, ``mart_seed_reconciliation_causes``,
    ``mart_missing_file_estimates`` and a summary), ``per_author_splits`` (``mart_author_splits``),
    ``held_out_splits`` (retained authors of ``mart_held_out_choices``), ``work_held_out_splits``
    (retained authors of ``mart_work_held_out_choices`` with their works per split), ``genres``
    (``mart_genre_rows`` summed over splits), ``merge_effects`` (``mart_merge_effects``),
    ``license_rows`` (:func:`license_rows`) and ``split_block`` (the 50-row cut, runner variable
    ``min_author_rows``).
    """
    profiles = _table(con, "int_registry_profiles", "profile")
    active = [p["profile"] for p in profiles if p["is_active"]]
    per_author = _table(con, "mart_author_splits", "author")
    rows = _table(con, "mart_seed_reconciliation", "author, split")
    seed_authors = [a for a in per_author if a["seed_total"]]
    return {
        "registry_profile": {
            "active": active[0] if active else None,
            "default": config.DEFAULT_REGISTRY_PROFILE,
            "profiles": profiles,
            "active_overrides": sum(p["overridden_documents"] for p in profiles if p["is_active"]),
            "overrides": _table(con, "mart_registry_overrides"),
        },
        "seed_reconciliation": {
            "rows": rows,
            "causes": _table(con, "mart_seed_reconciliation_causes", "author, split, cause_order"),
            "missing_files": _table(con, "mart_missing_file_estimates", "path, author"),
            "summary": {
                "authors": len(seed_authors),
                "matching": sum(1 for a in seed_authors if a["matches_seed"]),
                "unexplained": sum(a["unexplained_rows"] for a in per_author),
            },
        },
        "per_author_splits": [a for a in per_author if a["total"]],
        "held_out_splits": _records(
            con, "select author, held_out_source, train_rows as train, validation_rows as validation, "
                 "test_rows as test from mart_held_out_choices where is_retained order by author"),
        "work_held_out_splits": _records(
            con, "select author, n_works, validation_titles as validation_works, test_titles as test_works, "
                 "train_rows as train, validation_rows as validation, test_rows as test "
                 "from mart_work_held_out_choices where is_retained order by author"),
        "genres": _table(con, "mart_genre_totals", "genre"),
        "merge_effects": _table(con, "mart_merge_effects", "kind, published_category, part_share_pct desc, part_category"),
        "license_rows": license_rows(con),
        "split_block": config.BUILD_VARS["min_author_rows"],
    }


def config_summary(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, dict[str, int]]]:
    """Rows and distinct authors of every configuration split, from ``mart_config_summary``:
    {config: {split: {"rows": n, "authors": m}}} for every config of ``sphragis.benchmark.CONFIGS``
    and split of ``SPLITS`` (0 and 0 for a split the mart has no row for). The exporter checks that
    each file it writes has these counts."""
    got = {(r["config"], r["split"]): {"rows": r["rows"], "authors": r["authors"]}
           for r in _table(con, "mart_config_summary")}
    return {cfg: {split: got.get((cfg, split), {"rows": 0, "authors": 0}) for split in SPLITS} for cfg in CONFIGS}


#: How ``metadata_columns`` of dataset_variants.json were measured (its ``_columns`` entry).
LOOKUP_RULE = ("reveals_label: a train-author lookup by the column's values beats the majority author on test "
               "(sql/queries/label_lookup.sql: every value a row holds, list elements and struct fields "
               "included, and each of its prefixes cut at ':' maps to its most frequent training author; an "
               "evaluation row takes the author most of its values name by their longest prefix seen in "
               "training, else the majority author); lookup_accuracy and majority_accuracy are test "
               "accuracies (fractions)")


def dataset_variants(con: duckdb.DuckDBPyConnection, summary: dict, lookups: dict[str, dict] | None = None) -> dict:
    """Every configuration: authors, rows per split, chunk ids, and the excluded rows (SPEC §9);
    its declared columns (SPEC §11): ``input_columns`` (what a model may read), ``label_column``
    and ``metadata_columns`` ({column: {"reveals_label", "lookup_accuracy", "majority_accuracy"}},
    from ``lookups``: :func:`sphragis.label_lookup.column_lookups` of the written files); a
    work_held_out configuration also has ``held_out_works``: {author: {split: [work_id, ...]}}
    for its retained authors (``mart_work_held_out_choices``)."""
    works = {r["author"]: {"train": r["train_works"], "validation": r["validation_works"], "test": r["test_works"]}
             for r in _records(con, "select * from mart_work_held_out_choices where is_retained order by author")}
    out = {}
    for cfg, splits in summary.items():
        entry = {"splits": splits,
                 "authors": [r["author"] for r in _records(con, query("variant_authors"), {"config": cfg})],
                 "input_columns": list(INPUT_COLUMNS), "label_column": LABEL_COLUMN,
                 "metadata_columns": rounded((lookups or {}).get(cfg, {}))}
        if is_chunked(cfg):
            entry["chunks"] = _records(con, query("variant_chunks"), {"config": cfg})
        if BY_NAME[cfg].track == "work_held_out":
            entry["held_out_works"] = works
        out[cfg] = entry
    out["_exclusions"] = _table(con, "mart_split_exclusions")
    out["_columns"] = {"input_columns": "what a model may read; every other column but the label is metadata",
                       "metadata_columns": LOOKUP_RULE}
    return out


def source_revisions(con: duckdb.DuckDBPyConnection) -> dict:
    """The benchmark's pinned snapshots (sphragis/sources.json, projects ``in_benchmark``) with the
    files actually read from each."""
    by_snap = {r["snapshot"]: r["files"] for r in _table(con, "mart_source_revision_files", "snapshot")}
    return {"snapshots": [
        {**{k: s[k] for k in ("name", "treebank_source", "upstream", "commit", "commit_date", "license", "archive",
                              "sha256", "included_prefixes", "missing")},
         "files": by_snap.get(s["name"], [])}
        for s in config.benchmark_snapshots()]}


LICENSE_NOTES = {
    "CC BY-NC-SA 2.5": "NonCommercial, ShareAlike",
    "CC BY-NC-SA 3.0": "NonCommercial, ShareAlike",
    "CC BY-SA 3.0 US": "ShareAlike",
    "CC BY-SA 4.0": "ShareAlike",
}


def license_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per (treebank_source, license): rows of the _1 configurations with a record of it (a row_id
    published on several tracks counts once)."""
    return _table(con, "mart_license_rows")


_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def number_word(n: int) -> str:
    """``n`` in words up to twelve (``three``), in digits above."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def _licenses_by_source() -> dict[str, str]:
    """treebank_source → license of the benchmark's pinned snapshots, in pin-list order (one entry
    per source)."""
    out: dict[str, str] = {}
    for s in config.benchmark_snapshots():
        out.setdefault(s["treebank_source"], s["license"])
    return out


def licenses_md(con: duckdb.DuckDBPyConnection) -> str:
    """LICENSES.md: per source of the benchmark its license, attribution, upstream revision and row
    counts. The sources named in its prose (the NonCommercial ones, the count of ShareAlike ones,
    the attribution line: the registry's ``attribution`` of each project) are derived from the pin
    list and the project registry (``in_benchmark``), never listed here."""
    rows = license_rows(con)
    counts = {(r["treebank_source"], r["license"]): r["rows"] for r in rows}
    licenses = _licenses_by_source()
    noncommercial = "; ".join(f"{src}: {lic}" for src, lic in licenses.items() if "-NC-" in lic)
    share_alike = [src for src, lic in licenses.items() if "-SA" in lic]
    n_sa = number_word(len(share_alike))
    share_alike_scope = f"all {n_sa} sources" if len(share_alike) == len(licenses) else ", ".join(share_alike)
    credited = dict.fromkeys(s["project"] for s in config.benchmark_snapshots())
    lines = ["# Licenses", "",
             "Sphragis is a mixed-license dataset. Every row lists the licenses of all the upstream records it "
             "was built from in its `licenses` column, and each record in `source_records` names its license, "
             "revision and upstream URL.", "",
             f"* **NonCommercial** ({noncommercial}): rows carrying these "
             "records may not be used for commercial purposes. Filter on `licenses` to obtain a commercially "
             "usable subset.",
             f"* **ShareAlike** ({share_alike_scope}): adaptations (including models' training data derived from "
             "these trees, where that counts as an adaptation) must be shared under the same or a compatible license.",
             "* **Attribution**: credit the treebank projects below.", "",
             "| treebank | license | terms | upstream | revision | rows (_1 configs) |", "|---|---|---|---|---|---:|"]
    for s in config.benchmark_snapshots():
        n = counts.get((s["treebank_source"], s["license"]), 0)
        lines.append(f"| {s['treebank_source']} ({s['name']}) | {s['license']} | {LICENSE_NOTES.get(s['license'], '')} "
                     f"| {s['upstream']} | {s['commit']} | {n:,} |")
    lines += ["", f"Attribution: {'; '.join(config.project_row(p)['attribution'] for p in credited)}.", ""]
    return "\n".join(lines)


def column_lookups(out: Path, cfg: str) -> dict[str, dict]:
    """The lookups of the metadata columns of configuration ``cfg`` as written in ``out``
    (:func:`sphragis.label_lookup.column_lookups`)."""
    return label_lookup.column_lookups({s: data_path(out, cfg, s) for s in SPLITS}, list(metadata_columns(cfg)),
                                       LABEL_COLUMN)


def write_variants(con: duckdb.DuckDBPyConnection, out: Path, summary: dict, lookups: dict[str, dict]) -> None:
    """Write ``metadata/dataset_variants.json`` into ``out`` (after its files: the lookups read them)."""
    write_json(out / DATASET_VARIANTS, dataset_variants(con, summary, lookups), sort_keys=True)


def write_all(con: duckdb.DuckDBPyConnection, out: Path, summary: dict) -> None:
    """Write the other metadata/*.json and LICENSES.md into ``out`` (an export directory being built)."""
    meta = out / "metadata"
    write_json(meta / "build_report.json", build_report(con), sort_keys=True)
    write_json(meta / OVERLAP_TWINS.name, overlap_twins(con), sort_keys=True)
    write_json(meta / "source_revisions.json", source_revisions(con), sort_keys=True)
    write_text_atomic(out / "LICENSES.md", licenses_md(con))
