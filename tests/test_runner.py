"""The models runner on small synthetic projects (tmp dirs): cycles, unknown refs, template errors,
selection, views, data and SQL tests, fingerprints and reuse, the manifest."""

from __future__ import annotations

import textwrap
from pathlib import Path

import duckdb
import pytest

from sphragis import runner

SRC = {f"raw.{t}": "raw-v1" for t in ("raw_words",)}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


#: raw_words -> stg_words (view) -> int_words (+ seed pos_map) -> mart_counts; mart_lengths from stg.
PROJECT = {
    "models/_sources.yml": """
        version: 2
        sources:
          - name: raw
            tables:
              - name: raw_words
                description: one row per word
        """,
    "models/staging/stg_words.sql": """
        {{ config(materialized='view') }}
        select w as form, p as pos from {{ source('raw', 'raw_words') }}
        """,
    "models/intermediate/int_words.sql": """
        with words as (select * from {{ ref('stg_words') }}),
        pos_map as (select * from {{ ref('pos_map') }})
        select words.form, pos_map.upos from words inner join pos_map on words.pos = pos_map.pos
        """,
    "models/marts/mart_counts.sql": """
        select upos, count(*) as n from {{ ref('int_words') }} group by all
        """,
    "models/marts/mart_lengths.sql": """
        select form, {{ twice('length(form)') }} as len2 from {{ ref('stg_words') }}
        """,
    "models/intermediate/_int.yml": """
        version: 2
        models:
          - name: int_words
            description: words with their UPOS
            columns:
              - name: form
                data_tests: [not_null]
              - name: upos
                tests: [not_null, {accepted_values: {values: [NOUN, VERB]}}, {relationships: {to: "ref('pos_map')", field: upos}}]
          - name: mart_counts
            columns:
              - name: upos
                data_tests: [unique, {relationships: {to: "ref('int_words')", field: upos}}]
        """,
    "sql/seeds/pos_map.csv": "pos,upos\nn,NOUN\nv,VERB\n",
    "sql/macros/m.sql": """
        {%- macro twice(x) -%}
        2 * {{ x }}
        {%- endmacro %}
        """,
    "sql/tests/assert_counts_add_up.sql": """
        select * from (select sum(n) as n from {{ ref('mart_counts') }})
        where n <> (select count(*) from {{ ref('int_words') }})
        """,
}


def _project(root: Path) -> runner.Project:
    return runner.load_project(root / "models", root / "sql" / "seeds", root / "sql" / "macros")


@pytest.fixture()
def proj(tmp_path):
    _write(tmp_path, PROJECT)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("create table raw_words as select * from (values ('logos', 'n'), ('legei', 'v'), ('ergon', 'n')) t(w, p)")
    yield tmp_path, con
    con.close()


def _status(report: runner.RunReport) -> dict[str, str]:
    return {k: v[0] for k, v in report.status.items()}


def test_first_run_builds_everything_with_views_and_tests(proj):
    root, con = proj
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert _status(rep) == dict.fromkeys(["stg_words", "int_words", "mart_counts", "mart_lengths"], "built")
    assert con.execute("select view_name from duckdb_views() where not internal").fetchall() == [("stg_words",)]
    assert con.execute("select * from mart_counts order by upos").fetchall() == [("NOUN", 2), ("VERB", 1)]
    assert con.execute("select len2 from mart_lengths where form = 'legei'").fetchone() == (10,)
    # 6 data tests (data_tests: and the tests: alias; one reads a seed) + 1 SQL test
    assert (rep.tests_run, rep.tests_skipped) == (7, 0)
    assert rep.manifest["tests"]["test.int_words.relationships(to pos_map.upos)(upos)"]["status"] == "pass"
    man = rep.manifest
    assert set(man) >= {"models", "seeds", "sources", "tests", "edges"}
    assert man["models"]["stg_words"]["materialized"] == "view"
    assert man["models"]["int_words"]["layer"] == "intermediate"
    assert man["models"]["int_words"]["depends_on"] == {"models": ["stg_words"], "seeds": ["pos_map"], "sources": []}
    assert ["raw.raw_words", "stg_words"] in man["edges"] and ["pos_map", "int_words"] in man["edges"]
    assert man["sources"]["raw.raw_words"]["description"] == "one row per word"
    assert "sql_test.assert_counts_add_up" in man["tests"]


def test_no_change_reuses_everything_and_skips_tests(proj):
    root, con = proj
    first = runner.execute(con, _project(root), source_fingerprints=SRC)
    again = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert set(_status(again).values()) == {"reused"}
    assert (again.tests_run, again.tests_skipped) == (0, 7)
    assert {k: v["fingerprint"] for k, v in again.manifest["models"].items()} == \
        {k: v["fingerprint"] for k, v in first.manifest["models"].items()}
    full = runner.execute(con, _project(root), source_fingerprints=SRC, full=True)
    assert set(_status(full).values()) == {"built"} and full.tests_run == 7


def test_seed_edit_rebuilds_its_descendants_only_and_matches_a_fresh_build(proj, tmp_path):
    root, con = proj
    runner.execute(con, _project(root), source_fingerprints=SRC)
    (root / "sql/seeds/pos_map.csv").write_text("pos,upos\nn,VERB\nv,VERB\n", encoding="utf-8")
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert _status(rep) == {"stg_words": "reused", "int_words": "built", "mart_counts": "built",
                            "mart_lengths": "reused"}
    assert rep.status["int_words"][1] == "input changed: pos_map"
    fresh = duckdb.connect()
    fresh.execute("create table raw_words as select * from (values ('logos', 'n'), ('legei', 'v'), ('ergon', 'n')) t(w, p)")
    runner.execute(fresh, _project(root), source_fingerprints=SRC)
    for table in ("int_words", "mart_counts", "mart_lengths"):
        q = f"select * from {table} order by all"
        assert con.execute(q).fetchall() == fresh.execute(q).fetchall()
    assert con.execute("select * from mart_counts").fetchall() == [("VERB", 3)]


def test_sql_and_source_changes_are_detected(proj):
    root, con = proj
    runner.execute(con, _project(root), source_fingerprints=SRC)
    p = root / "models/marts/mart_lengths.sql"
    p.write_text(p.read_text() + "where form <> 'ergon'\n")
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert {k for k, v in rep.status.items() if v[0] == "built"} == {"mart_lengths"}
    assert rep.status["mart_lengths"][1] == "SQL changed"
    con.execute("insert into raw_words values ('logoi', 'n')")  # the source changed: a new content hash
    rep = runner.execute(con, _project(root), source_fingerprints={"raw.raw_words": "raw-v2"})
    assert set(_status(rep).values()) == {"built"}
    assert rep.status["stg_words"][1] == "input changed: raw.raw_words"
    # a var() change is in the rendered SQL, hence in the fingerprint
    p.write_text("select form, {{ var('k', 0) }} as k from {{ ref('stg_words') }}\n")
    runner.execute(con, _project(root), source_fingerprints=SRC, variables={"k": 1})
    rep = runner.execute(con, _project(root), source_fingerprints=SRC, variables={"k": 2})
    assert {k for k, v in rep.status.items() if v[0] == "built"} == {"mart_lengths"}


def test_without_a_source_fingerprint_nothing_reading_it_is_reused(proj):
    root, con = proj
    runner.execute(con, _project(root))
    rep = runner.execute(con, _project(root))
    assert set(_status(rep).values()) == {"built"}


def test_selection(proj):
    root, con = proj
    p = _project(root)
    assert runner.select_models(p, ["int_words"], set()) == {"int_words"}
    assert runner.select_models(p, ["+int_words"], set()) == {"int_words", "stg_words"}
    assert runner.select_models(p, ["int_words+"], set()) == {"int_words", "mart_counts"}
    assert runner.select_models(p, ["+mart_counts+"], set()) == {"int_words", "mart_counts", "stg_words"}
    assert runner.select_models(p, ["stg_words+"], set()) == set(p.models)
    assert runner.select_models(p, ["state:modified"], {"int_words"}) == {"int_words"}
    assert runner.select_models(p, ["state:modified+"], {"int_words"}) == {"int_words", "mart_counts"}
    with pytest.raises(runner.ModelError, match="unknown model 'nope'"):
        runner.select_models(p, ["nope+"], set())
    # on an empty database a selection builds what it needs; later, unselected models are kept
    rep = runner.execute(con, p, source_fingerprints=SRC, select=["mart_counts"])
    assert set(rep.status) == {"stg_words", "int_words", "mart_counts"}
    (root / "sql/seeds/pos_map.csv").write_text("pos,upos\nn,VERB\nv,VERB\n", encoding="utf-8")
    rep = runner.execute(con, _project(root), source_fingerprints=SRC, select=["int_words"])
    assert _status(rep) == {"stg_words": "kept", "int_words": "built", "mart_counts": "kept"}
    assert con.execute("select count(*) from mart_counts").fetchone() == (2,)  # stale, as selected
    rep = runner.execute(con, _project(root), source_fingerprints=SRC, select=["state:modified+"])
    assert {k for k, v in rep.status.items() if v[0] == "built"} == {"mart_counts", "mart_lengths"}
    assert con.execute("select * from mart_counts").fetchall() == [("VERB", 3)]


@pytest.mark.parametrize("workers", [1, 4])
def test_a_failing_intermediate_test_stops_before_the_marts(proj, workers):
    root, con = proj
    (root / "sql/seeds/pos_map.csv").write_text("pos,upos\nn,NOUN\nv,ADJ\n", encoding="utf-8")
    with pytest.raises(runner.ModelTestFailure, match=r"int_words: accepted_values\(upos\): 1 failing row"):
        runner.execute(con, _project(root), source_fingerprints=SRC, workers=workers)
    tables = {r[0] for r in con.execute("select table_name from duckdb_tables()").fetchall()}
    assert "int_words" in tables and "mart_counts" not in tables


def test_a_failing_sql_test_names_its_file(proj):
    root, con = proj
    _write(root, {"sql/tests/assert_no_verbs.sql": "select * from {{ ref('int_words') }} where upos = 'VERB'\n"})
    with pytest.raises(runner.ModelTestFailure, match=r"assert_no_verbs\.sql: sql test .*1 failing row"):
        runner.execute(con, _project(root), source_fingerprints=SRC)


def test_cycle_and_unknown_ref(tmp_path):
    _write(tmp_path, {"models/a.sql": "select * from {{ ref('b') }}\n", "models/b.sql": "select * from {{ ref('a') }}\n"})
    with pytest.raises(runner.ModelError, match="cycle: (a -> b -> a|b -> a -> b)"):
        _project(tmp_path).order()
    _write(tmp_path, {"models/b.sql": "-- b\nselect 1 as x\nfrom {{ ref('nowhere') }}\n"})
    with pytest.raises(runner.ModelError, match=r"models/b\.sql:3: ref\(\) to unknown model or seed: nowhere"):
        _project(tmp_path).order()


def test_template_errors_name_the_model_file_and_its_own_line(tmp_path):
    _write(tmp_path, {"sql/macros/m.sql": "{% macro one() %}1{% endmacro %}\n",
                      "models/a.sql": "select\n  {{ one() }} as x,\n  {{ undefined_thing }} as y\n"})
    with pytest.raises(runner.ModelError, match=r"models/a\.sql:3: template error: 'undefined_thing' is undefined"):
        _project(tmp_path)
    _write(tmp_path, {"models/a.sql": "select 1\n{% if %}\n"})
    with pytest.raises(runner.ModelError, match=r"models/a\.sql:2: template error"):
        _project(tmp_path)


def test_undeclared_source_is_an_error(proj):
    root, _con = proj
    _write(root, {"models/staging/stg_x.sql": "select * from {{ source('raw', 'raw_nothing') }}\n"})
    with pytest.raises(runner.ModelError, match=r"stg_x\.sql: source\(\) not declared .*raw\.raw_nothing"):
        _project(root)


def test_the_projects_yml_files_use_data_tests_and_the_alias_still_reads():
    # dbt >= 1.8 spelling: every checked-in yml declares its data tests under `data_tests:`; the
    # runner still reads `tests:` (the older dbt key) for user projects that use it.
    from sphragis import config

    stale = [f"{p}:{i}" for root in (config.MODELS_DIR, config.SQL_DIR) for p in sorted(root.rglob("*.yml"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if line.strip().startswith("tests:")]
    assert stale == []
    project = runner.load_project()
    n_data_tests = sum(len(runner.tests_of(spec)) + sum(len(runner.tests_of(c)) for c in spec.get("columns") or [])
                       for spec in project.schema.values())
    assert n_data_tests > 300
    assert runner.tests_of({"tests": ["unique"], "data_tests": ["not_null"]}) == ["not_null", "unique"]


def test_plan_is_side_effect_free_and_is_what_execute_does(proj):
    root, con = proj
    p = runner.plan(con, _project(root), source_fingerprints=SRC)
    assert {n: d.action for n, d in p.models.items()} == dict.fromkeys(
        ["stg_words", "int_words", "mart_counts", "mart_lengths"], "build")
    assert p.models["int_words"].reason == "new (no earlier build of it)" and p.stale_seeds == {"pos_map"}
    assert len(p.tests) == 7 and not p.up_to_date
    assert con.execute("select table_name from duckdb_tables()").fetchall() == [("raw_words",)]  # nothing made
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert {n: (s[0], s[1]) for n, s in rep.status.items()} == {n: ("built", d.reason) for n, d in p.models.items()}
    assert runner.plan(con, _project(root), source_fingerprints=SRC).up_to_date
    # what still builds: a changed source, var, SQL test, a missing table, --full, a selection
    assert not runner.plan(con, _project(root), source_fingerprints={"raw.raw_words": "raw-v2"}).up_to_date
    assert not runner.plan(con, _project(root), source_fingerprints=SRC, full=True).up_to_date
    _write(root, {"sql/tests/assert_counts_add_up.sql": "select * from {{ ref('mart_counts') }} where n < 0\n"})
    p = runner.plan(con, _project(root), source_fingerprints=SRC)
    assert p.tests == ["sql_test.assert_counts_add_up"] and not p.up_to_date
    runner.execute(con, _project(root), source_fingerprints=SRC)
    con.execute("drop table mart_lengths")
    p = runner.plan(con, _project(root), source_fingerprints=SRC, select=["mart_lengths"])
    assert p.models["mart_lengths"].action == "build" and p.models["mart_counts"].action == "keep"
    assert p.models["mart_lengths"].reason == "not in the warehouse"


def test_early_cutoff_reuses_the_children_of_a_model_whose_output_did_not_change(proj):
    root, con = proj
    runner.execute(con, _project(root), source_fingerprints=SRC)
    # same rows, new SQL: int_words is rebuilt, its child mart_counts sees no change and is reused
    _write(root, {"models/intermediate/int_words.sql": """
        with words as (select * from {{ ref('stg_words') }}),
        pos_map as (select * from {{ ref('pos_map') }})
        select words.form, pos_map.upos from pos_map inner join words on pos_map.pos = words.pos
        """})
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert rep.status["int_words"] == ("built", "SQL changed") and rep.unchanged_output == {"int_words"}
    assert rep.status["mart_counts"] == ("reused", "unchanged")
    man = rep.manifest["models"]
    assert man["int_words"]["fingerprint"] != man["int_words"]["output_fingerprint"]
    assert man["mart_counts"]["inputs"]["int_words"] == man["int_words"]["output_fingerprint"]
    assert man["int_words"]["content"][:2] == [[["form", "VARCHAR"], ["upos", "VARCHAR"]], 3]
    # int_words' tests read the same rows: skipped; mart_counts' relationships test too
    assert rep.tests_run == 0
    # the next build reuses everything, on the recorded output fingerprint
    assert runner.plan(con, _project(root), source_fingerprints=SRC).up_to_date
    again = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert set(_status(again).values()) == {"reused"}
    # and what was reused is what a fresh build makes
    fresh = duckdb.connect()
    fresh.execute("create table raw_words as select * from (values ('logos', 'n'), ('legei', 'v'), ('ergon', 'n')) t(w, p)")
    runner.execute(fresh, _project(root), source_fingerprints=SRC)
    for table in ("int_words", "mart_counts"):
        q = f"select * from {table} order by all"
        assert con.execute(q).fetchall() == fresh.execute(q).fetchall()
    # a real change of rows is not cut off
    (root / "sql/seeds/pos_map.csv").write_text("pos,upos\nn,VERB\nv,VERB\n", encoding="utf-8")
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert rep.unchanged_output == set() and rep.status["mart_counts"][0] == "built"
    assert con.execute("select * from mart_counts").fetchall() == [("VERB", 3)]


def test_a_schema_change_with_the_same_values_is_not_cut_off(proj):
    root, con = proj

    def int_words(select: str) -> runner.RunReport:
        _write(root, {"models/intermediate/int_words.sql": f"""
            with words as (select * from {{{{ ref('stg_words') }}}}),
            pos_map as (select * from {{{{ ref('pos_map') }}}})
            {select} from words inner join pos_map on words.pos = pos_map.pos
            """})
        return runner.execute(con, _project(root), source_fingerprints=SRC, test=False)

    int_words("select words.form, pos_map.upos, length(words.form) as len")
    assert con.execute("select typeof(len) from int_words limit 1").fetchone() == ("BIGINT",)
    values = con.execute("select form, upos, len from int_words order by all").fetchall()
    for select, types in (
            ("select words.form, pos_map.upos, length(words.form)::integer as len", "VARCHAR VARCHAR INTEGER"),
            ("select pos_map.upos, words.form, length(words.form) as len", "VARCHAR VARCHAR BIGINT")):
        rep = int_words(select)
        assert " ".join(r[1] for r in con.execute("describe int_words").fetchall()) == types
        assert con.execute("select form, upos, len from int_words order by all").fetchall() == values
        assert rep.status["int_words"] == ("built", "SQL changed") and rep.unchanged_output == set(), select
        assert rep.status["mart_counts"] == ("built", "input changed: int_words"), select
    # the same rows and schema again (after the reordering): cut off
    rep = int_words("select pos_map.upos, words.form, length(words.form)::bigint as len")
    assert rep.unchanged_output == {"int_words"} and rep.status["mart_counts"] == ("reused", "unchanged")
    # a renamed column: mart_counts is rebuilt (and fails: it reads upos), not reused over stale rows
    with pytest.raises(runner.ModelError, match=r"model mart_counts .*\"upos\" not found"):
        int_words("select words.form, pos_map.upos as upos_, length(words.form) as len")
    # a failed run leaves tables its manifest does not describe: it dropped the manifest, so the
    # next run rebuilds everything (build.build never keeps the file of a failed build)
    assert runner.read_manifest(con) == {}
    rep = int_words("select words.form, pos_map.upos, length(words.form) as len")
    assert set(_status(rep).values()) == {"built"} and rep.unchanged_output == set()


def test_null_and_empty_nested_values_are_not_cut_off(tmp_path):
    # DuckDB's row hash gives a NULL list and [] (and a NULL struct and {'a': NULL}) the same hash;
    # the strict hash (nested columns as JSON) tells them apart, so the change reaches b
    con = duckdb.connect()

    def run(value: str) -> runner.RunReport:
        _write(tmp_path, {"models/a.sql": f"select 1 as k, {value} as x\n", "models/b.sql": "select * from {{ ref('a') }}\n"})
        return runner.execute(con, runner.load_project(tmp_path / "models", tmp_path / "seeds", tmp_path / "macros"),
                              source_fingerprints=SRC, test=False)

    for before, after in (("NULL::int[]", "[]::int[]"), ("{'a': NULL::int}", "NULL::struct(a int)")):
        run(before)
        fast, strict = runner.content_of(con, "a")[2], runner.content_of(con, "a", strict=True)[3]
        rep = run(after)
        assert runner.content_of(con, "a")[2] == fast and runner.content_of(con, "a", strict=True)[3] != strict
        assert rep.status["a"] == ("built", "SQL changed") and rep.unchanged_output == set(), after
        assert rep.status["b"] == ("built", "input changed: a"), after
        assert con.execute("select x is null from b").fetchone()[0] == after.startswith("NULL"), after
    rep = run("NULL::struct(a int) /* the same value again */")
    assert rep.unchanged_output == {"a"} and rep.status["b"] == ("reused", "unchanged")


def test_a_build_with_nothing_to_do_leaves_the_warehouse_untouched(tmp_path):
    # the real build on the small real cuts of tests/fixtures/sources (test_atomic), early models only
    import dataclasses
    import hashlib
    import io

    from rich.console import Console
    from test_atomic import SELECT, tiny_settings

    from sphragis import build

    settings = tiny_settings(tmp_path)
    select = [*SELECT, "int_works_registry"]  # int_works_registry reads var('registry_profile')
    build.build(settings, select=select)

    def state():
        return settings.warehouse.stat().st_mtime_ns, hashlib.sha256(settings.warehouse.read_bytes()).hexdigest()

    before = state()
    s = build.build(settings, select=select)
    assert s.up_to_date and state() == before
    assert "copy warehouse" not in s.timings and "swap" not in s.timings
    assert s.status["int_tokens"] == ("reused", "unchanged") and s.status["int_works_registry"][0] == "reused"
    assert s.ingest_reused and s.tests[0] == 0 and s.tests[1] > 0
    printed = io.StringIO()
    build.print_summary(s, Console(file=printed, width=200))
    assert "up to date: nothing to build" in printed.getvalue()
    assert build.dry_run(settings, select=select).up_to_date

    # a changed build variable, a missing table, --full, changed sources: each builds
    other = dataclasses.replace(settings, registry_profile="scholarly")
    assert [n for n, d in build.dry_run(other, select=select).plan.models.items() if d.action == "build"] == \
        ["int_works_registry"]
    s = build.build(other, select=select)
    assert not s.up_to_date and s.status["int_works_registry"] == ("built", "SQL changed") and state() != before
    printed = io.StringIO()
    build.print_summary(s, Console(file=printed, width=200))
    assert s.ingest_reused  # the raw layer was taken as it was: its table says so
    assert "raw layer (reused, not re-ingested): rows per project" in printed.getvalue()
    assert "ingest: rows in" not in printed.getvalue()
    # the rows-out table leaves the staging views out and says how many
    shown = build.BuildSummary(models={"stg_agdt__tokens": None, "stg_gorman__tokens": None, "int_tokens": 1637147},
                               status={"int_tokens": ("built", "SQL changed")})
    printed = io.StringIO()
    build.print_summary(shown, Console(file=printed, width=200))
    assert "2 staging views (stg_*, renaming only) not listed" in printed.getvalue()
    assert "1,637,147" in printed.getvalue() and "stg_agdt__tokens" not in printed.getvalue()
    con = duckdb.connect(str(settings.warehouse))
    con.execute("drop table int_tokens")
    con.close()
    s = build.dry_run(other, select=select)
    assert not s.up_to_date and s.plan.models["int_tokens"].reason == "changed outside a build (dropped)"
    assert not build.dry_run(other, select=select, full=True).up_to_date
    conllu = next(settings.data.rglob("*.conllu"))
    conllu.write_text(conllu.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    p = build.dry_run(other, select=select)  # the checks build() makes (its _check_sources)
    assert not p.ingest_reused and not p.up_to_date and p.plan.models["int_tokens"].action == "build"


def test_source_sha256_cache_is_used_only_while_the_file_is_unchanged(tmp_path, monkeypatch):
    import json
    import os
    import time

    from sphragis import build, ingest_state
    from sphragis.ingest.sources import SourceFile

    src = tmp_path / "a.conllu"
    src.write_text("1\tlogos\n", encoding="utf-8")
    files = [SourceFile({"name": "fx"}, src, "a.conllu")]
    cache = tmp_path / "sources.json"
    # a file written less than RACY_SECONDS ago is hashed but not cached
    assert build.ingest_fingerprint(files, cache) == build.ingest_fingerprint(files) and not cache.exists()
    monkeypatch.setattr(ingest_state, "RACY_SECONDS", 0)
    time.sleep(0.05)
    honest = build.ingest_fingerprint(files, cache)
    entry = json.loads(cache.read_text())[str(src)]
    assert entry[0] == src.stat().st_size and len(entry[-1]) == 64
    # the cached sha256 is what is used while size, mtime, ctime, inode and device are as they were ...
    cache.write_text(json.dumps({str(src): [*entry[:-1], "0" * 64]}), encoding="utf-8")
    assert build.ingest_fingerprint(files, cache) != honest
    assert build.ingest_fingerprint(files, cache, trust_cache=False) == honest  # --full
    cache.write_text(json.dumps({str(src): [*entry[:-1], "0" * 64]}), encoding="utf-8")
    # ... and not after an edit of the same size with the mtime put back (the ctime moved)
    time.sleep(0.05)
    st = src.stat()
    src.write_text("1\tlegei\n", encoding="utf-8")
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert src.stat().st_size == st.st_size and src.stat().st_mtime_ns == st.st_mtime_ns
    assert build.ingest_fingerprint(files, cache) == build.ingest_fingerprint(files) != honest


def test_the_depth_limit_is_one_value_read_by_ingest_and_models(tmp_path, monkeypatch):
    # config.MAX_TREE_DEPTH is the parser's rejection limit and int_tree_checks' walk depth: a
    # change of it changes the ingest fingerprint (re-ingest) and the rendered model (rebuild)
    from sphragis import build, config
    from sphragis.ingest import parsers
    from sphragis.ingest.sources import SourceFile

    assert parsers.MAX_TREE_DEPTH is config.MAX_TREE_DEPTH == config.BUILD_VARS["max_tree_depth"]
    project = runner.load_project()
    assert f"r.depth < {config.MAX_TREE_DEPTH}" in runner.render(project, "int_tree_checks")
    src = tmp_path / "a.conllu"
    src.write_text("1\tlogos\n", encoding="utf-8")
    files = [SourceFile({"name": "fx"}, src, "a.conllu")]
    before = build.ingest_fingerprint(files)
    monkeypatch.setattr(config, "MAX_TREE_DEPTH", 500)
    assert build.ingest_fingerprint(files) != before


def test_the_ingest_code_is_the_import_closure_of_the_ingest_package(tmp_path, monkeypatch):
    """The ingest fingerprint's code is derived (sphragis.state.module_closure, as the
    export's state), not listed: the modules of sphragis.ingest and what they import (the worker
    pool of sphragis.workers, which the hand list left out), the DDL, the named queries the code
    runs, the pin list; an edit of any of those modules changes the fingerprint."""
    from sphragis import build, config, ingest_state, state
    from sphragis.ingest.sources import SourceFile

    read = ingest_state.ingest_reads()
    assert {"sphragis.ingest.load", "sphragis.ingest.parsers", "sphragis.ingest.sources", "sphragis.workers",
            "sphragis.config", "sphragis.queries"} <= set(read["modules"])
    assert "sphragis.build" not in read["modules"]
    # the named queries are rendered by the runner's Jinja environment (ref()/source()), so its
    # rendering code is read too: an over-approximation that never leaves the raw layer stale
    assert "sphragis.runner.render" in read["modules"]
    assert {str(config.SQL_DIR / "ddl" / "raw.sql"), str(config.SQL_DIR / "queries" / "ingest_raw_tokens.sql"),
            str(config.SOURCES_FILE)} <= set(read["files"])
    assert {"lxml", "pyarrow"} <= set(read["libraries"])
    src = tmp_path / "a.conllu"
    src.write_text("1\tlogos\n", encoding="utf-8")
    files = [SourceFile({"name": "fx"}, src, "a.conllu")]
    before = build.ingest_fingerprint(files)
    edited = tmp_path / "workers.py"
    edited.write_bytes(state.module_file("sphragis.workers").read_bytes() + b"\n# an edit\n")
    real = state.module_file
    monkeypatch.setattr(state, "module_file", lambda name: edited if name == "sphragis.workers" else real(name))
    assert build.ingest_fingerprint(files) != before


def test_seed_column_types_are_declared_once_in_the_schema_file(proj):
    # dbt's seed config: `config: {column_types: {...}}` types a seed's columns at load; the
    # other columns stay VARCHAR; retyping a column changes the seed's fingerprint (so what reads
    # it is rebuilt); a value that does not convert names the CSV; an unknown column the yml.
    root, con = proj
    _write(root, {"sql/seeds/ranks.csv": "upos,rank,is_open\nNOUN,1,true\nVERB,2,false\n",
                  "models/_seeds.yml": """
                      seeds:
                        - name: ranks
                          config:
                            column_types: {rank: integer, is_open: boolean}
                      """,
                  "models/marts/mart_ranked.sql": """
                      select c.upos, c.n, r.rank from {{ ref('mart_counts') }} as c
                      inner join {{ ref('ranks') }} as r on c.upos = r.upos where r.is_open
                      """})
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert con.execute("select column_name, data_type from information_schema.columns "
                       "where table_name = 'ranks' order by ordinal_position").fetchall() == \
        [("upos", "VARCHAR"), ("rank", "INTEGER"), ("is_open", "BOOLEAN")]
    assert con.execute("select * from mart_ranked").fetchall() == [("NOUN", 2, 1)]
    assert rep.manifest["seeds"]["ranks"]["column_types"] == {"rank": "INTEGER", "is_open": "BOOLEAN"}
    assert "column_types" not in rep.manifest["seeds"]["pos_map"]
    typed = rep.manifest["seeds"]["ranks"]["fingerprint"]
    assert typed != runner.seed_fingerprint(root / "sql/seeds/ranks.csv")

    _write(root, {"models/_seeds.yml": "seeds:\n  - name: ranks\n    config:\n      column_types: {rank: bigint, is_open: boolean}\n"})
    again = runner.execute(con, _project(root), source_fingerprints=SRC)
    assert again.status["mart_ranked"] == ("built", "input changed: ranks")
    assert again.status["mart_counts"][0] == "reused"

    (root / "sql/seeds/ranks.csv").write_text("upos,rank,is_open\nNOUN,1,true\nVERB,second,false\n", encoding="utf-8")
    with pytest.raises(runner.ModelError, match=r"seed ranks \(.*ranks\.csv\) does not load with its column types: .*Line: 3 \| "
                       r"Original Line: VERB,second,false \| .*column \"rank\"\. Could not convert string \"second\""):
        runner.execute(con, _project(root), source_fingerprints=SRC)
    _write(root, {"models/_seeds.yml": "seeds:\n  - name: ranks\n    config:\n      column_types: {rnak: integer}\n"})
    with pytest.raises(runner.ModelError, match=r"_seeds\.yml: seed ranks types columns not in .*ranks\.csv: rnak"):
        runner.execute(con, _project(root), source_fingerprints=SRC)


def test_models_and_tests_run_at_once_and_build_the_same_warehouse(proj, tmp_path):
    """workers=4 builds the tables, statuses, fingerprints and test results of workers=1; a
    relationships test towards a model built from the tested one (int_words -> mart_counts) waits
    for that model instead of holding it back (a deadlock before the runner ran models at once)."""
    root, con = proj
    yml = root / "models/intermediate/_int.yml"
    text = yml.read_text()
    assert text.count("field: upos}}]") == 2
    yml.write_text(text.replace("field: upos}}]", "field: upos}}, {relationships: {to: \"ref('mart_counts')\", field: upos}}]", 1))
    serial = runner.execute(con, _project(root), source_fingerprints=SRC, workers=1)
    other = duckdb.connect(str(tmp_path / "w4.duckdb"))
    other.execute(
        "create table raw_words as select * from (values ('logos', 'n'), ('legei', 'v'), ('ergon', 'n')) t(w, p)")
    par = runner.execute(other, _project(root), source_fingerprints=SRC, workers=4)
    assert par.status == serial.status and list(par.status) == list(serial.status)
    assert set(par.status) == {"stg_words", "int_words", "mart_counts", "mart_lengths"}
    assert (par.tests_run, serial.tests_run) == (8, 8)
    assert par.manifest["tests"]["test.int_words.relationships(to mart_counts.upos)(upos)"]["status"] == "pass"
    for key in ("models", "tests"):
        assert par.manifest[key] == serial.manifest[key]
    for table in ("int_words", "mart_counts", "mart_lengths"):
        q = f"select * from {table} order by all"
        assert other.execute(q).fetchall() == con.execute(q).fetchall()
    other.close()


def test_the_manifest_matches_the_golden_manifest(proj, monkeypatch):
    """tests/fixtures/runner_manifest.json is the golden manifest of this project with the runner
    version pinned (first build, then a no-change build); the runner writes the same
    models, seeds, sources, tests, edges and fingerprints, with the same statuses. Regenerate the
    file only for a deliberate change of the manifest or of PROJECT."""
    import json

    from sphragis.runner import base

    root, con = proj
    monkeypatch.setattr(base, "RUNNER_VERSION", "golden")
    first = runner.execute(con, _project(root), source_fingerprints=SRC, workers=1)
    second = runner.execute(con, _project(root), source_fingerprints=SRC, workers=1)
    golden = json.loads((Path(__file__).parent / "fixtures" / "runner_manifest.json").read_text(encoding="utf-8"))
    got = json.loads(json.dumps(first.manifest).replace(str(root), "<root>"))
    # sections the golden file predates: the named queries and exposures (none in PROJECT)
    assert got.pop("queries") == {} and got.pop("exposures") == {}
    assert got == golden["first"]
    assert json.loads(json.dumps(first.status)) == golden["first_status"]
    assert json.loads(json.dumps(second.status)) == golden["second_status"]
    assert [first.tests_run, first.tests_skipped, second.tests_run, second.tests_skipped] == \
        golden["tests"] + golden["second_tests"] == [7, 0, 0, 7]
    assert second.manifest == first.manifest


UNIT_TESTS = """
    unit_tests:
      - name: nouns_and_verbs_get_their_upos
        model: int_words
        description: the pos_map seed (not given) maps n to NOUN and v to VERB; other codes drop
        given:
          - input: ref('stg_words')
            rows:
              - {form: λόγος, pos: n}
              - {form: λέγει, pos: v}
              - {form: καί, pos: c}
        expect:
          rows:
            - {form: λόγος, upos: NOUN}
            - {form: λέγει, upos: VERB}
    """


def test_unit_tests_run_with_their_model_and_a_wrong_expect_row_fails_the_run(proj):
    """dbt-style unit tests: the model's SQL on the given rows (not on stg_words' real rows),
    compared as a multiset with the expected rows; in the manifest under ``unit_test.<model>.<name>``,
    skipped when nothing changed, rerun when a row changes; a wrong row fails the run naming the yml
    file and the test, with the rows expected and not produced and the reverse, and stops the
    models that read the tested one."""
    root, con = proj
    yml = root / "models/intermediate/_unit_tests.yml"
    _write(root, {"models/intermediate/_unit_tests.yml": UNIT_TESTS})
    rep = runner.execute(con, _project(root), source_fingerprints=SRC)
    tid = "unit_test.int_words.nouns_and_verbs_get_their_upos"
    rec = rep.manifest["tests"][tid]
    assert (rec["model"], rec["test"], rec["status"], rec["depends_on"]) == (
        "int_words", "unit_test(nouns_and_verbs_get_their_upos)", "pass", ["pos_map", "stg_words"])
    assert rec["sql"].startswith('-- unit test nouns_and_verbs_get_their_upos of int_words: {"expect": [{"form": "λόγος"')
    assert rep.tests_run == 8
    assert runner.execute(con, _project(root), source_fingerprints=SRC).tests_skipped == 8

    _write(root, {"models/intermediate/_unit_tests.yml": UNIT_TESTS.replace("{form: λέγει, upos: VERB}",
                                                                           "{form: λέγει, upos: NOUN}")})
    con.execute("drop table mart_counts")
    with pytest.raises(runner.ModelTestFailure) as exc:
        runner.execute(con, _project(root), source_fingerprints=SRC, workers=1)
    assert str(exc.value) == (
        f"1 data test(s) failed:\n  int_words: {yml}: unit_test(nouns_and_verbs_get_their_upos): 2 failing row(s), "
        "e.g. problem='expected, not in output', form='λέγει', upos='NOUN'; "
        "problem='in output, not expected', form='λέγει', upos='VERB'")
    assert "mart_counts" not in runner.relations(con)  # its input's unit test failed: not started


@pytest.mark.parametrize("edit, message", [
    ("- input: ref('stg_words')", r"_unit_tests\.yml:2: unit test nouns_and_verbs_get_their_upos of int_words: "
     r"no given rows for stg_words \(every model and source the model reads needs a `given`"),
    ("- input: ref('mart_counts')", r"_unit_tests\.yml:2: unit test .* of int_words: ref\('mart_counts'\) is not an "
     r"input of int_words"),
    ("- input: stg_words", r"_unit_tests\.yml:2: unit test .*: input 'stg_words' is not ref\('x'\) or source"),
])
def test_a_malformed_unit_test_names_its_file_and_line(proj, edit, message):
    root, _con = proj
    import re

    text = UNIT_TESTS.replace("- input: ref('stg_words')", edit)
    if edit.endswith("ref('stg_words')"):  # the given removed altogether
        text = re.sub(r"given:\n.*?(?=        expect:)", "given: []\n", UNIT_TESTS, flags=re.S)
    _write(root, {"models/intermediate/_unit_tests.yml": text})
    with pytest.raises(runner.ModelError, match=message):
        _project(root)
