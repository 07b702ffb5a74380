"""The dataset card (``README.md``) of an export, generated from the export itself (SPEC §9).

The card follows the section layout of the Hugging Face Hub dataset-card template (summary, tasks
and leaderboard, languages, structure, splits, curation, source data, annotations, limitations,
licensing, citation). It is rendered with Jinja (``sphragis/templates/dataset_card.md.j2``) from the
files of the export directory only:

* ``metadata/build_report.json`` (written by :mod:`sphragis.export.metadata` from the warehouse marts:
  per-author splits, the registry profile, the seed reconciliation, the merge effects, the
  pipeline counts);
* ``metadata/source_revisions.json`` (pinned revisions);
* ``metadata/leakage_report.json`` (the leaderboard, what the floor measures, the tracks on the
  same authors and the confounds, :mod:`.card_claims`; written by ``sphragis audit``, which runs
  after ``sphragis export`` and then re-renders the card: an export that has not been audited
  says so in its leaderboard section) and ``metadata/leaderboard.json`` (the scored submissions
  ``sphragis leaderboard`` accepted; the rows are :func:`sphragis.leaderboard.board`);
* the Parquet files (the Arrow schema of each column and one example row).

No figure is typed into the template: every number comes from one of those files. The YAML
header is checked offline with :func:`validate_card` (``huggingface_hub``'s card parser and
``DatasetCardData``, ``datasets``' ``configs`` parser, and the tag vocabularies ``datasets``
ships).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import jinja2
import pyarrow.parquet as pq
import yaml

from sphragis import config, leaderboard
from sphragis.files import write_text_atomic

from sphragis.benchmark import BY_NAME, CONFIGS, SPLITS, TRACKS, config_of
from sphragis.state import template_loader

from . import card_claims
from .layout import data_path, is_chunked
from .metadata import number_word

CARD_TEMPLATE = "dataset_card.md.j2"
#: The card's file name in the export directory (what ``datasets`` reads for the configurations).
CARD_NAME = "README.md"

#: The atomic configuration whose authors each track's table of "Data Splits" lists.
TRACK_TABLES = {track: config_of(track, 1) for track in TRACKS}
TEMPLATES = config.PACKAGE_DIR / "templates"


#: Tokens of the example row's ``conllu`` shown in the card (the rest elided).
EXAMPLE_TOKENS = 3
#: The example instance is the shortest ``sentence_1`` validation row of at least this many tokens
#: (a one-word sentence shows nothing of the trees).
EXAMPLE_MIN_TOKENS = 8

#: Hub metadata that does not depend on the build (the Hub's controlled vocabularies).
CARD_METADATA = {
    "pretty_name": "Sphragis",
    "language": ["grc"],
    "license": "other",
    "license_name": "mixed-cc-by-sa-and-cc-by-nc-sa",
    "license_link": "LICENSES.md",
    "annotations_creators": ["expert-generated"],
    "language_creators": ["found"],
    "multilinguality": ["monolingual"],
    "source_datasets": ["extended"],
    "task_categories": ["text-classification"],
    "task_ids": ["multi-class-classification"],
    "tags": ["authorship-attribution", "ancient-greek", "treebank", "dependency-trees", "conllu"],
}


class CardError(ValueError):
    """The card's YAML header fails the offline dataset-card metadata validation."""


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def size_category(n: int) -> str:
    """The Hub ``size_categories`` value for ``n`` examples (``datasets``' size_categories.json:
    ``n<1K``, ``1K<n<10K``, ``10K<n<100K``, … ``100B<n<1T``, ``n>1T``)."""
    names = ["1K", "10K", "100K", "1M", "10M", "100M", "1B", "10B", "100B", "1T"]
    if n < 1_000:
        return "n<1K"
    for i in range(1, len(names)):
        if n < 10 ** (i + 3):
            return f"{names[i - 1]}<n<{names[i]}"
    return "n>1T"


def _uncompressed_bytes(out: Path | None, cfg: str, split: str) -> int:
    """A split's uncompressed size in bytes as its Parquet footer records it (the row groups'
    ``total_byte_size``; 0 without ``out``): the ``num_bytes`` of the card's ``dataset_info``."""
    if out is None:
        return 0
    meta = pq.read_metadata(data_path(out, cfg, split))
    return sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))


def header(configs: dict[str, dict[str, dict]], out: Path | None = None) -> dict:
    """The card's YAML metadata: :data:`CARD_METADATA`, ``size_categories`` from the ``sentence_1``
    rows, the ``configs`` list that ``datasets.load_dataset`` reads (data/<config>/<split>-*.parquet)
    and, per configuration, ``dataset_info``: ``splits`` with their ``num_examples`` and
    ``num_bytes`` (:func:`_uncompressed_bytes`), and ``download_size``, the bytes of its Parquet files
    in ``out`` (left out when ``out`` is None).

    ``dataset_info`` keys ``datasets``' cache: a local folder's cache entry is named by a hash of
    the card's ``configs`` and ``dataset_info`` only (datasets 5.2, ``load.py``), so without it a
    re-export whose rows changed would be served the previous export's rows from
    ``~/.cache/huggingface/datasets``. ``load_dataset`` also checks each split's ``num_examples``.

    Args:
        configs: {config: {split: {"rows": n, ...}}} (``metadata/dataset_variants.json``).
        out: the export directory holding ``data/``; None leaves ``download_size`` out.
    """
    n = sum(configs.get("sentence_1", {}).get(s, {}).get("rows", 0) for s in SPLITS)
    meta = dict(CARD_METADATA)
    meta["size_categories"] = [size_category(n)]
    meta["configs"] = [
        {"config_name": cfg, "data_files": [{"split": s, "path": f"data/{cfg}/{s}-*.parquet"} for s in SPLITS]}
        for cfg in CONFIGS]
    infos = []
    for cfg in CONFIGS:
        if cfg not in configs:
            continue
        splits = [{"name": s, "num_bytes": _uncompressed_bytes(out, cfg, s), "num_examples": configs[cfg][s]["rows"]}
                  for s in SPLITS]
        info = {"config_name": cfg, "splits": splits}
        if out is not None:
            info["download_size"] = sum(data_path(out, cfg, s).stat().st_size for s in SPLITS)
        infos.append(info)
    meta["dataset_info"] = infos
    return meta


def _example(out: Path) -> dict:
    """The shortest ``sentence_1`` validation row of at least :data:`EXAMPLE_MIN_TOKENS` tokens
    (ties by id; the longest row when none is that long) as card JSON, ``conllu`` trimmed (``json``
    is None when the split is empty)."""
    path = data_path(out, "sentence_1", "validation")
    con = duckdb.connect()
    try:
        row = con.sql("select * from read_parquet($path) "
                      "order by len(conllu[1][1]) >= $min desc, "
                      "if(len(conllu[1][1]) >= $min, len(conllu[1][1]), -len(conllu[1][1])), id limit 1", params={"path": str(path), "min": EXAMPLE_MIN_TOKENS}).to_arrow_table()
    finally:
        con.close()
    if not row.num_rows:
        return {"split": "validation", "json": None, "n_tokens": 0, "shown_tokens": 0}
    rec = row.to_pylist()[0]
    tokens = rec["conllu"][0][0]
    rec["conllu"] = [[tokens[:EXAMPLE_TOKENS] + (["…"] if len(tokens) > EXAMPLE_TOKENS else [])]]
    text = json.dumps(rec, ensure_ascii=False, indent=2, default=str)
    return {"split": "validation", "json": text, "n_tokens": len(tokens), "shown_tokens": min(len(tokens), EXAMPLE_TOKENS),
            "min_tokens": EXAMPLE_MIN_TOKENS}


def _fields(out: Path) -> list[dict]:
    """Every published column with its Arrow type and the configurations that have it."""
    seen: dict[str, dict] = {}
    for cfg in CONFIGS:
        path = data_path(out, cfg, "train")
        if not path.is_file():
            continue
        for f in pq.read_schema(path):
            entry = seen.setdefault(f.name, {"name": f.name, "type": str(f.type), "configs": []})
            entry["configs"].append(cfg)
    for entry in seen.values():
        cfgs = entry["configs"]
        entry["configs"] = ("all" if len(cfgs) == len(CONFIGS)
                            else "chunked (`_5`, `_10`, `_50`)" if all(is_chunked(c) for c in cfgs)
                            and len(cfgs) == 6 else ", ".join(f"`{c}`" for c in cfgs))
    return list(seen.values())


def _columns(variants: dict) -> dict:
    """The card's "What a model may read": the input and label columns, and per metadata column
    the configurations on which its lookup reveals the label (``all`` or their names, ``none``) and
    its ``sentence_1`` figures (``metadata/dataset_variants.json``)."""
    configs = [c for c in CONFIGS if c in variants]
    if not configs:
        return {"inputs": [], "label": None, "metadata": []}
    names: list[str] = []
    for cfg in configs:
        names += [c for c in variants[cfg]["metadata_columns"] if c not in names]
    rows = []
    for name in names:
        has = [cfg for cfg in configs if name in variants[cfg]["metadata_columns"]]
        reveals = [cfg for cfg in has if variants[cfg]["metadata_columns"][name]["reveals_label"]]
        said = ("none" if not reveals else f"all {len(has)} configurations with it" if reveals == has
                else ", ".join(f"`{c}`" for c in reveals))
        rows.append({"column": name, "reveals": said,
                     "sentence_1": variants.get("sentence_1", {}).get("metadata_columns", {}).get(name)})
    first = variants[configs[0]]
    return {"inputs": first["input_columns"], "label": first["label_column"], "metadata": rows}


def _unit_name(chunk_target_size: int) -> str:
    return "sentence" if chunk_target_size == 1 else f"{chunk_target_size}-sentence chunk"


def context(out: Path) -> dict:
    """Everything the template needs, read from the export directory ``out``.

    Raises:
        FileNotFoundError: ``metadata/build_report.json`` or ``metadata/source_revisions.json`` is
            missing (the export is incomplete).
    """
    meta = out / "metadata"
    for name in ("build_report.json", "source_revisions.json", "dataset_variants.json"):
        if not (meta / name).is_file():
            raise FileNotFoundError(f"{meta / name}: missing; the card is rendered from a complete export")
    report = _load(meta / "build_report.json")
    revisions = _load(meta / "source_revisions.json")
    variants = _load(meta / "dataset_variants.json")
    leakage = _load(meta / "leakage_report.json")
    configs = {cfg: variants[cfg]["splits"] for cfg in CONFIGS if cfg in variants}

    configurations = [{"config": cfg, "unit": _unit_name(BY_NAME[cfg].chunk_target_size),
                       "authors": len(variants[cfg]["authors"]),
                       **{s: configs[cfg][s]["rows"] for s in SPLITS}} for cfg in configs]
    per_author = report["per_author_splits"]
    main = {s: sum(a[s] for a in per_author) for s in SPLITS}
    main["total"] = sum(main.values())
    main["authors"] = len(per_author)
    seed_totals = {s: sum(a.get(f"seed_{s}") or 0 for a in per_author) for s in SPLITS}
    recon = report["seed_reconciliation"]
    by_key: dict[tuple, list] = {}
    for c in recon["causes"]:
        by_key.setdefault((c["author"], c["split"]), []).append(c)
    recon_rows = [{**r, "causes": by_key.get((r["author"], r["split"]), [])}
                  for r in recon["rows"] if r["diff_rows"] != 0]
    sources = revisions["snapshots"]
    board = leaderboard.board(out)
    return {
        "header_yaml": yaml.safe_dump(header(configs, out), sort_keys=False, allow_unicode=True, width=100),
        "sources": sources,
        "treebanks": sorted({s["treebank_source"] for s in sources}),
        "profile": report["registry_profile"],
        "main": main,
        "configurations": configurations,
        "board": board,
        **card_claims.context(leakage, board),
        "tracks": TRACKS,
        "genres": report["genres"],
        "example": _example(out),
        "fields": _fields(out),
        "columns": _columns(variants),
        "split_seed": config.SPLIT_SEED,
        "block": report["split_block"],
        "per_author": per_author,
        "seed_totals": seed_totals,
        "held_out": report["held_out_splits"],
        "work_held_out": report["work_held_out_splits"],
        "work_held_out_left_out": [r for r in report["work_held_out_track"] if not r["is_retained"]],
        # only the labels with rows: the registry's list may name authors no source holds
        "retained_pseudonymous": sorted(set(config.RETAINED_PSEUDONYMOUS_AUTHORS)
                                        & {a["author"] for a in per_author if a["total"]}),
        "citation_year": max(s["commit_date"][:4] for s in sources),
        "exclusions": report["exclusions"],
        "pipeline": report["pipeline"],
        "priority": [config.project_row(p)["treebank_source"] for p in config.benchmark_projects()],
        "merges": report["merge_effects"],
        "recon": {**recon["summary"], "rows": recon_rows, "files": recon["missing_files"]},
        "licenses": report["license_rows"],
        "inventory": report["warehouse_inventory"],
        # the configurations mart_license_rows counts (chunk_target_size 1 in benchmark_configs)
        "atomic_configs": [c for c in CONFIGS if BY_NAME[c].chunk_target_size == 1],
        "overlap": _overlap(report["passage_overlap"]),
    }


def _overlap(section: dict) -> dict:
    """The card's passage-overlap limitation from build_report.json's ``passage_overlap``: the
    summary row and, per configuration and evaluation split, the rows with a near-twin in train
    before and after (class ``any``; of them with a character-level twin) with this build's count
    per class."""
    cells: dict[tuple[str, str], dict] = {}
    for r in section["leaks"]:
        cell = cells.setdefault((r["config"], r["split"]), {"config": r["config"], "split": r["split"], "by_class": {}})
        if r["overlap_class"] == "any":
            cell.update(evaluation_rows=r["evaluation_rows"], before=r["rows_with_twin_before"],
                        after=r["rows_with_twin_after"], char_before=r["rows_with_char_twin_before"],
                        char_after=r["rows_with_char_twin_after"])
        else:
            cell["by_class"][r["overlap_class"]] = r["rows_with_twin_after"]
    return {"summary": section["summary"], "cells": [cells[k] for k in sorted(cells, key=_config_split_order)]}


def _config_split_order(key: tuple[str, str]) -> tuple[int, int]:
    """Sort key of a (config, split): the order of CONFIGS, then of SPLITS."""
    return CONFIGS.index(key[0]), SPLITS.index(key[1])


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=template_loader(TEMPLATES), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["num"] = lambda v: f"{v:,}" if v is not None else "–"
    env.filters["signed"] = lambda v: f"{v:+,}" if v else "0"
    env.filters["pct"] = lambda d: f"{100 * d['accuracy']:.1f} / {100 * d['macro_f1']:.1f}"
    env.filters["pp"] = lambda v: "–" if v is None else f"{v:.2f}"
    env.filters["frac"] = lambda v: "–" if v is None else f"{100 * v:.1f}"
    env.filters.update(card_claims.filters())
    env.filters["word"] = number_word
    return env


def render_card(out: Path) -> str:
    """The dataset card of the export in ``out`` (see the module docstring)."""
    return _env().get_template(CARD_TEMPLATE).render(**context(out))


def check_card(text: str, out: Path) -> list[str]:
    """What the card says that the export does not bear out (empty list: nothing).

    * every retained pseudonymous label the card names, and every author of the ``sentence_1``
      table of "Data Splits", has rows in ``sentence_1`` (any split); every author of the
      source-held-out table has rows in ``source_held_out_1``, of the work-held-out table in
      ``work_held_out_1``;
    * the parts of every merge of the Annotations table add up to 100 % (each share is printed
      with two decimals, so the sum may be off by 0.005 per part).
    """
    problems: list[str] = []
    authors = {}
    for cfg in TRACK_TABLES.values():
        files = [data_path(out, cfg, s) for s in SPLITS if data_path(out, cfg, s).is_file()]
        authors[cfg] = {a for f in files
                        for a in pq.read_table(f, columns=["author"]).column("author").unique().to_pylist()}
    m = re.search(r"Retained pseudonymous labels with rows in\s+this export: (.+?)\. Sentences per", text, re.S)
    named = [] if m is None or m.group(1).startswith("none") else [a.strip() for a in m.group(1).split(",")]
    problems += [f"names retained pseudonymous label {a!r}, which has no row in sentence_1"
                 for a in named if a not in authors["sentence_1"]]
    splits_section = text.split("### Data Splits", 1)[-1].split("## Dataset Creation", 1)[0]
    main_part, _sep, held_part = splits_section.partition("Source-held-out track")
    held_part, _sep, work_part = held_part.partition("Work-held-out track")
    for cfg, part, first_num in ((TRACK_TABLES["main"], main_part, 1),
                                 (TRACK_TABLES["source_held_out"], held_part, 2),
                                 (TRACK_TABLES["work_held_out"], work_part, 4)):
        for line in part.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if (len(cells) > first_num + 2 and not cells[0].startswith(("**", "author", "---"))
                    and all(re.fullmatch(r"[\d,]+", c) for c in cells[first_num:first_num + 3])
                    and cells[0] not in authors[cfg]):
                problems.append(f"names author {cells[0]!r}, which has no row in {cfg}")
    sums: dict[tuple[str, str], list[float]] = {}
    section = text.split("### Annotations", 1)[-1].split("### ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[1].startswith("`") and re.fullmatch(r"[\d.]+", cells[3]):
            sums.setdefault((cells[0], cells[1].strip("`")), []).append(float(cells[3]))
    problems += [f"merge {kind} {cat}: its parts add up to {sum(v):.2f} %, not 100 %"
                 for (kind, cat), v in sorted(sums.items()) if abs(sum(v) - 100) > 0.005 * len(v) + 1e-9]
    return problems


def write_card(out: Path) -> Path:
    """Render the card, validate its header (:func:`validate_card`) and what it says
    (:func:`check_card`), and write ``out/README.md``.

    Raises:
        CardError: the header fails validation, or the card says something the export does not
            bear out (nothing is written then).
    """
    text = render_card(out)
    problems = validate_card(text)
    if problems:
        raise CardError(f"{out / CARD_NAME}: dataset card metadata invalid: " + "; ".join(problems))
    problems = check_card(text, out)
    if problems:
        raise CardError(f"{out / CARD_NAME}: the dataset card contradicts the export: " + "; ".join(problems))
    return write_text_atomic(out / CARD_NAME, text)


def load_validators() -> None:
    """Import the libraries :func:`validate_card` uses (importing ``datasets`` takes about a second
    of CPU), so that the exporter can do it while its files are being written."""
    from datasets.utils.metadata import MetadataConfigs  # noqa: F401
    from huggingface_hub import DatasetCard  # noqa: F401


def validate_card(text: str) -> list[str]:
    """Validate a dataset card's YAML header offline; return the problems (empty list: valid).

    ``huggingface_hub.RepoCard.validate`` posts the card to the Hub; offline the same library's
    parser is used instead: ``huggingface_hub.DatasetCard`` (YAML block, a mapping) and
    ``DatasetCardData`` (the known fields), then ``datasets.utils.metadata.MetadataConfigs``
    (the ``configs`` list as ``load_dataset`` reads it, which raises on a malformed entry), and
    the controlled vocabularies ``datasets`` ships in ``datasets/utils/resources`` (languages,
    size categories, language and annotation creators, multilinguality).
    """
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    problems: list[str] = []
    try:
        card = DatasetCard(text)
    except ValueError as exc:
        return [f"YAML header: {exc}"]
    data = card.data.to_dict()
    if not data:
        return ["YAML header is missing or empty"]
    try:
        configs = MetadataConfigs.from_dataset_card_data(card.data)
    except Exception as exc:  # noqa: BLE001 - datasets raises ValueError/TypeError subclasses here
        problems.append(f"configs: {exc}")
    else:
        if not configs:
            problems.append("configs: no configuration declared")
    vocab = _vocabularies()
    for key, allowed in (("language", vocab["languages"]), ("size_categories", vocab["size_categories"]),
                         ("language_creators", vocab["creators"]["language"]),
                         ("annotations_creators", vocab["creators"]["annotations"]),
                         ("multilinguality", vocab["multilinguality"])):
        values = data.get(key)
        if values is None:
            problems.append(f"{key}: missing")
            continue
        for v in values if isinstance(values, list) else [values]:
            if v not in allowed:
                problems.append(f"{key}: {v!r} is not a known value")
    if data.get("license") == "other" and not (data.get("license_name") and data.get("license_link")):
        problems.append("license: 'other' needs license_name and license_link")
    for key in ("pretty_name", "task_categories"):
        if not data.get(key):
            problems.append(f"{key}: missing")
    return problems


def _vocabularies() -> dict:
    import datasets

    res = Path(datasets.__file__).parent / "utils" / "resources"
    return {"languages": set(json.loads((res / "languages.json").read_text(encoding="utf-8"))),
            "size_categories": set(json.loads((res / "size_categories.json").read_text(encoding="utf-8"))),
            "creators": json.loads((res / "creators.json").read_text(encoding="utf-8")),
            "multilinguality": set(json.loads((res / "multilingualities.json").read_text(encoding="utf-8")))}
