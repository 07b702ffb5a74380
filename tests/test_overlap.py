"""Passage overlap (SPEC §7.1): the pair classes, the overlap groups, the
source-held-out training twins, the conflict rule and the `grouped` split profile.

Hand-made rows: the synthetic corpus of tests/test_splits.py (its split arithmetic is documented
there) with the texts of a few rows replaced by Greek passages chosen for each class; the
models run from their rendered SQL, followed by their declared data tests. The real-data tests
read the real build (tests/conftest.py).
"""

from __future__ import annotations

import duckdb
import pytest

from sphragis import runner
from sphragis.runner.render import renderer
from test_splits import SPLIT_MODELS, build

OVERLAP_MODELS = [*SPLIT_MODELS, "mart_overlap_pairs", "mart_overlap_groups", "mart_overlap_twin_rows",
                  "mart_overlap_leaks", "mart_overlap_summary"]

# sentence_uid = block_no * 100000 + i (tests/test_splits.py CORPUS, blocks numbered from 1):
# Alpha One 1, Alpha Four 2 (agdt); Beta One gorman 7, Beta Two gorman 8, Beta One pedalion 9;
# Gamma harrington 10; Delta One agdt 12, Delta Three harrington 14.
KANDAULES = "ὁ δὲ κανδαύλης ἐπεὶ ἐδόκεε ὥρη τῆς κοίτης εἶναι ἤγαγε τὸν γύγεα ἐς τὸ οἴκημα"
KANDAULES_PART = "ἐπεὶ ἐδόκεε ὥρη τῆς κοίτης εἶναι ἤγαγε τὸν"  # 8 words, 6 trigrams, all inside
HEMEIS = "ἡμεῖς δ᾽ ἐμμεμαῶτες ἅμ᾽ ἑψόμεθ᾽ οὐδέ τί φημι ἀλκῆς δευήσεσθαι ὅση δύναμίς γε πάρεστιν"
FEAST = "αὐτὰρ ἐπεὶ πόσιος καὶ ἐδητύος ἐξ ἔρον ἕντο"
PRAYER_A = "ὣς ἔφατ᾽ εὐχόμενος τοῦ δ᾽ ἔκλυε φοῖβος ἀπόλλων"
PRAYER_B = "ὣς ἔφατ᾽ εὐχόμενος τοῦ δ᾽ ἔκλυε παλλὰς ἀθήνη"  # 4 of 6 trigrams shared: 0.67, no pair
MENIN = "μῆνιν ἄειδε θεὰ πηληϊάδεω ἀχιλῆος οὐλομένην ἣ μυρί᾽ ἀχαιοῖς ἄλγε᾽ ἔθηκε"
ANDRA = "ἄνδρα μοι ἔννεπε μοῦσα πολύτροπον ὃς μάλα πολλὰ πλάγχθη ἐπεὶ τροίης ἱερὸν πτολίεθρον ἔπερσεν"

TEXTS = {
    700045: KANDAULES,  # segmentation: Beta One, gorman (train on source_held_out) ...
    900005: KANDAULES_PART,  # ... and pedalion (Beta's held-out project: evaluation)
    100001: HEMEIS,  # edition, one author: movable ν
    100002: HEMEIS[:-1],
    100010: FEAST + " τοῖσι δὲ μύθων ἦρχε",  # formula: Alpha One and Alpha Four, agdt
    200010: FEAST,
    100020: PRAYER_A,  # below the containment threshold: no pair
    100021: PRAYER_B,
    1000007: "καί φησιν ὅμηρος " + MENIN,  # quotation: Gamma quotes Delta
    1400007: MENIN,
    1200003: ANDRA,  # edition across two author labels: Delta and Beta (a conflict)
    800003: ANDRA[:-1],
}


def _edits(texts: dict[int, str]) -> list[str]:
    return [f"update stand_in_units set text = '{t}' where sentence_uid = {uid}" for uid, t in texts.items()]


def _row_ids(con, uids) -> dict[int, str]:
    rows = con.execute("select sentence_uid, row_id from int_eligible_sentences where sentence_uid in "
                       f"({', '.join(str(u) for u in uids)})").fetchall()
    return dict(rows)


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    build(c, models=OVERLAP_MODELS, edits=_edits(TEXTS))
    yield c
    c.close()


def test_pair_classes(con):
    rid = _row_ids(con, TEXTS)
    got = {(a, b): (cls, float(c), conflict) for a, b, cls, c, conflict in con.execute(
        "select row_id_a, row_id_b, overlap_class, containment, is_author_conflict from int_overlap_pairs").fetchall()}

    def pair(u, v):
        return tuple(sorted((rid[u], rid[v])))

    assert got == {
        pair(700045, 900005): ("segmentation", 1.0, False),
        pair(100001, 100002): ("edition", 1.0, False),
        pair(100010, 200010): ("formula", 1.0, False),
        pair(1000007, 1400007): ("quotation", 1.0, True),
        pair(1200003, 800003): ("edition", 1.0, True),
    }
    # the edition variant is ignored by the measure too, and shared words are counted
    shared = con.execute("select shared_ngrams, shared_words from int_overlap_pairs where row_id_a = ? or row_id_b = ?",
                         [rid[100002], rid[100002]]).fetchone()
    assert shared == (12, 14)


def test_edition_variants_as_constants_equal_the_seeds_rules(con):
    # apply_edition_variants writes the seed's rules into the SQL (constant patterns compile once):
    # on the seed's own examples, and on texts where one rule's match takes the space another
    # needs, it gives what the rules read from the seed table give, applied in variant_order
    render = renderer(runner.load_project()).render_string
    words = render("{{ overlap_words('t.x') }}", "test_overlap")[0]
    constants = render("{{ apply_edition_variants(overlap_words('t.x')) }}", "test_overlap")[0]
    texts = [w.strip() for (e,) in con.execute("select example from edition_variants").fetchall()
             for part in e.split(";") for w in part.split("=")]
    texts += ["οὕτως οὕτως ξύν", "ἐστίν οὕτως", "θάλαττα γίγνεται"]
    rows = con.execute(
        f"select {words}, {constants}, list_reduce((select list(struct_pack(p := pattern, r := replacement) "
        f"order by variant_order) from edition_variants), lambda acc, v: regexp_replace(acc, v.p, v.r, 'g'), {words}) "
        "from unnest(?) as t (x)", [texts]).fetchall()
    assert len(rows) == len(texts) > 12
    assert [r[1] for r in rows] == [r[2] for r in rows]
    assert ("ουτωσ ουτωσ ξυν", "ουτω ουτωσ συν", "ουτω ουτωσ συν") in rows
    assert ("θαλαττα γιγνεται", "θαλασσα γινεται", "θαλασσα γινεται") in rows


def test_edition_variants_other_than_the_seed_stop_the_model(con):
    # int_overlap_texts checks the rules written into its SQL against the seed table it ref()s
    project = runner.load_project()
    other = [{"pattern": "ττ", "replacement": "σσ"}]
    with pytest.raises(duckdb.Error, match="the seed edition_variants differs from var"):
        con.execute("select count(*) from ("
                    + runner.render(project, "int_overlap_texts", {"edition_variants": other}) + ")").fetchall()


def test_groups_are_connected_components(con):
    rid = _row_ids(con, TEXTS)
    groups = con.execute("select group_id, list_sort(list(row_id)) from int_overlap_groups group by group_id").fetchall()
    assert sorted(members for _, members in groups) == sorted(
        [sorted([rid[u], rid[v]]) for u, v in
         [(700045, 900005), (100001, 100002), (100010, 200010), (1000007, 1400007), (1200003, 800003)]])
    assert all(gid == members[0] for gid, members in groups)


def test_group_chain_by_label_propagation():
    # a-b, b-c, d-e, c-f, x-f: two components, named by their smallest row_id
    c = duckdb.connect()
    c.execute("create table int_overlap_pairs as select * from (values ('a', 'b'), ('b', 'c'), ('d', 'e'), "
              "('c', 'f'), ('f', 'x')) t(row_id_a, row_id_b)")
    c.execute("alter table int_overlap_pairs add column overlap_class varchar default 'formula'")
    c.execute("alter table int_overlap_pairs add column is_author_conflict boolean default false")
    c.execute("alter table int_overlap_pairs add column is_char_twin boolean default false")
    from sphragis import runner

    project = runner.load_project()
    c.execute(f"create table int_overlap_edges as {runner.render(project, 'int_overlap_edges')}")
    got = c.execute(f"select row_id, group_id, group_rows from ({runner.render(project, 'int_overlap_groups')}) "
                    "order by row_id").fetchall()
    assert got == [("a", "a", 5), ("b", "a", 5), ("c", "a", 5), ("d", "d", 2), ("e", "d", 2), ("f", "a", 5),
                   ("x", "a", 5)]


def test_held_out_track_drops_training_twins_and_conflicts(con):
    rid = _row_ids(con, TEXTS)
    reasons = dict(con.execute("select row_id, excluded_reason from mart_split_assignments "
                               "where track = 'source_held_out'").fetchall())
    # Beta's gorman row overlaps a pedalion (held-out, evaluation) row of Beta: dropped from train
    assert reasons[rid[700045]] == "overlaps_evaluation_row"
    assert reasons[rid[900005]] in (None, "bottleneck_remainder")
    # the Delta/Beta edition pair and the Gamma/Delta quotation, two author labels each: all four
    # rows omitted (SPEC §7's conflict rule)
    assert {reasons[rid[u]] for u in (1200003, 800003, 1000007, 1400007)} == {"overlap_author_conflict"}
    summary = con.execute("select held_out_train_twins_dropped, held_out_conflict_rows_omitted, "
                          "main_conflict_rows_omitted from mart_overlap_summary").fetchone()
    assert summary == (1, 4, 0)
    leaks = con.execute("select sum(rows_with_twin_after) from mart_overlap_leaks "
                        "where track = 'source_held_out' and overlap_class = 'any'").fetchone()[0]
    assert leaks == 0


# crasis written two ways (Hdt. 1.125: PROIEL οἱ ἄλλοι, AGDT ὧλλοι): 3 of the 10 word trigrams of the
# crasis side differ (containment 0.7, no word pair); 5 of its 60 character 5-grams do (0.9167)
OI_ALLOI = "ἔστι δὲ τάδε ἐξ ὧν οἱ ἄλλοι πάντες ἀρτέαται πέρσαι πασαργάδαι μαράφιοι μάσπιοι"
HOLLOI = "ἔστι δὲ τάδε ἐξ ὧν ὧλλοι πάντες ἀρτέαται πέρσαι πασαργάδαι μαράφιοι μάσπιοι"


def _key(text: str) -> str:
    """SPEC §7's dedup key of ``text`` (NFD, marks dropped, lowercase, final sigma, letters only)."""
    import unicodedata

    letters = "".join(c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c))
    return "".join(c for c in letters if c.isalpha()).replace("ς", "σ")


def test_a_near_twin_only_the_characters_find_gets_the_same_rules():
    # Beta's gorman row (training on the source-held-out track) and its pedalion row (held out:
    # evaluation): the character measure pairs them, the word measure does not; the training twin
    # is dropped as a word twin would be, and no evaluation row keeps a twin in train
    c = duckdb.connect()
    edits = [f"update stand_in_units set text = '{t}', dedup_key = '{_key(t)}' where sentence_uid = {uid}"
             for uid, t in ((700045, OI_ALLOI), (900005, HOLLOI))]
    build(c, models=OVERLAP_MODELS, edits=edits)
    rid = _row_ids(c, [700045, 900005])
    pair = c.execute("select overlap_class, is_word_twin, is_char_twin, containment, char_containment "
                     "from int_overlap_pairs where ? in (row_id_a, row_id_b)", [rid[700045]]).fetchall()
    assert pair == [("segmentation", False, True, None, 0.9167)]
    reasons = dict(c.execute("select row_id, excluded_reason from mart_split_assignments "
                             "where track = 'source_held_out'").fetchall())
    assert reasons[rid[700045]] == "overlaps_evaluation_row"
    summary = c.execute("select pairs, word_pairs, char_pairs, char_only_pairs, held_out_train_twins_dropped "
                        "from mart_overlap_summary").fetchone()
    assert summary == (1, 0, 1, 1, 1)
    leaks = c.execute("select sum(rows_with_twin_after), sum(rows_with_char_twin_before) from mart_overlap_leaks "
                      "where track = 'source_held_out' and overlap_class = 'any'").fetchone()
    assert leaks[0] == 0 and leaks[1] >= 1
    c.close()


def test_default_profile_keeps_the_seed_split(con):
    # seed000: the main track is seed 000's split (baseline) on every row; the conflict rule is
    # not applied there, so the published table stays reproducible
    moved = con.execute("select count(*) from mart_split_assignments where track = 'main' "
                        "and split is distinct from baseline_split").fetchone()[0]
    assert moved == 0
    plain = duckdb.connect()
    build(plain)  # the same corpus without overlapping texts
    query = "select row_id, split from mart_split_rows where track = 'main'"
    assert set(con.execute(query).fetchall()) == set(plain.execute(query).fetchall())
    plain.close()


@pytest.fixture(scope="module")
def straddling():
    """A group of three Alpha One rows, one of them in validation and two in train under seed 000's
    split: the validation row is part of both training rows (one of them an edition variant).
    Built with the default profile and with `grouped`."""
    probe = duckdb.connect()
    build(probe)
    picks = probe.execute("""
        select split, list(sentence_uid order by sentence_uid)[:2] from mart_split_rows r
        join int_eligible_sentences e using (row_id)
        where r.track = 'main' and e.work = 'Alpha One' and split in ('validation', 'train') group by split
    """).fetchall()
    probe.close()
    by_split = dict(picks)
    v, (t1, t2) = by_split["validation"][0], by_split["train"]
    texts = {v: KANDAULES_PART, t1: KANDAULES, t2: KANDAULES.replace("ἤγαγε", "ἤγαγεν")}
    out = {}
    for profile in ("seed000", "grouped"):
        c = duckdb.connect()
        build(c, models=OVERLAP_MODELS, edits=_edits(texts), variables={"split_profile": profile})
        out[profile] = c
    yield out, (v, t1, t2)
    for c in out.values():
        c.close()


def test_default_profile_reports_what_straddles(straddling):
    cons, (v, t1, t2) = straddling
    c = cons["seed000"]
    rid = _row_ids(c, [v, t1, t2])
    classes = dict(c.execute("select row_id_b, overlap_class from int_overlap_pairs where row_id_a = ? or row_id_b = ?",
                             [rid[v], rid[v]]).fetchall() + c.execute(
        "select row_id_a, overlap_class from int_overlap_pairs where row_id_b = ?", [rid[v]]).fetchall())
    assert sorted(classes.values()) == ["formula", "formula"]
    twins = c.execute("select config, split, id, twin_classes, train_twins from mart_overlap_twin_rows "
                      "where config = 'sentence_1'").fetchall()
    published = c.execute("select published_id from int_eligible_sentences where row_id = ?", [rid[v]]).fetchone()[0]
    assert twins == [("sentence_1", "validation", published, ["formula"], 2)]
    leak = c.execute("select rows_with_twin_before, rows_with_twin_after from mart_overlap_leaks "
                     "where config = 'sentence_1' and split = 'validation' and overlap_class = 'any'").fetchone()
    assert leak == (1, 1)
    assert c.execute("select straddles_main from mart_overlap_groups").fetchall() == [(True,)]


def test_grouped_profile_keeps_a_group_in_one_split(straddling):
    cons, (v, t1, t2) = straddling
    c = cons["grouped"]
    rid = _row_ids(c, [v, t1, t2])
    splits = c.execute("select row_id, candidate_split, baseline_split from mart_split_assignments "
                       "where track = 'main' and row_id in (?, ?, ?)", [rid[v], rid[t1], rid[t2]]).fetchall()
    assert len({s for _, s, _ in splits}) == 1
    assert {r: b for r, _, b in splits}[rid[v]] == "validation"
    assert c.execute("select sum(rows_with_twin_after) from mart_overlap_leaks where overlap_class = 'any'"
                     ).fetchone()[0] == 0
    assert c.execute("select straddles_main from mart_overlap_groups").fetchall() == [(False,)]


# --- real sources (skip without ../shared/sources; see tests/conftest.py) ------------------------


def _real(con, sql, params=()):
    return con.execute(sql, list(params)).fetchall()


@pytest.mark.integration
def test_real_herodotus_segmentation(built_warehouse):
    # PROIEL ends sentences of Hdt. 1.14 at raised dots where AGDT runs on: PROIEL's last part of
    # it (πάρεξ δὲ τοῦ ἀργύρου ...) lies inside the one AGDT sentence, a segmentation pair that
    # straddled the source-held-out split (PROIEL evaluation, AGDT train) until the AGDT row was
    # dropped from training
    rows = _real(built_warehouse, """
        select p.overlap_class, p.containment, a.passage, b.passage, p.straddled_source_held_out_baseline,
               p.straddles_source_held_out, r.excluded_reason
        from mart_overlap_pairs p
        join int_eligible_sentences a on p.row_id_a = a.row_id
        join int_eligible_sentences b on p.row_id_b = b.row_id
        join int_units u on u.sentence_uid = b.sentence_uid
        join mart_split_assignments r on r.row_id = a.row_id and r.track = 'source_held_out'
        where a.project = 'agdt' and b.project = 'ud_proiel' and u.text like 'πάρεξ δέ τοῦ ἀργύρου χρυσόν%'""")
    assert rows == [("segmentation", 1.0, "1.14", "1.14.1", True, False, "overlaps_evaluation_row")]


@pytest.mark.integration
def test_real_homeric_quotation(built_warehouse):
    # Xenophon, Memorabilia 1.2.58, quotes Iliad 2.188-189 (ὅν τινα μὲν βασιλῆα ...)
    rows = _real(built_warehouse, """
        select p.author_a, p.author_b, p.overlap_class, p.is_author_conflict
        from mart_overlap_pairs p
        join int_eligible_sentences x on x.row_id in (p.row_id_a, p.row_id_b) and x.author = 'Xenophon'
        join int_units u on u.sentence_uid = x.sentence_uid
        where p.overlap_class = 'quotation' and u.text like '%ὀδυσσεύς ὅντινα μέν βασιλῆα%'""")
    assert rows == [("Homeric-Iliad", "Xenophon", "quotation", True)]


@pytest.mark.integration
def test_real_no_held_out_evaluation_row_has_a_twin_in_train(built_warehouse):
    leaks = dict(_real(built_warehouse, """
        select config || '/' || split, rows_with_twin_after from mart_overlap_leaks
        where track = 'source_held_out' and overlap_class = 'any'"""))
    assert leaks and set(leaks.values()) == {0}
    before = dict(_real(built_warehouse, """
        select split, rows_with_twin_before from mart_overlap_leaks
        where config = 'source_held_out_1' and overlap_class = 'any'"""))
    assert before == {"validation": 67, "test": 54}
    # with a twin the characters find (Herodotus' crasis written two ways across PROIEL and AGDT;
    # a Demosthenic phrase in two speeches on the work-held-out track): none after either
    char = dict(_real(built_warehouse, """
        select config || '/' || split, rows_with_char_twin_after from mart_overlap_leaks
        where track <> 'main' and overlap_class = 'any'"""))
    assert char and set(char.values()) == {0}
    before = dict(_real(built_warehouse, """
        select config || '/' || split, rows_with_char_twin_before from mart_overlap_leaks
        where config in ('source_held_out_1', 'work_held_out_1') and overlap_class = 'any'"""))
    assert before == {"source_held_out_1/validation": 67, "source_held_out_1/test": 54,
                      "work_held_out_1/validation": 2, "work_held_out_1/test": 1}


@pytest.mark.integration
def test_real_crasis_pair_is_found_by_the_characters_alone(built_warehouse):
    rows = _real(built_warehouse, """
        select p.overlap_class, p.is_word_twin, p.is_char_twin, p.char_containment, r.excluded_reason
        from mart_overlap_pairs p
        join int_eligible_sentences a on a.row_id in (p.row_id_a, p.row_id_b) and a.project = 'agdt'
        join int_eligible_sentences b on b.row_id in (p.row_id_a, p.row_id_b) and b.project = 'ud_proiel'
        join int_units u on u.sentence_uid = a.sentence_uid
        join mart_split_assignments r on r.row_id = a.row_id and r.track = 'source_held_out'
        where u.text like 'ἔστι δέ τάδε ἐξ ὧν ὧλλοι%'""")
    assert rows == [("segmentation", False, True, 0.9167, "overlaps_evaluation_row")]


@pytest.mark.integration
def test_real_default_profile_keeps_the_seed_split(built_warehouse):
    # the main track is seed 000's split: no row moves, the reconciliation names no overlap cause,
    # and the conflict rule is reported for the main track, not applied (SPEC §7.1)
    moved = _real(built_warehouse, """select count(*) from mart_split_assignments
                              where track = 'main' and split is distinct from baseline_split""")
    assert moved == [(0,)]
    assert _real(built_warehouse, "select count(*) from mart_seed_reconciliation where overlap_rows <> 0") == [(0,)]
    summary = _real(built_warehouse, """select split_profile, main_conflict_rows_omitted, main_published_conflict_rows,
                                       held_out_train_twins_dropped from mart_overlap_summary""")
    assert summary == [("seed000", 0, 369, 86)]
