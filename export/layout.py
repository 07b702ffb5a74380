"""The published layout of the benchmark (SPEC §9; seed 000 "Principal columns"): the columns of
every configuration in order, the Parquet writer options and where each configuration split's
file lives in an export directory. The exporter (:mod:`.writer`, :mod:`.assembly`) writes by it
and the dataset card (:mod:`.card`) reads by it.

A configuration's shape (chunked or not, its track) is read from :data:`sphragis.benchmark.BY_NAME`
(the seed ``sql/seeds/benchmark_configs.csv``), never from its name.
"""

from __future__ import annotations

from pathlib import Path

from sphragis.benchmark import BY_NAME

#: Columns of every configuration, in order (seed 000 "Principal columns"), then ``source_id``: the
#: warehouse's own id of the row (``id`` is opaque, SPEC §11; ``mart_benchmark_rows``).
BASE_COLUMNS = (
    "id", "author", "work", "work_id", "genre", "text", "conllu", "cts_urn", "passage", "treebank_source",
    "native_syntax", "source_records", "licenses", "dedup_key", "split", "source_id",
)
#: Extra columns of the chunked configurations (``chunk_target_size`` above 1).
CHUNK_COLUMNS = (
    "chunk_size", "chunk_target_size", "constituent_ids", "constituent_provenance", "chunk_work_ids",
    "chunk_works", "chunk_is_mixed_work",
)
#: Extra columns of the held-out tracks, by track (sql/seeds/benchmark_configs.csv).
TRACK_COLUMNS = {"source_held_out": ("held_out_source",), "work_held_out": ("held_out_works",)}

#: What a model may read (SPEC §11; ``input_columns`` of ``metadata/dataset_variants.json``): the
#: sentences' text and trees. Every other column but the label is metadata, and the export measures
#: whether it reveals the label (:func:`sphragis.label_lookup.column_lookups`).
INPUT_COLUMNS = ("text", "conllu")
#: What a model predicts.
LABEL_COLUMN = "author"

#: Columns assembled per unit from ``int_eligible_sentences`` and ``int_units`` (the others come
#: from ``mart_benchmark_rows``).
UNIT_COLUMNS = (
    "text", "conllu", "cts_urn", "passage", "treebank_source", "dedup_key", "native_syntax", "source_records",
    "licenses",
)

#: Chosen by measurement (pyarrow CPU time and file size of sentence_1/train): zstd-9 costs twice
#: the CPU of zstd-3 for a few per cent of size; zstd-1 and snappy save little CPU for larger files
#: (snappy's half as large again); 10,000-row groups make smaller files than 2,000-row ones for
#: about the same CPU.
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "row_group_size": 10_000, "write_statistics": True}


def is_chunked(config_name: str) -> bool:
    """Whether the rows of ``config_name`` are chunks of several units (``chunk_target_size`` > 1).

    Raises:
        KeyError: not a configuration of ``benchmark_configs.csv``.
    """
    return BY_NAME[config_name].chunk_target_size > 1


def columns_of(config_name: str) -> tuple[str, ...]:
    """Column names of one configuration, in published order.

    Raises:
        KeyError: not a configuration of ``benchmark_configs.csv``.
    """
    cols = BASE_COLUMNS
    if is_chunked(config_name):
        cols += CHUNK_COLUMNS
    cols += TRACK_COLUMNS.get(BY_NAME[config_name].track, ())
    return cols


def data_file(config_name: str, split: str) -> str:
    """Path of one configuration split's Parquet file, relative to the export directory
    (``data/<config>/<split>-00000-of-00001.parquet``; the card's ``configs`` glob matches it)."""
    return f"data/{config_name}/{split}-00000-of-00001.parquet"


def data_path(out: Path, config_name: str, split: str) -> Path:
    """:func:`data_file` inside the export directory ``out``."""
    return out / data_file(config_name, split)


def metadata_columns(config_name: str) -> tuple[str, ...]:
    """The columns of ``config_name`` that are neither input nor label (:data:`INPUT_COLUMNS`,
    :data:`LABEL_COLUMN`), in published order."""
    return tuple(c for c in columns_of(config_name) if c not in (*INPUT_COLUMNS, LABEL_COLUMN))
