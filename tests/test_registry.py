"""The project registry (SPEC §1.1): everything the code knows about a project is a row of
``sql/seeds/projects.csv``; its named rules are implemented once each, models select projects by
its columns, and docs/adding-a-project.md's checklist adds a project (followed here with a
synthetic one). That no model names a project is tests/test_homes.py's guard.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from sphragis import config, runner

REPO = Path(__file__).resolve().parents[1]
def test_every_named_rule_of_the_registry_has_its_branch():
    # each rule value the registry uses is a branch of its macro (sql/macros/registry.sql); an
    # unknown one would stop the build (error()), this says which before a build
    macros = (config.MACROS_DIR / "registry.sql").read_text(encoding="utf-8")
    for column, macro in (("document_key_rule", "document_key"), ("passage_rule", "passage"),
                          ("urn_rule", "document_urn"), ("trismegistos_rule", "trismegistos_id")):
        body = macros[macros.index(f"macro {macro}("):]
        body = body[:body.index("endmacro")]
        branches = set(re.findall(r"when '([a-z_]+)'\s+then", body))
        used = {p[column] for p in config.projects()}
        assert used <= branches, f"{column}: no branch for {sorted(used - branches)} in macro {macro}"


def test_models_select_projects_by_registry_columns():
    project = runner.load_project()
    # the registry's syntax_scheme decides which projects' relations are mapped natively
    assert "not t.project in ('ud_perseus', 'ud_proiel', 'ud_ptnk')" in runner.render(project, "int_token_relations")
    # the UD treebank converted from a native one: the registry's converted_from, rendered
    sql = runner.render(project, "mart_ud_perseus_agdt_overlap")
    assert "values ('ud_perseus', 'agdt')" in sql
    source = (config.MODELS_DIR / "marts" / "evaluation" / "mart_ud_perseus_agdt_overlap.sql").read_text(encoding="utf-8")
    assert "'agdt'" not in source and "registry_conversions()" in source


@pytest.mark.parametrize("column", ["in_benchmark", "in_training_treebank", "writes_crasis_whole"])
def test_flags_are_true_or_false(column):
    assert {p[column] for p in config.projects()} <= {"true", "false"}


# --------------------------------------------------------------------------------------------
# docs/adding-a-project.md, followed step by step with a small synthetic project

SYNTHETIC = "synthetic"
#: The synthetic project's one file: the AGDT fixture cut (Thucydides 1, three sentences) under
#: another project, so that its sentences meet AGDT's by dedup key.
SYNTHETIC_SOURCE = "agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml"
SYNTHETIC_FILE = "trees/thuc-1.xml"


def _add_synthetic_project(tmp_path: Path, monkeypatch) -> tuple[runner.Project, config.Settings]:
    """Follow docs/adding-a-project.md on copies of the pin list, seeds and models: (1) the pin,
    (2) the registry row (and the dbt variables), (3) the two staging models with their yml, (4)
    the works-registry row; lay out the fixture sources plus the synthetic snapshot. Returns the
    project to build and the settings to build it with."""
    import csv
    import io
    import json
    import shutil

    from test_atomic import FIXTURE_SOURCES, tiny_sources

    from sphragis import dbt_vars

    # 1. the pin
    pins = json.loads(config.SOURCES_FILE.read_text(encoding="utf-8"))
    pins["snapshots"].append({
        "name": "synthetic-trees", "treebank_source": "Synthetic Trees", "upstream": "https://example.org/synthetic",
        "commit": "0" * 40, "commit_date": "2026-01-01T00:00:00+00:00", "license": "CC BY-SA 4.0",
        "archive": "synthetic-trees@0000000.tar.xz", "sha256": "0" * 64, "included_prefixes": ["trees/"],
        "missing": [], "project": SYNTHETIC, "treebank_files": ["trees/*.xml"], "exclude": []})
    sources_file = tmp_path / "sources.json"
    sources_file.write_text(json.dumps(pins, indent=2), encoding="utf-8")
    monkeypatch.setattr(config, "SOURCES_FILE", sources_file)
    # 2. the registry row, a copy of UNESP's (AGDT-style XML outside the benchmark), and the dbt vars
    seeds = tmp_path / "seeds"
    shutil.copytree(config.SEEDS_DIR, seeds)
    monkeypatch.setattr(config, "SEEDS_DIR", seeds)
    monkeypatch.setattr(config.read_seed, "__defaults__", (seeds,))
    rows = list(csv.DictReader((seeds / "projects.csv").open(encoding="utf-8")))
    row = {**next(r for r in rows if r["format"] == "agdt_xml" and r["in_benchmark"] == "false"),
           "project": SYNTHETIC, "priority": str(len(rows) + 1), "treebank_source": "Synthetic Trees",
           "file_metadata": "none", "attribution": "Synthetic trees (a test)"}
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows([*rows, row])
    (seeds / "projects.csv").write_text(buf.getvalue(), encoding="utf-8")
    for cached in (config.projects, config.snapshots, config.layer_attributes):
        cached.cache_clear()
    assert "project: synthetic" in dbt_vars.vars_block()
    # 3. the staging models, two lines each, and their yml (the shared column docs' anchors)
    models = tmp_path / "models"
    shutil.copytree(config.MODELS_DIR, models)
    for entity, macro in (("sentences", "stg_sentences"), ("tokens", "stg_tokens")):
        (models / "staging" / f"stg_{SYNTHETIC}__{entity}.sql").write_text(
            f"{{{{ config(materialized='view') }}}}\n{{{{ {macro}('{SYNTHETIC}') }}}}\n", encoding="utf-8")
    doc = yaml.safe_load((models / "staging" / "_staging.yml").read_text(encoding="utf-8"))
    entries = [m for m in doc["models"] if m["name"] in ("stg_unesp__sentences", "stg_unesp__tokens")]
    text = yaml.safe_dump({"version": 2, "models": entries}, allow_unicode=True, sort_keys=False)
    (models / "staging" / f"_{SYNTHETIC}.yml").write_text(text.replace("stg_unesp__", f"stg_{SYNTHETIC}__"),
                                                          encoding="utf-8")
    # 4. the works-registry row of its one document
    with (seeds / "works_registry.csv").open("a", encoding="utf-8") as fh:
        fh.write(f"{SYNTHETIC},thuc-1.xml,Thucydides,History of the Peloponnesian War,tlg0003.tlg001,prose,retained,\n")
    # the sources: the fixture layout and the synthetic snapshot
    data = tiny_sources(tmp_path / "data")
    (data / "synthetic-trees" / "trees").mkdir(parents=True)
    shutil.copyfile(FIXTURE_SOURCES / SYNTHETIC_SOURCE, data / "synthetic-trees" / SYNTHETIC_FILE)
    settings = config.Settings(mirror=tmp_path / "no-mirror", data=data, warehouse=tmp_path / "warehouse.duckdb",
                               out=tmp_path / "sphragis")
    return runner.load_project(models_dir=models, seeds_dir=seeds), settings


def test_a_new_project_follows_the_checklist(tiny_exported, tmp_path, monkeypatch):
    import duckdb

    from sphragis import build

    project, settings = _add_synthetic_project(tmp_path, monkeypatch)
    # the new staging models name their project: staging may; nothing else does
    assert {f"stg_{SYNTHETIC}__sentences", f"stg_{SYNTHETIC}__tokens"} <= set(project.models)
    build.build(settings, project=project, workers=1)
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    base = duckdb.connect(str(tiny_exported.warehouse), read_only=True)
    try:
        # in the warehouse: its three sentences, curated as the registry says, outside the benchmark
        got = con.execute("select count(*), bool_and(decision = 'retained'), bool_or(is_retained) "
                          "from int_curated_sentences where project = ?", [SYNTHETIC]).fetchone()
        assert got == (3, True, False)
        inventory = con.execute("select treebank_source, in_benchmark, n_files, n_sentences_ingested "
                                "from mart_project_inventory where project = ?", [SYNTHETIC]).fetchone()
        assert inventory == ("Synthetic Trees", False, 1, 3)
        # its sentences meet AGDT's, the same Greek, by the existing dedup key
        pairs = con.execute("select count(*), bool_and(text_identical) from mart_cross_project_pairs "
                            "where project_pair = ?", [f"agdt–{SYNTHETIC}"]).fetchone()
        assert pairs == (3, True)
        # and the benchmark does not change: the eligible rows and their provenance are the fixture
        # build's, row for row
        for table in ("int_eligible_sentences", "mart_fate_counts", "mart_split_rows"):
            query = f"select * from {table} order by all"
            assert con.execute(query).fetchall() == base.execute(query).fetchall(), table
    finally:
        con.close()
        base.close()
        monkeypatch.undo()  # then forget what the patched registry and pins cached
        for cached in (config.projects, config.snapshots, config.layer_attributes):
            cached.cache_clear()
