"""SPEC §8 splits and chunks (models/marts/_splits.yml models) on a synthetic eligible corpus.

The stand-in ``int_eligible_sentences`` (and ``int_units``, the chosen parses' text, tokens and
native syntax) is generated in SQL from the plan in ``CORPUS`` (one row per author/work/project
block) with the column contract of the real models; the split, chunk and
export models then run from their rendered SQL, followed by their declared data tests. The
figures asserted below follow from the split arithmetic documented in
``models/marts/mart_split_assignments.sql`` (they are derived by hand in the comments, not read
back from the models).
"""

from __future__ import annotations

import hashlib

import duckdb
import pytest

from sphragis import runner

SPLIT_MODELS = [
    "int_author_projects",
    # passage overlap (SPEC §7.1), read by mart_split_assignments; no pair in CORPUS's texts
    "int_overlap_texts",
    "int_record_overlap_pairs",
    "int_overlap_char_pairs",
    "int_overlap_pairs",
    "int_overlap_edges",
    "int_overlap_groups",
    "int_work_held_out_choice",
    "mart_split_assignments",
    "mart_split_rows",
    "mart_export_units",
    "mart_split_exclusions",
    "mart_author_split_counts",
    "mart_held_out_choices",
    "mart_work_held_out_choices",
    "mart_chunks",
    "mart_benchmark_rows",
    "mart_config_summary",
    "mart_split_checks",
]

# author, work, work_id, genre, project, rows, extra provenance project, rows (of the first) carrying it
CORPUS = [
    # Alpha: one project. Groups 600 → 60/60/480, 100 → 10/10/80, 15 → 2/2/11, 14 → 1/1/12,
    # 5 → 1/1/3, 2 → 0/0/2; author 74/74/588 → bottleneck 50/50/550.
    ("Alpha", "Alpha One", "tlg9001.tlg001", "prose", "agdt", 600, None, 0),
    ("Alpha", "Alpha Four", "tlg9001.tlg004", "prose", "agdt", 100, None, 0),
    ("Alpha", "Alpha Five", "tlg9001.tlg005", "prose", "agdt", 15, None, 0),
    ("Alpha", "Alpha Six", "tlg9001.tlg006", "prose", "agdt", 14, None, 0),
    ("Alpha", "Alpha Two", "tlg9001.tlg002", "prose", "agdt", 5, None, 0),
    ("Alpha", "Alpha Three", "tlg9001.tlg003", "prose", "agdt", 2, None, 0),
    # Beta: gorman 700 (30 of them also annotated by pedalion), pedalion 300 (held out).
    # main: Beta One 700 → 70/70/560, Beta Two 300 → 30/30/240: 800/100/100.
    # held out: pedalion 150/150; train 700 - 30 = 670 → 650.
    ("Beta", "Beta One", "tlg9002.tlg001", "verse", "gorman", 400, "pedalion", 30),
    ("Beta", "Beta Two", "tlg9002.tlg002", "verse", "gorman", 300, None, 0),
    ("Beta", "Beta One", "tlg9002.tlg001", "verse", "pedalion", 300, None, 0),
    # Gamma: main 200 → 20/20/160 (below 50); held out ud_ptnk 50 → 25/25 (below 50).
    ("Gamma", "Gamma One", "tlg9003.tlg001", "prose", "harrington", 150, None, 0),
    ("Gamma", "Gamma One", "tlg9003.tlg001", "prose", "ud_ptnk", 50, None, 0),
    # Delta: agdt 400, ud_perseus 300 and harrington 300 tie for second: source priority holds out
    # ud_perseus. main 40/40/320 + 2 × 30/30/240 = 800/100/100; held out 150/150, train 700.
    ("Delta", "Delta One", "tlg9004.tlg001", "verse", "agdt", 400, None, 0),
    ("Delta", "Delta Two", "tlg9004.tlg002", "verse", "ud_perseus", 300, None, 0),
    ("Delta", "Delta Three", "tlg9004.tlg003", "verse", "harrington", 300, None, 0),
]

TREEBANK = {"agdt": "AGDT 2.1", "gorman": "Gorman", "pedalion": "Pedalion", "harrington": "Harrington",
            "ud_perseus": "UD Perseus", "ud_ptnk": "UD PTNK", "ud_proiel": "UD PROIEL"}

# Rows follow the int_eligible_sentences contract, with their chosen parse's payload (split off into
# int_units by UNITS_SQL). Passages ascend with i in steps that make string order differ from
# numeric order ('1.10' after '1.9'), while sentence_pos runs backwards, so textual order must come
# from the parsed citation.
ELIGIBLE_SQL = """
create or replace table stand_in_units as
with
plan as (select * from plan_rows),
expanded as (
    select p.*, i, p.block_no * 100000 + i as uid
    from plan as p, range(p.n_rows) as t(i)
),
records as (
    select *,
        list_value(struct_pack(
            project := project, treebank_source := treebank_source, snapshot := 'snap-' || project,
            revision := 'rev1', url := 'https://example.org/' || project, license := 'CC BY-SA 3.0',
            path := 'data/' || file_name, upstream_sentence_id := i::varchar, sentence_uid := uid,
            passage := passage, syntax_scheme := case when project like 'ud%' then 'UD' else 'AGDT' end
        )) || case when i < n_extra then list_value(struct_pack(
            project := extra_project, treebank_source := 'Extra', snapshot := 'snap-x', revision := 'rev1',
            url := 'https://example.org/x', license := 'CC BY-NC-SA 4.0', path := 'data/x.xml',
            upstream_sentence_id := i::varchar, sentence_uid := uid + 50000, passage := passage,
            syntax_scheme := 'AGDT')) else [] end as source_records
    from (
        select *,
            (i // 10 + 1)::varchar || '.' || (i % 10 + 1)::varchar as passage,
            replace(lower(work), ' ', '_') || '_' || project || '.xml' as file_name,
            n_rows - i as sentence_pos
        from expanded
    )
)
select
    project || ':' || file_name || ':' || sentence_pos as row_id,
    printf('%016x', uid) as published_id,  -- unique, 16 hex digits (the real one is a salted hash)
    'k' || uid::varchar as dedup_key,
    uid as sentence_uid,
    project, treebank_source, author, work, work_id, genre,
    -- letters only, one text per row (the overlap measure drops digits)
    'λόγος ' || translate(uid::varchar, '0123456789', 'αβγδεζηθικ') as text,
    [struct_pack(id := 1, form := 'λόγος', lemma := 'λόγος', upos := 'NOUN', feats := 'Case=Nom',
                 head := 0, deprel := 'root')] as tokens,
    case when project like 'ud%' then []
         else [struct_pack(sentence := 1, i := 1, src := '1', relation := 'PRED', head := '0',
                           repair := null::varchar)] end as native_syntax,
    'urn:cts:greekLit:' || work_id || ':' || passage as cts_urn,
    passage,
    source_records,
    list_sort(list_distinct([r.license for r in source_records])) as licenses,
    list_sort(list_distinct([r.project for r in source_records])) as projects,
    len(source_records) as n_records,
    work_id as document_key,
    file_name,
    sentence_pos
from records
"""

UNITS_SQL = [
    """create or replace table int_units as
       select sentence_uid, project, text, tokens, native_syntax, len(tokens) as n_tokens, dedup_key
       from stand_in_units""",
    "create or replace table int_eligible_sentences as select * exclude (text, tokens, native_syntax) from stand_in_units",
    "drop table stand_in_units",
]


def build(con: duckdb.DuckDBPyConnection, corpus=CORPUS, *, models=SPLIT_MODELS, edits=(),
          variables: dict | None = None) -> None:
    """Create the stand-in int_eligible_sentences from ``corpus`` and build the split models in
    dependency order from their rendered SQL (build variables ``variables`` over the defaults),
    then run their declared data tests. ``edits``: SQL statements run on the stand-in table
    ``stand_in_units`` (e.g. setting texts) before it is split into int_units and
    int_eligible_sentences; ``models``: the models built.

    Raises:
        runner.ModelTestFailure: a declared data test of the split models failed.
    """
    project = runner.load_project()
    con.execute("create or replace table plan_rows (block_no integer, author varchar, work varchar, "
                "work_id varchar, genre varchar, project varchar, treebank_source varchar, n_rows integer, "
                "extra_project varchar, n_extra integer)")
    con.executemany("insert into plan_rows values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(n, a, w, wid, g, p, TREEBANK[p], k, x, nx)
                     for n, (a, w, wid, g, p, k, x, nx) in enumerate(corpus, 1)])
    con.execute(ELIGIBLE_SQL)
    for sql in [*edits, *UNITS_SQL]:
        con.execute(sql)
    runner.load_seeds(con, project)
    for name in [n for n in project.order(set(models)) if n in models]:
        con.execute(f"create or replace table {name} as\n{runner.render(project, name, variables)}")
    failures = runner.run_tests(con, project, set(models))
    if failures:
        raise runner.ModelTestFailure(failures)


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    build(c)
    yield c
    c.close()


def _counts(con, sql, params=()):
    return {tuple(r[:-1]): r[-1] for r in con.execute(sql, list(params)).fetchall()}


def test_group_arithmetic_before_bottleneck(con):
    got = _counts(con, """
        select work, candidate_split, count(*) from mart_split_assignments
        where track = 'main' and author = 'Alpha' group by all""")
    expected = {"Alpha One": (60, 60, 480), "Alpha Four": (10, 10, 80), "Alpha Five": (2, 2, 11),
                "Alpha Six": (1, 1, 12), "Alpha Two": (1, 1, 3), "Alpha Three": (0, 0, 2)}
    for work, (v, t, tr) in expected.items():
        assert got.get((work, "validation"), 0) == v, work
        assert got.get((work, "test"), 0) == t, work
        assert got.get((work, "train"), 0) == tr, work


def test_main_track_bottleneck_to_multiples_of_50(con):
    got = _counts(con, "select author, split, rows from mart_author_split_counts where track = 'main'")
    assert got == {
        ("Alpha", "train"): 550, ("Alpha", "validation"): 50, ("Alpha", "test"): 50,
        ("Beta", "train"): 800, ("Beta", "validation"): 100, ("Beta", "test"): 100,
        ("Delta", "train"): 800, ("Delta", "validation"): 100, ("Delta", "test"): 100,
    }
    # Alpha's remainders (38 train, 24 validation, 24 test) are excluded by the stable hash; Gamma
    # (20 validation rows) is excluded whole.
    excl = _counts(con, """select author, excluded_reason, count(*) from mart_split_exclusions
                           where track = 'main' group by all""")
    assert excl == {("Alpha", "bottleneck_remainder"): 38 + 24 + 24, ("Gamma", "author_below_threshold"): 200}


def test_bottleneck_keeps_the_smallest_bottleneck_hashes(con):
    # Within (track, author, split) the kept rows are exactly those with the smallest
    # sha256('776bottleneck:' || row_id), computed here in Python.
    import hashlib

    rows = con.execute("""select row_id, split is not null from mart_split_assignments
                          where track = 'main' and author = 'Alpha' and candidate_split = 'validation'""").fetchall()
    ranked = sorted(rows, key=lambda r: (hashlib.sha256(("776bottleneck:" + r[0]).encode()).hexdigest(), r[0]))
    assert [kept for _, kept in ranked] == [True] * 50 + [False] * (len(ranked) - 50)


def test_split_hash_is_sha256_of_seed_and_row_id(con):
    import hashlib

    row_id, h = con.execute("select row_id, split_hash from mart_split_assignments limit 1").fetchone()
    assert h == hashlib.sha256(("776" + row_id).encode()).hexdigest()


def test_held_out_track(con):
    got = _counts(con, "select author, split, rows from mart_author_split_counts where track = 'source_held_out'")
    assert got == {
        ("Beta", "train"): 650, ("Beta", "validation"): 150, ("Beta", "test"): 150,
        ("Delta", "train"): 700, ("Delta", "validation"): 150, ("Delta", "test"): 150,
    }
    choices = {r[0]: r[1:] for r in con.execute("""
        select author, held_out_project, held_out_source, decision, dropped_provenance_rows,
               candidate_validation_rows, candidate_test_rows
        from mart_held_out_choices""").fetchall()}
    assert choices["Alpha"][:3] == (None, None, "single_project_author")
    assert choices["Beta"] == ("pedalion", "Pedalion", "retained", 30, 150, 150)
    assert choices["Gamma"] == ("ud_ptnk", "UD PTNK", "below_threshold", 0, 25, 25)
    # the 300/300 tie for second place goes to the higher source priority (UD Perseus over Harrington)
    assert choices["Delta"][:3] == ("ud_perseus", "UD Perseus", "retained")
    # every validation/test row is a held-out-project parse; no training row has it in provenance
    bad = con.execute("""
        select count(*) from mart_split_rows r join int_eligible_sentences e using (row_id)
        join mart_held_out_choices c on r.author = c.author
        where r.track = 'source_held_out' and (
            (r.split = 'train' and list_contains(e.projects, c.held_out_project))
            or (r.split <> 'train' and e.project <> c.held_out_project))""").fetchone()[0]
    assert bad == 0
    assert con.execute("""select count(*) from mart_split_rows where track = 'source_held_out'
                          and held_out_source is null""").fetchone()[0] == 0


def _first_by_work_hash(*work_ids: str) -> list[str]:
    """``work_ids`` in the work-held-out rank order: sha256('776work:' || work_id) ascending."""
    return sorted(work_ids, key=lambda w: hashlib.sha256(f"776work:{w}".encode()).hexdigest())


def test_work_held_out_track(con):
    # Alpha (736 rows, target 73.6): validation = Alpha Four (100, |100 - 73.6| = 26.4, no subset of
    # at most 4 works is closer); test = the closest subset of the rest leaving one work:
    # Five + Six + Two + Three = 36 rows < 50 → below threshold. Beta has two works, Gamma one.
    # Delta (1000, target 100): validation one 300-row work (a 300 beats the 400; the tie between
    # Two and Three goes to the smaller bitmask, the work first by hash), test the other, train One.
    val, test = _first_by_work_hash("tlg9004.tlg002", "tlg9004.tlg003")
    got = {r[0]: r[1:] for r in con.execute("""
        select author, decision, validation_works, test_works, train_works, candidate_test_rows
        from mart_work_held_out_choices""").fetchall()}
    assert got == {
        "Alpha": ("below_threshold", ["tlg9001.tlg004"],
                  ["tlg9001.tlg002", "tlg9001.tlg003", "tlg9001.tlg005", "tlg9001.tlg006"], ["tlg9001.tlg001"], 36),
        "Beta": ("fewer_than_three_works", [], [], [], 0),
        "Gamma": ("single_work_author", [], [], [], 0),
        "Delta": ("retained", [val], [test], ["tlg9004.tlg001"], 300),
    }
    counts = _counts(con, "select author, split, rows from mart_author_split_counts where track = 'work_held_out'")
    assert counts == {("Delta", "train"): 400, ("Delta", "validation"): 300, ("Delta", "test"): 300}
    works = con.execute("""select distinct held_out_works from mart_split_rows
                           where track = 'work_held_out'""").fetchall()
    title = {"tlg9004.tlg002": "Delta Two", "tlg9004.tlg003": "Delta Three"}
    assert works == [([{"split": "validation", "work_id": val, "work": title[val]},
                       {"split": "test", "work_id": test, "work": title[test]}],)]


def test_work_held_out_subset_search():
    # Epsilon, 1000 rows (target 100): validation = {50, 60} (110, off by 10; 120 alone is off by
    # 20), test = {120} (the closest of what is left; 70 is off by 30), train 70 + 300 + 400 = 770;
    # bottleneck 750 / 100 / 100. No work in two splits.
    sizes = {"tlg9005.tlg001": 50, "tlg9005.tlg002": 60, "tlg9005.tlg003": 70, "tlg9005.tlg004": 300,
             "tlg9005.tlg005": 400, "tlg9005.tlg006": 120}
    c = duckdb.connect()
    try:
        build(c, [("Epsilon", f"Epsilon {w[-1]}", w, "prose", "agdt", n, None, 0) for w, n in sizes.items()])
        got = c.execute("""select validation_works, test_works, train_works, train_rows, validation_rows, test_rows
                           from mart_work_held_out_choices""").fetchall()
        assert got == [(["tlg9005.tlg001", "tlg9005.tlg002"], ["tlg9005.tlg006"],
                        ["tlg9005.tlg003", "tlg9005.tlg004", "tlg9005.tlg005"], 750, 100, 100)]
        assert c.execute("""select count(*) from (select work_id from mart_split_rows where track = 'work_held_out'
                            group by work_id having count(distinct split) > 1)""").fetchone()[0] == 0
    finally:
        c.close()


def test_chunks_cover_atomic_rows_exactly(con):
    for track, prefix in (("main", "sentence_"), ("source_held_out", "source_held_out_"),
                          ("work_held_out", "work_held_out_")):
        atomic = sorted(con.execute("select split, row_id from mart_split_rows where track = ?", [track]).fetchall())
        for k in (5, 10, 50):
            members = sorted(con.execute("""select split, unnest(constituent_ids) from mart_chunks
                                            where config = ?""", [f"{prefix}{k}"]).fetchall())
            assert members == atomic, (track, k)


def test_chunks_follow_textual_order_and_mix_only_tails(con):
    # Alpha validation (60 + 10 + 2 + 1 + 1 candidate rows) has work tails, so both kinds of
    # chunk occur; every single-work chunk lists its rows in citation order (numeric, '1.9'
    # before '1.10'), although sentence_pos runs the other way.
    rows = con.execute("""
        select c.chunk_id, any_value(c.chunk_is_mixed_work), any_value(c.chunk_works),
            list(e.passage order by m.pos)
        from mart_chunks c, unnest(c.constituent_ids) with ordinality m(row_id, pos)
        join int_eligible_sentences e on e.row_id = m.row_id
        where c.config = 'sentence_10'
        group by c.chunk_id""").fetchall()
    assert any(r[1] for r in rows) and not all(r[1] for r in rows)
    for _, mixed, works, passages in rows:
        if not mixed:
            keys = [tuple(int(x) for x in p.split(".")) for p in passages]
            assert keys == sorted(keys) and len(works) == 1
        else:
            assert len(works) >= 2
    # complete single-work chunks come before mixed chunks in every (config, split, author)
    order_bad = con.execute("""
        select count(*) from (
            select config, split, author,
                max(chunk_seq) filter (where not chunk_is_mixed_work) as last_single,
                min(chunk_seq) filter (where chunk_is_mixed_work) as first_mixed
            from mart_chunks group by all)
        where last_single > first_mixed""").fetchone()[0]
    assert order_bad == 0


def test_chunk_ids(con):
    ids = [r[0] for r in con.execute("""select chunk_id from mart_chunks where config = 'sentence_50'
                                        and author = 'Beta' and split = 'validation' order by chunk_seq""").fetchall()]
    assert ids == ["sentence_50-validation-beta-0001", "sentence_50-validation-beta-0002"]


def test_benchmark_rows_shapes(con):
    summary = {(cfg, split): (authors, rows) for cfg, split, authors, rows in con.execute(
        "select config, split, authors, rows from mart_config_summary").fetchall()}
    assert len(summary) == 36
    assert summary["work_held_out_1", "test"] == (1, 300)
    assert summary["work_held_out_50", "train"] == (1, 400 // 50)
    assert summary["sentence_1", "train"] == (3, 550 + 800 + 800)
    assert summary["sentence_10", "validation"] == (3, (50 + 100 + 100) // 10)
    assert summary["source_held_out_1", "test"] == (2, 150 + 150)
    assert summary["source_held_out_50", "train"] == (2, (650 + 700) // 50)
    # the nested payload is assembled by the exporter from the narrow mart (export/assembly.py)
    from sphragis.export import assembly, layout

    table = assembly.assemble_rows(assembly.config_rows(con, "source_held_out_5", "train"), assembly.fetch_units(con),
                                   layout.columns_of("source_held_out_5"))
    row = table.slice(0, 1).to_pylist()[0]  # row_order 1: Beta, the first held-out author
    assert row["author"] == "Beta"
    text, conllu, records, licenses, native, size, ids, prov, held, work = (row[c] for c in (
        "text", "conllu", "source_records", "licenses", "native_syntax", "chunk_size", "constituent_ids",
        "constituent_provenance", "held_out_source", "work"))
    assert size == 5 and len(text) == len(conllu) == len(native) == len(ids) == len(prov) == 5
    # each unit's payload is its chosen parse's (int_units row of its first record's sentence_uid)
    letters = str.maketrans("0123456789", "αβγδεζηθικ")  # ELIGIBLE_SQL's text: the uid in letters
    assert text == ["λόγος " + str(next(r for r in records if r["unit"] == k)["sentence_uid"]).translate(letters)
                    for k in range(5)]
    assert conllu[0][0][0]["deprel"] == "root" and len(conllu[0]) == 1
    assert sorted({r["unit"] for r in records}) == [0, 1, 2, 3, 4]
    assert held == "Pedalion" and work == "Beta One"
    assert [p["id"] for p in prov] == ids
    assert licenses == sorted(set(licenses))
    held_works = assembly.assemble_rows(assembly.config_rows(con, "work_held_out_10", "validation"),
                                      assembly.fetch_units(con), layout.columns_of("work_held_out_10"))
    assert "held_out_source" not in held_works.column_names
    first = held_works.slice(0, 1).to_pylist()[0]
    val, test = _first_by_work_hash("tlg9004.tlg002", "tlg9004.tlg003")
    assert [w["work_id"] for w in first["held_out_works"]] == [val, test] and first["chunk_work_ids"] == [val]
    atomic = con.execute("""select id, work, chunk_size, constituent_ids from mart_benchmark_rows
                            where config = 'sentence_1' limit 1""").fetchone()
    assert atomic[2] is None and atomic[3] is None and atomic[1].startswith(("Alpha", "Beta", "Delta"))


def test_rebuild_is_identical(con):
    other = duckdb.connect()
    build(other)
    q = "select * from mart_benchmark_rows order by config, split, row_order"
    assert con.execute(q).fetchall() == other.execute(q).fetchall()
    q = "select * from mart_split_exclusions order by track, row_id"
    assert con.execute(q).fetchall() == other.execute(q).fetchall()
    other.close()


def test_checks_detect_a_leaking_training_row(con):
    # The check model must fail when a training row carries the held-out project in provenance.
    project = runner.load_project()
    c = duckdb.connect()
    build(c)
    c.execute("""update mart_split_rows set split = 'train'
                 where track = 'source_held_out' and row_id = (
                     select min(row_id) from mart_split_rows where track = 'source_held_out'
                     and author = 'Beta' and split = 'test')""")
    c.execute(f"create or replace table mart_split_checks as {runner.render(project, 'mart_split_checks')}")
    failing = dict(c.execute("select check_name, failing_rows from mart_split_checks").fetchall())
    assert failing["held_out_train_has_held_out_project"] == 1
    assert failing["held_out_eval_not_from_held_out_project"] == 0
    c.close()


# --- real sources (skip without ../shared/sources; see tests/conftest.py) ------------------------


def test_real_every_author_split_is_a_multiple_of_50(real_warehouse):
    bad = real_warehouse.execute("""
        select track, author, split, rows from mart_author_split_counts
        where rows % 50 <> 0 or rows < 50""").fetchall()
    assert bad == []
    failing = real_warehouse.execute("select check_name from mart_split_checks where failing_rows <> 0").fetchall()
    assert failing == []


def test_real_iliad_matches_the_seed_table(real_warehouse):
    # seed 000 "Sentences per author label": Homeric-Iliad 6,250 / 750 / 750. Its sources (AGDT
    # Homer v1.6 books, UD Perseus dev/test) are complete in the pinned mirror.
    got = dict(real_warehouse.execute("""select split, rows from mart_author_split_counts
                                         where track = 'main' and author = 'Homeric-Iliad'""").fetchall())
    assert got == {"train": 6250, "validation": 750, "test": 750}


def test_real_held_out_choices(real_warehouse):
    # Herodotus: AGDT is the largest project, UD PROIEL (grc_proiel-ud-dev/test.conllu) the second;
    # Xenophon: Gorman first, Pedalion second (seed 000 "Source-held-out track").
    got = dict(real_warehouse.execute("""select author, held_out_source from mart_held_out_choices
                                         where author in ('Herodotus', 'Xenophon')""").fetchall())
    assert got == {"Herodotus": "UD PROIEL", "Xenophon": "Pedalion"}
    leaks = real_warehouse.execute("""
        select count(*) from mart_split_rows r
        join int_eligible_sentences e using (row_id)
        join mart_held_out_choices c on r.author = c.author
        where r.track = 'source_held_out' and r.split = 'train'
          and list_contains(e.projects, c.held_out_project)""").fetchone()[0]
    assert leaks == 0


def _rule_choice(sizes: dict[str, int]) -> tuple[list[str], list[str]]:
    """The work-held-out rule of int_work_held_out_choice, re-derived in Python: works ranked by
    sha256('776work:' || work_id); validation = the subset (bitmask over that ranking) leaving two
    works out closest to 10 % of the rows, test = the subset of the rest leaving one work closest to
    10 %; ties by fewer works, then the smaller bitmask. Returns (validation, test) work_ids, sorted."""
    ranked = _first_by_work_hash(*sizes)
    target = sum(sizes.values()) / 10

    def best(allowed: int, keep_out: int) -> int:
        masks = [m for m in range(1, 1 << len(ranked)) if m & ~allowed == 0
                 and bin(allowed).count("1") - bin(m).count("1") >= keep_out]
        return min(masks, key=lambda m: (abs(sum(sizes[w] for i, w in enumerate(ranked) if m >> i & 1) - target),
                                         bin(m).count("1"), m))

    full = (1 << len(ranked)) - 1
    val = best(full, 2)
    test = best(full & ~val, 1)
    return (sorted(w for i, w in enumerate(ranked) if val >> i & 1),
            sorted(w for i, w in enumerate(ranked) if test >> i & 1))


def test_real_work_held_out_track(built_warehouse):
    # no work of an author in two splits; every (author, split) a multiple of 50, at least 50
    straddling = built_warehouse.execute("""
        select author, work_id from mart_split_rows where track = 'work_held_out'
        group by author, work_id having count(distinct split) > 1""").fetchall()
    assert straddling == []
    counts = built_warehouse.execute("""select author, split, rows from mart_author_split_counts
                                        where track = 'work_held_out'""").fetchall()
    assert counts and all(n % 50 == 0 and n >= 50 for _a, _s, n in counts)
    # Xenophon's six works (eligible rows): the rule gives Symposium + Hiero (428 + 317 = 745 of
    # target 685) to validation and Anabasis (1,040, the closest of the rest) to test
    sizes = dict(built_warehouse.execute("""select work_id, count(*) from int_eligible_sentences
                                            where author = 'Xenophon' group by work_id""").fetchall())
    assert len(sizes) == 6
    val, test = _rule_choice(sizes)
    assert (val, test) == (["tlg0032.tlg004", "tlg0032.tlg008"], ["tlg0032.tlg006"])
    got = built_warehouse.execute("""select validation_works, test_works, decision from mart_work_held_out_choices
                                     where author = 'Xenophon'""").fetchone()
    assert got == (val, test, "retained")
    published = dict(built_warehouse.execute("""
        select split, list(distinct work_id order by work_id) from mart_split_rows
        where track = 'work_held_out' and author = 'Xenophon' and split <> 'train' group by split""").fetchall())
    assert published == {"validation": val, "test": test}
    # every author's choice is the rule's
    for author, v, t in built_warehouse.execute("""select author, validation_works, test_works
                                                   from mart_work_held_out_choices where n_works >= 3""").fetchall():
        rows = dict(built_warehouse.execute("""select work_id, count(*) from int_eligible_sentences
                                               where author = ? group by work_id""", [author]).fetchall())
        assert _rule_choice(rows) == (v, t), author
