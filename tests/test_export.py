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
