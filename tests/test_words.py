"""Every published word is a Greek word (SPEC §5.1): crasis from the checked-in table
(never glued), a split word without an entry kept as its longer piece, elision and prodelision
marks written as tokens of their own attached to their word (and quotation marks told apart),
Greek numerals in one published form, and on the real build known sentences of each class.

The crafted tests run the real model SQL (int_source_lexicon, int_split_words, int_token_forms,
rendered by ``sphragis.runner``, their data tests included) over hand-made ``int_tokens`` and
``int_token_morphology`` rows; the tree side (a mark's dependents) is in tests/test_trees.py."""

from __future__ import annotations

import duckdb
import pytest

from sphragis import runner, udfs

MODELS = ("int_source_lexicon", "int_split_words", "int_token_forms")


def _db(sentences: dict[int, list[tuple]]) -> duckdb.DuckDBPyConnection:
    """Build MODELS over ``sentences``: sentence_uid -> rows ``(project, src_id, form, tag, lemma)``
    (a tag starting with ``u`` marks punctuation, as int_token_morphology does)."""
    con = duckdb.connect()
    con.execute("""create table int_tokens (sentence_uid bigint, token_pos integer, project varchar,
                   src_id varchar, token_num integer, form varchar, head_num integer, is_artificial boolean,
                   is_multiword boolean, is_syntactic_word boolean)""")
    con.execute("""create table int_token_morphology (sentence_uid bigint, token_pos integer, is_punct boolean,
                   lemma varchar, tag varchar)""")
    for uid, rows in sentences.items():
        for pos, (project, src, form, tag, lemma) in enumerate(rows, start=1):
            con.execute("insert into int_tokens values (?, ?, ?, ?, ?, ?, 0, false, false, true)",
                        [uid, pos, project, src, pos, form])
            con.execute("insert into int_token_morphology values (?, ?, ?, ?, ?)",
                        [uid, pos, tag.startswith("u"), lemma, tag])
    project = runner.load_project()
    runner.load_seeds(con, project)
    udfs.register(con)
    for model in MODELS:
        con.execute(f"create table {model} as\n{runner.render(project, model)}")
    assert runner.run_tests(con, project, set(MODELS)) == []
    return con


def _published(con, uid: int) -> list[str]:
    """The forms sentence ``uid`` publishes (absorbed pieces and letterless tokens left out)."""
    return [f for (f,) in con.execute("""select form from int_token_forms
        where sentence_uid = ? and has_letter and not is_absorbed_piece order by token_pos""", [uid]).fetchall()]


def _word(con, uid: int) -> list[tuple]:
    """(resolution, merge_repair, merges_dependents) of the surviving pieces of sentence ``uid``."""
    return con.execute("""select resolution, merge_repair, merges_dependents from int_split_words
        where sentence_uid = ? and is_survivor order by token_pos""", [uid]).fetchall()


def g(src, form, tag="n--------", lemma=None):  # a Gorman token
    return ("gorman", str(src), form, tag, lemma)


def a(src, form, tag="n--------", lemma=None):  # an AGDT token
    return ("agdt", str(src), form, tag, lemma)


# crasis and split words -------------------------------------------------------------------------
SPLIT = {
    # Gorman writes τὰ ἐναντία as `τ-` + `ἐναντία`: the crasis table's τἀναντία, not τἐναντία
    1: [g(1, "λέγει", "v3spia---"), g(2, "τ-", "l-p---na-"), g(3, "ἐναντία", "a-p---na-")],
    # ὁ ἐμός: οὑμός (the table), never the two-breathing ὁἐμός
    2: [g(1, "ὁ-", "l-s---mn-"), g(2, "ἐμὸς", "a-s---mn-"), g(3, "πατήρ")],
    # an enclitic whose concatenation a source writes unsplit (sentence 9): the source's surface
    3: [g(1, "οὔ", "d--------"), g(2, "-τε", "c--------")],
    # no entry, and no source writes λυπεῖντε or τταὔτ’: the longer piece stays, the other goes
    4: [a(1, "λυπεῖν", "v--pna---"), a(2, "-τε", "c--------")],
    5: [g(1, "τ-", "l-p---na-"), g(2, "ταὔτʼ", "p-p---na-")],
    9: [a(1, "οὔτε", "c--------")],
}


@pytest.fixture(scope="module")
def split():
    con = _db(SPLIT)
    yield con
    con.close()


def test_crasis_comes_from_the_table(split):
    assert _published(split, 1) == ["λέγει", "τἀναντία"]
    assert _published(split, 2) == ["οὑμός", "πατήρ"]
    assert _word(split, 1) == [("crasis_table", "split_word:2+3", True)]


def test_concatenation_a_source_writes_is_the_surface(split):
    assert _published(split, 3) == ["οὔτε"]
    assert _word(split, 3) == [("source_surface", "split_word:1+2", True)]


def test_split_word_without_entry_is_never_glued(split):
    assert _published(split, 4) == ["λυπεῖν"]
    assert _published(split, 5) == ["ταὔτ’"]
    assert _word(split, 4) == [("longer_piece", "split_word:1+2:no_crasis_entry_longer_piece_kept", False)]
    # the dropped piece is removed (absorbed), its dependents re-attach like punctuation's
    assert split.execute("""select form, is_absorbed_piece from int_token_forms
                            where sentence_uid = 5 order by token_pos""").fetchall() == [("τ", True), ("ταὔτ’", False)]


# elision and prodelision marks, quotation marks ---------------------------------------------------
PUNCT = "u--------"
MARKS = {
    # Gorman `ἀλλ` + `᾽`: a word ending in λ is elided: ἀλλ’
    10: [g(1, "ἀλλ", "c--------"), g(2, "᾽", PUNCT), g(3, "ἔφη", "v3siia---")],
    # Gorman `οἷ` + `᾽` (Ar. Ach.): οἷ’ is a word a source writes (sentence 19)
    11: [g(1, "οἷ", "p-p---na-"), g(2, "᾽", PUNCT), g(3, "ἀγορεύεις", "v2spia---")],
    # AGDT Sophocles: a bare combining psili before `κ` (ἐκ lost its vowel): ’κ
    12: [a(1, "μὴ", "d--------", "μή"), a(2, "\u0313", "---------"), a(3, "κ", "r--------", "ἐκ"),
         a(4, "θεοῦ", "n-s---mg-", "θεός")],
    # Gorman `ὦ` + `'` + `γαθοί` (ἀγαθοί): ὦ ’γαθοί
    13: [g(1, "ὦ", "i--------", "ὦ"), g(2, "'", PUNCT), g(3, "γαθοί", "a-p---mv-", "ἀγαθός")],
    # AGDT Aeschylus: the augment ἐ- of a past indicative lost after ἐγώ: ’τίμησα
    18: [a(1, "ἐγὼ", "p1s---mn-", "ἐγώ"), a(2, "\u0313", "---------"), a(3, "τίμησα", "v1saia---", "τιμάω")],
    # quotation marks (Harrington): after a word ending in ς; before the article (τ-, not a lost
    # vowel); before a word whose lemma starts with a consonant
    14: [("harrington", "1", "εἶπας", "v2saia---", "λέγω"), ("harrington", "2", "'", PUNCT, None),
         ("harrington", "3", "παράθες", "v2sama---", "παρατίθημι")],
    15: [("harrington", "1", "μὴ", "d--------", "μή"), ("harrington", "2", "'", PUNCT, None),
         ("harrington", "3", "τῇ", "l-s---fd-", "ὁ")],
    16: [("harrington", "1", "ὅτι", "c--------", "ὅτι"), ("harrington", "2", "'", PUNCT, None),
         ("harrington", "3", "δὸς", "v2sama---", "δίδωμι")],
    # a quotation mark next to an elided word: the word already carries its own mark (before it and
    # after it), and the word after the closing quote keeps its breathing
    17: [g(1, "'", PUNCT), g(2, "ἀλλ᾽", "c--------", "ἀλλά"), g(3, "'", PUNCT), g(4, "ἔφη", "v3siia---", "φημί")],
    # AGDT Homer's quotation mark ᾽ before a word-initial diphthong (breathing on its second letter),
    # and at the start of a sentence before an unaugmented past indicative
    22: [a(1, "μοι", "p1s---md-", "ἐγώ"), a(2, "᾽", PUNCT), a(3, "αὐτὴ", "p-s---fn-", "αὐτός")],
    23: [a(1, "᾽", PUNCT), a(2, "φάσθε", "v2piim---", "φημί"), a(3, "νύ", "d--------", "νυ")],
    # Pedalion: a mark after a short vowel before a past indicative with its augment inside
    24: [("pedalion", "1", "δικτάτωρι", "n-s---md-", "δικτάτωρ"), ("pedalion", "2", "\u0313", "u--------", None),
         ("pedalion", "3", "κατέλιπεν", "v3saia---", "καταλείπω")],
    19: [g(1, "οἷ’", "p-p---na-")],
}


@pytest.fixture(scope="module")
def marks():
    con = _db(MARKS)
    yield con
    con.close()


def test_elision_mark_joins_the_word_before(marks):
    assert _published(marks, 10) == ["ἀλλ’", "ἔφη"]
    assert _published(marks, 11) == ["οἷ’", "ἀγορεύεις"]
    assert _word(marks, 10) == [("elision_mark", "split_word:1+2:elision_mark_attached", True)]


def test_prodelision_mark_joins_the_word_after(marks):
    assert _published(marks, 12) == ["μή", "’κ", "θεοῦ"]
    assert _published(marks, 13) == ["ὦ", "’γαθοί"]
    assert _published(marks, 18) == ["ἐγώ", "’τίμησα"]
    assert _word(marks, 12) == [("prodelision_mark", "split_word:2+3:prodelision_mark_attached", True)]


@pytest.mark.parametrize("uid", [14, 15, 16, 17, 22, 23, 24])
def test_quotation_marks_stay_punctuation(marks, uid):
    assert _word(marks, uid) == []
    assert len(_published(marks, uid)) == sum(1 for r in MARKS[uid] if not r[3].startswith("u"))


def test_quotation_mark_next_to_an_elided_word(marks):
    assert _published(marks, 17) == ["ἀλλ’", "ἔφη"]


# numerals ---------------------------------------------------------------------------------------
NUMERALS = {
    # keraia as the spacing koronis (Gorman), a psili on ρ (AGDT, UD Perseus), a psili on a second
    # vowel that is no diphthong (Harrington ΟἘ᾽: 75), U+0374 / U+02B9 whatever the tag (Pedalion)
    20: [g(1, "ρ᾽", "m--------"), a(2, "ῤ", "m--------"), ("harrington", "3", "ΟἘ᾽", "m-p---ng-", None),
         ("pedalion", "4", "ηʹ", "a--------", None), ("pedalion", "5", "ι\u0374", "x--------", None),
         # an elided numeral word keeps its accent and is no letter numeral
         a(6, "δύ᾽", "m--------"), a(7, "εἰ", "c--------")],
}


def test_crasis_coronis_is_no_elision_mark():
    """A psili on the one long vowel or diphthong after the consonants of a one-syllable word is a
    crasis coronis (AGDT κοὐ, κεἰ, χὠ: lexicon check `κου’`, `κει’`, `χω’`); δἰ stays elided."""
    con = _db({21: [a(1, "κοὐ", "d--------"), a(2, "κεἰ", "c--------"), a(3, "χὠ", "c--------"),
                    a(4, "ἀ", "n--------"), a(5, "δἰ", "r--------"), a(6, "ιἀ", "a--------")]})
    # a lone letter with psili is a numeral (AGDT ἀ, Gorman α᾽), whatever its tag; so are two letters
    # that are no diphthong with a psili on the second (AGDT ιἀ, tagged an adjective: the numeral 11)
    assert _published(con, 21) == ["κοὐ", "κεἰ", "χὠ", "α’", "δι’", "ια’"]


def test_numerals_have_one_published_form():
    con = _db(NUMERALS)
    assert _published(con, 20) == ["ρ’", "ρ’", "οε’", "η’", "ι’", "δύ’", "εἰ"]
    flags = [f for (f,) in con.execute("""select numeral_keraia_unified from int_token_forms
                                          order by token_pos""").fetchall()]
    assert flags == [True, True, True, True, True, False, False]


# the real build ---------------------------------------------------------------------------------
def _text(con, project: str, file_name: str, sentence_pos: int) -> str:
    rows = con.execute("""select u.text from int_units u join int_sentences s using (sentence_uid)
                          where s.project = ? and s.file_name = ? and s.sentence_pos = ?""",
                       [project, file_name, sentence_pos]).fetchall()
    assert len(rows) == 1, rows
    return rows[0][0]


@pytest.mark.integration
def test_prodelision_is_published_as_pedalion_writes_it(real_warehouse):
    """AGDT Sophocles (Phil. 1) writes the prodelision of ἐξεγερεῖς as a token holding a bare
    combining psili before `ξεγερεῖς`; Pedalion writes `’ξεγερεῖς`: one text, and the tree lost
    the mark token (native_syntax names both source ids)."""
    text = ("οὐ μή ’ξεγερεῖς τόν ὕπνῳ κάτοχον κἀκκινήσεις κἀναστήσεις φοιτάδα δεινήν νόσον ὦ τέκνον")
    assert _text(real_warehouse, "agdt", "tlg0011.tlg001.perseus-grc2.tb.xml", 497) == text
    assert _text(real_warehouse, "pedalion", "external_examplesentences.xml", 110) == text
    # Aeschylus (Sept.): μή ’λθῃς
    text = "μή ’λθῃς ὁδούς σύ τάσδ’ ἐφ’ ἑβδόμαις πύλαις"
    assert _text(real_warehouse, "agdt", "tlg0085.tlg004.perseus-grc2.tb.xml", 329) == text
    assert _text(real_warehouse, "pedalion", "external_examplesentences.xml", 204) == text
    repair = real_warehouse.execute("""select t.repair from int_published_tokens t join int_sentences s
        using (sentence_uid) where s.project = 'agdt' and s.file_name = 'tlg0011.tlg001.perseus-grc2.tb.xml'
        and s.sentence_pos = 497 and t.form = '’ξεγερεῖς'""").fetchall()
    assert repair == [("reattached_from_elliptic;split_word:3+4:prodelision_mark_attached;extra_root",)]


@pytest.mark.integration
def test_elision_mark_token_is_published_on_its_word(real_warehouse):
    """Gorman (Aeschines 1, quoting Il. 18.95) writes `οἷ` + `᾽`; AGDT's Iliad writes `οἷ’`."""
    text = "ὠκύμορος δή μοι τέκος ἔσσεαι οἷ’ ἀγορεύεις"
    assert _text(real_warehouse, "gorman", "Aeschines 1 101-150 bu1.xml", 160) == text
    assert _text(real_warehouse, "agdt", "tlg0012.tlg001.perseus-grc1_18.tb.xml", 50) == text


@pytest.mark.integration
def test_crasis_pieces_are_published_as_the_crasis_word(real_warehouse):
    """Pedalion writes `κ-` + `ἐκεῖνον` (glued before as κἐκεῖνον), Gorman `κ-` + `ἀκεῖνον`; both
    publish the κἀκεῖνον AGDT writes (seed crasis_forms), so the two records now pair."""
    text = "φαρνάβαζος δέ ἀξιῶν δεῖν κἀκεῖνον ὀμνύναι περιέμενεν ἐν καλχηδόνι μέχρι ἔλθοι ἐκ τοῦ βυζαντίου"
    assert _text(real_warehouse, "pedalion", "example-sentences.xml", 915) == text
    assert _text(real_warehouse, "gorman", "xen hell 1_1-4 bu2.xml", 134) == text
    assert real_warehouse.execute("""select p.text_identical from mart_cross_project_pairs p
        join int_sentences s on s.sentence_uid = p.sentence_uid_b
        where p.project_pair = 'gorman–pedalion' and s.file_name = 'example-sentences.xml'
        and s.sentence_pos = 915""").fetchall() == [(True,)]


@pytest.mark.integration
def test_no_published_word_is_glued_or_a_bare_mark(real_warehouse):
    """No published form is only marks; no glued non-word is left; every hyphen
    word publishes the crasis table's word, a concatenation some source writes unsplit, or one of
    its own pieces."""
    con = real_warehouse
    assert con.execute("select count(*) from int_published_tokens where not regexp_matches(form, '\\p{L}')"
                       ).fetchone() == (0,)
    glued = ["ὁἐμός", "τἐναντία", "κἐγώ", "τὄνομα", "ἁἐγώ", "τταὔτ’", "δέδέ", "ὦἐλάφιον", "ὠἄνθρωποι", "ἐγώοἶδ’"]
    assert con.execute("select count(*) from int_published_tokens where list_contains(?, form)", [glued]
                       ).fetchone() == (0,)
    bad = con.execute("""
        select w.word_id, p.form from int_split_words w
        join int_published_tokens p on p.sentence_uid = w.sentence_uid and p.token_pos = w.token_pos
        where w.is_survivor and w.split_kind = 'hyphen' and w.resolution not in ('crasis_table', 'source_surface')
          and p.form not in (select f.form from int_token_forms f join int_split_words x
                             on f.sentence_uid = x.sentence_uid and f.token_pos = x.token_pos
                             where x.word_id = w.word_id)""").fetchall()
    assert bad == []


@pytest.mark.integration
def test_word_classes_are_counted_per_project(real_warehouse):
    got = {r[0]: r[1:] for r in real_warehouse.execute("""
        select project, split_words_from_crasis_table, split_words_source_surface, split_words_longer_piece_kept,
               elision_marks_attached, prodelision_marks_attached, numerals_keraia_unified,
               tags_plausible_reading from mart_representation_changes""").fetchall()}
    assert got["agdt"] == (75, 12, 21, 0, 131, 1, 0)
    assert got["gorman"] == (890, 3235, 140, 2, 1, 20, 0)
    assert got["pedalion"] == (385, 31, 184, 0, 0, 3, 1)
    assert got["ud_proiel"] == (0, 0, 0, 0, 0, 0, 0)
    # the lexicon check (the forms no source writes as an unsplit word)
    assert real_warehouse.execute("select count(*), sum(n_tokens) from mart_lexicon_check").fetchall() == [(560, 673)]
    # the six-position verb tag of Pedalion's ἀποδέξησθε is read as a finite verb
    assert real_warehouse.execute("""select tag, tag_rule, upos from int_token_morphology
        where postag = 'v2pasm'""").fetchall() == [("v2pasm---", "padded+plausible_reading", "VERB")]
