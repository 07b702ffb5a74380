"""The analyst's token tables, ``tokens`` (each kept sentence once, in its chosen parse) and
``tokens_all_parses`` (every project's parse), and the analyst questions of ``sql/analyses/`` that
read them, answered on the real build with exact counts, as an analyst asks them.

Real data: the session's ``real_warehouse`` (full build from ../shared/sources, skipped without
it), or, as a development aid, the already built warehouse named by ``SPHRAGIS_TEST_WAREHOUSE``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import csv
import re

import yaml
from test_variation import ANALYST_ANSWERS

REPO = Path(__file__).resolve().parents[1]
ANALYSES = REPO / "sql" / "analyses"
#: The analyst's guide, whose worked answers are checked against the real build here.
ANALYSTS_PAGE = REPO / "docs" / "analysts.md"

#: The analyses over the token tables (the variation ones are answered on a tiny warehouse in test_variation).
TOKEN_ANALYSES = ("upos_per_project.sql", "deprel_share_per_project.sql", "top_lemmas_herodotus.sql",
                  "dative_rate_per_author.sql", "verbs_with_two_objects.sql",
                  "dependency_distance_per_author.sql", "conj_rate_gap.sql")

#: Tokens per UPOS in every project (every token of every upstream sentence, punctuation as PUNCT:
#: ``tokens_all_parses``).
UPOS_PER_PROJECT = {
    "agdt": {"ADV": 115863, "NOUN": 110274, "VERB": 96860, "PUNCT": 72226, "PRON": 63695, "ADJ": 60603,
             "ADP": 27490, "X": 8582, "INTJ": 1655, "NUM": 672},
    "gorman": {"ADV": 139088, "VERB": 128594, "PRON": 127090, "NOUN": 115641, "PUNCT": 76827, "ADJ": 60900,
               "ADP": 41050, "X": 2091, "INTJ": 1203, "NUM": 63},
    "harrington": {"PRON": 3250, "VERB": 3182, "PUNCT": 3017, "ADV": 2992, "NOUN": 2743, "ADJ": 1232, "X": 824,
                   "ADP": 799, "NUM": 81, "INTJ": 14},
    "pedalion": {"ADV": 51492, "PRON": 47454, "VERB": 46961, "NOUN": 39206, "PUNCT": 34127, "ADJ": 18801,
                 "ADP": 12109, "X": 6621, "NUM": 1214, "INTJ": 982},
    "papygreek": {"NOUN": 14119, "PRON": 12033, "VERB": 10564, "ADV": 8960, "PUNCT": 6966, "ADP": 4568, "X": 3705,
                  "ADJ": 2619, "NUM": 2166, "INTJ": 2},
    "unesp": {"VERB": 8697, "ADV": 8362, "PRON": 7747, "NOUN": 7637, "PUNCT": 5396, "ADJ": 3705, "ADP": 2376,
              "X": 789, "INTJ": 108, "NUM": 74},
    "ud_perseus": {"NOUN": 8662, "VERB": 7852, "ADV": 7842, "PRON": 7437, "PUNCT": 4679, "ADJ": 3749,
                   "ADP": 2790, "INTJ": 52, "NUM": 25, "X": 6},
    "ud_proiel": {"PRON": 6961, "VERB": 5657, "NOUN": 5506, "ADV": 5259, "ADP": 1807, "ADJ": 1481, "NUM": 216,
                  "INTJ": 79},
    "ud_ptnk": {"PRON": 9455, "NOUN": 8784, "ADV": 5952, "VERB": 5860, "PUNCT": 4873, "ADP": 2645, "ADJ": 1348,
                "NUM": 492, "INTJ": 100},
}

#: Per project, the author label with most tokens and that author's five most frequent lemmas
#: without punctuation in the project's own parse (every sentence, curated or not: "Anonymous" is
#: the registry's label; ``tokens_all_parses``).
TOP_LEMMAS = {
    "agdt": ("Homeric-Iliad", [("δέ", 7147), ("ὁ", 3371), ("καί", 2848), ("τε", 2403), ("οὐ", 1474)]),
    "gorman": ("Demosthenes", [("ὁ", 11559), ("καί", 5270), ("οὗτος", 2962), ("δέ", 2630), ("εἰμί", 2374)]),
    "harrington": ("Anonymous", [("ὁ", 1208), ("καί", 384), ("δέ", 212), ("αὐτός", 208), ("αἴσωπος", 189)]),
    "pedalion": ("Anonymous", [("ὁ", 3674), ("καί", 2342), ("αὐτός", 937), ("σύ", 904), ("ἐγώ", 859)]),
    "ud_perseus": ("Athenaeus", [("ὁ", 2615), ("καί", 1012), ("δέ", 772), ("ἐν", 396), ("αὐτός", 364)]),
    "ud_proiel": ("Herodotus", [("ὁ", 1464), ("δέ", 531), ("καί", 498), ("οὗτος", 250), ("εἰμί", 211)]),
    "ud_ptnk": ("Anonymous", [("ὁ", 5158), ("καί", 3303), ("αὐτός", 1724), ("δέ", 875), ("ἐγώ", 667)]),
}


@pytest.fixture(scope="module")
def wh(built_warehouse):
    return built_warehouse


def _run(con, name: str) -> list[tuple]:
    return con.execute((ANALYSES / name).read_text(encoding="utf-8")).fetchall()


def test_every_analysis_is_answered_by_a_test():
    assert {p.name for p in ANALYSES.glob("*.sql")} == set(TOKEN_ANALYSES) | set(ANALYST_ANSWERS)


def test_upos_per_project_answers_for_every_project(wh):
    got: dict[str, dict[str, int]] = {}
    merged = {}
    for project, upos, n, merged_from in _run(wh, "upos_per_project.sql"):
        got.setdefault(project, {})[upos] = n
        merged[upos] = merged_from
    assert got == UPOS_PER_PROJECT
    # a merged value says so: the UD UPOS each published one holds (seed ud_upos_to_tag)
    assert merged["ADV"] == ["ADV", "CCONJ", "PART", "SCONJ"] and merged["PRON"] == ["DET", "PRON"]
    assert merged["NUM"] == ["NUM"]
    # one row per token of every sentence: the word rows of int_tokens, per project
    words = dict(wh.execute("select project, count(*) from int_tokens where is_syntactic_word "
                            "group by 1").fetchall())
    assert {p: sum(v.values()) for p, v in got.items()} == words
    assert words["agdt"] == 557920 and words["gorman"] == 692547


def test_top_lemmas_of_an_author_leave_punctuation_out_in_all_seven_projects(wh):
    for project, (author, top) in TOP_LEMMAS.items():
        rows = wh.execute("select lemma, count(*) as n from tokens_all_parses where project = ? and author = ? "
                          "and not is_punctuation and lemma is not null group by lemma order by n desc, lemma "
                          "limit 5", [project, author]).fetchall()
        assert rows == top, project
    # each sentence once (`tokens`): Herodotus is annotated by agdt, gorman, pedalion and
    # ud_proiel, whose records of one sentence counted 8,805 ὁ over all parses
    assert _run(wh, "top_lemmas_herodotus.sql")[:5] == [("ὁ", 4717), ("δέ", 1673), ("καί", 1541), ("οὗτος", 850),
                                                         ("εἰμί", 779)]
    assert len(_run(wh, "top_lemmas_herodotus.sql")) == 20
    # punctuation is a token, not a word: no punctuation lemma among Herodotus' 20
    assert not {"punc1", ",", "."} & {lemma for lemma, _n in _run(wh, "top_lemmas_herodotus.sql")}


def test_tokens_has_no_null_where_the_source_gives_a_value(wh):
    row = wh.execute("""
        select count(*),
               count(*) filter (where upos is null or form is null or sent_id is null or path is null),
               count(*) filter (where form_raw is null),
               count(*) filter (where project like 'ud\\_%' escape '\\' and upos_raw is null and tag_raw is null),
               count(*) filter (where cts_urn is null and passage is null and project = 'ud_perseus'),
               count(*) filter (where is_published and not is_retained),
               count(*) filter (where is_published_token and (head is null or deprel is null))
        from tokens_all_parses""").fetchone()
    assert row == (1747730, 0, 0, 0, 0, 0, 0)  # 1,637,137 of the benchmark's projects, 65,702 + 44,891


def test_feats_map_and_dependents_answer_in_one_expression(wh):
    # the dative nouns of Herodotus in agdt, through the MAP and through the string: the same tokens
    by_map, by_string = wh.execute("""
        select count(*) filter (where feats_map['Case'] = 'Dat'),
               count(*) filter (where list_contains(string_split(feats, '|'), 'Case=Dat'))
        from tokens_all_parses where author = 'Herodotus' and project = 'agdt' and upos = 'NOUN'""").fetchone()
    assert by_map == by_string > 0
    # every sentence of each project; the published obj holds UD's iobj, and the answer says so
    assert _run(wh, "verbs_with_two_objects.sql") == [
        (p, n, ["iobj", "obj"]) for p, n in (("agdt", 4113), ("gorman", 3678), ("harrington", 43), ("papygreek", 642),
                                            ("pedalion", 1428), ("ud_perseus", 205), ("ud_proiel", 9), ("ud_ptnk", 264),
                                            ("unesp", 221))]
    # dependents_by_deprel counts the published tree's dependents
    n_obj, n_map = wh.execute("""
        select (select count(*) from tokens_all_parses as d where d.sentence_uid = t.sentence_uid and d.head = t.i
                and d.deprel = 'obj'), dependents_by_deprel['obj']
        from tokens_all_parses as t where t.upos = 'VERB' and dependents_by_deprel['obj'] >= 3
        order by t.sentence_uid, t.token_pos limit 1""").fetchone()
    assert n_obj == n_map >= 3


def test_the_other_analyst_questions(wh):
    shares = {(p, d): (pub, n, pct) for p, d, pub, n, pct in _run(wh, "deprel_share_per_project.sql")}
    assert shares[("agdt", "advmod")] == ("advmod", 76966, 16.15) and shares[("ud_proiel", "case")] == ("case", 1791, 6.64)
    assert {p for p, _d in shares} == set(UPOS_PER_PROJECT)
    dative = {(a, p): rest for a, p, *rest in _run(wh, "dative_rate_per_author.sql")}
    assert dative[("Herodotus", "agdt")] == [29065, 1555, 12.97]
    assert dative[("Herodotus", "ud_proiel")] == [11240, 777, 13.21]
    distance = {a: (n, d) for a, n, d in _run(wh, "dependency_distance_per_author.sql")}
    assert distance["Herodotus"] == (35048, 3.314) and distance["Homeric-Iliad"] == (100198, 3.054)
    gaps = {(a, pa, pb): g for a, pa, pb, _x, _y, g in _run(wh, "conj_rate_gap.sql")}
    assert gaps[("Herodotus", "agdt", "gorman")] == 0.01 and gaps[("Athenaeus", "agdt", "ud_perseus")] == 5.15


def test_published_in_names_the_configurations_and_splits(wh):
    # every published sentence_1 row's sentence is in `tokens` with that (config, split)
    n_rows, n_found = wh.execute("""
        with r as (select source_id, split from mart_benchmark_rows where config = 'sentence_1'),
        s as (select distinct sr.row_id, sr.dedup_key from mart_split_rows as sr where sr.track = 'main')
        select count(*), count(*) filter (where exists (
            select 1 from tokens_all_parses as t join int_units as u using (sentence_uid)
            where u.dedup_key = s.dedup_key and t.is_published
            and list_contains(t.published_in, {'config': 'sentence_1', 'split': r.split})))
        from r join s on r.source_id = s.row_id""").fetchone()
    assert n_rows == n_found == 53950


def test_sql_list_prints_whole_descriptions(capsys):
    from sphragis import cli

    assert cli.main(["sql", "--list"]) == 0
    listed = dict(line.split("\t", 1) for line in capsys.readouterr().out.splitlines())
    assert set(listed) == {p.stem for p in ANALYSES.glob("*.sql")}
    # a description spanning two comment lines is printed whole, not cut mid-sentence
    assert listed["top_lemmas_herodotus"] == ("The 20 most frequent lemmas of Herodotus, each sentence counted once "
                                              "(table `tokens`: every kept sentence in its chosen parse; its "
                                              "published tokens leave punctuation out).")


# --------------------------------------------------------------------------------------------
# the analyst's first questions, asked as the docs ask them (docs/analysts.md)


def test_plato_lemmas_count_each_sentence_once(wh):
    # `tokens`: every kept sentence once, in its chosen parse; `tokens_all_parses`: every project's
    # parse (Plato is annotated by agdt and gorman, who share many sentences)
    once = wh.execute("select lemma, count(*) as n from tokens where author = 'Plato' "
                      "group by lemma order by n desc, lemma limit 3").fetchall()
    assert once == [("ὁ", 1402), ("καί", 1002), ("ἐγώ", 573)]
    every = wh.execute("select lemma, count(*) as n from tokens_all_parses where author = 'Plato' and is_retained "
                       "and not is_punctuation and lemma is not null group by lemma order by n desc, lemma limit 3"
                       ).fetchall()
    assert every == [("ὁ", 1749), ("καί", 1260), ("ἐγώ", 722)]
    # the same as counting the chosen parse's words in tokens_all_parses, but for the 21 ὁ of crasis
    # words whose article piece the published unit absorbs (τἆλλα is one word, lemma ἄλλος)
    chosen = wh.execute("select count(*) filter (where is_published_token), count(*) from tokens_all_parses "
                        "where author = 'Plato' and lemma = 'ὁ' and is_chosen_parse and not is_punctuation").fetchone()
    assert chosen == (1402, 1423)
    assert "ὁ 1,402, καί 1,002, ἐγώ 573" in ANALYSTS_PAGE.read_text(encoding="utf-8")
    assert "ὁ 1,749, καί 1,260, ἐγώ 722" in ANALYSTS_PAGE.read_text(encoding="utf-8")


def test_tokens_holds_each_kept_sentence_once(wh):
    n_rows, n_keys, n_uids = wh.execute(
        "select count(*), count(distinct sentence_key), count(distinct sentence_uid) from tokens").fetchone()
    assert n_keys == n_uids == wh.execute("select count(*) from int_eligible_sentences").fetchone()[0] == 58740
    assert n_rows == 963715
    # every record of a kept sentence points at its chosen parse: 49,492 sentences have one parse,
    # 6,367 two, 2,770 three
    parses = dict(wh.execute("""select n, count(*) from (select kept_sentence_key, count(distinct sentence_uid) as n
        from tokens_all_parses where kept_sentence_key is not null group by 1) group by n""").fetchall())
    assert (parses[1], parses[2], parses[3], sum(parses.values())) == (49492, 6367, 2770, 58740)


def test_sentence_key_is_unique_across_the_warehouse_and_is_the_benchmark_id(wh):
    n, keys, uids = wh.execute("select count(*), count(distinct sentence_key), count(distinct sentence_uid) "
                               "from int_sentences").fetchone()
    assert n == keys == uids == 95057  # 88,332 of the benchmark's projects, 4,557 + 2,168
    # the upstream sent_id is not a key: '1' names a sentence in 849 files
    assert wh.execute("select count(distinct sentence_key) from tokens_all_parses where sent_id = '1'").fetchone()[0] == 849
    assert "`1` names a sentence in 849 files" in ANALYSTS_PAGE.read_text(encoding="utf-8")
    assert wh.execute("select count(*) from (select sentence_key, i from tokens group by all having count(*) > 1)"
                      ).fetchone()[0] == 0
    # a sentence_1 row's source_id is its sentence's key in `tokens` (the published id is opaque)
    ids = wh.execute("""select count(*), count(*) filter (where exists (select 1 from tokens as t where t.sentence_key = b.source_id))
        from mart_benchmark_rows as b where config = 'sentence_1'""").fetchone()
    assert ids == (53950, 53950)
    assert wh.execute("select sentence_key from tokens where author = 'Plato' order by sentence_key limit 1"
                      ).fetchone()[0] == "agdt:tlg0059.tlg001.perseus-grc1.tb.xml:1"


def test_discourse_share_per_project_reads_the_relation_before_the_merge(wh):
    rows = {p: (pub, n, pct) for p, d, pub, n, pct in _run(wh, "deprel_share_per_project.sql") if d == "discourse"}
    # published as advmod, so the published column has no discourse; deprel_ud has it: UD PROIEL 5.61 %
    assert rows["ud_proiel"] == ("advmod", 1512, 5.61)
    assert rows["agdt"] == ("advmod", 0, 0.0)  # the AGDT-lineage conversion never produces it
    assert rows["ud_perseus"][2] == 0.13
    assert (rows["ud_ptnk"][2], rows["harrington"][2]) == (0.35, 0.34)
    assert ("UD PROIEL marks it on\n5.61 % of its published tokens, UD PTNK on 0.35 %, Harrington on 0.34 %"
            in ANALYSTS_PAGE.read_text(encoding="utf-8"))
    assert set(rows) == set(UPOS_PER_PROJECT)
    assert wh.execute("select count(*) from tokens_all_parses where deprel = 'discourse'").fetchone()[0] == 0


def test_the_docs_examples_of_merges_agree_with_the_seeds():
    # the yml docs name a few merges in prose ("`discourse` and `advcl` become `advmod`"); the
    # seeds are the rule: every example named must be a row of them
    with (REPO / "sql" / "seeds" / "deprel_published.csv").open(encoding="utf-8") as fh:
        deprel = {r["deprel_ud_base"]: r["deprel"] for r in csv.DictReader(fh)}
    with (REPO / "sql" / "seeds" / "ud_upos_to_tag.csv").open(encoding="utf-8") as fh:
        upos = {r["upos"]: r["published_upos"] for r in csv.DictReader(fh)}
    cols = {c["name"]: c["description"] for c in yaml.safe_load(
        (REPO / "models" / "marts" / "_tokens.yml").read_text(encoding="utf-8"))["models"][0]["columns"]}
    found = 0
    for parts, into in re.findall(r"((?:`\w+`(?:, | and )?)+) becomes? `(\w+)`", cols["deprel"]):
        for part in re.findall(r"`(\w+)`", parts):
            assert deprel[part] == into, part
            found += 1
    assert found >= 5
    for part in re.findall(r"\b([A-Z]+)\b", cols["upos"].split("UD's ")[1].split(" have ")[0]):
        assert upos[part] != part, part


def _examples() -> list[tuple[str, str]]:
    """(where, query) of every SQL example an analyst copies: each statement of the ```sql blocks
    of docs/analysts.md and every `sphragis sql "..."` of the README."""
    out = []
    for block in re.findall(r"```sql\n(.*?)```", ANALYSTS_PAGE.read_text(encoding="utf-8"), re.S):
        out += [("docs/analysts.md", q.strip()) for q in block.split(";") if q.strip()]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    out += [("README.md", q) for q in re.findall(r'^sphragis sql "(.*?)"$', readme, re.M | re.S)]
    return out


def test_every_docs_and_readme_example_runs_and_answers(wh):
    examples = _examples()
    assert len([w for w, _q in examples if w == "README.md"]) == 2 and len(examples) >= 8
    for where, q in examples:
        rows = wh.execute(q).fetchall()
        assert rows, (where, q)
    # the parses of one sentence side by side: its three projects
    sentence = next(q for _w, q in examples if "kept_sentence_key = " in q)
    assert {r[0] for r in wh.execute(sentence).fetchall()} == {"agdt", "gorman", "ud_perseus"}
