"""The build manifest (README "Manifest"): written into the warehouse (table ``build_manifest``)
by every run and beside it by a build; read back by the next run to decide what to reuse.

:func:`manifest` assembles one section per key (models, seeds, sources, tests, edges); a new kind
of node is one more section function and one more key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from .. import dag
from ..config import MODELS_DIR
from . import base
from .base import MANIFEST_TABLE, MANIFEST_VERSION, layer
from .render import renderer
from .seeds import seed_column_types

if TYPE_CHECKING:
    from .project import Project


def read_manifest(con: duckdb.DuckDBPyConnection) -> dict:
    """The manifest stored in the warehouse by the last build ({} if none or another version)."""
    if not con.execute("select 1 from duckdb_tables() where table_name = ? and database_name = current_database()",
                       [MANIFEST_TABLE]).fetchall():
        return {}
    doc = json.loads(con.execute(f"select manifest from {MANIFEST_TABLE}").fetchall()[0][0])
    return doc if doc.get("version") == MANIFEST_VERSION and doc.get("runner_version") == base.RUNNER_VERSION else {}


def store(con: duckdb.DuckDBPyConnection, doc: dict) -> None:
    """Store ``doc`` as the warehouse's manifest (table ``build_manifest``, one row)."""
    con.execute(f"create or replace table {MANIFEST_TABLE} as select ?::varchar as manifest",
                [json.dumps(doc, sort_keys=True, ensure_ascii=False)])


def relations(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every table and view of ``con``'s current database: name → ``"table"`` | ``"view"``."""
    rows = con.execute(
        "select table_name, 'table' from duckdb_tables() where database_name = current_database() "
        "union all select view_name, 'view' from duckdb_views() "
        "where not internal and database_name = current_database()").fetchall()
    return dict(rows)


def _rel(p: Path) -> str:
    """``p`` relative to the repository when inside it."""
    try:
        return str(Path(p).resolve().relative_to(MODELS_DIR.parent.resolve()))
    except ValueError:
        return str(p)


def _columns(spec: dict) -> list[dict]:
    return [{"name": c["name"], "description": c.get("description", "")} for c in spec.get("columns", []) or []]


def _depends_on(project: Project, name: str) -> dict[str, list[str]]:
    m = project.models[name]
    return {"models": sorted(r for r in m.refs if r in project.models),
            "seeds": sorted(r for r in m.refs if r in project.seeds),
            "sources": sorted(f"{s}.{t}" for s, t in m.sources)}


def _models(project: Project, results: dict) -> dict:
    models = {}
    for name, m in sorted(project.models.items()):
        spec = project.schema.get(name, {})
        r = results.get(name, {})
        models[name] = {
            "path": _rel(m.path), "layer": layer(name), "materialized": m.materialized,
            "description": spec.get("description", ""), "columns": _columns(spec),
            "depends_on": _depends_on(project, name), "fingerprint": r.get("fingerprint"),
            "sql_hash": r.get("sql_hash"), "output_fingerprint": r.get("output_fingerprint") or r.get("fingerprint"),
            "content": r.get("content"), "inputs": r.get("inputs", {}), "rows": r.get("rows")}
    return models


def _seeds(project: Project, seeds_fp: dict) -> dict:
    return {n: {"path": _rel(p), "fingerprint": seeds_fp.get(n),
                **({"column_types": t} if (t := seed_column_types(project, n)) else {})}
            for n, p in sorted(project.seeds.items())}


def _sources(project: Project, sources_fp: dict) -> dict:
    sources = {k: {"description": v.get("description", ""), "columns": _columns(v), "fingerprint": sources_fp.get(k)}
               for k, v in sorted(project.sources.items())}
    for k, v in sorted(sources_fp.items()):
        sources.setdefault(k, {"description": "", "columns": [], "fingerprint": v})
    return sources


def _edges(project: Project) -> list[list[str]]:
    edges = set()
    for name in project.models:
        for kind in _depends_on(project, name).values():
            edges.update((d, name) for d in kind)
    return sorted([list(e) for e in edges])


def manifest(project: Project, results: dict, seeds_fp: dict, sources_fp: dict, tests: dict) -> dict:
    """The build manifest (README "Manifest"): a JSON-ready dict with top-level keys

    * ``models``: {name: {path, layer, materialized, description, columns: [{name, description}],
      depends_on: {models, seeds, sources}, fingerprint, sql_hash, output_fingerprint, content,
      inputs, rows}} for every model present (``results``: name → the run's record of it;
      ``output_fingerprint``: what its dependents' inputs record, the previous one when early
      cutoff found the content unchanged; ``content``: :func:`sphragis.runner.content_of` when it
      was computed, else null);
    * ``seeds``: {name: {path, fingerprint[, column_types]}}; ``sources``: {"raw.<table>":
      {description, columns, fingerprint}};
    * ``tests``: {id: {model, test, sql, depends_on, fingerprint, status}} (data, SQL and unit
      tests: ``test.<model>.<test>``, ``sql_test.<stem>``, ``unit_test.<model>.<name>``);
    * ``edges``: [[upstream, downstream], ...] sorted (sources as ``raw.<table>``);
    * ``queries`` and ``exposures``: the named queries and the programs that read the warehouse,
      with their inputs (:func:`sphragis.dag.sections`);
    * ``version``, ``runner_version``. Paths are relative to the repository when inside it.
    """
    return {"version": MANIFEST_VERSION, "runner_version": base.RUNNER_VERSION,
            "models": _models(project, results), "seeds": _seeds(project, seeds_fp),
            "sources": _sources(project, sources_fp), "tests": dict(sorted(tests.items())),
            "edges": _edges(project), **dag.sections(project, renderer(project))}
