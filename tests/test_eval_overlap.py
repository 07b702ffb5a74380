"""Overlap manifests (SPEC §12; seed 001 "Leakage controls").

Two layers of tests:

* SQL on a tiny hand-made source tree (AGDT XML, UD Perseus dev/test, UD PROIEL test, Gorman,
  Pedalion), ingested by the real loader and built by the runner: each case below is one
  sentence whose resolution is known by construction.
* Real data: the marts on the warehouse built from the pinned sources (``real_warehouse``,
  skipped without ``../shared/sources``), with one sentence checked independently against the
  upstream files themselves.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import duckdb
import pytest

from conftest import dev_warehouse_path, pinned_source_file
from sphragis import config, runner
from sphragis.evaluation import overlap
from sphragis.ingest import load, sources

#: The marts `sphragis eval overlap` reads (the overlap manifests and their reporting marts).
MARTS = list(overlap.MARTS)

# --------------------------------------------------------------------------------------------
# The tiny source tree. Sentences are lists of forms; "[0]" marks an AGDT artificial node.
# --------------------------------------------------------------------------------------------

# Hand-made files under real AGDT file names, so that the UD sentences' `# newdoc id` (their
# registry key) names documents of the works registry: Thucydides and Athenaeus, both prose.
AGDT1 = "tlg0003.tlg001.perseus-grc1.1.tb.xml"
AGDT2 = "tlg0008.tlg001.perseus-grc1.12.tb.xml"
SAYS = ["ὁ", "ἀνὴρ", "λέγει", "·"]
THUS = ["καὶ", "ταῦτα", "μὲν", "δὴ", "οὕτως", "."]
FLOWS = ["πάντα", "ῥεῖ", "."]

AGDT_FILES = {
    AGDT1: [("1", SAYS), ("2", ["τί", "φῄς", "[0]", ";"]), ("3", THUS)],
    AGDT2: [("7", THUS), ("8", FLOWS)],
}
# UD Perseus: (sent_id, forms). Forms of case B are NFD and end in U+037E GREEK QUESTION MARK,
# which NFC maps to ';': it must still match AGDT 1@2.
UD_DEV = [
    (f"{AGDT1}@1", SAYS),                                                  # A unique, sent_id agrees
    (f"{AGDT1}@5", [unicodedata.normalize("NFD", f) for f in ["τί", "φῄς"]] + ["\u037e"]),  # B
]
UD_TEST = [
    (f"{AGDT1}@4", ["οὐδὲν", "λέγεις", "."]),  # C: no AGDT sentence has these forms
    (f"{AGDT1}@3", THUS),                      # D: AGDT1@3 and AGDT2@7 identical; sent_id picks 1@3
    (f"{AGDT1}@2", THUS),                      # E: same two candidates, sent_id names neither
    (f"{AGDT2}@8", ["πάντα", "ῥεῖ"]),          # F: equals AGDT2@8 only without punctuation
]
PROIEL_TEST = [("100", ["ὁ", "δὲ", "εἶπε"])]  # UD PROIEL has no punctuation tokens
GORMAN = [("1", ["ὁ", "ἀνὴρ", "λέγει", ":"]),  # = A except ':' for the ano teleia
          ("2", ["ὁ", "δὲ", "εἶπε", "·"]),     # = PROIEL 100 plus punctuation
          ("3", ["οὐκ", "οἶδα", "."])]
PEDALION = [("1", SAYS), ("2", ["χαῖρε", "."])]


def _xml(sentences, document_id="urn:cts:greekLit:tlg0003.tlg001.perseus-grc1") -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<treebank xml:lang="grc" format="aldt" version="1.5">']
    for sid, forms in sentences:
        out.append(f'  <sentence id="{sid}" document_id="{document_id}" subdoc="1.{sid}">')
        for i, f in enumerate(forms, start=1):
            if f == "[0]":
                out.append(f'    <word id="{i}" insertion_id="000{i}e" artificial="elliptic" form="[0]" '
                           f'lemma="" postag="v3sria---" relation="PRED" head="0"/>')
            else:
                pos, rel = ("u--------", "AuxK") if f in ".·;:" else ("n-s---mn-", "SBJ")
                out.append(f'    <word id="{i}" form="{f}" lemma="{f}" postag="{pos}" relation="{rel}" '
                           f'head="{0 if i == 1 else 1}"/>')
        out.append("  </sentence>")
    out.append("</treebank>")
    return "\n".join(out) + "\n"


def _conllu(sentences, header: list[str] | None = None, newdoc: bool = True) -> str:
    out = []
    for k, (sid, forms) in enumerate(sentences):
        if newdoc and (k == 0 or sid.split("@")[0] != sentences[k - 1][0].split("@")[0]):
            out.append(f"# newdoc id = {sid.split('@')[0]}")
        out += list(header or []) + [f"# sent_id = {sid}", f"# text = {' '.join(forms)}"]
        for i, f in enumerate(forms, start=1):
            punct = unicodedata.category(f[0]).startswith("P")
            out.append(f"{i}\t{f}\t{f}\t{'PUNCT' if punct else 'NOUN'}\t_\t_\t{0 if i == 1 else 1}\t"
                       f"{'root' if i == 1 else 'punct' if punct else 'dep'}\t_\t_")
        out.append("")
    return "\n".join(out) + "\n"


def write_tiny_sources(data: Path) -> dict[str, Path]:
    """Write the hand-made tree under ``data`` (one folder per snapshot); returns the roots."""
    files = {
        f"agdt/v2.1/Greek/texts/{AGDT1}": _xml(AGDT_FILES[AGDT1]),
        f"agdt/v2.1/Greek/texts/{AGDT2}": _xml(AGDT_FILES[AGDT2], "urn:cts:greekLit:tlg0008.tlg001.perseus-grc1"),
        "ud-perseus/grc_perseus-ud-dev.conllu": _conllu(UD_DEV),
        "ud-perseus/grc_perseus-ud-test.conllu": _conllu(UD_TEST),
        "ud-proiel/grc_proiel-ud-test.conllu": _conllu(PROIEL_TEST, ["# source = Histories, Book 1, chapter 1"],
                                                       newdoc=False),
        "gorman/xml versions/tiny bu1.xml": _xml(GORMAN, "Thuc."),
        "pedalion/public/xml/tiny.xml": _xml(PEDALION, "0003-001"),
    }
    for rel, text in files.items():
        p = data / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return {name: data / name for name in ("agdt", "ud-perseus", "ud-proiel", "gorman", "pedalion")}


def build_tiny_warehouse(data: Path, warehouse: Path) -> None:
    """Ingest the tiny tree with the real loader and build the two overlap marts (+ ancestors)."""
    roots = write_tiny_sources(data)
    snaps = [s for s in config.snapshots() if s["name"] in roots]
    files = sources.discover(roots, snaps)
    con = duckdb.connect(str(warehouse))
    try:
        load.load(con, files, load.parse_all(files, workers=1))
        runner.run(con, runner.load_project(), select=MARTS)
    finally:
        con.close()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    base = tmp_path_factory.mktemp("tiny_overlap")
    build_tiny_warehouse(base / "data", base / "wh.duckdb")
    con = duckdb.connect(str(base / "wh.duckdb"), read_only=True)
    yield con
    con.close()


def _uid(con, file_name: str, sid: str) -> int:
    return con.execute("select sentence_uid from int_sentences where file_name = ? and upstream_sentence_id = ?",
                       [file_name, sid]).fetchone()[0]


def _resolution(con) -> dict[str, dict]:
    cur = con.execute("select * from mart_ud_perseus_agdt_overlap")
    cols = [d[0] for d in cur.description]
    return {r[cols.index("ud_sent_id")]: dict(zip(cols, r)) for r in cur.fetchall()}


# --------------------------------------------------------------------------------------------
# mart_ud_perseus_agdt_overlap on the tiny tree
# --------------------------------------------------------------------------------------------


def test_every_ud_perseus_sentence_has_one_row_with_its_fold(tiny):
    res = _resolution(tiny)
    assert {k: v["fold"] for k, v in res.items()} == {
        **{sid: "dev" for sid, _ in UD_DEV}, **{sid: "test" for sid, _ in UD_TEST}}


def test_exact_match_resolves_and_sent_id_agrees(tiny):
    a = _resolution(tiny)[f"{AGDT1}@1"]
    assert a["resolved"] and a["resolution"] == "unique form match" and a["reason"] is None
    assert a["agdt_sentence_uid"] == _uid(tiny, AGDT1, "1")
    assert (a["agdt_path"], a["agdt_sentence_id"]) == (f"v2.1/Greek/texts/{AGDT1}", "1")
    assert a["hint_agrees"] and a["n_candidates"] == 1


def test_nfd_forms_and_artificial_node_still_match(tiny):
    # UD side NFD with U+037E; AGDT side NFC with ';' and an artificial node in the middle.
    b = _resolution(tiny)[f"{AGDT1}@5"]
    assert b["resolved"] and b["agdt_sentence_uid"] == _uid(tiny, AGDT1, "2")
    # the sent_id names AGDT1@5, which does not exist: no hint sentence, so no agreement
    assert b["hint_sentence_uid"] is None and not b["hint_agrees"]


def test_unmatched_sentence_is_unresolved_with_reason(tiny):
    c = _resolution(tiny)[f"{AGDT1}@4"]
    assert not c["resolved"] and c["agdt_sentence_uid"] is None and c["agdt_path"] is None
    assert c["reason"] == "no AGDT sentence with identical forms"
    assert c["n_candidates"] == 0 and c["candidate_sentence_uids"] == []


def test_ambiguous_match_is_disambiguated_by_sent_id(tiny):
    d = _resolution(tiny)[f"{AGDT1}@3"]
    both = sorted([_uid(tiny, AGDT1, "3"), _uid(tiny, AGDT2, "7")])
    assert d["n_candidates"] == 2 and d["candidate_sentence_uids"] == both
    assert d["resolved"] and d["resolution"] == "form match disambiguated by sent_id"
    assert d["agdt_sentence_uid"] == _uid(tiny, AGDT1, "3") and d["hint_agrees"]


def test_ambiguous_match_without_sent_id_support_is_unresolved(tiny):
    e = _resolution(tiny)[f"{AGDT1}@2"]
    assert not e["resolved"] and e["reason"] == "ambiguous: 2 AGDT sentences match"
    assert e["hint_sentence_uid"] == _uid(tiny, AGDT1, "2") and not e["hint_agrees"]


def test_punctuation_counts_for_the_resolution(tiny):
    f = _resolution(tiny)[f"{AGDT2}@8"]
    assert not f["resolved"] and f["reason"] == "no AGDT sentence with identical forms"
    assert f["n_punct_variant_candidates"] == 1


# --------------------------------------------------------------------------------------------
# mart_eval_fold_overlap on the tiny tree
# --------------------------------------------------------------------------------------------


def test_fold_overlap_pairs(tiny):
    rows = tiny.execute("""
        select o.project, s.file_name, o.upstream_sentence_id, o.fold_project, o.fold, o.fold_sent_id, o.match_rule
        from mart_eval_fold_overlap o join int_sentences s using (sentence_uid)
        order by all""").fetchall()
    assert rows == sorted([
        ("agdt", AGDT1, "1", "ud_perseus", "dev", f"{AGDT1}@1", "forms"),
        ("agdt", AGDT1, "2", "ud_perseus", "dev", f"{AGDT1}@5", "forms"),
        ("agdt", AGDT1, "3", "ud_perseus", "test", f"{AGDT1}@3", "forms"),
        ("agdt", AGDT1, "3", "ud_perseus", "test", f"{AGDT1}@2", "forms"),
        ("agdt", AGDT2, "7", "ud_perseus", "test", f"{AGDT1}@3", "forms"),
        ("agdt", AGDT2, "7", "ud_perseus", "test", f"{AGDT1}@2", "forms"),
        ("agdt", AGDT2, "8", "ud_perseus", "test", f"{AGDT2}@8", "forms_without_punctuation"),
        ("gorman", "tiny bu1.xml", "1", "ud_perseus", "dev", f"{AGDT1}@1", "forms_without_punctuation"),
        ("gorman", "tiny bu1.xml", "2", "ud_proiel", "test", "100", "forms_without_punctuation"),
        ("pedalion", "tiny.xml", "1", "ud_perseus", "dev", f"{AGDT1}@1", "forms"),
    ])


def test_fold_overlap_counts_words_without_punctuation(tiny):
    n = tiny.execute("select n_words from mart_eval_fold_overlap where project = 'pedalion'").fetchall()
    assert n == [(3,)]  # ὁ ἀνὴρ λέγει (the '·' is not counted)


# --------------------------------------------------------------------------------------------
# The JSON manifest on the tiny tree
# --------------------------------------------------------------------------------------------


def test_manifest_lists_exclusions_per_fold(tiny, tmp_path):
    doc = overlap.write_manifest(tiny, tmp_path / "m.json")
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8")) == doc
    test = doc["folds"]["ud_perseus-test"]
    assert test["sentences"] == len(UD_TEST) and test["exclude_counts"] == {
        "agdt": 3, "gorman": 0, "pedalion": 0, "harrington": 0}
    recs = {(r["path"].rsplit("/", 1)[-1], r["upstream_sentence_id"]): r for r in test["exclude"]}
    assert recs[(AGDT1, "3")]["role"] == "source"
    assert recs[(AGDT2, "7")]["role"] == "identical_text"  # the second candidate is excluded too
    assert recs[(AGDT2, "7")]["fold_sent_ids"] == sorted([f"{AGDT1}@2", f"{AGDT1}@3"])
    assert recs[(AGDT2, "8")]["match_rule"] == "forms_without_punctuation"
    assert set(recs[(AGDT1, "3")]) == {"project", "path", "upstream_sentence_id", "sentence_uid",
                                       "match_rule", "role", "fold_sent_ids"}
    dev = doc["folds"]["ud_perseus-dev"]["exclude"]
    assert [(r["project"], r["role"]) for r in dev] == [
        ("agdt", "source"), ("agdt", "source"), ("gorman", "identical_text"), ("pedalion", "identical_text")]
    proiel = doc["folds"]["ud_proiel-test"]["exclude"]
    assert [(r["project"], r["path"], r["upstream_sentence_id"]) for r in proiel] == [
        ("gorman", "xml versions/tiny bu1.xml", "2")]
    assert doc["folds"]["ud_proiel-dev"] == {"fold_project": "ud_proiel", "fold": "dev", "sentences": 0,
                                             "exclude_counts": {"agdt": 0, "gorman": 0, "pedalion": 0,
                                                                "harrington": 0}, "exclude": []}
    assert [(u["fold"], u["sent_id"], u["reason"]) for u in doc["unresolved"]] == [
        ("test", f"{AGDT1}@4", "no AGDT sentence with identical forms"),
        ("test", f"{AGDT1}@2", "ambiguous: 2 AGDT sentences match"),
        ("test", f"{AGDT2}@8", "no AGDT sentence with identical forms"),
    ]
    assert doc["exclude_any_fold"] == {"agdt": 5, "gorman": 2, "pedalion": 1, "harrington": 0}


def test_manifest_summary_counts(tiny):
    s = overlap.summary(tiny)
    ud = s["ud_perseus_agdt"]
    assert ud["dev"] == {"sentences": 2, "resolved": 2, "unique": 2, "by_sent_id": 0, "unresolved": 0,
                         "sent_id_agrees": 1}
    assert ud["test"] == {"sentences": 4, "resolved": 1, "unique": 0, "by_sent_id": 1, "unresolved": 3,
                          "sent_id_agrees": 1}
    assert ud["agdt_files"] == {f"v2.1/Greek/texts/{AGDT1}": 3}
    assert s["training_overlap"]["gorman"]["any_fold"] == {"all": 2, "forms_identical": 0}
    assert s["training_overlap"]["pedalion"]["ud_perseus-dev"] == {"all": 1, "forms_identical": 1}
    text = overlap.format_summary(s)
    assert "resolved sentences come from 1 AGDT file(s)" in text


def test_manifest_is_byte_identical_across_writes(tiny, tmp_path):
    overlap.write_manifest(tiny, tmp_path / "a.json")
    overlap.write_manifest(tiny, tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_manifest_needs_the_marts(tmp_path):
    con = duckdb.connect(str(tmp_path / "empty.duckdb"))
    with pytest.raises(RuntimeError, match="mart_ud_perseus_agdt_overlap"):
        overlap.manifest(con)
    con.close()


# --------------------------------------------------------------------------------------------
# Real data (warehouse built from ../shared/sources)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_wh(request, tmp_path_factory):
    """The real warehouse: the session ``real_warehouse`` (full build from ../shared/sources,
    skipped when absent), or, when ``SPHRAGIS_TEST_WAREHOUSE`` names an already built warehouse
    (development aid), a copy of it with the overlap marts rebuilt from its raw tables."""
    given = dev_warehouse_path()
    if given is None:
        yield request.getfixturevalue("real_warehouse")
        return
    copy = tmp_path_factory.mktemp("real_overlap") / "wh.duckdb"
    shutil.copyfile(given, copy)
    con = duckdb.connect(str(copy))
    runner.run(con, runner.load_project(), select=MARTS)
    con.close()
    con = duckdb.connect(str(copy), read_only=True)
    yield con
    con.close()


@pytest.mark.integration
def test_real_every_ud_perseus_sentence_resolves(real_wh):
    s = overlap.summary(real_wh)["ud_perseus_agdt"]
    # the pinned UD Perseus dev and test files hold 1,137 and 1,306 sentences
    assert (s["dev"]["sentences"], s["test"]["sentences"]) == (1137, 1306)
    assert s["total"]["resolved"] == s["total"]["sentences"] == 2443
    assert s["total"]["sent_id_agrees"] == 2443
    assert sorted(p.rsplit("/", 1)[-1] for p in s["agdt_files"]) == [
        "tlg0003.tlg001.perseus-grc1.1.tb.xml", "tlg0007.tlg004.perseus-grc1.tb.xml",
        "tlg0007.tlg015.perseus-grc1.tb.xml", "tlg0008.tlg001.perseus-grc1.12.tb.xml",
        "tlg0008.tlg001.perseus-grc1.13.tb.xml"]


@pytest.mark.integration
def test_real_repeated_thucydides_sentence_is_disambiguated(real_wh):
    # Thucydides 1, AGDT sentences 440 and 774 have identical forms; UD dev cites 440.
    row = real_wh.execute("""
        select o.n_candidates, o.resolution, o.agdt_sentence_id,
               (select list(s.upstream_sentence_id order by s.sentence_uid) from int_sentences s
                where list_contains(o.candidate_sentence_uids, s.sentence_uid))
        from mart_ud_perseus_agdt_overlap o
        where ud_sent_id = 'tlg0003.tlg001.perseus-grc1.1.tb.xml@440'""").fetchone()
    assert row == (2, "form match disambiguated by sent_id", "440", ["440", "774"])


@pytest.mark.integration
def test_real_first_test_sentence_matches_the_upstream_files():
    """Independent of the warehouse: the first UD Perseus test sentence and AGDT sentence 197 of
    tlg0008.tlg001.perseus-grc1.12.tb.xml have the same NFC forms (artificial nodes dropped)."""
    from lxml import etree

    block = pinned_source_file("ud-perseus", "grc_perseus-ud-test.conllu").decode("utf-8").split("\n\n")[0]
    assert "# sent_id = tlg0008.tlg001.perseus-grc1.12.tb.xml@197" in block
    ud = [ln.split("\t")[1] for ln in block.split("\n") if ln and not ln.startswith("#")
          and "-" not in ln.split("\t")[0] and "." not in ln.split("\t")[0]]
    root = etree.fromstring(pinned_source_file("agdt", "tlg0008.tlg001.perseus-grc1.12.tb.xml"))
    sent = root.xpath('//sentence[@id="197"]')[0]
    agdt = [w.get("form") for w in sent.iter("word") if not w.get("artificial")]
    assert [unicodedata.normalize("NFC", f) for f in ud] == [unicodedata.normalize("NFC", f) for f in agdt]
    assert len(ud) > 5


@pytest.mark.integration
def test_real_resolution_of_first_test_sentence(real_wh):
    row = real_wh.execute("""
        select fold, agdt_path, agdt_sentence_id, resolution from mart_ud_perseus_agdt_overlap
        where ud_sent_id = 'tlg0008.tlg001.perseus-grc1.12.tb.xml@197'""").fetchone()
    assert row == ("test", "v2.1/Greek/texts/tlg0008.tlg001.perseus-grc1.12.tb.xml", "197", "unique form match")


@pytest.mark.integration
def test_real_training_overlap_shape(real_wh):
    s = overlap.summary(real_wh)["training_overlap"]
    # UD PROIEL has no punctuation tokens, so no pair with a punctuated source is form-identical,
    # yet Gorman's Herodotus and AGDT's Herodotus overlap the PROIEL folds
    for p in ("agdt", "gorman"):
        assert s[p]["ud_proiel-test"]["forms_identical"] == 0 < s[p]["ud_proiel-test"]["all"]
    # Gorman writes ':' for the ano teleia: ignoring punctuation finds strictly more overlap
    assert s["gorman"]["ud_perseus-test"]["forms_identical"] < s["gorman"]["ud_perseus-test"]["all"]
    # every resolved AGDT source sentence is in the exclusion list of its fold
    missing = real_wh.execute("""
        select count(*) from mart_ud_perseus_agdt_overlap r where resolved and not exists (
            select 1 from mart_eval_fold_overlap o
            where o.sentence_uid = r.agdt_sentence_uid and o.fold_sentence_uid = r.ud_sentence_uid
              and o.forms_identical)""").fetchone()[0]
    assert missing == 0


@pytest.mark.integration
def test_real_gorman_athenaeus_colon_variant(real_wh):
    # Gorman's Athenaeus 12 writes 'καὶ προελθὼν δὲ γράφει :' where UD Perseus has '·'.
    rows = real_wh.execute("""
        select o.path, o.fold, o.match_rule from mart_eval_fold_overlap o
        join int_sentences s on s.sentence_uid = o.fold_sentence_uid
        where o.project = 'gorman' and s.source_text = 'καὶ προελθὼν δὲ γράφει·'""").fetchall()
    assert ("xml versions/athen12 1-9 2019.xml", "dev", "forms_without_punctuation") in rows
