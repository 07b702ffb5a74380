"""Issue 30, "every published word is a Greek word" (SPEC §5.1): crasis from the checked-in table
(never glued), a split word without an entry kept as its longer piece, elision and prodelision
marks written as tokens of their own attached to their word (and quotation marks told apart),
Greek numerals in one published form, and on the real build the sentences the issue names.

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
                   is_multiword boolean, is_word boolean)""")
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
    assert _word(marks, 12) == [("prodelision_mark", "split_word:2+3:prodelision_mark_attached", True)]


@pytest.mark.parametrize("uid", [14, 15, 16, 17])
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
