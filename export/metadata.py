"""Metadata files of an export (SPEC §9): dataset_variants.json, build_report.json,
source_revisions.json and LICENSES.md. Every number is read from a warehouse table; this module
only shapes them into files (sorted keys, no timestamps, so exports are reproducible).
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import duckdb

from sphragis import config


def _records(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [{k: _plain(v) for k, v in zip(names, row)} for row in cur.fetchall()]


def _plain(v):
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _table(con: duckdb.DuckDBPyConnection, name: str, order_by: str = "all") -> list[dict]:
    return _records(con, f"select * from {name} order by {order_by}")


def _dump(obj: object, path: Path) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def build_report(con: duckdb.DuckDBPyConnection) -> dict:
    """SPEC §6–§8 counts from ``mart_sentence_fates`` and the report marts.

    Returns a dict with: ``pipeline`` (overall counts in the seed's terms: raw sentences, retained
    after curation, removed as duplicates, omitted for conflicts (rows and groups), eligible),
    ``per_project`` and ``per_author`` (the same, split), ``exclusions`` (sentences per reason),
    ``ingest_rejects``, ``tree_repairs``, ``tag_quality``, ``relation_fallbacks``,
    ``source_held_out_track`` and ``configurations``.
    """
    fates = _records(con, "select project, author, fate, count(*) as n from mart_sentence_fates group by all order by all")

    def summarize(rows):
        c = defaultdict(int)
        for r in rows:
            c[r["fate"]] += r["n"]
        raw = sum(c.values())
        excluded = sum(v for k, v in c.items() if k.startswith("excluded_"))
        retained = raw - excluded - c["rejected_at_ingest"] - c["no_published_tokens"]
        return {
            "raw_sentences": raw,
            "rejected_at_ingest": c["rejected_at_ingest"],
            "no_published_tokens": c["no_published_tokens"],
            "excluded_by_curation": excluded,
            "retained_after_curation": retained,
            "removed_as_duplicates": c["duplicate"],
            "omitted_for_author_conflict_rows": c["author_conflict"],
            "omitted_empty_dedup_key": c["empty_dedup_key"],
            "eligible": c["eligible"],
        }

    by_project, by_author = defaultdict(list), defaultdict(list)
    for r in fates:
        by_project[r["project"]].append(r)
        if r["author"] is not None and not r["fate"].startswith("excluded_"):
            by_author[r["author"]].append(r)
    overall = summarize(fates)
    overall["omitted_for_author_conflict_groups"] = con.execute(
        "select count(*) from int_dedup_groups where status = 'author_conflict'").fetchone()[0]
    exclusions = _records(con, """
        select decision as reason, count(*) as sentences, count(distinct project || '|' || document_key) as documents
        from int_curated_sentences where not is_retained group by 1 order by 1""")
    return {
        "pipeline": overall,
        "per_project": {p: summarize(v) for p, v in sorted(by_project.items())},
        "per_author": {a: summarize(v) for a, v in sorted(by_author.items())},
        "exclusions": exclusions,
        "excluded_documents": _records(con, """
            select c.project, c.document_key, any_value(r.author) as author, any_value(r.work) as work,
                   c.decision as reason, any_value(r.justification) as justification, count(*) as sentences
            from int_curated_sentences c join int_works_registry r using (project, document_key)
            where not c.is_retained group by c.project, c.document_key, c.decision order by all"""),
        "ingest_rejects": _table(con, "ingest_rejects", "file_id, line"),
        "tree_repairs": _table(con, "mart_tree_repairs"),
        "tag_quality": _table(con, "mart_tag_quality"),
        "relation_fallbacks": _records(con, "select * from mart_relation_rules where ud_relation = 'dep' order by all")
        if _has_column(con, "mart_relation_rules", "ud_relation") else _table(con, "mart_relation_rules"),
        "source_held_out_track": _table(con, "mart_held_out_choices"),
        "configurations": _table(con, "mart_config_summary"),
        **card_sections(con),
    }


def card_sections(con: duckdb.DuckDBPyConnection) -> dict:
    """The build-report sections the dataset card is rendered from (issue 19), each a warehouse
    mart as records: ``registry_profile`` (the profile that built the warehouse, the profiles
    available and every document a non-default profile decides differently), ``seed_reconciliation``
    (``mart_seed_reconciliation`` rows, ``mart_seed_reconciliation_causes``,
    ``mart_missing_file_estimates`` and a summary), ``per_author_splits`` (``mart_author_splits``),
    ``held_out_splits`` (retained authors of ``mart_held_out_choices``), ``genres``
    (``mart_genre_rows`` summed over splits), ``merge_effects`` (``mart_merge_effects``),
    ``license_rows`` (:func:`license_rows`) and ``split_block`` (the 50-row cut, runner variable
    ``min_author_rows``).
    """
    from sphragis import runner

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
        "held_out_splits": _records(con, """
            select author, held_out_source, train_rows as train, validation_rows as validation, test_rows as test
            from mart_held_out_choices where is_retained order by author"""),
        "genres": _records(con, "select genre, sum(rows) as rows from mart_genre_rows group by genre order by genre"),
        "merge_effects": _table(con, "mart_merge_effects", "kind, published_category, part_share_pct desc, part_category"),
        "license_rows": license_rows(con),
        "split_block": runner.DEFAULT_VARS["min_author_rows"],
    }


def _has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    return bool(con.execute("select 1 from duckdb_columns() where table_name = ? and column_name = ?",
                            [table, column]).fetchone())


def dataset_variants(con: duckdb.DuckDBPyConnection, summary: dict) -> dict:
    """Every configuration: authors, rows per split, chunk ids, and the excluded rows (SPEC §9)."""
    out = {}
    for cfg, splits in summary.items():
        entry = {"splits": splits,
                 "authors": [r["author"] for r in _records(
                     con, "select distinct author from mart_benchmark_rows where config = ? order by 1", [cfg])]}
        if not cfg.endswith("_1"):
            entry["chunks"] = _records(con, """
                select split, id as chunk_id, author, constituent_ids, chunk_is_mixed_work
                from mart_benchmark_rows where config = ? order by split, row_order""", [cfg])
        out[cfg] = entry
    out["_exclusions"] = _table(con, "mart_split_exclusions") if _exists(con, "mart_split_exclusions") else []
    return out


def _exists(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return bool(con.execute("select 1 from duckdb_tables() where table_name = ?", [table]).fetchone())


def source_revisions(con: duckdb.DuckDBPyConnection) -> dict:
    """Pinned snapshots (sphragis/sources.json) with the files actually read from each."""
    files = _records(con, """
        select snapshot, path, sha256, bytes, n_sentences_expected, n_sentences_ingested, n_tokens_ingested
        from raw_files order by snapshot, path""")
    by_snap = defaultdict(list)
    for f in files:
        by_snap[f.pop("snapshot")].append(f)
    return {"snapshots": [
        {**{k: s[k] for k in ("name", "treebank_source", "upstream", "commit", "commit_date", "license", "archive",
                              "sha256", "included_prefixes", "missing")},
         "files": by_snap.get(s["name"], [])}
        for s in config.snapshots()]}


LICENSE_NOTES = {
    "CC BY-NC-SA 2.5": "NonCommercial, ShareAlike",
    "CC BY-NC-SA 3.0": "NonCommercial, ShareAlike",
    "CC BY-SA 3.0 US": "ShareAlike",
    "CC BY-SA 4.0": "ShareAlike",
}


def license_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per (treebank_source, license): rows of the _1 configurations with a record of it (a row_id
    published on both tracks counts once)."""
    return _records(con, """
        with published as (
            select distinct id as row_id from mart_benchmark_rows where config in ('sentence_1', 'source_held_out_1')
        ),
        records as (
            select e.row_id, unnest(e.source_records) as r
            from int_eligible_sentences as e inner join published as p on e.row_id = p.row_id
        )
        select r.treebank_source, r.license, count(distinct row_id) as rows
        from records group by all order by all""")


def licenses_md(con: duckdb.DuckDBPyConnection) -> str:
    """LICENSES.md: per source its license, attribution, upstream revision and row counts."""
    rows = license_rows(con)
    counts = {(r["treebank_source"], r["license"]): r["rows"] for r in rows}
    lines = ["# Licenses", "",
             "Sphragis is a mixed-license dataset. Every row lists the licenses of all the upstream records it "
             "was built from in its `licenses` column, and each record in `source_records` names its license, "
             "revision and upstream URL.", "",
             "* **NonCommercial** (UD Perseus: CC BY-NC-SA 2.5; UD PROIEL: CC BY-NC-SA 3.0): rows carrying these "
             "records may not be used for commercial purposes. Filter on `licenses` to obtain a commercially "
             "usable subset.",
             "* **ShareAlike** (all seven sources): adaptations (including models' training data derived from "
             "these trees, where that counts as an adaptation) must be shared under the same or a compatible license.",
             "* **Attribution**: credit the treebank projects below.", "",
             "| treebank | license | terms | upstream | revision | rows (_1 configs) |", "|---|---|---|---|---|---:|"]
    for s in config.snapshots():
        n = counts.get((s["treebank_source"], s["license"]), 0)
        lines.append(f"| {s['treebank_source']} ({s['name']}) | {s['license']} | {LICENSE_NOTES.get(s['license'], '')} "
                     f"| {s['upstream']} | {s['commit']} | {n:,} |")
    lines += ["", "Attribution: AGDT (Perseus Digital Library, Ancient Greek Dependency Treebank 2.1, G. Celano, "
              "G. Crane, B. Almas et al.); UD Ancient Greek Perseus (F. Mambrini, G. Celano et al.); UD Ancient "
              "Greek PROIEL (D. Haug et al.); UD Ancient Greek PTNK (Pedagogical Treebank of the Septuagint); "
              "Vanessa Gorman, Greek Dependency Trees; Pedalion trees (Perseids publications); Harrington trees "
              "(J. M. Harrington et al., Perseids publications).", ""]
    return "\n".join(lines)


def write_all(con: duckdb.DuckDBPyConnection, out: Path, summary: dict) -> None:
    """Write metadata/*.json and LICENSES.md into ``out`` (an export directory being built)."""
    meta = out / "metadata"
    meta.mkdir(parents=True, exist_ok=True)
    _dump(dataset_variants(con, summary), meta / "dataset_variants.json")
    _dump(build_report(con), meta / "build_report.json")
    _dump(source_revisions(con), meta / "source_revisions.json")
    (out / "LICENSES.md").write_text(licenses_md(con), encoding="utf-8")
