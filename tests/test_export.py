"""The exported benchmark on the real sources (SPEC §8–§10): load_dataset offline, nested types,
50-multiples, chunk coverage, held-out rules, reproducibility, render_conllu."""

from __future__ import annotations

import hashlib
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sphragis.export import layout, writer
from sphragis.export.conllu_units import render_conllu
from sphragis.export.validation import validate_units

pytestmark = pytest.mark.integration


def _digest(path):
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        if p.is_file() and p.name != "leakage_report.json":
            h.update(p.relative_to(path).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_load_dataset_offline_all_configs(real_export, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from datasets import load_dataset

    variants = json.loads((real_export / "metadata" / "dataset_variants.json").read_text(encoding="utf-8"))
    for cfg in writer.CONFIGS:
        ds = load_dataset(str(real_export), cfg, cache_dir=str(tmp_path / "hf-cache"))
        assert set(ds) == {"train", "validation", "test"}, cfg
        assert ds.num_rows == {s: variants[cfg]["splits"][s]["rows"] for s in ds}, cfg
        assert tuple(ds["train"].column_names) == layout.columns_of(cfg)
        row = ds["test"][0]
        assert isinstance(row["text"], list) and isinstance(row["conllu"][0][0], list)
        k = int(cfg.rsplit("_", 1)[1])
        assert len(row["text"]) == len(row["conllu"]) == k
        tok = row["conllu"][0][0][0]
        assert set(tok) == {"id", "form", "lemma", "upos", "feats", "head", "deprel"}
        assert isinstance(tok["id"], int) and isinstance(tok["head"], int)


def test_the_metadata_declares_the_inputs_and_a_lookup_by_id_gives_only_the_majority(real_export):
    # SPEC §11: per configuration what a model may read and, for every other column, whether a
    # train-author lookup by its values beats the majority author on test (measured on these files)
    variants = json.loads((real_export / "metadata" / "dataset_variants.json").read_text(encoding="utf-8"))
    for cfg in writer.CONFIGS:
        v = variants[cfg]
        assert (v["input_columns"], v["label_column"]) == (["text", "conllu"], "author"), cfg
        assert sorted(v["metadata_columns"]) == sorted(layout.metadata_columns(cfg)), cfg
        ident = v["metadata_columns"]["id"]
        assert not ident["reveals_label"] and ident["lookup_accuracy"] == ident["majority_accuracy"], cfg
        assert 0 < ident["majority_accuracy"] < 0.5, cfg
    s1 = variants["sentence_1"]["metadata_columns"]
    # the row's source id names its file (0.99 in the review of the file-named ids), work_id its
    # work; the split names nothing
    assert s1["source_id"]["reveals_label"] and s1["source_id"]["lookup_accuracy"] > 0.98
    assert s1["work_id"]["lookup_accuracy"] == 1.0 and not s1["split"]["reveals_label"]
    # a chunk's source id names its author between dashes
    assert variants["sentence_50"]["metadata_columns"]["source_id"]["lookup_accuracy"] > 0.9
    assert variants["source_held_out_1"]["metadata_columns"]["held_out_source"]["reveals_label"]


def test_ids_are_opaque_stable_and_shared_by_a_sentence_across_tracks(real_export):
    import re

    ids = {}
    for cfg in writer.CONFIGS:
        for split in writer.SPLITS:
            t = pq.read_table(real_export / "data" / cfg / f"{split}-00000-of-00001.parquet",
                              columns=["id", "source_id", "dedup_key"]).to_pylist()
            assert all(re.fullmatch(r"[0-9a-f]{16}", r["id"]) for r in t), cfg
            assert len({r["id"] for r in t}) == len(t)
            if layout.is_chunked(cfg):
                continue
            for r in t:  # one id per sentence (its dedup key), whatever the track
                assert ids.setdefault(r["dedup_key"][0], (r["id"], r["source_id"])) == (r["id"], r["source_id"])
    assert len({i for i, _ in ids.values()}) == len(ids)
    # the warehouse's own id is kept for analysts: project:file:position of the chosen parse
    assert any(src.startswith("gorman:Aeschines 1 1-50 bu1.xml:") for _, src in ids.values())


def test_nested_arrow_types(real_export):
    t = pq.read_table(real_export / "data" / "sentence_1" / "train-00000-of-00001.parquet")
    conllu = t.schema.field("conllu").type
    assert pa.types.is_list(conllu) and pa.types.is_list(conllu.value_type)
    assert pa.types.is_struct(conllu.value_type.value_type.value_type)
    assert pa.types.is_struct(t.schema.field("source_records").type.value_type)
    assert pa.types.is_list(t.schema.field("native_syntax").type)


def test_author_rows_are_multiples_of_50_and_chunks_cover_atomic_rows(real_export):
    for track in ("sentence", "source_held_out", "work_held_out"):
        atomic = {}
        for split in writer.SPLITS:
            t = pq.read_table(real_export / "data" / f"{track}_1" / f"{split}-00000-of-00001.parquet",
                              columns=["id", "author"]).to_pylist()
            counts = {}
            for r in t:
                counts[r["author"]] = counts.get(r["author"], 0) + 1
            assert all(n % 50 == 0 and n >= 50 for n in counts.values()), (track, split, counts)
            atomic[split] = sorted(r["id"] for r in t)
        for k in (5, 10, 50):
            for split in writer.SPLITS:
                rows = pq.read_table(real_export / "data" / f"{track}_{k}" / f"{split}-00000-of-00001.parquet",
                                     columns=["constituent_ids", "chunk_size"]).to_pylist()
                ids = sorted(i for r in rows for i in r["constituent_ids"])
                assert ids == atomic[split], (track, k, split)
                assert all(r["chunk_size"] == k for r in rows)


def test_held_out_track_has_no_leak(real_export):
    base = real_export / "data" / "source_held_out_1"
    train = pq.read_table(base / "train-00000-of-00001.parquet").to_pylist()
    held = {}
    for split in ("validation", "test"):
        for r in pq.read_table(base / f"{split}-00000-of-00001.parquet").to_pylist():
            held.setdefault(r["author"], set()).add(r["held_out_source"])
            assert r["held_out_source"] in {rec["treebank_source"] for rec in r["source_records"]}
    train_keys = {k for r in train for k in r["dedup_key"]}
    for split in ("validation", "test"):
        for r in pq.read_table(base / f"{split}-00000-of-00001.parquet", columns=["dedup_key"]).to_pylist():
            assert not (set(r["dedup_key"]) & train_keys)
    for r in train:
        assert r["held_out_source"] not in {rec["treebank_source"] for rec in r["source_records"]}
        assert held[r["author"]] == {r["held_out_source"]}


def test_work_held_out_track_holds_out_whole_works(real_export):
    # every validation/test row's work is among its author's held-out works of that split, no
    # training row's is; build_report and dataset_variants record the same works
    variants = json.loads((real_export / "metadata" / "dataset_variants.json").read_text())
    report = json.loads((real_export / "metadata" / "build_report.json").read_text())
    works = variants["work_held_out_1"]["held_out_works"]
    assert works["Xenophon"] == {"train": ["tlg0032.tlg001", "tlg0032.tlg002", "tlg0032.tlg007"],
                                 "validation": ["tlg0032.tlg004", "tlg0032.tlg008"], "test": ["tlg0032.tlg006"]}
    retained = {r["author"]: r for r in report["work_held_out_track"] if r["decision"] == "retained"}
    assert sorted(retained) == sorted(works) == sorted(variants["work_held_out_50"]["authors"])
    for split in writer.SPLITS:
        rows = pq.read_table(real_export / "data" / "work_held_out_1" / f"{split}-00000-of-00001.parquet",
                             columns=["author", "work_id", "held_out_works"]).to_pylist()
        for r in rows:
            assert r["work_id"] in works[r["author"]][split]
            held = {(w["split"], w["work_id"]) for w in r["held_out_works"]}
            assert held == {(s, w) for s in ("validation", "test") for w in works[r["author"]][s]}


def test_metadata_files(real_export):
    report = json.loads((real_export / "metadata" / "build_report.json").read_text())
    p = report["pipeline"]
    assert p["raw_sentences"] == 88332
    assert p["raw_sentences"] == p["rejected_at_ingest"] + p["excluded_by_curation"] + p["retained_after_curation"]
    assert p["retained_after_curation"] == (p["no_published_tokens"] + p["removed_as_duplicates"]
                                            + p["omitted_for_author_conflict_rows"] + p["omitted_empty_dedup_key"]
                                            + p["eligible"])
    # the card's curation total is raw minus its own table of exclusions (72,188, not 72,175)
    assert p["excluded_by_curation"] == sum(e["sentences"] for e in report["exclusions"])
    assert (p["retained_after_curation"], p["no_published_tokens"]) == (72188, 13)
    variants = json.loads((real_export / "metadata" / "dataset_variants.json").read_text())
    assert set(writer.CONFIGS) <= set(variants)
    revisions = json.loads((real_export / "metadata" / "source_revisions.json").read_text())
    assert {s["name"] for s in revisions["snapshots"]} >= {"agdt", "agdt-homer-v1.6", "ud-ptnk"}
    assert "NonCommercial" in (real_export / "LICENSES.md").read_text()
    assert "config_name: source_held_out_50" in (real_export / "README.md").read_text()


def test_render_conllu_of_an_exported_unit_round_trips(real_export):
    row = pq.read_table(real_export / "data" / "sentence_1" / "test-00000-of-00001.parquet").slice(0, 1).to_pylist()[0]
    text = render_conllu(row["conllu"][0])
    assert text.endswith("\n\n") and text.count("\t0\troot\t") == 1
    assert validate_units([(row["id"], row["conllu"][0], row["text"][0])]) == 1


def test_two_exports_are_byte_identical(real_settings, real_export, tmp_path):
    import dataclasses

    first = _digest(real_export)
    other = dataclasses.replace(real_settings, out=tmp_path / "again")
    writer.export(other)
    assert _digest(tmp_path / "again") == first
