"""PapyGreek Treebanks in the warehouse (SPEC §1.1, §2, §6): the two-layer dialect's parser and
checks, the preamble as rows, documentary authorship as persons with roles, the layer variation,
and PapyGreek against Pedalion on the same papyri; on the fixture cut and the real sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphragis.ingest.papygreek_xml import layers, parse_papygreek_xml, unpublished_attributes
from sphragis.ingest.preamble import element_columns

SRC = Path(__file__).resolve().parent / "fixtures" / "sources"
#: The fixture: a whole PapyGreek file (a private letter of Noumas, author and writer of its hand).
FIXTURE = SRC / "papygreek_o.claud.1.169.xml"


def _attrs(pf, sentence_pos: int, token_pos: int) -> dict[str, str]:
    t = pf.tokens
    i = next(k for k in range(len(t["id"])) if t["sentence_pos"][k] == sentence_pos and t["token_pos"][k] == token_pos)
    return t["attrs"][i]


def test_both_layers_are_kept_verbatim():
    pf = parse_papygreek_xml(FIXTURE)
    assert pf.n_sentences == pf.n_sentences_expected == 3 and not pf.rejects["reason"]
    word = _attrs(pf, 2, 4)
    assert (word["orig_form"], word["form_reg"]) == ("παντων", "πάντας")  # the editors' regularisation
    assert word["postag_orig"] != word["postag_reg"]
    # the layers come from the seed: the dialect knows their attribute names from nowhere else
    assert layers()["reg"] == {"form": "form_reg", "lemma": "lemma_reg", "postag": "postag_reg",
                               "relation": "relation_reg", "head": "head_reg"}
    assert unpublished_attributes() == frozenset(layers()["orig"].values())


def test_the_preamble_becomes_rows():
    pf = parse_papygreek_xml(FIXTURE)
    cols = element_columns([(7, pf.preamble)])
    rows = [dict(zip(cols, values)) for values in zip(*cols.values())]
    assert [r["tag"] for r in rows if r["depth"] == 1] == ["annotator"] * 6 + ["document_meta", "hand_meta"]
    meta = next(r for r in rows if r["tag"] == "document_meta")
    assert (meta["attrs"]["tm_id"], meta["attrs"]["place_name"]) == ("24177", "Egypt: Eastern Desert")
    hand = next(r for r in rows if r["tag"] == "hand_meta")
    persons = [r for r in rows if r["tag"] == "person"]
    assert {r["parent_pos"] for r in persons} == {hand["element_pos"]} and len(persons) == 5
    assert [(p["attrs"]["pg_id"], p["attrs"]["role"]) for p in persons][-1] == ("61", "writer")
    assert all(r["file_id"] == 7 for r in rows) and [r["element_pos"] for r in rows] == list(range(1, len(rows) + 1))


WORD = ('<word id="{id}" orig_form="{of}" lemma_orig="x" postag_orig="n-s---mn-" relation_orig="SBJ" head_orig="{oh}" '
        'form_reg="{rf}" lemma_reg="x" postag_reg="n-s---mn-" relation_reg="SBJ" head_reg="{rh}" line_n="1" hand="m1"/>')


def _file(tmp_path: Path, sentences: list[list[str]]) -> Path:
    body = "\n".join(f'<sentence id="{i}">\n' + "\n".join(words) + "\n</sentence>" for i, words in enumerate(sentences, 1))
    path = tmp_path / "p.test.1.xml"
    path.write_text(f'<treebank format="aldt">\n<document_meta tm_id="1"/>\n{body}\n</treebank>\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("bad, reason", [
    (WORD.format(id=1, of="α", oh="0", rf="", rh="0"), "line 7: word @id='1' has no form in the published layer (@form_reg empty)"),
    (WORD.format(id=1, of="α", oh="0", rf="α", rh="9"), "line 7: word @id='1': @head_reg='9' names no word of the sentence"),
    (WORD.format(id=1, of="α", oh="0", rf="α", rh="0").replace(' postag_orig="n-s---mn-"', ""),
     "line 7: word @id='1' lacks the orig layer's @postag_orig"),
])
def test_a_bad_word_rejects_its_sentence_with_file_line_and_reason(tmp_path, bad, reason):
    good = WORD.format(id=1, of="α", oh="0", rf="α", rh="0")
    pf = parse_papygreek_xml(_file(tmp_path, [[good], [bad], [good]]))
    # the sentence with the bad word is rejected, the others are ingested: the file's account holds
    assert pf.rejects["reason"] == [reason] and pf.rejects["sentence_pos"] == [2] and pf.rejects["line"] == [7]
    assert pf.sentences["sentence_pos"] == [1, 3] and pf.xml_words.sentence_pos == [1, 3]
    assert pf.n_sentences + len(pf.rejects["reason"]) == pf.n_sentences_expected == 3


def test_the_unpublished_layer_is_kept_as_written(tmp_path):
    # a diplomatic head naming no word, and a control character in the diplomatic layer (as
    # p.babatha.17 writes &#10;): kept, not rejected; the same in the published layer is rejected
    kept = WORD.format(id=1, of="α", oh="7", rf="α", rh="0").replace('lemma_orig="x"', 'lemma_orig="&#10;"')
    bad = WORD.format(id=1, of="α", oh="0", rf="α", rh="0").replace('lemma_reg="x"', 'lemma_reg="&#10;"')
    pf = parse_papygreek_xml(_file(tmp_path, [[kept], [bad]]))
    assert pf.sentences["sentence_pos"] == [1] and _attrs(pf, 1, 1)["lemma_orig"] == "\n"
    assert pf.rejects["reason"] == ["line 7: control character U+000A in word @lemma_reg"]


# --------------------------------------------------------------------------------------------
# the fixture build (tests/fixtures/sources: the letter above)

def test_fixture_build_publishes_the_reg_layer_and_curates_persons(tiny_exported):
    import duckdb

    con = duckdb.connect(str(tiny_exported.warehouse), read_only=True)
    try:
        forms = con.execute("select t.form, w.orig_form, w.reg_form from stg_papygreek__tokens as t "
                            "join stg_papygreek__words as w using (sentence_uid, token_pos) join int_sentences as s "
                            "using (sentence_uid) where s.sentence_pos = 2 and t.token_pos = 4").fetchone()
        assert forms == ("πάντας", "παντων", "πάντας")
        persons = con.execute("select pg_id, name, role, is_own_hand from int_documentary_persons "
                              "order by element_pos").fetchall()
        assert persons[0] == (61, "Noumas (Νουμᾶς)", "author", True) and persons[1][2] == "addressee"
        assert con.execute("select author_pg_ids, writer_pg_ids, addressee_pg_ids, has_own_hand "
                           "from int_documentary_documents").fetchone() == ([61], [61], [62], True)
        assert con.execute("select distinct decision, is_retained from int_curated_sentences "
                           "where project = 'papygreek'").fetchall() == [("documentary", False)]
        change = con.execute("select v.form_change from mart_layer_variation as v join int_sentences as s "
                             "using (sentence_uid) where s.sentence_pos = 2 and v.token_pos = 4").fetchone()
        assert change == ("changed",)
    finally:
        con.close()


# --------------------------------------------------------------------------------------------
# the real sources

@pytest.mark.integration
def test_every_sentence_and_word_is_in_the_warehouse(real_warehouse):
    con = real_warehouse
    # the README's 558 texts, 4,557 sentences and 65,702 words, none rejected
    assert con.execute("select count(*), sum(n_sentences_ingested), sum(n_tokens_ingested), "
                       "sum(n_sentences_expected) from raw_files where project = 'papygreek'").fetchone() == (
        558, 4557, 65702, 4557)
    # seed 001: 1,793 sentences carry an artificial node (@artificial or @insertion_id)
    assert con.execute("select count(distinct sentence_uid) from stg_papygreek__tokens "
                       "where is_artificial").fetchone()[0] == 1793
    # p.babatha.17's sentence 6 writes &#10; in its diplomatic layer: ingested, kept as written
    row = con.execute("select w.orig_lemma, w.reg_lemma from stg_papygreek__words as w join int_sentences as s "
                      "using (sentence_uid) where s.file_name = 'p.babatha.17.xml' and s.sentence_pos = 6 "
                      "and w.token_pos = 1").fetchone()
    assert row == ("\n", "ἐπί")


@pytest.mark.integration
def test_a_known_token_in_both_layers(real_warehouse):
    con = real_warehouse
    # sb.20.15192 (a letter to Kyria), sentence 1: ἁγειωτάτοις regularised to ἁγιωτάτοις (itacism)
    q = """select w.orig_form, w.reg_form, w.orig_postag, w.reg_postag, w.orig_relation, w.reg_relation, t.form
           from stg_papygreek__words as w join int_sentences as s using (sentence_uid)
           join stg_papygreek__tokens as t using (sentence_uid, token_pos)
           where s.file_name = 'sb.20.15192.xml' and s.sentence_pos = 1 and w.src_id = ?"""
    assert con.execute(q, ["4"]).fetchone()[:2] == ("ἁγειωτάτοις", "ἁγιωτάτοις")
    assert con.execute(q, ["4"]).fetchone()[6] == "ἁγιωτάτοις"  # the published layer is reg
    assert con.execute(q, ["5"]).fetchone()[2:4] == ("v_____---", "v-pppamd-")
    assert con.execute(q, ["10"]).fetchone()[4:6] == ("AuxX", "AuxK")
    # its passage is the papyrus lines of its words
    assert con.execute("select passage from int_sentences where file_name = 'sb.20.15192.xml' "
                       "order by sentence_pos").fetchall() == [("1",), ("2-6",), ("6",)]


@pytest.mark.integration
def test_documentary_authorship_is_persons_with_roles(real_warehouse):
    con = real_warehouse
    # sb.20.15192: Kyria (PapyGreek person 453, gender 2) is addressed, an unnamed writer (454) writes
    assert con.execute("select pg_id, name, gender_code, role from int_documentary_persons "
                       "where document_key = 'sb.20.15192.xml' order by element_pos").fetchall() == [
        (453, "Kyria", "2", "addressee"), (454, None, None, "writer")]
    doc = con.execute("select tm_id, date_not_before, date_not_after, text_categories, author_pg_ids, writer_pg_ids "
                      "from int_documentary_documents where document_key = 'sb.20.15192.xml'").fetchone()
    assert doc == (35785, 401, 600, ["Letter"], [], [454])
    # author and writer kept apart: Noumas (61) writes his own letter, o.claud.1.169
    assert con.execute("select role, is_own_hand from int_documentary_persons where document_key = "
                       "'o.claud.1.169.xml' and pg_id = 61 order by element_pos").fetchall() == [
        ("author", True), ("author", True), ("writer", True)]
    assert con.execute("select count(*) from int_documentary_documents").fetchone()[0] == 558
    assert sorted(r[0] for r in con.execute("select document_key from int_documentary_documents "
                                            "where is_date_range_inverted").fetchall()) == ["cpr.18.1.xml", "psi.4.347.xml"]


@pytest.mark.integration
def test_layer_variation_says_what_the_editors_regularised(real_warehouse):
    con = real_warehouse
    form = con.execute("select n_words, n_changed, pct_changed, top_changes[1] from mart_layer_variation_summary "
                       "where project = 'papygreek' and field = 'form'").fetchone()
    assert form[:3] == (63627, 3690, 5.8) and form[3] == {"change": "κʼ → καὶ", "n": 36}
    # every word faces the orig layer once; artificial nodes flagged, not dropped
    assert con.execute("select count(*), count(*) filter (where is_artificial) from mart_layer_variation "
                       "where project = 'papygreek'").fetchone() == (65702, 2075)


@pytest.mark.integration
def test_papygreek_against_pedalion_on_the_same_papyri(real_warehouse):
    con = real_warehouse
    # 31 papyri are annotated by both (Pedalion's papyri.xml, by Trismegistos number)
    shared = con.execute("select count(*), sum(n_pairs), sum(n_text_identical) from mart_shared_documents "
                         "where project_pair = 'papygreek–pedalion'").fetchone()
    assert shared == (31, 250, 162)
    agreement = dict(con.execute("select field, pct_agree from mart_cross_project_agreement where scope = "
                                 "'same_document' and project_pair = 'papygreek–pedalion'").fetchall())
    assert agreement["text"] == 64.8 and agreement["upos"] == 98.21 and agreement["head"] == 85.45
    # the projects outside the benchmark are in no eligible row's provenance
    assert con.execute("select count(*) from int_eligible_sentences as e join projects as p "
                       "on list_contains(e.projects, p.project) where not p.in_benchmark").fetchone()[0] == 0


@pytest.mark.integration
def test_the_registry_can_publish_the_orig_layer(real_settings, edit_registry):
    """The registry's published_layer chooses what the normalized tables publish (here `orig` on a
    copy of the registry): staging then takes the diplomatic forms."""
    import duckdb

    from sphragis import runner

    project = edit_registry("papygreek", "published_layer", "orig")
    sql = runner.render(project, "stg_papygreek__tokens")
    assert "attrs['orig_form'] as form" in sql and "attrs['form_reg']" not in sql
    con = duckdb.connect(str(real_settings.warehouse), read_only=True)
    try:
        got = con.execute(f"select form from ({sql}) join int_sentences using (sentence_uid) "
                          "where file_name = 'sb.20.15192.xml' and sentence_pos = 1 and token_pos = 4").fetchone()
    finally:
        con.close()
    assert got == ("ἁγειωτάτοις",)
