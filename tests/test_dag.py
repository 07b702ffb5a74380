"""Every SQL in the DAG: named queries rendered with ``ref()``/``source()`` and
listed in the manifest with their edges, the programs that read the warehouse declared as
exposures, and the docs lineage read from the manifest (``sphragis/dag.py``,
``sphragis/workbench/catalog.py``).
"""

from __future__ import annotations

import json
import re

import pytest

from sphragis import dag, queries, runner, state
from sphragis.workbench import catalog

#: The programs that read the warehouse.
EXPOSURES = {"export", "audit", "report", "eval", "treebank", "folds", "docs"}
#: Tables a grep-built lineage would miss; each must reach a consumer.
ONCE_MISSING = ("int_curated_sentences", "int_works_registry", "int_dedup_groups", "raw_sentences", "benchmark_configs")


@pytest.fixture(scope="module")
def project() -> runner.Project:
    return runner.load_project()


@pytest.fixture(scope="module")
def sections(project) -> dict:
    return dag.sections(project, queries.renderer(project))


def test_every_named_query_is_parameterized_and_refs_every_warehouse_table(project, sections):
    known = set(project.models) | set(project.seeds) | {k.split(".", 1)[1] for k in project.sources}
    files = dag.query_files()
    assert set(sections["queries"]) == set(files) and len(files) == 42
    for name, path in files.items():
        text = path.read_text(encoding="utf-8")
        sql = queries.query(name)
        assert "{{" not in sql and "ref(" not in sql, name  # rendered
        named = state.tables_named(sql)
        if named is None:  # DuckDB's parser cannot bind it alone (unnest of a column): names after from/join/into
            named = set(re.findall(r"\b(?:from|join|into)\s+([a-z_][a-z0-9_]*)\b(?!\s*\()", sql)) - {"unnest"}
        registered = named - known  # tables the program registers (Parquet files, selections, …)
        # parameterized: DuckDB parameters, Parquet files read, or tables registered by the program
        assert re.search(r"\$\w+|\?", text) or registered, f"{name} takes no parameter: make it a model"
        # every model, seed or source it names is named with ref()/source(), so it is an edge
        q = sections["queries"][name]
        edges = {*q["depends_on"]["models"], *q["depends_on"]["seeds"],
                 *(s.split(".", 1)[1] for s in q["depends_on"]["sources"] + q["writes"])}
        assert named & known == edges, name
    assert sections["queries"]["annotation_select_overlap"]["depends_on"] == {
        "models": ["int_sentences", "mart_ud_perseus_agdt_overlap"], "seeds": [], "sources": []}
    assert sections["queries"]["fold_bucket_labels"]["depends_on"]["seeds"] == ["works_registry"]
    assert sections["queries"]["ingest_raw_tokens"]["writes"] == ["raw.raw_tokens"]
    assert sections["queries"]["ingest_raw_tokens"]["depends_on"]["sources"] == []


def test_the_manifest_lists_the_queries_and_exposures(project, sections):
    doc = runner.manifest(project, {}, {}, {}, {})
    assert doc["queries"] == sections["queries"] and doc["exposures"] == sections["exposures"]
    json.dumps(doc)  # JSON-ready


def test_each_exposure_refs_exist_and_the_docs_lineage_shows_them(project, sections, tmp_path):
    exposures = sections["exposures"]
    assert set(exposures) == EXPOSURES
    for name, e in exposures.items():
        deps = e["depends_on"]
        assert deps["models"] or deps["seeds"] or deps["sources"], name
        assert set(deps["models"]) <= set(project.models) and set(deps["seeds"]) <= set(project.seeds)
        assert set(deps["sources"]) <= set(project.sources)
        assert set(e["queries"]) <= set(sections["queries"])
    assert exposures["export"]["queries"] == ["export_file_fingerprints", "label_lookup", "variant_authors", "variant_chunks"]
    assert "mart_export_units" in exposures["export"]["depends_on"]["models"]
    assert {"audit_files", "audit_markup", "audit_neighbours", "label_lookup"} <= set(exposures["audit"]["queries"])
    # the docs lineage (no manifest beside this warehouse: what the manifest would hold)
    cat = catalog.build_catalog(tmp_path / "warehouse.duckdb", project=project)
    for name, e in exposures.items():
        node = cat.nodes[name]
        assert node.kind == "consumer" and node.layer == "consumer"
        tables = {*e["depends_on"]["models"], *e["depends_on"]["seeds"],
                  *(s.split(".", 1)[1] for s in e["depends_on"]["sources"])}
        assert tables | set(e["queries"]) == set(node.upstream), name
        assert all(name in cat.nodes[t].downstream for t in tables)
    q = cat.nodes["variant_chunks"]
    assert q.kind == "query" and q.upstream == ["mart_benchmark_rows"] and q.downstream == ["export"]
    assert "$config" in q.sql


def _consumers_downstream(cat: catalog.Catalog, name: str) -> set[str]:
    seen, todo = set(), [name]
    while todo:
        for d in cat.nodes[todo.pop()].downstream:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return {n for n in seen if cat.nodes[n].kind == "consumer"}


def test_the_tables_once_missing_from_the_lineage_reach_their_consumers(project, tmp_path):
    cat = catalog.build_catalog(tmp_path / "warehouse.duckdb", project=project)
    reached = {name: _consumers_downstream(cat, name) for name in ONCE_MISSING}
    assert {"export", "eval", "treebank"} <= reached["int_curated_sentences"]
    assert "export" in reached["int_works_registry"] and "export" in reached["int_dedup_groups"]
    assert "mart_dedup_group_counts" in cat.nodes["int_dedup_groups"].downstream
    assert "mart_excluded_documents" in cat.nodes["int_works_registry"].downstream
    assert "mart_license_rows" in cat.nodes["benchmark_configs"].downstream and "export" in reached["benchmark_configs"]
    assert {"export", "audit", "eval", "treebank", "report", "docs"} <= reached["raw_sentences"]


def test_the_catalog_reads_the_lineage_from_the_manifest(project, sections, tmp_path):
    # a manifest's exposures are drawn as they are: nothing is found by reading Python source
    doc = runner.manifest(project, {}, {}, {}, {})
    doc["exposures"] = {"report": {**doc["exposures"]["report"], "depends_on": {
        "models": ["mart_rates"], "seeds": [], "sources": []}, "queries": []}}
    (tmp_path / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    cat = catalog.build_catalog(tmp_path / "warehouse.duckdb", project=project)
    assert cat.origin.startswith("manifest ")
    assert cat.nodes["report"].upstream == ["mart_rates"] and "export" not in cat.nodes
    assert cat.nodes["mart_variation"].layer == "mart" and cat.nodes["stg_agdt__tokens"].layer == "staging"
    assert cat.nodes["variant_chunks"].layer == "query"


def test_a_bad_exposure_is_an_error_naming_its_file(project, sections, tmp_path):
    yml = tmp_path / "_exposures.yml"
    yml.write_text("exposures:\n  - name: export\n    type: application\n    owner: {name: x}\n"
                   "    depends_on: [ref('no_such_model')]\n", encoding="utf-8")
    with pytest.raises(dag.LineageError, match=r"_exposures\.yml: exposure export: ref\(\) to unknown model or "
                                              r"seed: no_such_model"):
        dag.exposures_section(project, sections["queries"], tmp_path)
    yml.write_text("exposures:\n  - name: export\n    depends_on: [\"mart_rates\"]\n", encoding="utf-8")
    with pytest.raises(dag.LineageError, match=r"depends_on entry 'mart_rates' is not ref\(\) or source\(\)"):
        dag.exposures_section(project, sections["queries"], tmp_path)
    yml.write_text("exposures:\n  - name: export\n    depends_on: [ref('mart_rates')]\n"
                   "    meta: {modules: [sphragis.report]}\n", encoding="utf-8")
    with pytest.raises(dag.LineageError, match="run named queries that do not exist: report_variation_highlight"):
        dag.exposures_section(project, {}, tmp_path)


def test_every_module_that_runs_a_named_query_belongs_to_an_exposure():
    """The exposures' ``meta.modules`` lists are what puts a program's named queries in the
    lineage: a module that runs one (a ``query("…")`` call) and is in no exposure, as
    ``sphragis.audit_features`` was when the audit was split, drops its queries' edges. The
    ingest's modules write the raw layer and are no exposure; ``sphragis.queries`` renders queries
    for the others."""
    import ast

    listed = {m for e in dag.exposure_specs().values() for m in (e.get("meta") or {}).get("modules") or []}
    from test_homes import _python_files  # every module of sphragis/, export/, ingest/ by its import name

    running = set()
    for mod, path in sorted(_python_files().items()):
        tree = ast.parse(path.read_bytes(), str(path))
        if any(isinstance(n, ast.Call) and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == "query"
               and n.args and isinstance(n.args[0], ast.Constant) for n in ast.walk(tree)):
            running.add(mod)
    assert "sphragis.audit_features" in running and "sphragis.export.metadata" in running
    unlisted = sorted(m for m in running - listed if not m.startswith("sphragis.ingest") and m != "sphragis.queries")
    assert not unlisted, f"modules running named queries in no exposure's meta.modules (models/_exposures.yml): {unlisted}"
