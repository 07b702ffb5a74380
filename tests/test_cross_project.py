"""SPEC §5.1 "Project-neutral strings": the form rules of ``int_token_forms``, the
split-word merge of ``int_split_words`` and the trees, the lemma rules, the §5.1 invariant in the
export validator (on known examples and on hostile strings from hypothesis), and on the real
sources: known sentences published with exactly the strings AGDT and UD Perseus write, and
the cross-project identity mart."""

from __future__ import annotations

import unicodedata

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphragis import runner, udfs
from sphragis.export.conllu_units import check_invariants, string_problem

# source form -> published form (int_token_forms), SPEC §5.1; None = removed (no letter left)
FORMS = {
    "δὲ": "δέ",                                   # one accent convention: grave → acute
    "Καὶ": "καί",
    "[ἕκτος": "ἕκτος",                            # editorial marks (AGDT Aeschylus, Hesiod, Sophocles)
    "[καὶ]": "καί",
    "πα[τὴρ": "πατήρ",
    "δεσμὸ]ν": "δεσμόν",
    "⟨τὸν⟩": "τόν",
    "†ἔχει†": "ἔχει",
    "περιεβα...": "περιεβα",                      # Polybius
    "g": None,                                    # lacuna placeholders (Menander, Aristophanes)
    "g?": None,
    "20": None,                                   # a citation number
    "ἦv": "ἦν",                                   # Latin v inside a Greek word (Gorman)
    "λόγοs": "λόγος",                             # Latin s word-finally → final sigma
    "ου\u0313": "οὐ",                             # a breathing, not an elision mark
    "ἀλλ᾽": "ἀλλ’",
    "'κείνῳ": "’κείνῳ",                           # prodelision: word-initial apostrophe
    "\u02bcκείνῳ": "’κείνῳ",
    "εἴκοσι καὶ": "εἴκοσικαί",                    # no published form contains whitespace
    "παῤ": "παρ’",
    "εἰ": "εἰ",
    "\u0300ἀχαιῶν": "ἀχαιῶν",                    # a combining mark without a base letter
}


FORM_MODELS = ("int_source_lexicon", "int_split_words", "int_token_forms")


def _forms_db(rows: list[tuple]) -> duckdb.DuckDBPyConnection:
    """In-memory DuckDB with int_tokens from ``rows`` (token_pos, project, src_id, form, head_num,
    is_multiword), an int_token_morphology marking letterless forms as punctuation, the seeds, the
    UDFs, and int_split_words + int_token_forms built from the real model SQL."""
    con = duckdb.connect()
    con.execute("""create table int_tokens (sentence_uid bigint, token_pos integer, project varchar,
                   src_id varchar, token_num integer, form varchar, head_num integer, is_artificial boolean,
                   is_multiword boolean, is_syntactic_word boolean)""")
    con.executemany("insert into int_tokens values (1, ?, ?, ?, try_cast(? as integer), ?, ?, false, ?, not ?)",
                    [(p, pr, s, s, f, h, m, m) for p, pr, s, f, h, m in rows])
    con.execute("""create table int_token_morphology as select sentence_uid, token_pos,
                   not regexp_matches(form, '[\\p{L}\\p{N}]') as is_punct, null::varchar as lemma,
                   null::varchar as tag from int_tokens where is_syntactic_word""")
    project = runner.load_project()
    runner.load_seeds(con, project)
    udfs.register(con)
    for model in FORM_MODELS:
        con.execute(f"create table {model} as\n{runner.render(project, model)}")
    failures = runner.run_tests(con, project, set(FORM_MODELS))
    assert failures == []
    return con


@pytest.fixture(scope="module")
def forms():
    rows = [(i, "agdt", str(i), f, 0, False) for i, f in enumerate(FORMS, start=1)]
    con = _forms_db(rows)
    yield con
    con.close()


def test_form_rules(forms):
    got = dict(forms.execute("""select t.form, case when f.has_letter then f.form end
        from int_token_forms f join int_tokens t using (sentence_uid, token_pos)""").fetchall())
    assert got == FORMS


def test_form_rule_flags(forms):
    flags = {r[0]: r[1:] for r in forms.execute("""select t.form, f.editorial_marks_removed,
        f.latin_letters_mapped, f.grave_to_acute, f.elision_unified from int_token_forms f
        join int_tokens t using (sentence_uid, token_pos)""").fetchall()}
    assert flags["[καὶ]"] == (True, False, True, False)
    assert flags["ἦv"] == (False, True, False, False)
    assert flags["'κείνῳ"] == (False, False, False, True)
    assert flags["ου\u0313"] == (False, False, False, False)


# split words: (token_pos, project, src_id, form, head, is_multiword)
SPLIT = [
    # Gorman-style hyphen pieces: ἐμοὶ κ- ἀκείνῳ ; οὔ -τε (τε hangs from οὔ) ; οὐ -δὲ
    (1, "gorman", "1", "ἐμοὶ", 0, False),
    (2, "gorman", "2", "κ-", 1, False),
    (3, "gorman", "3", "ἀκείνῳ", 1, False),
    (4, "gorman", "4", "οὔ", 1, False),
    (5, "gorman", "5", "-τε", 4, False),
    (6, "gorman", "6", "οὐ", 1, False),
    (7, "gorman", "7", "-δὲ", 6, False),
    # οὔτε and οὐδὲ are words a source writes unsplit (κἀκείνῳ is in seed crasis_forms)
    (8, "agdt", "8", "οὔτε", 1, False),
    (9, "agdt", "9", "οὐδὲ", 1, False),
]
# PTNK Septuagint-Genesis-20:6 (…καθ’ ὕπνον κἀγὼ ἔγνων…): 9-10 κἀγὼ = καί (cc → 11) + ἐγώ (nsubj → 11)
PTNK = [
    (1, "ud_ptnk", "9-10", "κἀγὼ", None, True),
    (2, "ud_ptnk", "9", "καί", 11, False),
    (3, "ud_ptnk", "10", "ἐγώ", 11, False),
    (4, "ud_ptnk", "11", "ἔγνων", 0, False),
]


def test_split_words_take_the_surface_and_the_heading_piece():
    con = _forms_db(SPLIT)
    got = con.execute("""select src_id, is_survivor, surface, piece_src_ids from int_split_words
                         order by token_pos""").fetchall()
    assert got == [("2", False, "κἀκείνῳ", "2+3"), ("3", True, "κἀκείνῳ", "2+3"),
                   ("4", True, "οὔτε", "4+5"), ("5", False, "οὔτε", "4+5"),
                   ("6", True, "οὐδὲ", "6+7"), ("7", False, "οὐδὲ", "6+7")]
    forms = con.execute("""select form from int_token_forms where not is_absorbed_piece
                           order by token_pos""").fetchall()
    assert [f for (f,) in forms] == ["ἐμοί", "κἀκείνῳ", "οὔτε", "οὐδέ", "οὔτε", "οὐδέ"]


def test_multiword_token_keeps_its_surface_form():
    con = _forms_db(PTNK)
    # neither piece heads the other: the non-clitic piece (the crasis host ἐγώ) survives
    assert con.execute("select src_id from int_split_words where is_survivor").fetchall() == [("10",)]
    assert con.execute("""select form from int_token_forms where not is_absorbed_piece
                          order by token_pos""").fetchall() == [("κἀγώ",), ("ἔγνων",)]


# SPEC §5.1 invariant in the export validator ----------------------------------------------------
BAD_FORMS = ["οὔ", "-τε", "κ-", "[ἕκτος", "ἦv", "g", "g?", "στασινυς ξψπρια φρ 20", "δὲ", "\u0313ἀχαιός", "περιεβα..."]


@pytest.mark.parametrize("form", BAD_FORMS[1:])
def test_invariant_rejects_the_issue_examples(form):
    assert string_problem(unicodedata.normalize("NFC", form)) is not None


@pytest.mark.parametrize("lemma,ok", [("κατά-ἕζομαι", True), ("ἐν-εἰμί", True), ("κατά-ἐν-εἰμί", False),
                                       ("-τε", False), ("λίβιοs", False), ("῞ἕλλην", False), ("ἀχαιός", True),
                                       ("μῆνις1", False), ("ἀλλ’", True)])
def test_invariant_on_lemmas(lemma, ok):
    assert (string_problem(lemma, lemma=True) is None) is ok


def test_validator_names_the_breaking_token():
    unit = [[{"id": 1, "form": "οὔ", "lemma": "οὐ", "upos": "ADV", "feats": None, "head": 0, "deprel": "root"},
             {"id": 2, "form": "-τε", "lemma": "τε", "upos": "ADV", "feats": None, "head": 1, "deprel": "advmod"}]]
    problem = check_invariants(unit, "οὔ -τε")
    assert problem is not None and problem.startswith("token 2: form") and "U+002D" in problem


GREEK = st.characters(min_codepoint=0x3B1, max_codepoint=0x3C9) | st.sampled_from("ἀἁάὰᾶῳϊ")
HOSTILE = st.sampled_from(list("-[]()<>{}⟨⟩†*….?0123456789 \t'ʼ᾽᾿avsjkoXg\u0300\u0313\u0301,;·"))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(GREEK | HOSTILE, min_size=1, max_size=12).map("".join), min_size=1, max_size=100))
def test_published_forms_of_hostile_strings_keep_the_invariant(strings):
    """Whatever a source writes, int_token_forms publishes a form that passes the validator's
    §5.1 check, or removes the token (no Greek letter left). Each example is a batch of strings
    (one token each) so that the model SQL runs once per batch."""
    con = _HOSTILE_DB
    con.execute("delete from int_tokens")
    con.executemany("insert into int_tokens values (1, ?, 'agdt', ?, ?, ?, 0, false, false, true)",
                    [(i, str(i), i, s) for i, s in enumerate(strings, start=1)])
    con.execute("create or replace table int_token_morphology as select sentence_uid, token_pos, false as is_punct, "
                "null::varchar as lemma, null::varchar as tag from int_tokens")
    for model, sql in _SQL.items():
        con.execute(f"create or replace table {model} as\n{sql}")
    rows = con.execute("""select t.form, f.form, f.has_letter from int_token_forms f
                          join int_tokens t using (sentence_uid, token_pos)""").fetchall()
    assert len(rows) == len(strings)
    for source, form, has_letter in rows:
        if has_letter:
            assert string_problem(form) is None, (source, form)
            assert form == unicodedata.normalize("NFC", form)
        else:
            assert not any(unicodedata.category(c).startswith("L") and unicodedata.name(c, "").startswith("GREEK")
                           for c in unicodedata.normalize("NFC", source)), (source, form)


_PROJECT = runner.load_project()
_SQL = {m: runner.render(_PROJECT, m) for m in FORM_MODELS}
_HOSTILE_DB = duckdb.connect()
_HOSTILE_DB.execute("""create table int_tokens (sentence_uid bigint, token_pos integer, project varchar,
                   src_id varchar, token_num integer, form varchar, head_num integer, is_artificial boolean,
                   is_multiword boolean, is_syntactic_word boolean)""")
runner.load_seeds(_HOSTILE_DB, _PROJECT)
udfs.register(_HOSTILE_DB)


# the real sources -------------------------------------------------------------------------------
def _text(con, project: str, where: str, params: list) -> str:
    rows = con.execute(f"""select u.text from int_units u join int_sentences s using (sentence_uid)
                           where s.project = ? and {where}""", [project, *params]).fetchall()
    assert len(rows) == 1, rows
    return rows[0][0]


@pytest.mark.integration
def test_thucydides_1_3_3_is_one_word_in_gorman_as_in_agdt(real_warehouse):
    """Gorman `thuc 1 1-20` sentence 15 (Thuc. 1.3.3) writes `οὐ` + `-δ’`; AGDT writes `οὐδ’`."""
    gorman = _text(real_warehouse, "gorman", "s.file_name = ? and s.sentence_pos = 15", ["thuc 1 1-20 bu5.xml"])
    assert gorman == ("πολλῷ γάρ ὕστερον ἔτι καί τῶν τρωικῶν γενόμενος οὐδαμοῦ τούς ξύμπαντας ὠνόμασεν οὐδ’ "
                      "ἄλλους ἤ τούς μετ’ ἀχιλλέως ἐκ τῆς φθιώτιδος οἵπερ καί πρῶτοι ἕλληνες ἦσαν δαναούς δέ ἐν "
                      "τοῖς ἔπεσι καί ἀργείους καί ἀχαιούς ἀνακαλεῖ")
    # AGDT's record of the same sentence publishes the same text
    same = real_warehouse.execute("""select p.text_identical from mart_cross_project_pairs p
        join int_units g on g.sentence_uid = p.sentence_uid_b
        where p.project_a = 'agdt' and p.project_b = 'gorman' and g.text = ?""", [gorman]).fetchall()
    assert same == [(True,)]
    # the word keeps the annotation of οὐ (it heads -δ’) and native_syntax names both source ids
    tok = real_warehouse.execute("""select t.i, t.form, t.lemma, t.upos, t.repair, t.src from int_published_tokens t
        join int_sentences s using (sentence_uid)
        where s.project = 'gorman' and s.file_name = 'thuc 1 1-20 bu5.xml' and s.sentence_pos = 15
          and t.form = 'οὐδ’'""").fetchall()
    assert tok == [(13, "οὐδ’", "οὐ", "ADV", "split_word:14+15", "14")]


@pytest.mark.integration
def test_ptnk_multiword_token_keeps_its_surface(real_warehouse):
    """UD PTNK Septuagint-Genesis-20:6: the multiword token `κἀγὼ` (καί + ἐγώ) is published as one word."""
    text = _text(real_warehouse, "ud_ptnk", "s.upstream_sentence_id = ?", ["Septuagint-Genesis-20:6-grc"])
    assert text.startswith("εἶπεν δέ αὐτῷ ὁ θεός καθ’ ὕπνον κἀγώ ἔγνων ὅτι ")
    assert "καί ἐγώ" not in text


@pytest.mark.integration
def test_pedalion_grave_and_acute_give_one_text(real_warehouse):
    """Pedalion writes `ὁ δέ εἶπεν`, the other editions `ὁ δὲ εἶπεν`: one published text."""
    texts = {t for (t,) in real_warehouse.execute("""select u.text from int_units u where u.dedup_key = 'οδεειπεν'""").fetchall()}
    assert texts == {"ὁ δέ εἶπεν"}


@pytest.mark.integration
def test_published_strings_keep_the_invariant(real_warehouse):
    bad = real_warehouse.execute("""select form, lemma from int_published_tokens
        where starts_with(form, '-') or ends_with(form, '-') or regexp_matches(form, '[\\s\\[\\]()<>{}†*…]')
           or regexp_matches(form, '[A-Za-z0-9]')
        limit 5""").fetchall()
    assert bad == []
    # no grave accent (U+0300) in any published form or lemma, precomposed or combining
    strings = real_warehouse.execute("""select distinct form from int_published_tokens
        union select distinct lemma from int_published_tokens where lemma is not null""").fetchall()
    assert len(strings) > 100_000
    assert [s for (s,) in strings if "\u0300" in unicodedata.normalize("NFD", s)] == []
    assert real_warehouse.execute("select count(*) from int_published_tokens where form = 'ου’'").fetchone()[0] == 0


@pytest.mark.integration
def test_cross_project_text_identity_reaches_the_target(real_warehouse):
    """SPEC §5.1 target: ≥ 99 % of the retained cross-project pairs have identical text."""
    n, agree, pct = real_warehouse.execute("""select n, n_agree, pct_agree from mart_cross_project_agreement
        where scope = 'retained' and project_pair = 'all' and field = 'text'""").fetchone()
    assert n > 15000 and pct >= 99.0
