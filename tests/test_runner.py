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


def test_a_failing_intermediate_test_stops_before_the_marts(proj):
    root, con = proj
    (root / "sql/seeds/pos_map.csv").write_text("pos,upos\nn,NOUN\nv,ADJ\n", encoding="utf-8")
    with pytest.raises(runner.ModelTestFailure, match=r"int_words: accepted_values\(upos\): 1 failing row"):
        runner.execute(con, _project(root), source_fingerprints=SRC)
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
    n_data_tests = sum(len(runner._tests_of(spec)) + sum(len(runner._tests_of(c)) for c in spec.get("columns") or [])
                       for spec in project.schema.values())
    assert n_data_tests > 300
    assert runner._tests_of({"tests": ["unique"], "data_tests": ["not_null"]}) == ["not_null", "unique"]


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
