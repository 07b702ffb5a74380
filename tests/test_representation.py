"""Model-facing representation (SPEC §5): orthography rules of int_published_tokens on
hand-made tokens, and on the real sources: invariants and identical text across projects."""

from __future__ import annotations

import duckdb
import pytest

from sphragis import config, runner, udfs

FORMS = {
    # source form -> published form
    "Θουκυδίδης": "θουκυδίδης",               # lowercase (grc_utils.lower_grc)
    "ἀλλ᾽": "ἀλλ’",                            # U+1FBD koronis → U+2019
    "ἀλλ'": "ἀλλ’",                            # ASCII apostrophe
    "δ\u02bc": "δ’",                           # modifier letter apostrophe
    "τ\u0313": "τ’",                           # combining comma above after a consonant
    "παῤ": "παρ’",                             # final rho with psili (UD Perseus)
    "δἰ": "δι’",                               # final iota with psili after a consonant
    "ἐκέλεὐ": "ἐκέλευ’",                       # final upsilon with psili, longer word
    "ῤ": "ρ’",                                 # numeral with keraia written as psili
    "εἰ": "εἰ",                                # a genuine breathing on a word-initial diphthong
    "οὐ": "οὐ",
    "Ρ̓ῶμε": "ῤῶμε",                            # NFC again after lowercasing (capital rho + psili)
    "ε\u0301ν": "έν",                          # NFD input is published NFC
    " ὤν": "ὤν",                               # surrounding whitespace dropped
}


@pytest.fixture(scope="module")
def published():
    con = duckdb.connect()
    project = runner.load_project()
    runner.load_seeds(con, project)
    udfs.register(con)
    rows = list(FORMS)
    con.execute("create table int_tokens as select 1::bigint as sentence_uid, i::integer as token_pos, form, "
                "'agdt' as project, i::varchar as src_id, i::integer as token_num, 0 as head_num, "
                "false as is_artificial, false as is_multiword, true as is_syntactic_word "
                "from (select unnest(?) as form, generate_subscripts(?, 1) as i)", [rows, rows])
    con.execute("""create table int_tree_tokens as select sentence_uid, token_pos, token_pos as i,
                   case when token_pos = 1 then 0 else 1 end as head, 'dep' as deprel, 'dep' as deprel_ud,
                   null::varchar as repair, token_pos::varchar as src, 'ATR' as source_relation,
                   '1' as source_head from int_tokens""")
    con.execute("""create table int_token_morphology as select sentence_uid, token_pos, 'X' as upos,
                   null::varchar as feats, 'x' as lemma, false as is_punct, 'x--------' as tag from int_tokens""")
    for model in ("int_source_lexicon", "int_split_words", "int_token_forms"):
        con.execute(f"create table {model} as {runner.render(project, model)}")
    con.execute(f"create table int_published_tokens as {runner.render(project, 'int_published_tokens')}")
    yield con
    con.close()


def test_orthography_rules(published):
    got = dict(published.execute("""
        select t.form, p.form from int_published_tokens p join int_tokens t using (sentence_uid, token_pos)
    """).fetchall())
    assert got == FORMS


def test_rule_flags(published):
    flags = {f: (e, n, lc, ws) for f, e, n, lc, ws in published.execute("""
        select t.form, p.elision_unified, p.nfc_changed, p.lowercased, p.whitespace_normalized
        from int_published_tokens p join int_tokens t using (sentence_uid, token_pos)""").fetchall()}
    assert flags["ἀλλ᾽"] == (True, False, False, False)
    assert flags["Θουκυδίδης"] == (False, False, True, False)
    assert flags["ε\u0301ν"] == (False, True, False, False)
    assert flags[" ὤν"] == (False, False, False, True)
    assert flags["εἰ"] == (False, False, False, False)


@pytest.mark.integration
def test_ud_perseus_and_agdt_give_identical_text(real_warehouse):
    """SPEC §5.1: a sentence two projects annotate comes out with identical text from both."""
    pairs, same = real_warehouse.execute("""
        select count(*), count(*) filter (where u.text = a.text)
        from mart_ud_perseus_agdt_overlap o
        join int_units u on u.sentence_uid = o.ud_sentence_uid
        join int_units a on a.sentence_uid = o.agdt_sentence_uid
        where o.resolved""").fetchone()
    assert pairs == 2443 and same == pairs


@pytest.mark.integration
def test_representation_changes_are_counted(real_warehouse):
    rows = {r[0]: r[1:] for r in real_warehouse.execute("""
        select project, punctuation_tokens_removed, elision_marks_unified, published_tokens
        from mart_representation_changes""").fetchall()}
    assert set(rows) == {p["project"] for p in config.projects()}  # every registered project
    assert rows["ud_proiel"][0] == 0            # PROIEL does not tokenize punctuation
    assert rows["ud_perseus"][0] > 4000 and rows["ud_perseus"][1] > 0
    total = real_warehouse.execute("select count(*) from int_published_tokens").fetchone()[0]
    assert sum(r[2] for r in rows.values()) == total
