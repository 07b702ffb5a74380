"""Write the Sphragis benchmark from the warehouse (SPEC §9, §10).

Layout of ``SPHRAGIS_OUT`` (default ``dist/sphragis``)::

    README.md                       dataset card; its ``configs:`` YAML lets
                                    ``datasets.load_dataset(<out>, "sentence_10")`` work offline
    LICENSES.md                     per-source license, attribution, NC/SA implications
    data/<config>/<split>-00000-of-00001.parquet
    metadata/dataset_variants.json  every config: authors, rows per split, chunk ids, exclusions
    metadata/build_report.json      SPEC §6–§8 counts, repairs, rejects, held-out choices
    metadata/source_revisions.json  pinned snapshots and the files read from each
    metadata/leakage_report.json    SPEC §11 (written by ``sphragis audit``; absent until then)

Every distinct published unit is rendered and re-parsed with the CoNLL 2018 loader before
anything is written (SPEC §10). The directory is written beside the old one and swapped in only
when complete (SPEC §13). Row order, column order and JSON key order are fixed, so two exports of
the same warehouse are byte-identical.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from sphragis import config

from .conllu_units import validate_units

SPLITS = ("train", "validation", "test")
CHUNK_SIZES = (1, 5, 10, 50)
TRACKS = {"sentence": "main", "source_held_out": "source_held_out"}
CONFIGS = tuple(f"{prefix}_{k}" for prefix in TRACKS for k in CHUNK_SIZES)

#: Columns of every configuration, in order (seed 000 "Principal columns").
BASE_COLUMNS = (
    "id", "author", "work", "work_id", "genre", "text", "conllu", "cts_urn", "passage", "treebank_source",
    "native_syntax", "source_records", "licenses", "dedup_key", "split",
)
CHUNK_COLUMNS = (
    "chunk_size", "chunk_target_size", "constituent_ids", "constituent_provenance", "chunk_work_ids",
    "chunk_works", "chunk_is_mixed_work",
)
HELD_OUT_COLUMNS = ("held_out_source",)

PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 9, "row_group_size": 2_000, "write_statistics": True}


class ExportError(RuntimeError):
    """The warehouse is missing or incomplete, or a published unit failed validation."""


def columns_of(config_name: str) -> tuple[str, ...]:
    """Column names of one configuration, in published order."""
    cols = BASE_COLUMNS
    if not config_name.endswith("_1"):
        cols += CHUNK_COLUMNS
    if config_name.startswith("source_held_out"):
        cols += HELD_OUT_COLUMNS
    return cols


def _open(settings: config.Settings) -> duckdb.DuckDBPyConnection:
    if not settings.warehouse.exists():
        raise ExportError(f"no warehouse at {settings.warehouse}; run `sphragis build` (or `make build`) first")
    return duckdb.connect(str(settings.warehouse), read_only=True)


def _json_dump(obj: object, path: Path) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _records(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def validate_published_units(con: duckdb.DuckDBPyConnection) -> int:
    """Render and re-parse every distinct published unit (SPEC §10); returns how many.

    Raises:
        UnitValidationError: naming the first unit that fails.
    """
    cur = con.execute("""
        select e.row_id, e.tokens, e.text
        from int_eligible_sentences as e
        where e.row_id in (select row_id from mart_split_rows)
        order by e.row_id""")
    n = 0
    while batch := cur.fetchmany(20_000):
        n += validate_units((rid, [tokens], text) for rid, tokens, text in batch)
    return n


def write_config(con: duckdb.DuckDBPyConnection, config_name: str, split: str, path: Path) -> int:
    """Write one configuration split as Parquet; returns the row count."""
    cols = columns_of(config_name)
    table = con.sql(
        f"select {', '.join(cols)} from mart_benchmark_rows where config = $cfg and split = $split order by row_order",
        params={"cfg": config_name, "split": split},
    ).to_arrow_table()
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, **PARQUET_OPTIONS)
    return table.num_rows


def dataset_card(summary: dict[str, dict[str, dict]]) -> str:
    """The dataset card (README.md) with the ``configs:`` YAML that ``load_dataset`` reads."""
    lines = ["---", "pretty_name: Sphragis", "language:", "- grc", "task_categories:", "- text-classification",
             "configs:"]
    for cfg in CONFIGS:
        lines.append(f"- config_name: {cfg}")
        lines.append("  data_files:")
        for split in SPLITS:
            lines.append(f"  - split: {split}")
            lines.append(f"    path: data/{cfg}/{split}-*.parquet")
    lines += ["---", "", "# Sphragis", "",
              "Ancient Greek authorship attribution over the curated union of seven treebank projects "
              "(AGDT 2.1, UD Perseus, UD PROIEL, UD PTNK, Gorman, Pedalion, Harrington), built by the "
              "Sphragis warehouse. See `metadata/` for the build report, the configuration manifest and "
              "the pinned source revisions, and `LICENSES.md` for the mixed licensing (NonCommercial and "
              "ShareAlike data).", "",
              "| configuration | authors | train | validation | test |", "|---|---:|---:|---:|---:|"]
    for cfg in CONFIGS:
        s = summary.get(cfg, {})
        authors = max((v.get("authors", 0) for v in s.values()), default=0)
        lines.append(f"| {cfg} | {authors} | " + " | ".join(f"{s.get(sp, {}).get('rows', 0):,}" for sp in SPLITS) + " |")
    lines += ["", "```python", "from datasets import load_dataset", 'ds = load_dataset("<this directory>", "sentence_10")',
              "```", "", "Columns follow the Sphragis card: `text` is a list of unit strings; `conllu` is a list "
              "of units, each a list of sentences (exactly one), each a list of token structs with the CoNLL-U "
              "field names; `cts_urn`, `passage`, `treebank_source`, `dedup_key` and `native_syntax` have one "
              "entry per unit; `source_records` lists every contributing upstream record.", ""]
    return "\n".join(lines)


def export(settings: config.Settings | None = None) -> dict:
    """Validate and write every configuration, the metadata and the card (see module docstring).

    Returns:
        {"configs": {config: {split: {"rows": n, "authors": m}}}, "units_validated": n, "out": str}

    Raises:
        ExportError: no warehouse, or a required table is missing.
        UnitValidationError: a published unit breaks CoNLL-U or a SPEC §5 invariant.
    """
    from . import metadata

    settings = settings or config.settings()
    con = _open(settings)
    try:
        missing = [t for t in ("mart_benchmark_rows", "mart_split_rows", "int_eligible_sentences")
                   if not con.execute("select 1 from duckdb_tables() where table_name = ?", [t]).fetchone()]
        if missing:
            raise ExportError(f"warehouse {settings.warehouse} lacks {', '.join(missing)}; rebuild it with `sphragis build`")
        n_units = validate_published_units(con)
        out = settings.out
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f"{out.name}.building-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            summary: dict[str, dict[str, dict]] = {}
            for cfg in CONFIGS:
                summary[cfg] = {}
                for split in SPLITS:
                    n = write_config(con, cfg, split, tmp / "data" / cfg / f"{split}-00000-of-00001.parquet")
                    authors = con.execute(
                        "select count(distinct author) from mart_benchmark_rows where config = ? and split = ?",
                        [cfg, split]).fetchone()[0]
                    summary[cfg][split] = {"rows": n, "authors": authors}
            (tmp / "metadata").mkdir()
            metadata.write_all(con, tmp, summary)
            leakage = out / "metadata" / "leakage_report.json"
            if leakage.exists():  # produced by `sphragis audit` from an earlier export; keep it
                shutil.copyfile(leakage, tmp / "metadata" / "leakage_report.json")
            (tmp / "README.md").write_text(dataset_card(summary), encoding="utf-8")
            _swap(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        con.close()
    return {"configs": summary, "units_validated": n_units, "out": str(out)}


def _swap(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp`` with two renames (the old tree is removed only afterwards)."""
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    if out.exists():
        os.replace(out, old)
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)


def print_summary(report: dict, seconds: float) -> None:
    """Print rows per configuration and split, and the time taken."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"export: {report['out']}")
    for col in ("configuration", "authors", *SPLITS):
        t.add_column(col, justify="left" if col == "configuration" else "right")
    for cfg, splits in report["configs"].items():
        authors = max(v["authors"] for v in splits.values())
        t.add_row(cfg, str(authors), *(f"{splits[s]['rows']:,}" for s in SPLITS))
    con = Console(stderr=True, highlight=False)
    con.print(t)
    con.print(f"units validated with the CoNLL 2018 loader: {report['units_validated']:,}; time {seconds:.1f}s")
