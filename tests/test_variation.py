"""SPEC §11 variation statistics: the real model SQL (int_eligible_records, mart_published_tokens,
mart_rates, mart_variation, mart_merge_effects) and the README analyst queries (sql/analyses/*.sql),
run on a tiny hand-made warehouse whose answers are worked out by hand below, and on the real build.

The hand-made corpus (min_cell_tokens = 10; every sentence has 5 tokens, token 1 the root):

    cell (author, project)   sentences (DEPREL_UD of tokens 2-5)               conj disc advmod voc
    Alpha / agdt             s1 conj conj disc disc;  s2 disc advmod x3          2    3     3     0
    Alpha / ud_perseus       s1 conj x3 vocative;     s2 conj conj advmod x2      5    0     2     1
    Beta  / agdt             s1 conj disc x3;         s2 advmod x4                1    3     4     0
    Beta  / ud_perseus       s1 conj advmod x3;       s2 advmod x4                1    0     7     0
    Gamma / agdt             s1 conj x4;              s2 disc disc advmod advmod  4    2     2     0

Records that must NOT count:
  * Gamma / ud_perseus: one sentence (5 tokens < 10: the cell does not qualify), with an `obl`
    that therefore must not become a category;
  * a second Alpha / agdt record of s2's dedup group (all conj): not the first in its project;
  * two Beta / agdt sentences of all conj that curation did not retain;
  * one Gamma / agdt sentence (all conj) in an author-conflict dedup group.

Published DEPREL: discourse and advmod -> advmod, vocative -> dep (SPEC §5).
FEATS: Alpha/agdt s1 token 2 carries Gender=Fem,Masc (pre-merge and published); Alpha/ud_perseus
s1 tokens 2-3 carry pre-merge Gender=Com|PronType=Prs, published Gender=Fem,Masc. UPOS: roots
VERB, others NOUN; Alpha/ud_perseus s2 token 2 has source UPOS PROPN.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from sphragis import runner

REPO = Path(__file__).resolve().parents[1]
ANALYSES = REPO / "sql" / "analyses"
MODELS = ["int_eligible_records", "mart_published_tokens", "int_cell_profiles", "int_merge_map", "mart_rates",
          "mart_variation", "mart_merge_effects"]
PUBLISHED_DEPREL = {"root": "root", "conj": "conj", "discourse": "advmod", "advmod": "advmod",
                    "vocative": "dep", "obl": "obl"}

# (sentence_uid, project, author, retained, dedup_key, deprels of tokens 2-5)
SENTENCES = [
    (1, "agdt", "Alpha", True, "k1", ["conj", "conj", "discourse", "discourse"]),
    (2, "agdt", "Alpha", True, "k2", ["discourse", "advmod", "advmod", "advmod"]),
    (3, "ud_perseus", "Alpha", True, "k1", ["conj", "conj", "conj", "vocative"]),
    (4, "ud_perseus", "Alpha", True, "k4", ["conj", "conj", "advmod", "advmod"]),
    (5, "agdt", "Beta", True, "k5", ["conj", "discourse", "discourse", "discourse"]),
    (6, "agdt", "Beta", True, "k6", ["advmod"] * 4),
    (7, "ud_perseus", "Beta", True, "k7", ["conj", "advmod", "advmod", "advmod"]),
    (8, "ud_perseus", "Beta", True, "k8", ["advmod"] * 4),
    (9, "agdt", "Gamma", True, "k9", ["conj"] * 4),
    (10, "agdt", "Gamma", True, "k10", ["discourse", "discourse", "advmod", "advmod"]),
    # excluded from the rates
    (11, "ud_perseus", "Gamma", True, "k11", ["conj", "conj", "conj", "obl"]),  # cell of 5 tokens
    (12, "agdt", "Alpha", True, "k2", ["conj"] * 4),  # 2nd agdt record of group k2
    (13, "agdt", "Beta", False, "k13", ["conj"] * 4),  # not retained
    (14, "agdt", "Beta", False, "k14", ["conj"] * 4),  # not retained
    (15, "agdt", "Gamma", True, "kc", ["conj"] * 4),  # author-conflict group
]
CONFLICT_KEYS = {"kc"}


def _feats(uid: int, pos: int) -> tuple[str | None, str | None]:
    """(feats_full, feats) of token ``pos`` of sentence ``uid``."""
    if pos == 1:
        return None, None
    if uid == 1 and pos == 2:
        return "Case=Nom|Gender=Fem,Masc", "Case=Nom|Gender=Fem,Masc"
    if uid == 3 and pos in (2, 3):
        return "Case=Nom|Gender=Com|PronType=Prs", "Case=Nom|Gender=Fem,Masc"
    return "Case=Nom", "Case=Nom"


def _warehouse(path: Path) -> duckdb.DuckDBPyConnection:
    """The stand-in input tables of mart_published_tokens, with the contracts' column names."""
    con = duckdb.connect(str(path))
    con.execute("create table int_units (sentence_uid bigint, project varchar, dedup_key varchar)")
    con.execute("create table int_curated_sentences (sentence_uid bigint, project varchar, author varchar, "
                "work varchar, work_id varchar, genre varchar, is_retained boolean)")
    con.execute("create table int_dedup_groups (dedup_key varchar, status varchar)")
    con.execute("create table int_eligible_sentences (sentence_uid bigint, dedup_key varchar)")
    con.execute("create table int_tree_tokens (sentence_uid bigint, token_pos integer, i integer, head integer, "
                "deprel_ud varchar, deprel varchar)")
    con.execute("create table int_token_morphology (sentence_uid bigint, token_pos integer, upos varchar, "
                "upos_source varchar, feats varchar, feats_full varchar)")
    keys = sorted({s[4] for s in SENTENCES})
    con.executemany("insert into int_dedup_groups values (?, ?)",
                    [(k, "author_conflict" if k in CONFLICT_KEYS else "eligible") for k in keys])
    chosen = {}
    for uid, project, author, retained, key, rels in SENTENCES:
        con.execute("insert into int_units values (?, ?, ?)", [uid, project, key])
        con.execute("insert into int_curated_sentences values (?, ?, ?, ?, ?, ?, ?)",
                    [uid, project, author, f"Work of {author}", None, "prose", retained])
        if retained and key not in CONFLICT_KEYS and key not in chosen:
            chosen[key] = uid  # ud_perseus would win by priority; any one record per group will do
        for pos, rel in enumerate(["root", *rels], start=1):
            con.execute("insert into int_tree_tokens values (?, ?, ?, ?, ?, ?)",
                        [uid, pos, pos, 0 if pos == 1 else 1, rel, PUBLISHED_DEPREL[rel]])
            upos = "VERB" if pos == 1 else "NOUN"
            upos_source = None if project == "agdt" else ("PROPN" if (uid, pos) == (4, 2) else upos)
            feats_full, feats = _feats(uid, pos)
            con.execute("insert into int_token_morphology values (?, ?, ?, ?, ?, ?)",
                        [uid, pos, upos, upos_source, feats, feats_full])
    con.executemany("insert into int_eligible_sentences values (?, ?)", [(u, k) for k, u in chosen.items()])
    return con


def build_tiny(path: Path) -> duckdb.DuckDBPyConnection:
    """The hand-made warehouse at ``path`` with the variation models (:data:`MODELS`, rendered with
    ``min_cell_tokens`` 10) built by the real model SQL; the connection is left open."""
    project = runner.load_project()
    con = _warehouse(path)
    for name in MODELS:
        con.execute(f"create table {name} as {runner.render(project, name, {'min_cell_tokens': 10})}")
    return con


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory) -> Path:
    """The hand-made warehouse file with the variation models built and their data tests run."""
    path = tmp_path_factory.mktemp("variation") / "tiny.duckdb"
    con = build_tiny(path)
    runner.load_seeds(con, runner.load_project())  # relationships tests to the inventory seeds
    failures = runner.run_tests(con, runner.load_project(), set(MODELS))
    con.close()
    assert failures == []
    return path


@pytest.fixture(scope="module")
def tiny(tiny_path):
    con = duckdb.connect(str(tiny_path), read_only=True)
    yield con
    con.close()


def _variation(con, kind: str, scheme: str, category: str) -> tuple:
    return con.execute(
        "select annotator_variation_pp, authorial_variation_pp, verdict, n_authors_multi_project, "
        "n_projects_multi_author, n_cells from mart_variation where kind = ? and scheme = ? and category = ?",
        [kind, scheme, category]).fetchone()


def test_published_tokens_keep_every_retained_eligible_record(tiny):
    # 10 sentences of the five cells + Gamma/ud_perseus (11) + the second Alpha/agdt record (12);
    # not the non-retained (13, 14) nor the conflict group (15): 12 sentences x 5 tokens.
    uids = [r[0] for r in tiny.execute("select distinct sentence_uid from mart_published_tokens order by 1").fetchall()]
    assert uids == list(range(1, 13))
    assert tiny.execute("select count(*) from mart_published_tokens").fetchone()[0] == 60
    assert tiny.execute("select sentence_uid from mart_published_tokens where not is_first_in_project "
                        "group by 1").fetchall() == [(12,)]
    # both records of group k1 are kept, each in its own project's annotation; one is chosen
    rows = tiny.execute("select project, deprel_ud, is_chosen_parse from mart_published_tokens "
                        "where dedup_key = 'k1' and i = 5 order by project").fetchall()
    assert rows == [("agdt", "discourse", True), ("ud_perseus", "vocative", False)]


def test_rates_cells_and_zero_fill(tiny):
    cells = tiny.execute("select distinct author, project, n_tokens from mart_rates order by 1, 2").fetchall()
    assert cells == [("Alpha", "agdt", 10), ("Alpha", "ud_perseus", 10), ("Beta", "agdt", 10),
                     ("Beta", "ud_perseus", 10), ("Gamma", "agdt", 10)]
    # 5 pre-merge DEPREL (root conj discourse advmod vocative) + 4 published (root conj advmod dep)
    # + UPOS 3 pre-merge (VERB NOUN PROPN) + 2 published + FEATS 4 pre-merge (Case=Nom,
    # Gender=Fem,Masc, Gender=Com, PronType=Prs) + 2 published = 20 categories x 5 cells
    assert tiny.execute("select count(*) from mart_rates").fetchone()[0] == 100
    assert tiny.execute("select count(*) from mart_rates where category = 'obl'").fetchone()[0] == 0
    conj = dict(((a, p), r) for a, p, r in tiny.execute(
        "select author, project, rate_pct from mart_rates where kind = 'deprel' and scheme = 'pre_merge' "
        "and category = 'conj'").fetchall())
    # 2/10, 5/10, 1/10, 1/10, 4/10 (the duplicate, non-retained and conflict records add nothing)
    assert conj == {("Alpha", "agdt"): 20.0, ("Alpha", "ud_perseus"): 50.0, ("Beta", "agdt"): 10.0,
                    ("Beta", "ud_perseus"): 10.0, ("Gamma", "agdt"): 40.0}
    vocative = sorted(r for (r,) in tiny.execute(
        "select rate_pct from mart_rates where scheme = 'pre_merge' and category = 'vocative'").fetchall())
    assert vocative == [0.0, 0.0, 0.0, 0.0, 10.0]
    row = tiny.execute("select feature, value, rate_pct from mart_rates where kind = 'feats' and scheme = "
                       "'pre_merge' and category = 'Gender=Com' and author = 'Alpha' and project = "
                       "'ud_perseus'").fetchone()
    assert row == ("Gender", "Com", 20.0)


def test_variation_arithmetic(tiny):
    # conj: annotator = mean(|20-50|, |10-10|) = 15; authorial (agdt, the only project with 3
    # authors) = mean(|20-10|, |20-40|, |10-40|) = 20 -> style. Gamma has one qualifying cell.
    assert _variation(tiny, "deprel", "pre_merge", "conj") == pytest.approx((15.0, 20.0, "style", 2, 1, 5))
    # vocative: annotator = mean(|0-10|, 0) = 5; authorial = 0 (zeros everywhere in agdt) -> convention
    assert _variation(tiny, "deprel", "pre_merge", "vocative") == pytest.approx((5.0, 0.0, "convention", 2, 1, 5))
    # discourse 30/0, 30/0, 20: annotator mean(30, 30) = 30; authorial mean(0, 10, 10) = 20/3
    assert _variation(tiny, "deprel", "pre_merge", "discourse")[:3] == pytest.approx((30.0, 20 / 3, "convention"))
    # pre-merge advmod 30/20, 40/70, 20: annotator mean(10, 30) = 20; authorial mean(10, 10, 20) = 40/3
    assert _variation(tiny, "deprel", "pre_merge", "advmod")[:3] == pytest.approx((20.0, 40 / 3, "convention"))
    # published advmod (advmod + discourse) 60/20, 70/70, 40: annotator mean(40, 0) = 20;
    # authorial mean(10, 20, 30) = 20; a tie is not an excess -> style
    assert _variation(tiny, "deprel", "published", "advmod")[:3] == pytest.approx((20.0, 20.0, "style"))
    # root is 20% in every cell
    assert _variation(tiny, "deprel", "published", "root")[:3] == (0.0, 0.0, "style")
    # Gender=Com 0/20, 0/0, 0: annotator mean(20, 0) = 10; authorial 0 -> convention
    assert _variation(tiny, "feats", "pre_merge", "Gender=Com")[:3] == pytest.approx((10.0, 0.0, "convention"))
    # published Gender=Fem,Masc 10/20, 0/0, 0: annotator mean(10, 0) = 5; authorial mean(10, 10, 0) = 20/3
    assert _variation(tiny, "feats", "published", "Gender=Fem,Masc")[:3] == pytest.approx((5.0, 20 / 3, "style"))


def test_merge_effects(tiny):
    rows = tiny.execute(
        "select kind, published_category, part_category, n_parts, part_share_pct, part_annotator_variation_pp, "
        "merged_annotator_variation_pp from mart_merge_effects order by 1, 2, 3").fetchall()
    # published advmod has 6+2+7+7+4 = 26 tokens in the qualifying cells: 18 advmod, 8 discourse;
    # Gender=Fem,Masc 3 tokens: 1 pre-merge Fem,Masc, 2 Gender=Com; NOUN 39 tokens: 1 PROPN.
    # PronType=Prs has no published feature type: no row. Unmerged root and conj: no row.
    expected = [
        ("deprel", "advmod", "advmod", 2, 100 * 18 / 26, 20.0, 20.0),
        ("deprel", "advmod", "discourse", 2, 100 * 8 / 26, 30.0, 20.0),
        ("deprel", "dep", "vocative", 1, 100.0, 5.0, 5.0),
        ("feats", "Gender=Fem,Masc", "Gender=Com", 2, 100 * 2 / 3, 10.0, 5.0),
        ("feats", "Gender=Fem,Masc", "Gender=Fem,Masc", 2, 100 / 3, 5.0, 5.0),
        ("upos", "NOUN", "NOUN", 2, 100 * 39 / 40, 5.0, 0.0),
        ("upos", "NOUN", "PROPN", 2, 100 / 40, 5.0, 0.0),
    ]
    assert [r[:4] for r in rows] == [e[:4] for e in expected]
    for r, e in zip(rows, expected):
        assert r[4:] == pytest.approx(e[4:]), r


def test_min_cell_tokens_is_a_variable(tiny):
    # with a threshold of 5 the Gamma / ud_perseus cell (5 tokens) qualifies, so Gamma becomes a
    # multi-project author and obl a category
    project = runner.load_project()
    cells = runner.render(project, "int_cell_profiles", {"min_cell_tokens": 5})
    rates = runner.render(project, "mart_rates")
    n_cells, has_obl = tiny.execute(
        f"with int_cell_profiles as ({cells}\n) "
        f"select count(distinct (author, project)), bool_or(category = 'obl') from ({rates}\n)").fetchone()
    assert (n_cells, has_obl) == (6, True)


#: The exact answer of every README analyst query (sql/analyses/*.sql) on the hand-made
#: warehouse, worked out from the corpus table in the module docstring (rates: tokens of the
#: category / 10 tokens of the cell; the variation figures of test_variation_arithmetic).
ANALYST_ANSWERS = {
    # every qualifying cell holds 2 sentences x 5 tokens; agdt has 3 authors (authorial figure),
    # ud_perseus 2; Alpha and Beta are in 2 projects (annotator figure), Gamma only in agdt
    "author_project_cells.sql": [
        ("Alpha", "agdt", 10, True, True), ("Alpha", "ud_perseus", 10, True, False),
        ("Beta", "agdt", 10, True, True), ("Beta", "ud_perseus", 10, True, False),
        ("Gamma", "agdt", 10, False, True),
    ],
    # pre-merge: discourse 30 vs 20/3, advmod 20 vs 40/3, vocative 5 vs 0 (excess 23.33, 6.67, 5);
    # published: dep (= vocative) 5 vs 0. Two multi-project authors, one multi-author project.
    "deprel_convention_vs_style.sql": [
        ("pre_merge", "discourse", "advmod", 30.0, 6.67, 2, 1),
        ("pre_merge", "advmod", "advmod", 20.0, 13.33, 2, 1),
        ("pre_merge", "vocative", "dep", 5.0, 0.0, 2, 1),
        ("published", "dep", "dep", 5.0, 0.0, 2, 1),
    ],
    # pre-merge rates agdt vs ud_perseus (%): Alpha conj 2/10 vs 5/10, discourse 3/10 vs 0, advmod
    # 3/10 vs 2/10, vocative 0 vs 1/10, NOUN 8/10 vs 7/10 (one PROPN), Gender=Com and PronType=Prs
    # 0 vs 2/10, Gender=Fem,Masc 1/10 vs 0; Beta advmod 4/10 vs 7/10, discourse 3/10 vs 0; then the
    # equal rates (gap 0) by author and category, cut at 20 rows
    "top_annotator_gaps.sql": [
        ("Alpha", "deprel", "conj", "conj", "agdt", "ud_perseus", 20.0, 50.0, 30.0),
        ("Alpha", "deprel", "discourse", "advmod", "agdt", "ud_perseus", 30.0, 0.0, 30.0),
        ("Beta", "deprel", "advmod", "advmod", "agdt", "ud_perseus", 40.0, 70.0, 30.0),
        ("Beta", "deprel", "discourse", "advmod", "agdt", "ud_perseus", 30.0, 0.0, 30.0),
        ("Alpha", "feats", "Gender=Com", "Gender=Fem,Masc", "agdt", "ud_perseus", 0.0, 20.0, 20.0),
        ("Alpha", "feats", "PronType=Prs", None, "agdt", "ud_perseus", 0.0, 20.0, 20.0),
        ("Alpha", "feats", "Gender=Fem,Masc", "Gender=Fem,Masc", "agdt", "ud_perseus", 10.0, 0.0, 10.0),
        ("Alpha", "upos", "NOUN", "NOUN", "agdt", "ud_perseus", 80.0, 70.0, 10.0),
        ("Alpha", "upos", "PROPN", "NOUN", "agdt", "ud_perseus", 0.0, 10.0, 10.0),
        ("Alpha", "deprel", "advmod", "advmod", "agdt", "ud_perseus", 30.0, 20.0, 10.0),
        ("Alpha", "deprel", "vocative", "dep", "agdt", "ud_perseus", 0.0, 10.0, 10.0),
        ("Alpha", "feats", "Case=Nom", "Case=Nom", "agdt", "ud_perseus", 80.0, 80.0, 0.0),
        ("Alpha", "upos", "VERB", "VERB", "agdt", "ud_perseus", 20.0, 20.0, 0.0),
        ("Alpha", "deprel", "root", "root", "agdt", "ud_perseus", 20.0, 20.0, 0.0),
        ("Beta", "feats", "Case=Nom", "Case=Nom", "agdt", "ud_perseus", 80.0, 80.0, 0.0),
        ("Beta", "feats", "Gender=Com", "Gender=Fem,Masc", "agdt", "ud_perseus", 0.0, 0.0, 0.0),
        ("Beta", "feats", "Gender=Fem,Masc", "Gender=Fem,Masc", "agdt", "ud_perseus", 0.0, 0.0, 0.0),
        ("Beta", "upos", "NOUN", "NOUN", "agdt", "ud_perseus", 80.0, 80.0, 0.0),
        ("Beta", "upos", "PROPN", "NOUN", "agdt", "ud_perseus", 0.0, 0.0, 0.0),
        ("Beta", "feats", "PronType=Prs", None, "agdt", "ud_perseus", 0.0, 0.0, 0.0),
    ],
}


@pytest.mark.parametrize("path", [ANALYSES / n for n in sorted(ANALYST_ANSWERS)], ids=lambda p: p.name)
def test_analyst_queries_answer_exactly(tiny, path):
    # the variation queries; those over `tokens` are answered on the real build (test_tokens.py,
    # which also checks that every query file is answered by one of the two)
    rows = tiny.execute(path.read_text(encoding="utf-8")).fetchall()
    assert rows == ANALYST_ANSWERS[path.name]


def test_convention_query_answers_the_question(tiny):
    # "which DEPREL values vary more between projects than between authors?" on the tiny corpus
    cur = tiny.execute((ANALYSES / "deprel_convention_vs_style.sql").read_text(encoding="utf-8"))
    names = [d[0] for d in cur.description]
    got = {(r[names.index("scheme")], r[names.index("deprel")]) for r in cur.fetchall()}
    assert got == {("pre_merge", "vocative"), ("pre_merge", "discourse"), ("pre_merge", "advmod"),
                   ("published", "dep")}


@pytest.mark.integration
def test_analyst_queries_on_the_real_build(real_warehouse):
    # The README's queries on the real warehouse agree with the marts they summarize: one row per
    # (author, project) cell of mart_rates with its token count, the flags as the SPEC §11
    # definitions (author in >= 2 projects; project with >= 3 authors), and the convention
    # DEPREL rows exactly mart_variation's.
    cells = real_warehouse.execute((ANALYSES / "author_project_cells.sql").read_text(encoding="utf-8")).fetchall()
    expected = real_warehouse.execute("""
        select author, project, any_value(n_tokens),
               count(distinct project) over (partition by author) >= 2,
               count(distinct author) over (partition by project) >= 3
        from mart_rates group by author, project""").fetchall()
    assert sorted(cells) == sorted(expected)
    # known figures of the pinned sources (after the SPEC §5.1 rules: Pedalion's one-word
    # sentence `ἐγώ-` + `οἶδα` of Ar. Thesm. is its longer piece οἶδα and
    # deduplicates against Gorman's and AGDT's οἶδα: one token fewer): 52 cells holding 1,169,956
    # tokens; 26 of them belong to authors annotated by several projects, 50 to projects with at
    # least 3 authors
    assert (len(cells), sum(c[2] for c in cells)) == (52, 1_169_956)
    assert (sum(c[3] for c in cells), sum(c[4] for c in cells)) == (26, 50)
    assert cells[0] == ("Aeneas Tacticus", "pedalion", 6396, False, True)
    conv = real_warehouse.execute((ANALYSES / "deprel_convention_vs_style.sql").read_text(encoding="utf-8")).fetchall()
    assert {(s, d) for s, d, *_ in conv} == set(real_warehouse.execute(
        "select scheme, category from mart_variation where kind = 'deprel' and verdict = 'convention'").fetchall())
    assert all(a >= b for _, _, _, a, b, _, _ in conv)  # convention: annotator exceeds authorial (rounded: >=)
    # 28 convention DEPRELs; the largest excess is pre-merge cc (10 multi-project authors, 4
    # multi-author projects)
    assert len(conv) == 28
    assert conv[0] == ("pre_merge", "cc", "case", 1.36, 0.35, 10, 4)
    gaps = real_warehouse.execute((ANALYSES / "top_annotator_gaps.sql").read_text(encoding="utf-8")).fetchall()
    assert len(gaps) == 20
    assert [g[-1] for g in gaps] == sorted((g[-1] for g in gaps), reverse=True)
    # the largest gap: Lucian's plural share, Harrington 32.16 % vs Pedalion 17.28 %
    assert gaps[0] == ("Lucian", "feats", "Number=Plur", "Number=Plur", "harrington", "pedalion", 32.16, 17.28, 14.88)


def test_report_shows_the_verdicts(tiny, tiny_path, tmp_path):
    pytest.importorskip("matplotlib", reason="the report's charts need the 'audit' extra")
    from sphragis import report

    md_path = report.render_report(warehouse=tiny_path, leakage=tmp_path / "absent.json", out_dir=tmp_path / "r")
    md = md_path.read_text(encoding="utf-8")
    # highlighted rows with their verdicts (figures from test_variation_arithmetic)
    assert "| deprel | pre_merge | `vocative` | 5.00 | 0.00 | +5.000 | **convention** | 2 | 1 | 5 |" in md
    assert "| deprel | pre_merge | `conj` | 15.00 | 20.00 | -5.000 | style | 2 | 1 | 5 |" in md
    assert "| feats | pre_merge | `Gender=Com` | 10.00 | 0.00 | +10.000 | **convention** |" in md
    assert "| deprel | `advmod` | `discourse` | 30.77 | 30.00 | 6.67 | convention | 20.00 | 20.00 | style |" in md
    assert "no leakage report at" in md
    assert {p.name for p in (tmp_path / "r").glob("*.png")} == {"variation.png", "merge_effects.png"}


@pytest.mark.integration
def test_real_variation_rows(real_warehouse):
    """SPEC §11: non-empty rows for vocative, discourse, appos, case, conj and Gender."""
    con = real_warehouse
    for category in ("vocative", "discourse", "appos", "case", "conj"):
        row = con.execute("select annotator_variation_pp, authorial_variation_pp, verdict from mart_variation "
                          "where kind = 'deprel' and scheme = 'pre_merge' and category = ?", [category]).fetchone()
        assert row is not None and row[2] in ("convention", "style"), category
    n_gender = con.execute("select count(*) from mart_variation where feature = 'Gender' "
                           "and verdict is not null").fetchone()[0]
    assert n_gender >= 3
    # vocative is merged into dep, discourse into advmod, appos into nmod (SPEC §5)
    merged = dict(con.execute("select part_category, published_category from mart_merge_effects "
                              "where kind = 'deprel' and part_category in ('vocative', 'discourse', 'appos')").fetchall())
    assert merged == {"vocative": "dep", "discourse": "advmod", "appos": "nmod"}
