"""``sphragis audit`` (SPEC §11 leakage audit and text baseline) on a tiny synthetic export written
with the export's column shapes (nested ``text``/``conllu``/``treebank_source``/``dedup_key``).

The synthetic corpus separates the two signals on purpose: the *forms and lemmas* identify the
author perfectly, while the *markup* depends only on the project (AGDT-style units attach the
third token as ``obj``, UD-style units as ``conj``) and is identical for both authors. So a
classifier that really sees markup only must be at chance for the author (exactly 0.5 on a
balanced test split: identical features get identical predictions) and perfect for the project,
and the text baseline must be perfect for the author.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("sklearn", reason="the audit needs the 'audit' extra (scikit-learn)")

from sphragis import audit, cli  # noqa: E402

TOKEN = pa.struct([("id", pa.int64()), ("form", pa.string()), ("lemma", pa.string()), ("upos", pa.string()),
                   ("feats", pa.string()), ("head", pa.int64()), ("deprel", pa.string())])
SCHEMA = pa.schema([
    ("id", pa.string()), ("author", pa.string()), ("text", pa.list_(pa.string())),
    ("conllu", pa.list_(pa.list_(pa.list_(TOKEN)))), ("treebank_source", pa.list_(pa.string())),
    ("dedup_key", pa.list_(pa.string())), ("split", pa.string()), ("held_out_source", pa.string()),
    ("genre", pa.string()), ("work_id", pa.string()),
    ("source_records", pa.list_(pa.struct([("path", pa.string()), ("sentence_uid", pa.int64())]))),
])
GENRES = {"Alpha": "verse", "Beta": "prose"}
FORMS = {"Alpha": ("λόγος", "ἔχει", "θεόν"), "Beta": ("ἵππος", "τρέχει", "ὁδόν")}
LEMMAS = {"Alpha": ("λόγος", "ἔχω", "θεός"), "Beta": ("ἵππος", "τρέχω", "ὁδός")}
THIRD = {"AGDT 2.1": ("obj", 2), "UD Perseus": ("conj", 1)}  # deprel, head of token 3


def _unit(author: str, source: str) -> tuple[str, list[list[dict]]]:
    """(text, conllu unit) of one sentence: markup from the project, words from the author."""
    f, lem = FORMS[author], LEMMAS[author]
    rel, head = THIRD[source]
    toks = [
        {"id": 1, "form": f[0], "lemma": lem[0], "upos": "NOUN", "feats": "Case=Nom|Number=Sing", "head": 2,
         "deprel": "nsubj"},
        {"id": 2, "form": f[1], "lemma": lem[1], "upos": "VERB", "feats": "Mood=Ind|VerbForm=Fin", "head": 0,
         "deprel": "root"},
        {"id": 3, "form": f[2], "lemma": lem[2], "upos": "NOUN", "feats": "Case=Acc|Number=Sing", "head": head,
         "deprel": rel},
    ]
    return " ".join(f), [toks]


def _write(out: Path, cfg: str, split: str, rows: list[dict]) -> None:
    path = out / "data" / cfg / f"{split}-00000-of-00001.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)


def declare_inputs(out: Path, cfg: str, inputs: tuple[str, ...] = ("text", "conllu")) -> None:
    """Add ``cfg`` with ``inputs`` to the synthetic export's ``metadata/dataset_variants.json``."""
    path = out / "metadata" / "dataset_variants.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    doc[cfg] = {"input_columns": list(inputs), "label_column": "author"}
    path.write_text(json.dumps(doc), encoding="utf-8")


def make_export(out: Path, chunk: int = 1, cfg: str = "sentence_1",
                sizes: dict[str, int] | None = None) -> Path:
    """Rows of ``chunk`` units; per split ``sizes[split]`` rows for each (author, project)."""
    sizes = sizes or {"train": 10, "validation": 3, "test": 3}
    declare_inputs(out, cfg)
    n = 0
    for split, per_cell in sizes.items():
        rows = []
        for author in FORMS:
            for source in THIRD:
                for _ in range(per_cell):
                    units = [_unit(author, source) for _ in range(chunk)]
                    keys = [f"{cfg}-{n}-{k}" for k in range(chunk)]
                    n += 1
                    rows.append({"id": keys[0], "author": author, "text": [t for t, _ in units],
                                 "conllu": [c for _, c in units], "treebank_source": [source] * chunk,
                                 "dedup_key": keys, "split": split,
                                 "held_out_source": source if cfg.startswith("source") else None,
                                 "genre": GENRES[author], "work_id": f"{author.lower()}.w1",
                                 "source_records": [{"path": f"{author}-{source}.xml", "sentence_uid": n}]})
        _write(out, cfg, split, rows)
    return out


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export")
    make_export(out, 1, "sentence_1")
    make_export(out, 5, "source_held_out_5", {"train": 4, "validation": 2, "test": 2})
    return out


@pytest.fixture(scope="module")
def results(export):
    return audit.run_audit(export, ("sentence_1", "source_held_out_5"))


def test_markup_features_never_see_forms_or_lemmas(export):
    files = audit.config_files(export, ("sentence_1",))
    con, units = audit.load(files)
    con.close()
    words = {w for ws in (*FORMS.values(), *LEMMAS.values()) for w in ws}
    assert units.markup_vocab, "no markup features extracted"
    assert not [f for f in units.markup_vocab if any(w in f for w in words)]
    # the vocabulary does carry the markup: relations, UPOS, FEATS, head distances, depth
    for expected in ("d=obj", "d=conj", "u=VERB", "f=Case=Acc", "hd=-1", "hd=1", "depth=2", "hu=obj<VERB"):
        assert expected in units.markup_vocab, expected
    # while the character n-grams do see the words (the text baseline)
    assert "λόγ" in units.text_vocab


def test_markup_is_at_chance_for_author_and_text_is_not(results):
    r = results["sentence_1"]
    assert r["rows"] == {"train": 40, "validation": 12, "test": 12}
    assert r["markup_author"]["test"]["accuracy"] == 0.5
    assert r["markup_author"]["test"]["macro_f1"] <= 0.5
    assert r["markup_project"]["test"] == {"accuracy": 1.0, "macro_f1": 1.0}
    assert r["text_author"]["test"] == {"accuracy": 1.0, "macro_f1": 1.0}
    assert r["text_author"]["validation"]["accuracy"] == 1.0
    assert r["markup_author"]["majority"]["test"]["accuracy"] == 0.5


def test_chunk_rows_sum_their_units(results):
    r = results["source_held_out_5"]
    assert (r["track"], r["chunk_size"]) == ("source_held_out", 5)
    assert r["rows"] == {"train": 16, "validation": 8, "test": 8}
    assert r["text_author"]["test"]["accuracy"] == 1.0
    assert r["markup_author"]["test"]["accuracy"] == 0.5
    assert r["eval_projects_not_in_train"] == []


def test_chunk_project_is_the_most_frequent_source(tmp_path):
    # two chunks with a 2-2-1 tie: the source of the earliest unit among the tied ones wins
    rows = []
    for i, sources in enumerate((["UD Perseus", "AGDT 2.1", "AGDT 2.1", "UD Perseus", "Gorman"],
                                 ["Gorman", "AGDT 2.1", "AGDT 2.1", "UD Perseus", "UD Perseus"],
                                 ["Gorman", "Gorman", "Gorman", "UD Perseus", "UD Perseus"])):
        units = [_unit("Alpha", "AGDT 2.1") for _ in sources]
        rows.append({"id": f"c{i}", "author": "Alpha", "text": [t for t, _ in units],
                     "conllu": [c for _, c in units], "treebank_source": sources,
                     "dedup_key": [f"c{i}-{k}" for k in range(5)], "split": "train", "held_out_source": None,
                     "genre": "prose", "work_id": "alpha.w1", "source_records": []})
    for split in audit.SPLITS:
        _write(tmp_path, "sentence_5", split, rows)
    con, units = audit.load(audit.config_files(tmp_path, ("sentence_5",)))
    got = audit.split_rows(con, units, "sentence_5", "train")
    con.close()
    assert list(got.projects) == ["UD Perseus", "AGDT 2.1", "Gorman"]
    assert got.incidence.shape == (3, 15) and got.incidence.sum() == 15


def test_report_document_is_deterministic_and_complete(export, results):
    again = audit.run_audit(export, ("sentence_1", "source_held_out_5"))
    a, b = audit.report_document(results), audit.report_document(again)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    text = json.dumps(a)
    assert "seconds" not in text
    cfg = a["configs"]["sentence_1"]
    for key in ("markup_author", "markup_project", "text_author"):
        assert set(cfg[key]) == {"test", "validation", "majority", "n_features", "n_classes", "majority_label",
                                 "test_ci", "majority_test_ci", "test_top_k"}
        # 12 test rows, 6 per author: the CIs hold the figure; two labels: no top-3
        for ci, value in ((cfg[key]["test_ci"], cfg[key]["test"]), (cfg[key]["majority_test_ci"],
                                                                     cfg[key]["majority"]["test"])):
            assert ci["accuracy"][0] <= value["accuracy"] <= ci["accuracy"][1]
        assert cfg[key]["test_top_k"] is None
    assert cfg["text_minus_markup_author"]["accuracy"] == 0.5
    assert a["method"]["subsampling"].startswith("none")
    assert a["track_gap"] == {}  # no chunk size has both tracks in this export
    assert "predictions" not in text and "test_authors" not in text
    # genre (Alpha verse, Beta prose) gives the author away here; the project does not
    assert cfg["genre_author"]["test"]["accuracy"] == 1.0 and cfg["project_author"]["test"]["accuracy"] == 0.5
    # the floor decomposed: inside each project the markup is the same for both authors (chance),
    # inside each author it tells the two projects apart
    reading = a["floor_reading"]
    assert reading["config"] == "sentence_1"
    assert reading["within_project"]["accuracy"] == 0.5 and reading["within_project"]["groups"] == 2
    assert reading["within_author"]["accuracy"] == 1.0 and reading["within_author"]["majority_accuracy"] == 0.5
    assert cfg["confounds"]["thin_authors"] == {"validation": {}, "test": {}}
    assert cfg["confounds"]["neighbours"] == {"test": {"rows": 12, "with_neighbour_in_train": 0, "share": 0.0},
                                              "validation": {"rows": 12, "with_neighbour_in_train": 0, "share": 0.0}}
    assert a["track_means"]["text_author"]["main"]["accuracy"] == 1.0


def test_the_features_read_only_declared_input_columns(tmp_path):
    """The payload columns the features are computed from (text, conllu) are checked against the
    export's input_columns: an export that declared only text is refused, naming the column."""
    out = make_export(tmp_path, 1, "sentence_1")
    files = audit.config_files(out, ("sentence_1",))
    con, _units = audit.load(files, audit.declared_inputs(out, ("sentence_1",)))
    con.close()
    declare_inputs(out, "sentence_1", ("text",))
    with pytest.raises(audit.AuditError, match=r"would read conllu, which metadata.dataset_variants\.json does not "
                                               r"declare an input of sentence_1"):
        audit.load(files, audit.declared_inputs(out, ("sentence_1",)))
    (out / "metadata" / "dataset_variants.json").unlink()
    with pytest.raises(audit.AuditError, match="no input_columns declared"):
        audit.declared_inputs(out, ("sentence_1",))


def test_missing_config_names_the_file(tmp_path):
    make_export(tmp_path, 1, "sentence_1")
    with pytest.raises(audit.AuditError, match=r"sentence_5[/\\]train-00000-of-00001\.parquet"):
        audit.config_files(tmp_path, ("sentence_1", "sentence_5"))


def test_cli_writes_report_json_table_and_markdown(tmp_path, monkeypatch):
    out = make_export(tmp_path / "out", 1, "sentence_1")
    make_export(out, 1, "source_held_out_1", {"train": 6, "validation": 2, "test": 2})
    warehouse = tmp_path / "wh.duckdb"
    duckdb.connect(str(warehouse)).close()
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(warehouse))
    reports = tmp_path / "reports"
    assert cli.main(["audit", "--out", str(out), "--config", "sentence_1", "--config", "source_held_out_1",
                     "--quiet", "--report", "--report-dir", str(reports)]) == 0
    doc = json.loads((out / "metadata" / "leakage_report.json").read_text(encoding="utf-8"))
    assert sorted(doc["configs"]) == ["sentence_1", "source_held_out_1"]
    gap = doc["track_gap"]["1"]["text_author"]["accuracy"]
    assert gap == {"sentence": 1.0, "source_held_out": 1.0, "gap": 0.0}
    con = duckdb.connect(str(warehouse), read_only=True)
    rows = con.execute("select config, feature_set, target, eval_split, accuracy from audit_results "
                       "where eval_split = 'test' and config = 'sentence_1' order by 2, 3").fetchall()
    con.close()
    assert rows == [("sentence_1", "markup", "author", "test", 0.5), ("sentence_1", "markup", "project", "test", 1.0),
                    ("sentence_1", "text", "author", "test", 1.0)]
    md = (reports / "variation_and_leakage.md").read_text(encoding="utf-8")
    assert "| sentence_1 | 40 / 12 / 12 | 50.0 /" in md
    assert "lacks mart_merge_effects, mart_variation" in md  # this warehouse has no variation marts
    assert (reports / "leakage_audit.png").stat().st_size > 0


def test_table_skipped_without_warehouse(results, tmp_path):
    note = audit.write_table(results, tmp_path / "absent.duckdb")
    assert "skipped" in note and "absent.duckdb" in note


def test_table_is_left_untouched_when_it_already_holds_the_results(results, tmp_path):
    # a reused audit (make export after an up-to-date build) must not rewrite the warehouse file
    import copy
    import hashlib

    warehouse = tmp_path / "wh.duckdb"
    duckdb.connect(str(warehouse)).close()
    assert "written" in audit.write_table(results, warehouse)

    def state():
        return warehouse.stat().st_mtime_ns, hashlib.sha256(warehouse.read_bytes()).hexdigest()

    before = state()
    note = audit.write_table(results, warehouse)
    assert note == f"table audit_results of {warehouse} unchanged ({len(audit.results_rows(results))} rows)"
    assert state() == before
    changed = copy.deepcopy(results)
    cfg = next(iter(changed))
    changed[cfg]["markup_author"]["test"]["accuracy"] = 0.123
    assert "written" in audit.write_table(changed, warehouse) and state() != before
    con = duckdb.connect(str(warehouse), read_only=True)
    got = con.execute("select accuracy from audit_results where config = ? and feature_set = 'markup' "
                      "and target = 'author' and eval_split = 'test'", [cfg]).fetchone()[0]
    con.close()
    assert got == 0.123


def test_an_unchanged_export_reuses_the_last_audit(tmp_path, monkeypatch, capsys):
    # `make export` runs the audit after every export: with the same Parquet bytes (an export that
    # was up to date) the fits are reused from <out>.state/audit.json and the report is the same;
    # other rows, or --full, fit again
    out = make_export(tmp_path / "out", 1, "sentence_1")
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "absent.duckdb"))
    args = ["audit", "--out", str(out), "--config", "sentence_1", "--quiet"]
    report = out / "metadata" / "leakage_report.json"

    assert cli.main(args) == 0
    first = report.read_text(encoding="utf-8")
    assert "audit up to date" not in capsys.readouterr().err
    state = audit.state_store(out).load()
    assert state["reads"]["variables"] == {"configs": ["sentence_1"]}
    assert state["results"]["sentence_1"]["rows"] == {"train": 40, "validation": 12, "test": 12}

    # up to date with its outputs in place: nothing is rewritten (not even with the same bytes)
    reference = out / "metadata" / "reference_submission.jsonl"
    mtimes = [p.stat().st_mtime_ns for p in (report, reference)]
    assert cli.main(args) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("audit up to date (")
    assert "reused, not fitted again; leakage_report.json, reference_submission.jsonl unchanged (already held them)" \
        in err[0], err[0]
    assert [p.stat().st_mtime_ns for p in (report, reference)] == mtimes

    report.unlink()
    assert cli.main(args) == 0
    err = capsys.readouterr().err.splitlines()
    # one message: reused, then what was written from the reused results (not "reused" then "wrote")
    assert len(err) == 1 and err[0].startswith("audit up to date (")
    assert f"reused, not fitted again; {report} written from them; reference_submission.jsonl unchanged" in err[0]
    assert report.read_text(encoding="utf-8") == first

    assert cli.main([*args, "--full"]) == 0
    assert "audit up to date" not in capsys.readouterr().err
    assert report.read_text(encoding="utf-8") == first

    make_export(out, 1, "sentence_1", {"train": 30, "validation": 12, "test": 12})
    assert cli.main(args) == 0
    assert "audit up to date" not in capsys.readouterr().err
    assert json.loads(report.read_text(encoding="utf-8"))["configs"]["sentence_1"]["rows"]["train"] == 120


def test_a_reused_audit_writes_the_reference_submission_byte_for_byte(tmp_path, monkeypatch, capsys):
    # reused results come back from the state file with sorted keys (sentence_10 before sentence_5);
    # the reference submission is written in CONFIGS order all the same (a fresh clone's second
    # `make export` rewrote it once)
    out = make_export(tmp_path / "out", 1, "sentence_5")
    make_export(out, 1, "sentence_10")
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "absent.duckdb"))
    args = ["audit", "--out", str(out), "--config", "sentence_5", "--config", "sentence_10", "--quiet"]
    reference = out / "metadata" / "reference_submission.jsonl"
    assert cli.main(args) == 0
    first, mtime = reference.read_bytes(), reference.stat().st_mtime_ns
    assert [json.loads(line)["config"] for line in first.decode().splitlines()][::12] == ["sentence_5", "sentence_10"]
    capsys.readouterr()
    assert cli.main(args) == 0
    assert "audit up to date (" in capsys.readouterr().err
    assert reference.read_bytes() == first and reference.stat().st_mtime_ns == mtime


def test_char_wb_counts_per_distinct_word_equal_countvectorizer():
    """Counting each distinct word once (its n-grams in SQL) and summing gives CountVectorizer's
    char_wb matrix exactly (columns and values), whitespace runs, a no-break space, one-letter words
    and repeats included."""
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer

    texts = ["μῆνιν ἄειδε θεὰ", "ἄειδε  ἄειδε\tθεὰ ὦ", "καὶ", "ὦ καὶ μῆνιν Πηληϊάδεω Ἀχιλῆος", "ὦ ὦ\xa0δʼ"]
    counts, vocab = audit.char_wb_counts(texts)
    cv = CountVectorizer(analyzer="char_wb", ngram_range=audit.CHAR_NGRAMS, lowercase=False, dtype=np.float64)
    expected = cv.fit_transform(texts)
    assert vocab == list(cv.get_feature_names_out())
    assert (counts != expected).nnz == 0 and counts.shape == (5, len(vocab))
    assert counts[1, vocab.index(" ἄει")] == 2
    assert counts[4, vocab.index(" ὦ ")] == 2  # one-letter words: the padded form once each, not once per n


def test_a_configuration_without_rows_is_left_out_and_named(tmp_path, capsys):
    # `make bench --fraction 0.05`: the work-held-out track has no rows at all on 5 % of the sources
    make_export(tmp_path, 1, "sentence_1")
    make_export(tmp_path, 1, "work_held_out_1", {"train": 0, "validation": 0, "test": 0})
    got = audit.run_audit(tmp_path, ("sentence_1", "work_held_out_1"))
    assert list(got) == ["sentence_1"] and got["sentence_1"]["text_author"]["test"]["accuracy"] == 1.0
    assert "audit: work_held_out_1: no rows in train, validation, test: not audited" in capsys.readouterr().err


def test_payloads_are_read_only_from_the_files_that_first_hold_a_unit(tmp_path, monkeypatch):
    # sentence_5 regroups the units of sentence_1 (same dedup keys): their text and CoNLL-U are
    # decoded from the sentence_1 files only, and the units and their counts are those of sentence_1
    from sphragis import audit_features

    out = make_export(tmp_path, 1, "sentence_1")
    for split in ("train", "validation", "test"):
        rows = pq.read_table(out / "data" / "sentence_1" / f"{split}-00000-of-00001.parquet").to_pylist()
        chunks = [rows[i:i + 5] for i in range(0, len(rows), 5)]
        _write(out, "sentence_5", split, [
            {"id": c[0]["id"], "author": c[0]["author"], "split": split, "held_out_source": None,
             **{col: [v for r in c for v in r[col]] for col in ("text", "conllu", "treebank_source", "dedup_key")}}
            for c in chunks])
    read = []
    real_temp_table = audit_features._temp_table

    def spy(con, name, sql, params=None):
        if name == "audit_payloads":
            read.extend(params["paths"])
        return real_temp_table(con, name, sql, params)

    monkeypatch.setattr(audit_features, "_temp_table", spy)
    files = audit_features.config_files(out, ("sentence_1", "sentence_5"))
    con, units = audit_features.load(files)
    con.close()
    assert read == [str(p) for p in files["sentence_1"].values()]
    con1, alone = audit_features.load(audit_features.config_files(out, ("sentence_1",)))
    con1.close()
    assert units.n == alone.n == 64 and units.markup_vocab == alone.markup_vocab
    assert (units.markup != alone.markup).nnz == 0 and (units.text != alone.text).nnz == 0


def test_fits_run_in_worker_processes_not_threads(export, monkeypatch, tmp_path):
    """liblinear draws from one random generator per process (reseeded by every fit): fits sharing
    a process in threads would interleave their draws, so each fit runs in a forked worker, one at
    a time per process, and the figures equal a one-at-a-time run's."""
    import os

    from sphragis import audit_fits

    fit, log = audit_fits.fit_feature_set, tmp_path / "pids"

    def recording(*args, **kwargs):
        with open(log, "a") as fh:  # the worker's pid, written from wherever the fit runs
            fh.write(f"{os.getpid()}\n")
        return fit(*args, **kwargs)

    monkeypatch.setattr(audit_fits, "fit_feature_set", recording)
    parallel = audit.run_audit(export, ("sentence_1", "source_held_out_5"), jobs=2)
    pids = log.read_text().split()
    assert len(pids) == 4 and str(os.getpid()) not in pids  # 2 configurations × 2 feature sets
    log.unlink()
    serial = audit.run_audit(export, ("sentence_1", "source_held_out_5"), jobs=1)
    assert log.read_text().split() == [str(os.getpid())] * 4
    assert json.dumps(audit.report_document(parallel), sort_keys=True) == \
        json.dumps(audit.report_document(serial), sort_keys=True)
