"""``sphragis eval`` (SPEC §12; seed 001): overlap, score and drift on the command line.

Scoring and drift run on the 20-sentence cut of the real UD Perseus test fold
(``tests/fixtures/eval/``, CC BY-NC-SA 2.5) and perturbed copies of it whose expected figures
follow from the edits; the overlap command and the ``--by`` buckets run on the tiny hand-made
warehouse of ``test_eval_overlap`` (ingested by the real loader, registry from
``sql/seeds/works_registry.csv``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sphragis import cli
from sphragis.evaluation import folds, overlap
from test_eval_overlap import AGDT1, AGDT2, UD_TEST, build_tiny_warehouse

FIXTURE = Path(__file__).parent / "fixtures" / "eval" / "grc_perseus-ud-test.head20.conllu"
N_WORDS = 430  # words in the fixture
S1 = "tlg0008.tlg001.perseus-grc1.12.tb.xml@197"
S3 = "tlg0008.tlg001.perseus-grc1.12.tb.xml@199"
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL = range(8)


def edit(text: str, changes: dict[tuple[int, int, int], str]) -> str:
    """``text`` with ``{(sentence no., word ID, column): value}`` applied (every edit must apply)."""
    out, sent, in_sent, done = [], 1, False, set()
    for line in text.split("\n"):
        if not line.strip():
            sent += in_sent
            in_sent = False
        elif not line.startswith("#"):
            in_sent = True
            cols = line.split("\t")
            for (s, w, c), v in changes.items():
                if s == sent and cols[0] == str(w):
                    cols[c] = v
                    done.add((s, w, c))
            line = "\t".join(cols)
        out.append(line)
    assert done == set(changes)
    return "\n".join(out)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli.main(["eval", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture()
def gold_text() -> str:
    return FIXTURE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def tiny_env(tmp_path_factory):
    """(data dir, warehouse path) of the tiny hand-made tree."""
    base = tmp_path_factory.mktemp("tiny_cli")
    build_tiny_warehouse(base / "data", base / "wh.duckdb")
    return base / "data", base / "wh.duckdb"


# --------------------------------------------------------------------------------------------
# score
# --------------------------------------------------------------------------------------------


def test_score_gold_against_itself_is_100_with_zero_width_ci(capsys, tmp_path):
    rc, out, _ = run(capsys, "score", "--gold", str(FIXTURE), "--pred", str(FIXTURE),
                     "--bootstrap", "99", "--json", str(tmp_path / "s.json"))
    assert rc == 0
    rows = {ln.split()[0]: ln.split() for ln in out.splitlines() if ln[:1].isalpha()}
    assert "Lemmas" not in rows and rows["Lemma"][1:4] == ["100.00", "[100.00,", "100.00]"]
    doc = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert list(doc["metrics"]) == ["UPOS", "XPOS", "UFeats", "AllTags", "Lemma", "UAS", "LAS",
                                    "CLAS", "MLAS", "BLEX"]
    assert all(m["f1"] == 100.0 and m["ci"] == [100.0, 100.0] for m in doc["metrics"].values())
    assert (doc["gold"], doc["sentences"], doc["words"]) == (str(FIXTURE), 20, N_WORDS)
    assert doc["protocol"]["bootstrap"] == 99 and doc["protocol"]["seed"] == 776


def test_score_perturbed_copy_gives_the_expected_figures(capsys, tmp_path, gold_text):
    pred = tmp_path / "pred.conllu"
    pred.write_text(edit(gold_text, {
        (1, 4, UPOS): "NOUN",        # οὗτοι PRON → NOUN: one UPOS error
        (2, 3, LEMMA): "αἰσχρ",      # αἰσχρόν: one lemma error
        (3, 4, DEPREL): "obj",       # τοῦτο nsubj → obj, same head: one label-only error
    }), encoding="utf-8")
    rc, out, _ = run(capsys, "score", "--gold", str(FIXTURE), "--pred", str(pred), "--bootstrap", "0",
                     "--json", str(tmp_path / "s.json"))
    assert rc == 0
    m = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["metrics"]
    one_error = round(100 * 2 * (N_WORDS - 1) / (2 * N_WORDS), 2)  # 99.77
    assert {k: m[k]["f1"] for k in ("UPOS", "XPOS", "UFeats", "Lemma", "UAS", "LAS")} == {
        "UPOS": one_error, "XPOS": 100.0, "UFeats": 100.0, "Lemma": one_error, "UAS": 100.0, "LAS": one_error}
    assert (m["Lemma"]["correct"], m["LAS"]["correct"]) == (N_WORDS - 1, N_WORDS - 1)
    assert m["UPOS"]["ci"] is None
    assert "Lemma      99.77" in out


def test_score_tokenization_mismatch_is_one_clear_line(capsys, tmp_path, gold_text):
    pred = tmp_path / "pred.conllu"
    pred.write_text(edit(gold_text, {(3, 2, FORM): "γάρ"}), encoding="utf-8")
    rc, out, err = run(capsys, "score", "--gold", str(FIXTURE), "--pred", str(pred))
    assert rc == 1 and out == ""
    assert err == (f"sphragis eval: error: tokenization differs in sentence '{S3}' (#3) at token 2: "
                   "gold '2 γὰρ' vs pred '2 γάρ' (gold tokenization is required)\n")


def test_score_unknown_fold_and_missing_file(capsys):
    rc, _, err = run(capsys, "score", "--gold", "ud_perseus-train", "--pred", str(FIXTURE))
    assert rc == 1 and err.startswith("sphragis eval: error: --gold: unknown fold 'ud_perseus-train'")
    assert "ud_perseus-test" in err and "ud_proiel-dev" in err and err.count("\n") == 1
    rc, _, err = run(capsys, "score", "--gold", str(FIXTURE), "--pred", "missing/pred.conllu")
    assert rc == 1 and err == "sphragis eval: error: --pred: no such file: missing/pred.conllu\n"


def test_score_named_fold_reads_the_published_file(capsys, tmp_path, monkeypatch):
    (tmp_path / "ud-perseus").mkdir()
    shutil.copyfile(FIXTURE, tmp_path / "ud-perseus" / "grc_perseus-ud-test.conllu")
    monkeypatch.setenv("SPHRAGIS_DATA", str(tmp_path))
    rc, out, _ = run(capsys, "score", "--gold", "ud_perseus-test", "--pred", str(FIXTURE), "--bootstrap", "0",
                     "--json", str(tmp_path / "s.json"))
    assert rc == 0 and out.startswith("gold: ud_perseus-test\n")
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["words"] == N_WORDS
    monkeypatch.setenv("SPHRAGIS_DATA", str(tmp_path / "nowhere"))
    rc, _, err = run(capsys, "score", "--gold", "ud_perseus-test", "--pred", str(FIXTURE))
    assert rc == 1 and "grc_perseus-ud-test.conllu not found; run `sphragis fetch`" in err


def test_score_by_author_uses_the_works_registry(capsys, tmp_path, tiny_env, monkeypatch):
    data, wh = tiny_env
    monkeypatch.setenv("SPHRAGIS_DATA", str(data))
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(wh))
    rc, out, _ = run(capsys, "score", "--gold", "ud_perseus-test", "--pred",
                     str(data / "ud-perseus" / "grc_perseus-ud-test.conllu"), "--bootstrap", "0",
                     "--by", "author", "--json", str(tmp_path / "s.json"))
    assert rc == 0
    doc = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    # C, D, E are in AGDT1's document (Thucydides), F in AGDT2's (Athenaeus)
    n_words = {sid: len(forms) for sid, forms in UD_TEST}
    assert {k: (b["sentences"], b["words"]) for k, b in doc["buckets"].items()} == {
        "Athenaeus": (1, n_words[f"{AGDT2}@8"]),
        "Thucydides": (3, sum(v for k, v in n_words.items() if k.startswith(AGDT1)))}
    assert "Bucket Thucydides: 3 sentences" in out
    assert "Lemma" in doc["buckets"]["Athenaeus"]["metrics"]


def test_bucket_map_for_a_fold_and_for_a_path(tiny_env, monkeypatch):
    data, wh = tiny_env
    with duckdb.connect(str(wh), read_only=True) as con:
        by_fold = folds.bucket_map(con, "genre", fold="ud_perseus-test")
        ids = [sid for sid, _ in UD_TEST]
        assert by_fold == {sid: "prose" for sid in ids}
        assert folds.bucket_map(con, "author", sent_ids=ids) == folds.bucket_map(con, "author", fold="ud_perseus-test")
        with pytest.raises(ValueError, match="none of the gold file's sent_ids"):
            folds.bucket_map(con, "author", sent_ids=["no-such-id"])
        with pytest.raises(ValueError, match="unknown bucket 'work'"):
            folds.bucket_map(con, "work", fold="ud_perseus-test")


def test_fold_text_checks_the_ingested_file(tiny_env, tmp_path, monkeypatch):
    data, wh = tiny_env
    published = (data / "ud-perseus" / "grc_perseus-ud-test.conllu").read_text(encoding="utf-8")
    monkeypatch.setenv("SPHRAGIS_DATA", str(data))
    with duckdb.connect(str(wh), read_only=True) as con:
        assert folds.fold_text(con, "ud_perseus-test") == published
        changed = tmp_path / "data"
        shutil.copytree(data, changed)
        (changed / "ud-perseus" / "grc_perseus-ud-test.conllu").write_text(
            published.replace("οὐδὲν", "οὐδέν"), encoding="utf-8")
        monkeypatch.setenv("SPHRAGIS_DATA", str(changed))
        with pytest.raises(ValueError, match="is not the file the warehouse ingested"):
            folds.fold_text(con, "ud_perseus-test")
    # without a warehouse the file is read as it is
    assert "οὐδέν" in folds.fold_text(None, "ud_perseus-test")


# --------------------------------------------------------------------------------------------
# drift
# --------------------------------------------------------------------------------------------


def test_drift_label_only_change(capsys, tmp_path, gold_text):
    b = tmp_path / "b.conllu"
    b.write_text(edit(gold_text, {(3, 4, DEPREL): "obj"}), encoding="utf-8")
    rc, out, _ = run(capsys, "drift", "--a", str(FIXTURE), "--b", str(b), "--json", str(tmp_path / "d.json"))
    assert rc == 0 and "LAS gap 0.23 points = attachment 0.00 (0 words) + label-only 0.23 (1 words)" in out
    doc = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert (doc["a"], doc["b"]) == (str(FIXTURE), str(b))
    assert doc["las"]["relation_confusions"] == [{"a": "nsubj", "b": "obj", "count": 1, "share": 100.0}]


def test_drift_tokenization_mismatch(capsys, tmp_path, gold_text):
    b = tmp_path / "b.conllu"
    b.write_text(edit(gold_text, {(1, 1, FORM): "ζῶσιν"}), encoding="utf-8")
    rc, _, err = run(capsys, "drift", "--a", str(FIXTURE), "--b", str(b))
    assert rc == 1 and err.startswith(f"sphragis eval: error: tokenization differs in sentence '{S1}' (#1)")


PROIEL_64490 = FIXTURE.parent / "grc_proiel-ud-test.64490.conllu"


def test_drift_protocol_and_definitions(capsys, tmp_path):
    # UD PROIEL test sent_id 64490 against itself with every FEATS blanked (tests/fixtures/eval/README.md;
    # figures derived by hand in tests/test_drift.py)
    a = PROIEL_64490.read_text(encoding="utf-8")
    b = tmp_path / "empty.conllu"
    b.write_text(edit(a, {(1, w, FEATS): "_" for w in range(1, 7)}), encoding="utf-8")
    rc, out, _ = run(capsys, "drift", "--a", str(PROIEL_64490), "--b", str(b), "--protocol", "seed001",
                     "--json", str(tmp_path / "d.json"))
    assert rc == 0
    assert "UFeats gap 83.33 points = scheme-absent 16.67 (1 words) + shared-scheme 66.67 (4 words)" in out
    assert ("definitions: scheme types conversion (Aspect, Case, Degree, Gender, Mood, Number, Person, "
            "Tense, VerbForm, Voice); per-type agreement over gold; protocol seed001") in out
    assert "    Case          0.00  (0/3; a 3, b 0, either 3)" in out
    doc = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert list(doc)[:3] == ["a", "b", "definitions"]
    assert doc["definitions"]["per_type"] == {"choice": "gold", "definition": (
        "words where both carry the type with the same value / words where a carries it")}
    # without --protocol the defaults are the same choices, recorded without a protocol name
    rc, out, _ = run(capsys, "drift", "--a", str(PROIEL_64490), "--b", str(b), "--json", str(tmp_path / "e.json"))
    e = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert e["definitions"]["protocol"] is None and e["ufeats"] == doc["ufeats"]
    # the other definitions on request
    rc, out, _ = run(capsys, "drift", "--a", str(PROIEL_64490), "--b", str(b), "--scheme-types", "observed",
                     "--per-type", "union")
    assert rc == 0 and "scheme-absent 83.33 (5 words) + shared-scheme 0.00 (0 words)" in out
    assert "definitions: scheme types observed (none); per-type agreement over union" in out


def test_drift_protocol_conflicts_and_bad_lists(capsys):
    rc, _, err = run(capsys, "drift", "--a", str(PROIEL_64490), "--b", str(PROIEL_64490),
                     "--protocol", "seed001", "--per-type", "union")
    assert rc == 1 and "--protocol seed001 sets --per-type gold; got --per-type union" in err
    rc, _, err = run(capsys, "drift", "--a", str(PROIEL_64490), "--b", str(PROIEL_64490),
                     "--scheme-types", "Case,Cases")
    assert rc == 1 and "not universal feature types: Cases" in err
    rc, _, err = run(capsys, "drift", "--a", str(PROIEL_64490), "--b", str(PROIEL_64490),
                     "--protocol", "seed001", "--scheme-types", "conversion")  # agrees: fine
    assert rc == 0


def test_drift_help_names_the_definitions(capsys):
    with pytest.raises(SystemExit):
        cli.main(["eval", "drift", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "conversion (default): the fixed list the AGDT->UD conversion emits (Aspect Case Degree" in text
    assert "seed001: seed 001 benchmark protocol: comparable with published pyaegean reports" in text
    assert "gold (default): words where a has the type" in text


# --------------------------------------------------------------------------------------------
# overlap
# --------------------------------------------------------------------------------------------


def test_overlap_prints_summary_and_writes_manifest(capsys, tmp_path, tiny_env, monkeypatch):
    _, wh = tiny_env
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(wh))
    target = tmp_path / "out" / "manifest.json"
    rc, out, err = run(capsys, "overlap", "--json", str(target))
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith("UD Perseus -> AGDT source sentences")
    assert lines[2].split() == ["dev", "2", "2", "2", "0", "0", "1"]
    assert lines[3].split() == ["test", "4", "1", "0", "1", "3", "1"]
    assert "  test  " + AGDT2 + "@8: no AGDT sentence with identical forms" in out
    gorman = next(ln for ln in lines if ln.strip().startswith("gorman"))
    assert gorman.split() == ["gorman", "0", "/", "1", "0", "/", "0", "0", "/", "0", "0", "/", "1", "0", "/", "2"]
    assert str(target) in err
    with duckdb.connect(str(wh), read_only=True) as con:
        assert json.loads(target.read_text(encoding="utf-8")) == overlap.manifest(con)


def test_overlap_without_warehouse(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "none.duckdb"))
    rc, _, err = run(capsys, "overlap", "--json", str(tmp_path / "m.json"))
    assert rc == 1 and err.startswith(f"sphragis eval: error: no warehouse at {tmp_path / 'none.duckdb'}")
    assert not (tmp_path / "m.json").exists()


def test_console_entry_point_exit_status(tmp_path):
    """The real process: an error is one line on stderr and exit status 1."""
    proc = subprocess.run([sys.executable, "-m", "sphragis.cli", "eval", "score", "--gold", "nope",
                           "--pred", str(FIXTURE)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("sphragis eval: error: --gold: unknown fold 'nope'")
    assert proc.stderr.count("\n") == 1
