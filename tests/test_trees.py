"""Tests of SPEC §4 (native trees to CoNLL-U) and the tree side of SPEC §5 (punctuation removal,
re-indexing, the published DEPREL inventory): the models ``int_token_relations``,
``int_tree_links``, ``int_tree_tokens``, ``int_tree_checks``, the marts ``mart_relation_rules`` and
``mart_tree_repairs``, and the seeds ``relation_map`` / ``deprel_published``.

The SQL tests run the real model SQL (rendered and built by ``sphragis.runner``, data tests
included) over tiny hand-made ``int_tokens`` / ``int_token_morphology`` / ``int_sentences``
tables: one sentence per repair kind and per relation rule, each expected value derived by hand
from SPEC §4–§5. The integration tests check named sentences of the real sources.
"""

from __future__ import annotations

import csv
import shlex

import duckdb
import pytest

from conftest import dev_warehouse_tables
from sphragis import runner
from sphragis.config import SEEDS_DIR

TREE_MODELS = ["int_source_lexicon", "int_split_words", "int_token_forms", "int_token_relations", "int_tree_links", "int_tree_tokens",
               "int_tree_checks", "mart_relation_rules", "mart_tree_repairs"]
PUBLISHED_DEPRELS = {"root", "nsubj", "obj", "ccomp", "obl", "nmod", "advmod", "case", "conj", "dep"}
ART = "artificial"

# sentence_uid -> (project, table): one source token a line, `id form postag relation head`, then
# after `|` the int_tree_tokens row published for it, `i head deprel_ud deprel [repair]`, or
# `removed`. UD rows give the UPOS in place of the postag; `_` is no postag; `artificial` after the
# head marks an artificial node. Ids and heads are written as the sources write them (shell quoting:
# `''` is an empty head, `'""'` Pedalion's literal "" head).
SENTENCES = {
    # an elliptic node (Iliad 1, κερτομίοισι [ἔπεσσι] προσηύδα): its dependent re-attaches to the
    # elliptic node's head; the final colon is punctuation
    1: ("agdt", """
        1 αὐτίκα      d-------- ADV  5            | 1 5 advmod advmod
        2 κερτομίοισι a-p---nd- ATR  7            | 2 5 amod   nmod   reattached_from_elliptic
        3 Δία         n-s---ma- OBJ  5            | 3 5 obj    obj
        4 Κρονίωνα    n-s---ma- ATR  3            | 4 3 nmod   nmod
        5 προσηύδα    v3siia--- PRED 0            | 5 0 root   root
        6 :           u-------- AuxK 0            | removed
        7 [0]         _         ADV  5 artificial | removed
        """),
    # removed tokens in a chain (elliptic under a comma), and a punctuation token with a dependent
    2: ("agdt", """
        1 ἀνήρ  n-s---mn- SBJ  3            | 1 2 nsubj nsubj reattached_from_elliptic;reattached_from_punct
        2 λέγει v3spia--- PRED 0            | 2 0 root  root
        3 [0]   _         ADV  4 artificial | removed
        4 ,     u-------- AuxX 2            | removed
        5 «     u-------- AuxG 2            | removed
        6 καλός a-s---mn- ATR  5            | 3 2 amod  nmod  reattached_from_punct
        """),
    # a cycle through three tokens (2 -> 4 -> 3 -> 2) with a token hanging below it
    3: ("agdt", """
        1 ἔλεγε  v3siia--- PRED 0 | 1 0 root   root
        2 λόγον  n-s---ma- OBJ  4 | 2 1 obj    obj    cycle
        3 τόνδε  p-s---ma- ATR  2 | 3 2 nmod   nmod
        4 πρῶτον d-------- ADV  3 | 4 3 advmod advmod
        5 μάλα   d-------- ADV  4 | 5 4 advmod advmod
        """),
    # a self-loop
    4: ("pedalion", """
        1 ὁρᾷ   v3spia--- PRED 0 | 1 0 root root
        2 ἵππον n-s---ma- OBJ  2 | 2 1 obj  obj  self_loop
        """),
    # two head-0 predicates and a head-0 full stop
    5: ("agdt", """
        1 ἦλθε  v3saia--- PRED 0 | 1 0 root      root
        2 .     u-------- AuxK 0 | removed
        3 ἔφυγε v3saia--- PRED 0 | 2 1 parataxis dep   extra_root
        4 παῖς  n-s---mn- SBJ  3 | 3 2 nsubj     nsubj
        """),
    # a head outside the sentence, an empty head, and Pedalion's literal "" head
    6: ("pedalion", """
        1 γράφει    v3spia--- PRED 0    | 1 0 root   root
        2 ἐπιστολήν n-s---fa- OBJ  9    | 2 1 obj    obj    head_out_of_range
        3 νῦν       d-------- ADV  ''   | 3 1 advmod advmod empty_head
        4 δή        g-------- AuxZ '""' | 4 1 advmod advmod empty_head
        """),
    # a duplicate id: the second "3" is renumbered, head "3" names the first one
    7: ("pedalion", """
        1 πέμψον v2sama--- PRED 0 | 1 0 root   root
        2 μοι    p1s---cd- OBJ  1 | 2 1 obj    obj
        3 φάσιν  n-s---fa- OBJ  1 | 3 1 obj    obj
        3 ταχέως d-------- ADV  1 | 4 1 advmod advmod duplicate_id
        4 τήν    l-s---fa- ATR  3 | 5 3 det    nmod
        """),
    # COORD with _CO members: the coordinator takes the members' relation, the members are conj
    8: ("agdt", """
        1 Ἀχιλλεύς n-s---mn- SBJ_CO 2 | 1 2 conj  conj
        2 καί      c-------- COORD  4 | 2 4 nsubj nsubj
        3 Ἕκτωρ    n-s---mn- SBJ_CO 2 | 3 2 conj  conj
        4 ἦλθον    v3paia--- PRED   0 | 4 0 root  root
        """),
    # a coordination of predicates at the root, and a coordination of prepositional phrases whose
    # members are found through AuxP
    9: ("gorman", """
        1 ἔμενε v3siia--- PRED_CO 2 | 1 2 conj conj
        2 καί   c-------- COORD   0 | 2 0 root root
        3 ἔπινε v3siia--- PRED_CO 2 | 3 2 conj conj
        4 ἤ     c-------- COORD   3 | 4 3 obl  obl
        5 ἐν    r-------- AuxP    4 | 5 4 case case
        6 οἴκῳ  n-s---md- ADV_CO  5 | 6 5 conj conj
        7 ἐν    r-------- AuxP    4 | 7 4 case case
        8 ἀγρῷ  n-s---md- ADV_CO  7 | 8 7 conj conj
        """),
    # POS-dependent choices: ATR on an article (det) and an adjective (amod), OBJ on an infinitive
    10: ("agdt", """
        1 ὁ        l-s---mn- ATR  3 | 1 3 det   nmod
        2 σοφός    a-s---mn- ATR  3 | 2 3 amod  nmod
        3 ἀνήρ     n-s---mn- SBJ  4 | 3 4 nsubj nsubj
        4 βούλεται v3spie--- PRED 0 | 4 0 root  root
        5 λέγειν   v--pna--- OBJ  4 | 5 4 ccomp ccomp
        """),
    # a UD tree: punctuation removed (its dependent re-attached), own DEPREL kept, subtype merged
    11: ("ud_perseus", """
        1 ἔβη    VERB  root    0 | 1 0 root    root
        2 ,      PUNCT punct   1 | removed
        3 οἴκαδε ADV   advmod  2 | 2 1 advmod  advmod reattached_from_punct
        4 ἐς     ADP   case    5 | 3 4 case    case
        5 νῆας   NOUN  obl:arg 1 | 4 1 obl:arg obl
        """),
    # nothing survives: the sentence has no published rows
    12: ("agdt", """
        1 . u-------- AuxK 0 | removed
        """),
    # no root at all (a two-token cycle): broken at the first token, which becomes the root
    13: ("agdt", """
        1 μέγα  a-s---na- ATR 2 | 1 0 root root cycle;no_root
        2 κλέος n-s---na- OBJ 1 | 2 1 obj  obj
        """),
    # Harrington's functional labels, and a label the relation map does not know
    14: ("harrington", """
        1 κυρίου   n-s---mg- G-ABSOL 2 | 1 2 nsubj    nsubj
        2 λέγοντος v-sppamg- G-ABSOL 4 | 2 4 advcl    advmod
        3 Σωσάννα  n-s---fv- V-VOC   4 | 3 4 vocative dep
        4 ἀκούει   v3spia--- PRED    0 | 4 0 root     root
        5 αὐτήν    p-s---fa- A-DO    4 | 5 4 obj      obj
        6 ὦ        i-------- XYZZY   4 | 6 4 dep      dep
        """),
    # SPEC §5.1: an elision mark written as a token of its own (Gorman `ἀλλ` + `᾽`) joins the word
    # before it; the tree loses the mark and its dependent re-attaches to that word
    15: ("gorman", """
        1 ἀλλ c-------- AuxY 3 | 1 2 advmod advmod split_word:1+2:elision_mark_attached
        2 ᾽   u-------- AuxX 1 | removed
        3 ἔφη v3siia--- PRED 0 | 2 0 root   root
        4 δή  d-------- AuxZ 2 | 3 1 advmod advmod reattached_from_split_piece
        """),
}


def _parse(table: str) -> tuple[list[tuple], list[tuple]]:
    """(source rows ``(id, form, postag_or_upos, relation, head[, "artificial"])``, expected
    int_tree_tokens rows ``(src, i, head, deprel_ud, deprel, repair)`` in i order) of a table of
    SENTENCES."""
    rows, published = [], []
    for line in table.strip().splitlines():
        source, _, out = line.partition("|")
        id_, form, tag, relation, head, *flags = shlex.split(source)
        rows.append((id_, form, None if tag == "_" else tag, relation, head, *flags))
        if out.split() != ["removed"]:
            i, head_i, deprel_ud, deprel, *repair = out.split()
            published.append((id_, int(i), int(head_i), deprel_ud, deprel, repair[0] if repair else None))
    return rows, published


PARSED = {uid: (project, *_parse(table)) for uid, (project, table) in SENTENCES.items()}
SOURCE = {uid: (project, rows) for uid, (project, rows, _) in PARSED.items()}
EXPECTED = {uid: published for uid, (_, _, published) in PARSED.items()}


def _int(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def _tables(con: duckdb.DuckDBPyConnection, sentences: dict) -> None:
    """Create int_tokens, int_token_morphology and int_sentences from ``sentences``."""
    con.execute("""create table int_tokens (project varchar, sentence_uid bigint, token_pos integer,
        src_id varchar, token_num integer, form varchar, postag varchar, upos varchar, head_src varchar,
        head_num integer, relation varchar, is_artificial boolean, is_syntactic_word boolean,
        is_multiword boolean default false)""")
    con.execute("""create table int_token_morphology (sentence_uid bigint, token_pos integer, tag varchar,
        upos varchar, is_punct boolean, lemma varchar default null)""")
    con.execute("create table int_sentences (sentence_uid bigint, project varchar, n_tokens integer)")
    for uid, (project, rows) in sentences.items():
        ud = project.startswith("ud_")
        for pos, (id_, form, tag_or_upos, rel, head, *flags) in enumerate(rows, start=1):
            postag, upos = (None, tag_or_upos) if ud else (tag_or_upos, None)
            con.execute("insert into int_tokens values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, true, false)",
                        [project, uid, pos, id_, _int(id_), form, postag, upos, head, _int(head), rel,
                         ART in flags])
            is_punct = (postag or "").startswith("u") or upos == "PUNCT"
            con.execute("insert into int_token_morphology (sentence_uid, token_pos, tag, upos, is_punct) "
                        "values (?, ?, ?, ?, ?)",
                        [uid, pos, postag, "PUNCT" if is_punct else upos, is_punct])
        con.execute("insert into int_sentences values (?, ?, ?)", [uid, project, len(rows)])


def _tree_project(*extra: str) -> runner.Project:
    """The repository's project restricted to the tree models and the models ``extra`` (their
    inputs come from _tables or a built warehouse)."""
    full = runner.load_project()
    names = [*extra, *TREE_MODELS]
    return runner.Project(
        models={n: full.models[n] for n in names},
        seeds=full.seeds,
        schema={n: full.schema[n] for n in names if n in full.schema},
        macros=full.macros,
    )


@pytest.fixture(scope="module")
def built() -> duckdb.DuckDBPyConnection:
    """The tree models built over SENTENCES, with every declared data test passing."""
    con = duckdb.connect()
    _tables(con, SOURCE)
    runner.run(con, _tree_project())
    yield con
    con.close()


def _tree(con, uid: int) -> list[tuple]:
    return con.execute("""select src, i, head, deprel_ud, deprel, repair from int_tree_tokens
                          where sentence_uid = ? order by i""", [uid]).fetchall()


@pytest.mark.parametrize("uid", sorted(EXPECTED))
def test_published_tree(built, uid):
    assert _tree(built, uid) == EXPECTED[uid]


def test_relation_rules_applied(built):
    rows = dict(((uid, pos), (rule, branch)) for uid, pos, rule, branch in built.execute(
        "select sentence_uid, token_pos, relation_rule, rule_branch from int_token_relations").fetchall())
    assert rows[(8, 2)] == ("COORD", "members")
    assert rows[(9, 2)] == ("COORD", "members_at_root")
    assert rows[(9, 4)] == ("COORD", "members")
    assert rows[(8, 1)] == ("SBJ_CO", "suffix")
    assert rows[(10, 1)] == ("ATR", "pos_article")
    assert rows[(10, 5)] == ("OBJ", "pos_verb_fin_inf")
    assert rows[(10, 4)] == ("PRED", "at_root")
    assert rows[(1, 6)] == ("AuxK", "punct_tag")
    assert rows[(14, 6)] == (None, "unmapped")
    assert rows[(11, 5)] == (None, "ud_native")


def test_relation_mart_counts_fallbacks(built):
    got = {label: (mapped, n, n_dep) for label, mapped, n, n_dep in built.execute(
        "select label, is_mapped, n_tokens, n_dep from mart_relation_rules").fetchall()}
    assert got["XYZZY"] == (False, 1, 1)
    assert got["OBJ"] == (True, 8, 0)  # sentences 1, 3, 4, 6, 7 (two), 10 and 13
    assert got["ExD"] == (True, 0, 0)  # every seed row is listed, used or not
    n_by_rel = dict(built.execute(
        "select label, n_by_relation from mart_relation_rules where label = 'ATR'").fetchall())["ATR"]
    # adjectives amod (sentences 1, 2, 10, 13), articles det (7, 10), noun and pronoun nmod (1, 3)
    assert n_by_rel == {"amod": 4, "det": 2, "nmod": 2}


def test_repair_mart(built):
    got = {(p, c, k): (n, s) for p, c, k, n, s in built.execute(
        "select project, category, kind, n_tokens, n_sentences from mart_tree_repairs").fetchall()}
    assert got[("agdt", "removed", "elliptic")] == (2, 2)
    assert got[("agdt", "removed", "punct")] == (5, 4)
    assert got[("agdt", "dropped_sentence", "no_published_token")] == (1, 1)
    assert got[("agdt", "source_defect", "cycle")] == (2, 2)  # sentences 3 and 13: one cycle each
    assert got[("agdt", "repair", "cycle")] == (2, 2)
    assert got[("pedalion", "source_defect", "duplicate_id")] == (1, 1)
    assert got[("pedalion", "repair", "empty_head")] == (2, 1)
    assert got[("ud_perseus", "repair", "reattached_from_punct")] == (1, 1)
    assert {k: v for k, v in got.items() if k[1] == "check"} == {
        (p, "check", "ill_formed_published_tree"): (0, 0)
        for p in ("agdt", "gorman", "harrington", "pedalion", "ud_perseus")}


def test_tree_checks_fail_on_bad_trees(built):
    """The well-formedness data tests catch a cycle, a missing root and a second root."""
    project = _tree_project()
    built.execute("create table saved as select * from int_tree_tokens")
    try:
        # sentence 4: root -> child, child -> root (cycle, no root); sentence 8: a second root
        built.execute("update int_tree_tokens set head = 2 where sentence_uid = 4 and i = 1")
        built.execute("update int_tree_tokens set head = 0 where sentence_uid = 8 and i = 1")
        built.execute(f"create or replace table int_tree_checks as {runner.render(project, 'int_tree_checks')}")
        failures = runner.run_tests(built, project, {"int_tree_checks"})
        tests = {t for _, t, _ in failures}
        assert "expression(n_roots = 1)" in tests
        assert "expression(n_reached = n_tokens)" in tests
        bad = dict(built.execute("select sentence_uid, (n_roots, n_reached, n_tokens) from int_tree_checks "
                                 "where n_roots <> 1 or n_reached <> n_tokens").fetchall())
        assert bad == {4: (0, 0, 2), 8: (2, 4, 4)}
        built.execute(f"create or replace table mart_tree_repairs as {runner.render(project, 'mart_tree_repairs')}")
        assert built.execute("""select project, n_sentences from mart_tree_repairs where category = 'check'
                                and n_sentences > 0 order by project""").fetchall() == [("agdt", 1), ("pedalion", 1)]
    finally:
        built.execute("create or replace table int_tree_tokens as select * from saved")
        for name in ("int_tree_checks", "mart_tree_repairs"):
            built.execute(f"create or replace table {name} as {runner.render(project, name)}")
        built.execute("drop table saved")


# seeds ---------------------------------------------------------------------------------------

def _seed(name: str) -> list[dict[str, str]]:
    with (SEEDS_DIR / f"{name}.csv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_relation_map_rules_of_spec():
    rows = {r["label"]: r for r in _seed("relation_map")}
    assert len(rows) == len(_seed("relation_map")), "one row per label"
    assert rows["PRED"]["ud_at_root"] == "root"
    assert (rows["OBJ"]["ud_default"], rows["OBJ"]["ud_if_verb_fin_inf"]) == ("obj", "ccomp")
    assert (rows["ATR"]["ud_default"], rows["ATR"]["ud_if_adj"], rows["ATR"]["ud_if_article"]) == ("nmod", "amod", "det")
    assert (rows["ADV"]["ud_if_adverb"], rows["ADV"]["ud_if_nominal"], rows["ADV"]["ud_if_verb"]) == ("advmod", "obl", "advcl")
    for label, ud in [("SBJ", "nsubj"), ("AuxP", "case"), ("AuxC", "mark"), ("AuxY", "advmod"),
                      ("AuxZ", "advmod"), ("PNOM", "xcomp"), ("OCOMP", "xcomp"), ("ATV", "xcomp"),
                      ("AtvV", "xcomp"), ("ExD", "dep"), ("XSEG", "dep"), ("UNDEFINED", "dep"),
                      ("(empty)", "dep"), ("AuxX", "punct"), ("AuxK", "punct"), ("AuxG", "punct"),
                      ("AuxV", "aux"), ("N-SUBJ", "nsubj"), ("A-DO", "obj"), ("D-IO", "iobj"),
                      ("G-POSS", "nmod"), ("D-LOCAT", "obl"), ("CP-TEMPOR", "advcl"),
                      ("NOM-INDSTAT", "ccomp"), ("INF-COMP", "xcomp"), ("V-VOC", "vocative")]:
        assert rows[label]["ud_default"] == ud, label
    assert rows["OBJ_CO"]["suffix"] == "CO" and rows["SBJ_AP"]["suffix"] == "AP"
    assert rows["COORD"]["takes_members"] == "CO" and rows["APOS"]["takes_members"] == "AP"
    # annotator notes and typos keep the annotated function
    assert rows["!!!congruentiefout geslacht?!!!ADV"]["base_label"] == "ADV"
    assert rows["AuxΖ"]["base_label"] == "AuxZ"  # Greek capital zeta
    # cc, cop and aux are never produced, except AuxV -> aux
    for r in rows.values():
        produced = {v for k, v in r.items() if k.startswith("ud_") and v}
        assert not produced & {"cc", "cop"}, r["label"]
        assert "aux" not in produced or r["base_label"] == "AuxV", r["label"]


def test_deprel_merge_map_covers_spec_table():
    merge = {r["deprel_ud_base"]: r["deprel"] for r in _seed("deprel_published")}
    assert set(merge.values()) == PUBLISHED_DEPRELS
    spec = {"nsubj": "nsubj", "csubj": "nsubj", "expl": "nsubj", "obj": "obj", "iobj": "obj",
            "ccomp": "ccomp", "xcomp": "ccomp", "obl": "obl", "nmod": "nmod", "amod": "nmod",
            "det": "nmod", "appos": "nmod", "acl": "nmod", "nummod": "nmod", "advmod": "advmod",
            "discourse": "advmod", "advcl": "advmod", "case": "case", "mark": "case", "cc": "case",
            "cop": "case", "aux": "case", "conj": "conj", "root": "root", "vocative": "dep",
            "dislocated": "dep", "parataxis": "dep", "fixed": "dep", "flat": "dep", "compound": "dep",
            "orphan": "dep", "list": "dep", "goeswith": "dep", "reparandum": "dep", "dep": "dep"}
    assert {k: merge[k] for k in spec} == spec


# real sources ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_trees(request):
    """The tree models over the real sources: built (with ``int_token_morphology`` and every data
    test) from the int_tokens of an existing warehouse named by ``SPHRAGIS_TEST_WAREHOUSE``
    (development aid), else the session's real build (skips when ../shared/sources is absent)."""
    con = dev_warehouse_tables("int_tokens", "int_sentences")
    if con is None:
        yield request.getfixturevalue("real_warehouse")
        return
    runner.run(con, _tree_project("int_token_morphology"))
    yield con
    con.close()


def _real_tree(con, project: str, path: str, sentence_id: str) -> dict[str, tuple]:
    """src -> (i, head, deprel_ud, repair, source_head) of one real sentence named by file and id."""
    rows = con.execute("""
        select t.src, t.i, t.head, t.deprel_ud, t.repair, t.source_head
        from int_tree_tokens as t
        inner join int_sentences as s on t.sentence_uid = s.sentence_uid
        where s.project = ? and s.path = ? and s.upstream_sentence_id = ?""",
                       [project, path, sentence_id]).fetchall()
    assert rows, f"{project} {path} #{sentence_id} not found"
    return {r[0]: r[1:] for r in rows}


def test_real_elliptic_node_repair(real_trees):
    """Iliad 1 (AGDT, sentence 2274412): κερτομίοισι hangs from the elliptic [0] (ἔπεσσι), which
    hangs from προσηύδα; it re-attaches to προσηύδα. The [0] node and the colon are gone."""
    t = _real_tree(real_trees, "agdt", "v1.6/greek/data/tlg0012.tlg001.perseus-grc1_1.tb.xml", "2274412")
    assert set(t) == {"1", "2", "3", "4", "5"}
    assert t["2"] == (2, t["5"][0], "amod", "reattached_from_elliptic", "7")
    assert t["5"] == (5, 0, "root", None, "0")
    assert t["4"][1] == t["3"][0]  # untouched heads are the source heads


def test_real_cycle_breaks(real_trees):
    """Pedalion example-sentences.xml #1994: πλὴν (4, MWE) and ἐκ (5, AuxP) point at each other;
    the cycle is cut at 4, which attaches to the root πορίζου; ἐκ keeps its head."""
    t = _real_tree(real_trees, "pedalion", "public/xml/example-sentences.xml", "1994")
    assert t["2"][1:3] == (0, "root")
    assert t["4"][1] == t["2"][0] and t["4"][3] == "cycle"
    assert t["5"][1] == t["4"][0] and t["5"][3] is None
    # Sophocles OT (AGDT 2.1, #2386847): τιμώμενος (6) and the elliptic COORD (8) form a cycle and no
    # other word has head 0: the cycle is cut at 6, which becomes the root
    t = _real_tree(real_trees, "agdt", "v2.1/Greek/texts/tlg0011.tlg004.perseus-grc1.tb.xml", "2386847")
    assert t["6"][1:4] == (0, "root", "cycle;no_root")
    assert t["3"][1] == t["6"][0] and t["3"][3] == "reattached_from_elliptic"
    assert "8" not in t and "7" not in t


def test_real_self_loop(real_trees):
    """Pedalion example-sentences.xml #1339: με (3) is its own head; it attaches to the root."""
    t = _real_tree(real_trees, "pedalion", "public/xml/example-sentences.xml", "1339")
    roots = [v for v in t.values() if v[1] == 0]
    assert len(roots) == 1
    assert t["3"][3] == "self_loop" and t["3"][1] == roots[0][0] and t["3"][4] == "3"


def test_real_labels_all_mapped(real_trees):
    """Every relation label observed in the four XML projects has a relation_map row."""
    unmapped = real_trees.execute("select label, n_tokens from mart_relation_rules where not is_mapped").fetchall()
    assert unmapped == []
    n = real_trees.execute("select count(*) from mart_relation_rules where n_tokens > 0").fetchone()[0]
    assert n == len(_seed("relation_map"))


def test_real_ud_heads_unchanged(real_trees):
    """Heads of the UD projects are the source heads wherever no repair applied."""
    rows = real_trees.execute("""
        select t.project, count(*), count(*) filter (where coalesce(h.i, 0) <> t.head)
        from int_tree_tokens as t
        left join int_tree_tokens as h on t.sentence_uid = h.sentence_uid and h.src = t.source_head
        where t.project like 'ud\\_%' escape '\\' and t.repair is null
        group by t.project""").fetchall()
    assert {p for p, _, _ in rows} == {"ud_perseus", "ud_proiel", "ud_ptnk"}
    assert all(n > 10000 and bad == 0 for _, n, bad in rows)
