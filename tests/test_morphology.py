"""Tests of SPEC §3 "One morphological analysis": the model
``int_token_morphology``, its mapping seeds, the marts ``mart_tag_rules``/``mart_tag_quality``
and the ``lower_grc`` UDF.

The SQL tests run the real model SQL (rendered by ``sphragis.runner``) over a tiny hand-made
``int_tokens`` table covering every tense, mood and voice, the non-finite forms, common gender,
the UD inputs (PROIEL's ``Gender=Masc,Neut``, PROPN/AUX/DET/CCONJ) and the malformed tags seen
in the real sources; every expected string follows from SPEC §3 and the seed 000 tense table.
The integration tests check named tokens of the real sources.
"""

from __future__ import annotations

import csv
import unicodedata

import duckdb
import grc_utils
import greek_normalisation.utils
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import dev_warehouse_tables
from sphragis import runner, udfs
from sphragis.config import SEEDS_DIR

MODEL = "int_token_morphology"

# (token_pos, project, form, lemma, postag, upos, feats, is_artificial) ---------------------------
# Native tags (AGDT lineage) and UD Perseus XPOS: the tag is the source tag.
# token_pos -> (project, tag, published UPOS, published FEATS)
FIN = "Mood=Ind|Number=Sing|Person=3"
NATIVE = {
    # the seven Greek tenses (seed 000 tense table), indicative active 3sg
    1: ("agdt", "v3spia---", "VERB", f"Aspect=Imp|{FIN}|Tense=Pres|VerbForm=Fin|Voice=Act"),
    2: ("agdt", "v3siia---", "VERB", f"Aspect=Imp|{FIN}|Tense=Past|VerbForm=Fin|Voice=Act"),
    3: ("agdt", "v3saia---", "VERB", f"Aspect=Perf|{FIN}|Tense=Past|VerbForm=Fin|Voice=Act"),
    4: ("agdt", "v3sria---", "VERB", f"Aspect=Perf|{FIN}|Tense=Pres|VerbForm=Fin|Voice=Act"),
    5: ("agdt", "v3slia---", "VERB", f"Aspect=Perf|{FIN}|Tense=Pqp|VerbForm=Fin|Voice=Act"),
    6: ("agdt", "v3sfia---", "VERB", f"{FIN}|Tense=Fut|VerbForm=Fin|Voice=Act"),
    7: ("agdt", "v3stie---", "VERB", f"Aspect=Perf|{FIN}|Tense=Fut|VerbForm=Fin|Voice=Mid,Pass"),
    # the finite moods
    8: ("agdt", "v1sasa---", "VERB", "Aspect=Perf|Mood=Sub|Number=Sing|Person=1|Tense=Past|VerbForm=Fin|Voice=Act"),
    9: ("agdt", "v3saoa---", "VERB", "Aspect=Perf|Mood=Opt|Number=Sing|Person=3|Tense=Past|VerbForm=Fin|Voice=Act"),
    10: ("agdt", "v2spma---", "VERB", "Aspect=Imp|Mood=Imp|Number=Sing|Person=2|Tense=Pres|VerbForm=Fin|Voice=Act"),
    # the voices (active above); e = medio-passive -> Mid,Pass
    11: ("agdt", "v3saip---", "VERB", f"Aspect=Perf|{FIN}|Tense=Past|VerbForm=Fin|Voice=Pass"),
    12: ("agdt", "v3saim---", "VERB", f"Aspect=Perf|{FIN}|Tense=Past|VerbForm=Fin|Voice=Mid"),
    13: ("agdt", "v3spie---", "VERB", f"Aspect=Imp|{FIN}|Tense=Pres|VerbForm=Fin|Voice=Mid,Pass"),
    # non-finite: no Mood, VerbForm Inf / Part / Ger
    14: ("agdt", "v--ana---", "VERB", "Aspect=Perf|Tense=Past|VerbForm=Inf|Voice=Act"),
    15: ("agdt", "v-sapamn-", "VERB", "Aspect=Perf|Case=Nom|Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part|Voice=Act"),
    16: ("pedalion", "v-s-g-mn-", "VERB", "Case=Nom|Gender=Masc|Number=Sing|VerbForm=Ger"),
    # common gender -> Fem,Masc (never Gender=Com); Pedalion's extra POS code b -> ADV
    17: ("pedalion", "p3p---cg-", "PRON", "Case=Gen|Gender=Fem,Masc|Number=Plur|Person=3"),
    18: ("pedalion", "b--------", "ADV", None),
    # degree c/s; the positive p gives no Degree; dual, locative
    19: ("agdt", "a-s---mnc", "ADJ", "Case=Nom|Degree=Cmp|Gender=Masc|Number=Sing"),
    20: ("gorman", "a-s---mnp", "ADJ", "Case=Nom|Gender=Masc|Number=Sing"),
    21: ("agdt", "n-d---fl-", "NOUN", "Case=Loc|Gender=Fem|Number=Dual"),
    22: ("agdt", "a-p---nas", "ADJ", "Case=Acc|Degree=Sup|Gender=Neut|Number=Plur"),
    23: ("agdt", "l-s---fa-", "PRON", "Case=Acc|Gender=Fem|Number=Sing"),
    24: ("harrington", "n-s---fa-", "NOUN", "Case=Acc|Gender=Fem|Number=Sing"),
    # the tags of the real tokens (REAL) that the rows above do not have
    91: ("agdt", "v3sasa---", "VERB", "Aspect=Perf|Mood=Sub|Number=Sing|Person=3|Tense=Past|VerbForm=Fin|Voice=Act"),
    92: ("gorman", "a-s---mg-", "ADJ", "Case=Gen|Gender=Masc|Number=Sing"),
    93: ("pedalion", "p1s---cn-", "PRON", "Case=Nom|Gender=Fem,Masc|Number=Sing|Person=1"),
    94: ("pedalion", "m--------", "NUM", None),
    95: ("agdt", "n-s---mn-", "NOUN", "Case=Nom|Gender=Masc|Number=Sing"),
    96: ("agdt", "c--------", "ADV", None),
}
# native tag -> (published UPOS, published FEATS): the one home of these expectations
TAG = {tag: (upos, feats) for _, tag, upos, feats in NATIVE.values()}
assert len(TAG) == len(NATIVE), "one crafted token per native tag"

# Irregular source tags: (project, form, postag, is_artificial) -> (tag, tag_rule, upos)
IRREGULAR = {
    30: (("gorman", "τουτουὶ", "a-s---mg_", False), ("a-s---mg-", "underscore_as_dash", "ADJ")),
    31: (("pedalion", "κατεδουλοῦντ’", "v3piie--", False), ("v3piie---", "padded", "VERB")),
    32: (("pedalion", "καὶ", "d---------", False), ("d--------", "truncated", "ADV")),
    33: (("agdt", "λόγον", " N-S---MA- ", False), ("n-s---ma-", "trimmed+lowercased", "NOUN")),
    34: (("agdt", "ᾠήθη", "v3said---", False), (None, "unnormalizable", "X")),  # voice 'd' is no Greek code
    # v2pasm--- and v2pas-m-- are both well formed; a finite verb has no gender: v2pasm---
    35: (("pedalion", "ἀποδέξησθε", "v2pasm", False), ("v2pasm---", "padded+plausible_reading", "VERB")),
    36: (("gorman", "[0]", "undefined", True), (None, "missing", "X")),
    37: (("harrington", "·", None, False), ("u--------", "punct_from_form", "PUNCT")),
    38: (("harrington", "suspicione", "n-s---fb-", False), (None, "unnormalizable", "X")),  # Latin ablative
    39: (("gorman", "-τε", "δ--------", False), (None, "unnormalizable", "X")),
    40: (("agdt", "πολύτλας", "---------", False), (None, "missing", "X")),
    41: (("pedalion", "ἄχρις", "c", False), ("c--------", "padded", "ADV")),
    42: (("pedalion", "[0]", '""', True), (None, "missing", "X")),
    43: (("agdt", "̓", "---------", False), ("u--------", "punct_from_form", "PUNCT")),  # detached elision mark
    44: (("gorman", "τρεῖς", "a-_---___", False), ("a--------", "underscore_as_dash", "ADJ")),
}

# UD inputs: (project, form, upos, feats, xpos) -> (tag, upos, feats)
UD = {
    # UD Perseus: XPOS is the tag; the published FEATS follow it whatever the source FEATS say
    50: (("ud_perseus", "φαίνεται", "VERB", f"{FIN}|Tense=Pres|VerbForm=Fin|Voice=Mid", "v3spie---"),
         ("v3spie---", "VERB", f"Aspect=Imp|{FIN}|Tense=Pres|VerbForm=Fin|Voice=Mid,Pass")),
    51: (("ud_perseus", "παῖς", "NOUN", "Case=Nom|Gender=Masc|Number=Sing", "n-s---cn-"),
         ("n-s---cn-", "NOUN", "Case=Nom|Gender=Masc|Number=Sing")),  # source Masc finer than common
    # UD PROIEL / PTNK: tag derived from UPOS+FEATS
    52: (("ud_proiel", "τοῦ", "DET", "Case=Gen|Definite=Def|Gender=Masc,Neut|Number=Sing|PronType=Dem", "S-"),
         ("l-s----g-", "PRON", "Case=Gen|Gender=Masc,Neut|Number=Sing")),
    53: (("ud_proiel", "Κανδαύλης", "PROPN", "Case=Nom|Gender=Masc|Number=Sing", "Ne"),
         ("n-s---mn-", "NOUN", "Case=Nom|Gender=Masc|Number=Sing")),
    54: (("ud_ptnk", "ἦν", "AUX", "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin|Voice=Act", None),
         ("v3siia---", "VERB", "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin|Voice=Act")),
    55: (("ud_ptnk", "καὶ", "CCONJ", None, None), ("c--------", "ADV", None)),
    56: (("ud_ptnk", "ὁ", "DET", "Case=Nom|Definite=Def|Gender=Masc|Number=Sing|PronType=Art", None),
         ("l-s---mn-", "PRON", "Case=Nom|Gender=Masc|Number=Sing")),
    57: (("ud_proiel", "οὗτος", "DET", "Case=Nom|Gender=Masc|Number=Sing|PronType=Dem", "Pd"),
         ("p-s---mn-", "PRON", "Case=Nom|Gender=Masc|Number=Sing")),
    58: (("ud_proiel", "ἀπολωλέναι", "VERB", "Aspect=Perf|Tense=Past|VerbForm=Inf|Voice=Act", "V-"),
         ("v--ana---", "VERB", "Aspect=Perf|Tense=Past|VerbForm=Inf|Voice=Act")),
    59: (("ud_ptnk", ".", "PUNCT", None, None), ("u--------", "PUNCT", None)),
    60: (("ud_ptnk", "ὄνομα", "NOUN", "Case=Acc,Nom|Gender=Neut|Number=Sing", None),
         ("n-s---n--", "NOUN", "Gender=Neut|Number=Sing")),  # ambiguous case: no tag code, no Case
    61: (("ud_ptnk", "τεθνηκότων", "VERB",
          "Aspect=Perf|Case=Gen|Gender=Masc|Number=Plur|Tense=Pres|VerbForm=Part|Voice=Act", None),
         ("v-prpamg-", "VERB", "Aspect=Perf|Case=Gen|Gender=Masc|Number=Plur|Tense=Pres|VerbForm=Part|Voice=Act")),
    62: (("ud_ptnk", "κληθήσεται", "VERB",
          "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Fut|VerbForm=Fin|Voice=Pass", None),
         ("v3sfip---", "VERB", "Mood=Ind|Number=Sing|Person=3|Tense=Fut|VerbForm=Fin|Voice=Pass")),
    63: (("ud_proiel", "οὐ", "PART", "Polarity=Neg", "Df"), ("g--------", "ADV", None)),
    64: (("ud_proiel", "περιοπτέον", "VERB", "Case=Nom|Gender=Neut|Number=Sing|VerbForm=Gdv", "V-"),
         ("v-s-g-nn-", "VERB", "Case=Nom|Gender=Neut|Number=Sing|VerbForm=Ger")),
    65: (("ud_ptnk", "ἄνθρωπος", "NOUN", "Case=Nom|Gender=Fem,Masc|Number=Sing", None),
         ("n-s---cn-", "NOUN", "Case=Nom|Gender=Fem,Masc|Number=Sing")),
    66: (("ud_ptnk", "ϛ", "SYM", None, None), ("x--------", "X", None)),
    67: (("ud_proiel", "ἐπεί", "SCONJ", None, "G-"), ("c--------", "ADV", None)),
    # seed ud_feats_not_in_tag: third-person pronouns carry no person, as in
    # AGDT/Gorman (αὐτός p-s---mn-); first/second-person personal pronouns keep it
    68: (("ud_proiel", "αὐτός", "PRON", "Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs", "Pp"),
         ("p-s---mn-", "PRON", "Case=Nom|Gender=Masc|Number=Sing")),
    69: (("ud_proiel", "ἐγώ", "PRON", "Case=Nom|Number=Sing|Person=1|PronType=Prs", "Pp"),
         ("p1s----n-", "PRON", "Case=Nom|Number=Sing|Person=1")),
}

# lemma as written -> published lemma (NFC, homograph digits stripped, lowercased)
LEMMAS = {
    70: ("μῆνις1", "μῆνις"),
    71: ("Ἀχιλλεύς", "ἀχιλλεύς"),
    72: ("Ιουδαῖος", "ιουδαῖος"),  # plain capital iota: grc_utils.lower_grc alone leaves it upper-case
    73: (unicodedata.normalize("NFD", "λόγος"), "λόγος"),
    74: ("25", None),          # SPEC §5.1: a lemma is Greek letters; digits dropped, nothing left → NULL
    75: ("_", None),
    76: ("comma1", None),      # a Latin word has no Greek letter
    77: ("λέγω3", "λέγω"),
    # SPEC §5.1 "Lemmas"
    78: ("\u0313ἀχαιός", "ἀχαιός"),      # leading combining psili
    79: ("῞Ἕλλην", "ἕλλην"),             # leading spacing accent
    80: ("λίβιοs", "λίβιος"),            # Latin look-alike letters
    81: ("διoρίζω", "διορίζω"),
    82: ("πραινέστiος", "πραινέστιος"),
    83: ("ἀμφιπλήj", "ἀμφιπλής"),        # Beta Code j = final sigma
    84: ("κατά-ἕζομαι", "κατά-ἕζομαι"),  # compound notation keeps its one inner hyphen
    85: ("μετὰ", "μετά"),                # grave → acute
    86: ("ἄνθρωπος?", "ἄνθρωπος"),       # annotator noise
    87: ("(καὶ)", "καί"),
    88: ("~", None),
    89: ("πρό-καθίζω", "προκαθίζω"),     # seed compound_lemmas: UD PROIEL's lemma on aligned tokens
    90: ("πρὸ-καθίζω", "προκαθίζω"),
    # a lemma never starts or ends with a mark
    191: ("οὐδ’", "οὐδ"),              # an elided lemma (Gorman)
    192: ("δ\u0313", "δ"),            # AGDT's combining comma above as the elision mark
    193: ("’κεῖνος", "κεῖνος"),        # a prodelision mark in front
    194: ("ρ᾽", "ρ"),                  # a numeral's keraia
}


def _rows() -> list[tuple]:
    rows = []
    for pos, (project, postag, _, _) in NATIVE.items():
        rows.append((pos, project, "w", "w", postag, None, None, False))
    for pos, ((project, form, postag, artificial), _) in IRREGULAR.items():
        rows.append((pos, project, form, form, postag, None, None, artificial))
    for pos, ((project, form, upos, feats, xpos), _) in UD.items():
        rows.append((pos, project, form, form, xpos, upos, feats, False))
    for pos, (lemma, _) in LEMMAS.items():
        rows.append((pos, "agdt", "w", lemma, "n-s---mn-", None, None, False))
    return rows


def build_morphology(rows: list[tuple]) -> tuple[duckdb.DuckDBPyConnection, list]:
    """An in-memory DuckDB with ``int_sentences``/``int_tokens`` from ``rows``
    (token_pos, project, form, lemma, postag, upos, feats, is_artificial), the seeds, the UDFs,
    and ``int_token_morphology`` built from the real model SQL. Returns (connection, data-test
    failures of the model)."""
    con = duckdb.connect()
    con.execute("create table int_sentences (sentence_uid bigint)")
    con.execute("insert into int_sentences values (1)")
    con.execute("""create table int_tokens (sentence_uid bigint, token_pos integer, project varchar, form varchar,
                   lemma varchar, postag varchar, upos varchar, feats varchar, is_artificial boolean,
                   is_syntactic_word boolean)""")
    con.executemany("insert into int_tokens values (1, ?, ?, ?, ?, ?, ?, ?, ?, true)", rows)
    project = runner.load_project()
    runner.load_seeds(con, project)
    udfs.register(con)
    con.execute(f"create table {MODEL} as\n{runner.render(project, MODEL)}")
    return con, runner.run_tests(con, project, {MODEL})


@pytest.fixture(scope="module")
def morph():
    con, failures = build_morphology(_rows())
    yield con, failures
    con.close()


def _row(con, pos: int) -> dict:
    cur = con.execute(f"select * from {MODEL} where sentence_uid = 1 and token_pos = ?", [pos])
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    assert len(rows) == 1, f"token {pos}: {len(rows)} rows"
    return dict(zip(names, rows[0]))


def test_model_data_tests_pass_on_crafted_tokens(morph):
    con, failures = morph
    assert failures == []
    assert con.execute(f"select count(*) from {MODEL}").fetchall()[0][0] == len(_rows())


@pytest.mark.parametrize("pos", sorted(NATIVE))
def test_feats_from_native_tag(morph, pos):
    con, _ = morph
    project, postag, upos, feats = NATIVE[pos]
    r = _row(con, pos)
    assert (r["tag"], r["tag_rule"], r["feats"]) == (postag, "as_is", feats)
    assert r["upos"] == upos
    assert r["feats_full"] == feats  # native projects: the pre-merge FEATS are the published ones
    assert r["feats_source"] is None and r["upos_source"] is None


def test_issue_examples(morph):
    con, _ = morph
    assert _row(con, 14)["feats"] == "Aspect=Perf|Tense=Past|VerbForm=Inf|Voice=Act"
    expected = "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Mid,Pass"
    assert _row(con, 13)["feats"] == expected
    # ... whatever the source's own FEATS said (UD Perseus wrote Voice=Mid)
    r = _row(con, 50)
    assert r["feats"] == expected
    assert r["feats_full"] == r["feats_source"] == f"{FIN}|Tense=Pres|VerbForm=Fin|Voice=Mid"


@pytest.mark.parametrize("pos", sorted(IRREGULAR))
def test_irregular_tags(morph, pos):
    con, _ = morph
    (_, form, _, _), (tag, rule, upos) = IRREGULAR[pos]
    r = _row(con, pos)
    assert (r["tag"], r["tag_rule"], r["upos"]) == (tag, rule, upos), form
    assert r["is_punct"] == (upos == "PUNCT")
    if tag is None:
        assert r["feats"] is None


@pytest.mark.parametrize("pos", sorted(UD))
def test_ud_inputs(morph, pos):
    con, _ = morph
    (project, form, upos_src, feats_src, _), (tag, upos, feats) = UD[pos]
    r = _row(con, pos)
    expected_rule = "as_is" if project == "ud_perseus" else "derived_from_ud"
    assert (r["tag"], r["tag_rule"], r["upos"], r["feats"]) == (tag, expected_rule, upos, feats), form
    assert (r["upos_source"], r["feats_source"], r["feats_full"]) == (upos_src, feats_src, feats_src)
    assert r["is_punct"] == (upos == "PUNCT")


def test_ud_proiel_keeps_finer_gender(morph):
    con, _ = morph
    r = _row(con, 52)
    assert "Gender=Masc,Neut" in r["feats"]
    assert "PronType" not in r["feats"] and "Definite" not in r["feats"]
    assert "PronType=Dem" in r["feats_full"]


@pytest.mark.parametrize("pos", sorted(LEMMAS))
def test_lemmas(morph, pos):
    con, _ = morph
    assert _row(con, pos)["lemma"] == LEMMAS[pos][1]


def test_data_tests_catch_a_feats_string_breaking_spec_3():
    """The yml data tests can fail: Gender=Com and unsorted features are reported."""
    con, failures = build_morphology(_rows()[:3])
    assert failures == []
    con.execute(f"update {MODEL} set feats = 'Gender=Com|Case=Nom' where token_pos = 1")
    failed = {desc for _, desc, _ in runner.run_tests(con, runner.load_project(), {MODEL})}
    assert failed == {
        "expression(feats is null or not (contains(feats, 'Gender=Com') or contains(feats, 'Degree=Pos')))",
        "expression(feats is null or feats = array_to_string(list_sort(string_split(feats, '|')), '|'))",
    }


def test_data_tests_take_the_published_feature_types_from_their_seed():
    """A FEATS type outside the seed feats_published_types (SPEC §5) fails the check that reads
    the seed; the Feature=Value shape is checked apart."""
    con, _ = build_morphology(_rows()[:3])
    con.execute(f"update {MODEL} set feats = 'Case=Nom|PronType=Dem' where token_pos = 1")
    failed = {desc for _, desc, _ in runner.run_tests(con, runner.load_project(), {MODEL})}
    assert [d for d in failed if "feats_published_types" in d] == [
        "expression(feats is null or feats not in (select d.v from (select distinct feats as v from "
        "int_token_morphology) as d where exists (select 1 from unnest(string_split(d.v, '|')) as parts (part) "
        "where split_part(part, '=', 1) not in (select f.feature from feats_published_types as f))))"]
    con.execute(f"update {MODEL} set feats = 'Case=Nom|Number' where token_pos = 1")
    failed = {desc for _, desc, _ in runner.run_tests(con, runner.load_project(), {MODEL})}
    assert "expression(feats is null or regexp_full_match(feats, '[A-Za-z]+=[A-Za-z0-9,]+(\\|[A-Za-z]+=[A-Za-z0-9,]+)*'))" in failed


# seeds ----------------------------------------------------------------------------------------

def _seed(name: str) -> list[dict]:
    with (SEEDS_DIR / f"{name}.csv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_ud_upos_codes_give_the_published_upos():
    upos_of = {r["code"]: r["upos"] for r in _seed("upos_from_tag")}
    for r in _seed("ud_upos_to_tag"):
        assert upos_of[r["code"]] == r["published_upos"], r
    merged = {r["upos"]: r["published_upos"] for r in _seed("ud_upos_to_tag") if not r["condition"]}
    # SPEC §3: PROPN→NOUN, AUX→VERB, DET→PRON, PART/CCONJ/SCONJ→ADV, SYM→X
    assert {k: merged[k] for k in ("PROPN", "AUX", "DET", "PART", "CCONJ", "SCONJ", "SYM")} == {
        "PROPN": "NOUN", "AUX": "VERB", "DET": "PRON", "PART": "ADV", "CCONJ": "ADV", "SCONJ": "ADV", "SYM": "X"}


def test_ud_feats_to_tag_inverts_the_tag_table():
    """Every UD value → tag code row reads back, through agdt_tag_positions, as the same value
    (UD's gerundive VerbForm=Gdv reads back as SPEC §3's VerbForm=Ger)."""
    forward = {(r["position"], r["code"], r["feature"]): r["value"] for r in _seed("agdt_tag_positions")}
    for r in _seed("ud_feats_to_tag"):
        value = forward[(r["position"], r["code"], r["feature"])]
        assert value == ("Ger" if r["value"] == "Gdv" else r["value"]), r
    tense_codes = {r["code"] for r in _seed("agdt_tag_positions") if r["position"] == "4"}
    assert {r["code"] for r in _seed("ud_tense_aspect_to_tag")} <= tense_codes


def test_tag_table_features_are_the_published_inventory():
    published = {r["feature"] for r in _seed("feats_published_types")}
    assert published == {"Aspect", "Case", "Degree", "Gender", "Mood", "Number", "Person", "Tense", "VerbForm", "Voice"}
    assert {r["feature"] for r in _seed("agdt_tag_positions") if r["feature"]} == published


# UDF ------------------------------------------------------------------------------------------

def test_lower_grc_udf():
    con = duckdb.connect()
    udfs.register(con)
    udfs.register(con)  # idempotent
    got = con.execute("select lower_grc(s) from (values ('ΜΗΝΙΝ ἌΕΙΔΕ'), (null), ('Ῥόδος Catilina')) t(s)").fetchall()
    assert got == [("μηνιν ἄειδε",), (None,), ("ῥόδος catilina",)]
    assert con.execute("select nfc(?)", [unicodedata.normalize("NFD", "ά")]).fetchall() == [("ά",)]
    assert udfs.lower_grc_array(pa.chunked_array([["Ἀ", None]])).to_pylist() == ["ἀ", None]


# Greek and Coptic, Greek Extended, combining diacritics, Latin, digits, punctuation
_TEXT = st.text(st.characters(codec="utf-8", categories=["L", "M", "N", "P", "Z"],
                              include_characters="ΣΙΡΑΩἈᾼ῾᾽'’"), max_size=30)


@given(_TEXT)
def test_lower_grc_is_grc_utils_then_completed(s):
    """The UDF equals grc_utils.lower_grc wherever that leaves nothing upper-case, and never
    leaves an upper-case character (seed 000 "Lowercase throughout")."""
    def has_lowercase_form(ch):  # e.g. U+1D400 MATHEMATICAL BOLD CAPITAL A is upper but has none
        return ch.isupper() and ch.lower() != ch

    ours = udfs.lower_grc(s)
    theirs = grc_utils.lower_grc(s)
    if not any(has_lowercase_form(ch) for ch in theirs):
        assert ours == theirs
    assert not any(has_lowercase_form(ch) for ch in ours)
    assert udfs.lower_grc_array(pa.array([s])).to_pylist() == [ours]



@given(st.lists(st.one_of(st.none(), _TEXT, st.sampled_from(["καὶ", "ὰ", "ᾲ", "α\u0300", "ἂν", "λόγος"])), max_size=20))
def test_grave_to_acute_udf_is_greek_normalisation(values):
    """The UDF (which skips the library's loop for strings without a grave) equals
    greek_normalisation.utils.grave_to_acute on every value, repeats and nulls included."""
    got = udfs.grave_to_acute_array(pa.array(values + values, type=pa.string())).to_pylist()
    assert got == [None if v is None else greek_normalisation.utils.grave_to_acute(v) for v in values + values]

# real sources ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_morphology(request):
    """``int_token_morphology`` over the real sources: built from the int_tokens of an existing
    warehouse named by ``SPHRAGIS_TEST_WAREHOUSE`` (development aid), else the session's real
    build (skips when ../shared/sources is absent)."""
    con = dev_warehouse_tables("int_tokens", "int_sentences")
    if con is None:
        yield request.getfixturevalue("real_warehouse")
        return
    project = runner.load_project()
    runner.load_seeds(con, project)
    udfs.register(con)
    con.execute(f"create table {MODEL} as\n{runner.render(project, MODEL)}")
    yield con
    con.close()


ILIAD_1 = ("agdt", "tlg0012.tlg001.perseus-grc1_1.tb.xml")  # (project, file_name)
PEDALION_ACHAR = ("pedalion", "achar.xml")


def _expected(form: str, tag: str, lemma: str, upos_feats: tuple | None = None) -> tuple:
    """(form, tag, upos, feats, lemma) of a real token: the UPOS and FEATS of its tag (TAG, the
    crafted native tokens' expectations) unless ``upos_feats`` gives them (a UD token whose FEATS
    are finer than its tag)."""
    return (form, tag, *(upos_feats or TAG[tag]), lemma)


# (project, file_name, sentence_pos, token_pos) -> (form, tag, upos, feats, lemma)
REAL = {
    # Iliad 1 (AGDT 2.1 v1.6 Homer): one token per tense, mood, voice and non-finite form
    (*ILIAD_1, 1, 1): _expected("μῆνιν", "n-s---fa-", "μῆνις"),
    (*ILIAD_1, 1, 2): _expected("ἄειδε", "v2spma---", "ἀείδω"),
    (*ILIAD_1, 1, 25): _expected("τεῦχε", "v3siia---", "τεύχω"),
    (*ILIAD_1, 1, 12): _expected("ἔθηκε", "v3saia---", "τίθημι"),
    (*ILIAD_1, 59, 16): _expected("ἔοικε", "v3sria---", "ἔοικα"),
    (*ILIAD_1, 33, 11): _expected("ᾔδη", "v3slia---", "οἶδα"),
    (*ILIAD_1, 30, 20): _expected("δαμᾷ", "v3sfia---", "δαμάζω"),
    (*ILIAD_1, 72, 4): _expected("κεχολώσεται", "v3stie---", "χολόω"),
    (*ILIAD_1, 12, 5): _expected("ἔπεισιν", "v3spia---", "ἔπειμι"),
    (*ILIAD_1, 10, 21): _expected("χραίσμῃ", "v3sasa---", "χραισμέω"),
    (*ILIAD_1, 31, 23): _expected("εἴποι", "v3saoa---", "εἶπον"),
    (*ILIAD_1, 261, 5): _expected("κάη", "v3saip---", "καίω"),
    (*ILIAD_1, 23, 4): _expected("γένετ᾽", "v3saim---", "γίγνομαι"),
    (*ILIAD_1, 22, 1): _expected("ἕζετ᾽", "v3spie---", "ἕζομαι"),
    (*ILIAD_1, 6, 15): _expected("ἐκπέρσαι", "v--ana---", "ἐκπέρθω"),
    (*ILIAD_1, 16, 5): _expected("κιὼν", "v-sapamn-", "κίω"),
    # Pedalion: gerundive, Pedalion's POS code b, common gender, a padded tag
    (*PEDALION_ACHAR, 175, 1): _expected("διωκτέος", "v-s-g-mn-", "διώκω"),
    (*PEDALION_ACHAR, 1, 9): _expected("δὲ", "b--------", "δέ"),
    (*PEDALION_ACHAR, 4, 1): _expected("ἐγώ-", "p1s---cn-", "ἐγώ"),
    (*PEDALION_ACHAR, 110, 5): _expected("ὀκτὼ", "m--------", "ὀκτώ"),
    # Gorman: '_' placeholder in the degree position
    ("gorman", "Aeschines 1 1-50 bu1.xml", 1, 40): _expected("τουτουὶ", "a-s---mg-", "οὗτος"),
    # Harrington
    ("harrington", "grctb.2556.1.tb.xml", 1, 2): _expected("ἦν", "v3siia---", "εἰμί"),
    # UD Perseus: source Voice=Mid, tag e -> Mid,Pass
    ("ud_perseus", "grc_perseus-ud-dev.conllu", 7, 6): _expected("φαίνεται", "v3spie---", "φαίνω"),
    # UD PROIEL: the article with Gender=Masc,Neut; PROPN -> NOUN; perfect infinitive (read as aorist)
    ("ud_proiel", "grc_proiel-ud-dev.conllu", 6, 6):
        _expected("τοῦ", "l-s----g-", "ὁ", ("PRON", "Case=Gen|Gender=Masc,Neut|Number=Sing")),
    ("ud_proiel", "grc_proiel-ud-dev.conllu", 2, 3): _expected("Κανδαύλης", "n-s---mn-", "κανδαύλης"),
    # UD PTNK (Genesis 1): aorist, AUX -> VERB, CCONJ -> ADV
    ("ud_ptnk", "grc_ptnk-ud-dev.conllu", 1, 3): _expected("ἐποίησεν", "v3saia---", "ποιέω"),
    ("ud_ptnk", "grc_ptnk-ud-dev.conllu", 2, 4): _expected("ἦν", "v3siia---", "εἰμί"),
    ("ud_ptnk", "grc_ptnk-ud-dev.conllu", 1, 8): _expected("καὶ", "c--------", "καί"),
}


@pytest.mark.integration
@pytest.mark.parametrize("key", sorted(REAL), ids=lambda k: f"{k[0]}:{k[2]}.{k[3]}")
def test_real_tokens(real_morphology, key):
    project, file_name, sentence_pos, token_pos = key
    got = real_morphology.execute(
        f"""select t.form, m.tag, m.upos, m.feats, m.lemma
            from {MODEL} as m
            inner join int_tokens as t using (sentence_uid, token_pos)
            inner join int_sentences as s using (sentence_uid)
            where s.project = ? and s.file_name = ? and s.sentence_pos = ? and m.token_pos = ?""",
        [project, file_name, sentence_pos, token_pos]).fetchall()
    assert got == [REAL[key]]


@pytest.mark.integration
def test_real_unnormalizable_tags_are_few_and_named(real_morphology):
    """Every source tag left empty is listed here; a new one in the sources must be looked at."""
    got = dict(real_morphology.execute(
        f"select project, count(*) from {MODEL} where tag_rule = 'unnormalizable' group by 1").fetchall())
    # Harrington's Latin ablatives (case b) and Latin deponent voice d, AGDT/Perseus voice d,
    # two swapped tense/mood tags of Pedalion (its v2pasm has one plausible reading, SPEC §3), and
    # the Latin ablatives of UNESP's five files of Justin (n-s---fb-, ...)
    assert got == {"agdt": 9, "gorman": 3, "harrington": 96, "pedalion": 2, "ud_perseus": 3, "unesp": 453}
