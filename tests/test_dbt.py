"""dbt-core + dbt-duckdb build the warehouse the runner builds, from the same files.

``dbt_project.yml``, ``profiles.yml`` and the plugin ``sphragis.dbt_plugin`` (the Python UDFs) let
``dbt build`` run the models, seeds, macros, yml data tests and SQL tests with no edit to any
``.sql`` file. The yml ``unit_tests:`` are the runner's (``tests/test_unit_tests.py``): dbt 1.11
does not compile them here (its unit tests do not support recursive SQL, which
``int_token_morphology``, ``int_split_words`` and ``int_token_relations`` use, and it reported the
seed inputs of ``int_token_morphology``'s as unknown nodes), so this build excludes them. The test ingests the fixture sources (``tests/fixtures/sources``,
laid out by ``test_atomic.tiny_settings``) with the project's own ingest into a DuckDB file, lets
``dbt build`` (dbt's Python API, ``dbtRunner``) build every model on it, builds the same sources
with ``sphragis build`` and compares every table and view: columns and types, and rows as multisets
(floats to 9 significant digits). Skipped only when dbt is not importable (the ``dev`` extra has it).
"""

from __future__ import annotations

import collections
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml
from rich.console import Console

from sphragis import build, config, dbt_vars, pins, runner
from test_atomic import tiny_settings

REPO = Path(__file__).resolve().parents[1]
#: Tables of the runner's own bookkeeping (the build manifest and log), not models.
RUNNER_ONLY = {"build_manifest", "build_log"}


def test_dbt_project_takes_the_runners_variables():
    # dbt_project.yml's vars are the runner's var() defaults: BUILD_VARS, the project registry (every
    # value a string, as the runner reads the CSV) and the seed edition_variants, written by
    # `make dbt-vars` (sphragis.dbt_vars), never by hand
    text = (REPO / "dbt_project.yml").read_text(encoding="utf-8")
    assert text.endswith("\nvars:\n" + dbt_vars.vars_block()), "run `make dbt-vars` (the registry or BUILD_VARS changed)"
    project = yaml.safe_load(text)
    assert project["vars"] == runner.project_vars()
    assert [p["project"] for p in project["vars"]["projects"]] == config.PROJECT_PRIORITY
    # the same folders the runner reads
    assert project["model-paths"] == ["models"] and project["seed-paths"] == ["sql/seeds"]
    assert project["macro-paths"][0] == "sql/macros" and project["test-paths"] == ["sql/tests"]


def test_dbt_vars_rewrites_only_the_vars_block(tmp_path):
    path = tmp_path / "dbt_project.yml"
    path.write_text("name: x\n# kept\nvars:\n  stale: 1\n", encoding="utf-8")
    assert dbt_vars.update(path) and not dbt_vars.update(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("name: x\n# kept\nvars:\n  split_seed: 776\n") and "stale" not in text
    assert yaml.safe_load(text)["vars"] == runner.project_vars()
    (tmp_path / "bad.yml").write_text("name: x\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.yml: no line 'vars:'"):
        dbt_vars.update(tmp_path / "bad.yml")


def _canon(v):
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else float(f"{v:.9g}")
    if isinstance(v, (list, tuple)):
        return tuple(_canon(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), _canon(x)) for k, x in v.items()))
    return v


def _relations(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(con.execute("select table_name, table_type from information_schema.tables "
                            "where table_schema = 'main'").fetchall())


def _contents(con: duckdb.DuckDBPyConnection, name: str) -> tuple[list, collections.Counter]:
    cur = con.execute(f'select * from "{name}"')
    columns = [(d[0], str(d[1])) for d in cur.description]
    return columns, collections.Counter(map(_canon, cur.fetchall()))


def test_dbt_builds_the_fixture_warehouse_the_runner_builds(tiny_exported, tmp_path):
    pytest.importorskip("dbt.cli.main", reason="dbt-core is not installed (the dev extra has it)")
    pytest.importorskip("dbt.adapters.duckdb", reason="dbt-duckdb is not installed (the dev extra has it)")

    # dbt: the raw tables from the project's ingest, then `dbt build` on them (in a child process:
    # dbt-duckdb keeps its connection to the file open)
    settings = tiny_settings(tmp_path / "runner")
    warehouse = tmp_path / "dbt" / "warehouse.duckdb"
    warehouse.parent.mkdir()
    con = duckdb.connect(str(warehouse))
    try:
        build.ingest_into(con, settings, Console(quiet=True), build.BuildSummary())
        pins.load_missing_files(con, settings)
    finally:
        con.close()
    target = tmp_path / "dbt" / "target"
    done = subprocess.run(
        [sys.executable, "-m", "dbt.cli.main", "build", "--project-dir", str(REPO), "--profiles-dir", str(REPO),
         "--threads", "2", "--exclude-resource-type", "unit_test", "--target-path", str(target), "--log-path", str(tmp_path / "dbt" / "logs")],
        env={**os.environ, "SPHRAGIS_WAREHOUSE": str(warehouse), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"},
        capture_output=True, text=True, cwd=tmp_path)
    results = json.loads((target / "run_results.json").read_text(encoding="utf-8"))["results"] \
        if (target / "run_results.json").is_file() else []
    # dbt lists the exposures (models/_exposures.yml) as no-op nodes of the build
    failed = [(r["unique_id"], r["status"], r["message"]) for r in results
              if r["status"] not in ("success", "pass") and not (r["unique_id"].startswith("exposure.") and r["status"] == "no-op")]
    assert done.returncode == 0 and not failed, (failed[:10], done.stdout[-3000:])
    # every generic test's arguments under `arguments:`, as dbt >= 1.10 asks (no deprecation warning)
    assert "Deprecat" not in done.stdout, done.stdout[-3000:]
    statuses = collections.Counter((r["unique_id"].split(".")[0], r["status"]) for r in results)

    # the runner: the same sources, `sphragis build` (the session's build of the fixture cuts,
    # tests/conftest.py; its export writes no table)
    project = runner.load_project()
    n_data_tests = len(runner.data_tests(project)) + len(project.sql_tests)  # yml data tests and SQL tests
    assert statuses == {("model", "success"): len(project.models), ("seed", "success"): len(project.seeds),
                        ("test", "pass"): n_data_tests,
                        ("exposure", "no-op"): len(yaml.safe_load((REPO / "models" / "_exposures.yml").read_text(
                            encoding="utf-8"))["exposures"])}

    ours = duckdb.connect(str(tiny_exported.warehouse), read_only=True)
    theirs = duckdb.connect(str(warehouse), read_only=True)
    try:
        expected = {n: t for n, t in _relations(ours).items() if n not in RUNNER_ONLY}
        assert _relations(theirs) == expected
        # every model and seed, and the raw tables both read
        assert set(expected) >= set(project.models) | set(project.seeds) | {"raw_tokens", "pin_missing_files"}
        differ = [n for n in sorted(expected) if _contents(ours, n) != _contents(theirs, n)]
        assert differ == []
        assert ours.execute("select count(*) from int_units").fetchone()[0] > 0
    finally:
        ours.close()
        theirs.close()
