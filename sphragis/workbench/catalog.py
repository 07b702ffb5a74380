"""What the data dictionary documents: every raw table, seed and model, with its columns, tests,
SQL and edges, plus the downstream consumers (the exporter, the report) and the analyses.

Sources, in order of preference:

* the build's ``manifest.json`` when one exists (keys ``models`` {name: {path, layer,
  materialized, description, columns, depends_on, fingerprint}}, ``seeds``, ``sources``,
  ``tests``, ``edges``) — descriptions, columns and edges are taken from it;
* otherwise :func:`sphragis.runner.load_project` (model files, their ``ref()``/``source()`` calls
  and the schema ``.yml`` files);
* the raw layer's DDL (``sql/ddl/raw.sql``; a column's description is its trailing ``--``
  comment) and any ``_sources.yml`` beside the models;
* the warehouse (opened read-only): column types, row counts and sample rows.

Every structure here is plain data (dicts/lists) so :mod:`.site` only renders.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import yaml

from .. import config, runner
from ..queries import relations

#: Layers in lineage order (left to right in the picture).
LAYERS = ("raw", "seed", "staging", "intermediate", "mart", "consumer")

#: Downstream consumers outside the SQL project: name → (description, modules whose source names
#: the tables they read). The tables are found in the modules' source, so the picture follows
#: the code.
CONSUMERS = {
    "export": ("`sphragis export`: the benchmark configurations, dataset card and metadata (SPEC §9).",
               ("sphragis.export.writer", "sphragis.export.metadata")),
    "report": ("`sphragis report`: the variation and leakage report (SPEC §11).", ("sphragis.report",)),
}

SAMPLE_ROWS = 5
_CELL_CHARS = 160


@dataclass
class Node:
    """One documented object.

    Attributes:
        name: table (or consumer) name; the page is ``<kind>/<name>.html``.
        kind: ``raw``, ``seed``, ``model`` or ``consumer``.
        layer: one of :data:`LAYERS`.
        description: prose from the yml / DDL (may be empty).
        columns: [{name, type, description, tests: [str]}] in table order.
        tests: model-level data tests as display strings.
        sql: the model's SQL template, the raw table's DDL, or the seed's CSV header.
        path: source file relative to the repository (or package) root.
        materialized: table / view (models).
        upstream, downstream: names of adjacent nodes (sorted).
        rows: row count in the warehouse (None when absent).
        sample: {"columns": [...], "rows": [[str, ...], ...]} or None.
        fingerprint: from the manifest, when present.
    """

    name: str
    kind: str
    layer: str
    description: str = ""
    columns: list[dict[str, Any]] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    sql: str = ""
    path: str = ""
    materialized: str = ""
    upstream: list[str] = field(default_factory=list)
    downstream: list[str] = field(default_factory=list)
    rows: int | None = None
    sample: dict[str, Any] | None = None
    fingerprint: str | None = None

    @property
    def href(self) -> str:
        """Page path relative to the site root."""
        return f"{self.kind}/{self.name}.html"


@dataclass
class Catalog:
    """All nodes by name, the analyses, and where the information came from."""

    nodes: dict[str, Node]
    analyses: list[dict[str, Any]]
    origin: str  # "manifest <path>" or "runner.load_project"
    warehouse: str | None

    def by_layer(self) -> dict[str, list[Node]]:
        """Layer → nodes sorted by name (every layer of :data:`LAYERS` present as a key)."""
        out: dict[str, list[Node]] = {layer: [] for layer in LAYERS}
        for n in sorted(self.nodes.values(), key=lambda n: n.name):
            out[n.layer].append(n)
        return out

    def edges(self) -> list[tuple[str, str]]:
        """(upstream, downstream) pairs, sorted."""
        return sorted((u, n.name) for n in self.nodes.values() for u in n.upstream)


def layer_of(name: str, path: str = "") -> str:
    """The model layer from the dbt naming convention (``stg_``/``int_``/``mart_``), else the
    folder (``staging``/``intermediate``/``marts``)."""
    for prefix, layer in (("stg_", "staging"), ("int_", "intermediate"), ("mart_", "mart")):
        if name.startswith(prefix):
            return layer
    parts = Path(path).parts
    for folder, layer in (("staging", "staging"), ("intermediate", "intermediate"), ("marts", "mart")):
        if folder in parts:
            return layer
    return "mart"


def _rel(path: str | Path) -> str:
    p = Path(path)
    for root in (config.REPO_ROOT, config.PACKAGE_DIR):
        try:
            return str(p.resolve().relative_to(root.resolve()))
        except ValueError:
            continue
    return str(p)


def _source_name(s: Any) -> str:
    """A source() argument as the table name: ``raw_tokens`` from ``raw_tokens``,
    ``('raw', 'raw_tokens')`` or ``raw.raw_tokens``."""
    if isinstance(s, (tuple, list)):
        return str(s[-1])
    return str(s).split(".")[-1]


def test_label(t: Any) -> str:
    """A yml data test as one display string (``unique``, ``accepted_values: a, b``,
    ``relationships: int_units.sentence_uid``, ``unique_combination: a, b``, ``expression: …``)."""
    if isinstance(t, str):
        return t
    if isinstance(t, dict) and len(t) == 1:
        (k, v), = t.items()
        if isinstance(v, dict):  # dict arguments, also under dbt's `arguments:`
            v = runner._test_args(t, k)
            v = v.get("combination_of_columns", v.get("expression", v)) if k in ("unique_combination", "expression") else v
        if k == "accepted_values" and isinstance(v, dict):
            return "accepted_values: " + ", ".join(str(x) for x in v.get("values", []))
        if k == "relationships" and isinstance(v, dict):
            m = runner._REF.search(str(v.get("to", "")))
            return f"relationships: {m.group(1) if m else v.get('to')}.{v.get('field')}"
        if isinstance(v, list):
            return f"{k}: " + ", ".join(str(x) for x in v)
        return f"{k}: {v}"
    return json.dumps(t, sort_keys=True, default=str)


def _tests_of(spec: dict) -> list:
    return list(spec.get("data_tests") or spec.get("tests") or [])


# --------------------------------------------------------------------------------------------
# raw layer


_TABLE = re.compile(r"create\s+(?:or\s+replace\s+)?table\s+(\w+)\s*\((.*?)\n\);", re.S | re.I)
_COLUMN = re.compile(r"^\s*(\w+)\s+([^,\n-]+?)\s*(?:,\s*)?(?:--\s*(.*))?$")


def raw_tables(ddl: Path | None = None) -> dict[str, Node]:
    """The raw tables declared in ``sql/ddl/raw.sql``: columns with DDL types and the trailing
    ``--`` comment as description; the file's leading comment as the layer description.

    Returns:
        table name → Node (kind ``raw``); empty when the file does not exist.
    """
    ddl = ddl or (config.SQL_DIR / "ddl" / "raw.sql")
    if not ddl.is_file():
        return {}
    text = ddl.read_text(encoding="utf-8")
    header = " ".join(line.lstrip("- ").strip() for line in text.splitlines() if line.startswith("--"))
    out = {}
    for m in _TABLE.finditer(text):
        cols = []
        for line in m.group(2).splitlines():
            c = _COLUMN.match(line)
            if not c or c.group(1).lower() in ("primary", "unique", "foreign", "check", "constraint"):
                continue
            cols.append({"name": c.group(1), "type": c.group(2).strip().upper(),
                         "description": (c.group(3) or "").strip(), "tests": []})
        desc = header if header.lower().startswith("raw layer") else f"Raw layer. {header}".strip()
        out[m.group(1)] = Node(m.group(1), "raw", "raw", description=desc,
                               columns=cols, sql=m.group(0), path=_rel(ddl))
    return out


def _sources_yml(models_dir: Path) -> dict[str, dict]:
    """Tables documented in ``_sources.yml``-style files (dbt ``sources:`` blocks), by name."""
    out: dict[str, dict] = {}
    for p in sorted(models_dir.rglob("*.yml")):
        doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        for src in doc.get("sources", []) or []:
            for t in src.get("tables", []) or []:
                out[t["name"]] = {**t, "_file": str(p)}
    return out


# --------------------------------------------------------------------------------------------
# consumers and analyses


def consumer_reads(modules: tuple[str, ...], known: set[str]) -> list[str]:
    """Known table names that occur as words in the source of ``modules`` (importable names);
    a module that cannot be imported contributes nothing. A name without an underscore is an
    ordinary word too (the mart ``tokens``): it counts only after ``from`` or ``join``."""
    import importlib

    found: set[str] = set()
    for mod in modules:
        try:
            src = inspect.getsource(importlib.import_module(mod))
        except (ImportError, OSError, TypeError):
            continue
        words = set(re.findall(r"\b[a-z][a-z0-9_]*\b", src)) & known
        sql = set(re.findall(r"\b(?:from|join)\s+([a-z][a-z0-9_]*)\b", src, re.I))
        found |= {w for w in words if "_" in w or w in sql}
    return sorted(found)


def analysis_files() -> dict[str, Path]:
    """The named analyses (``sql/analyses/*.sql``)."""
    from .sql import analyses

    return analyses()


# --------------------------------------------------------------------------------------------
# assembling


def find_manifest(warehouse: Path) -> Path | None:
    """The build manifest beside the warehouse (``manifest.json`` in its folder or
    ``<warehouse>.manifest.json``), or None."""
    for p in (warehouse.parent / "manifest.json", warehouse.with_name(warehouse.name + ".manifest.json")):
        if p.is_file():
            return p
    return None


def _from_manifest(doc: dict) -> tuple[dict[str, Node], dict[str, Node]]:
    models, seeds = {}, {}
    for name, m in (doc.get("models") or {}).items():
        cols = []
        raw_cols = m.get("columns") or []
        if isinstance(raw_cols, dict):
            raw_cols = [{"name": k, **(v or {})} for k, v in raw_cols.items()]
        for c in raw_cols:
            cols.append({"name": c["name"], "type": c.get("type") or c.get("data_type") or "",
                         "description": c.get("description") or "",
                         "tests": [test_label(t) for t in (c.get("data_tests") or c.get("tests") or [])]})
        deps = m.get("depends_on") or []
        if isinstance(deps, dict):
            deps = [*deps.get("models", []), *deps.get("seeds", []), *deps.get("sources", []), *deps.get("nodes", [])]
        models[name] = Node(name, "model", layer_of(name, m.get("path", "")),
                            description=m.get("description") or "", columns=cols,
                            tests=[test_label(t) for t in (m.get("data_tests") or m.get("tests") or [])],
                            path=_rel(m.get("path", "")), materialized=m.get("materialized") or "table",
                            upstream=sorted({_source_name(d) for d in deps}), fingerprint=m.get("fingerprint"))
    for name, s in (doc.get("seeds") or {}).items():
        s = s if isinstance(s, dict) else {"path": s}
        seeds[name] = Node(name, "seed", "seed", description=s.get("description") or "", path=_rel(s.get("path", "")))
    for u, d in doc.get("edges") or []:
        u, d = _source_name(u), _source_name(d)
        if d in models and u not in models[d].upstream:
            models[d].upstream = sorted({*models[d].upstream, u})
    return models, seeds


def _from_project(project: runner.Project) -> tuple[dict[str, Node], dict[str, Node]]:
    models, seeds = {}, {}
    for name, m in project.models.items():
        spec = project.schema.get(name, {})
        cols = [{"name": c["name"], "type": "", "description": (c.get("description") or "").strip(),
                 "tests": [test_label(t) for t in _tests_of(c)]} for c in spec.get("columns", []) or []]
        models[name] = Node(name, "model", layer_of(name, str(m.path)),
                            description=(spec.get("description") or "").strip(), columns=cols,
                            tests=[test_label(t) for t in _tests_of(spec)], sql=m.template, path=_rel(m.path),
                            materialized=m.materialized,
                            upstream=sorted({*m.refs, *(_source_name(s) for s in m.sources)}))
    for name, p in project.seeds.items():
        seeds[name] = Node(name, "seed", "seed", path=_rel(p))
    return models, seeds


def build_catalog(warehouse: Path | None = None, project: runner.Project | None = None,
                  manifest: Path | None = None) -> Catalog:
    """Assemble the catalog (see module docstring).

    Args:
        warehouse: DuckDB file (default ``SPHRAGIS_WAREHOUSE``); when absent the pages have no
            types, counts or samples.
        project: default :func:`runner.load_project`.
        manifest: a build manifest; default :func:`find_manifest`.

    Raises:
        runner.ModelError: the project does not load (names the file).
    """
    warehouse = warehouse or config.settings().warehouse
    project = project or runner.load_project()
    manifest = manifest or find_manifest(warehouse)
    models, seeds = _from_project(project)
    origin = "runner.load_project"
    if manifest is not None:
        m_models, m_seeds = _from_manifest(json.loads(manifest.read_text(encoding="utf-8")))
        for name, node in m_models.items():
            base = models.get(name)
            if base is not None:  # SQL text and columns known to both: the manifest wins where it says more
                node.sql = node.sql or base.sql
                node.columns = node.columns or base.columns
                node.tests = node.tests or base.tests
                node.path = node.path or base.path
            models[name] = node
        for name, node in m_seeds.items():
            seeds.setdefault(name, node)
        origin = f"manifest {manifest}"
    for name, p in project.seeds.items():
        if name in seeds and not seeds[name].sql:
            seeds[name].sql = p.read_text(encoding="utf-8").splitlines()[0] if p.is_file() else ""
            seeds[name].description = seeds[name].description or f"Checked-in mapping table {_rel(p)} (all columns VARCHAR)."
    raws = raw_tables()
    documented = _sources_yml(config.MODELS_DIR) if config.MODELS_DIR.is_dir() else {}
    nodes: dict[str, Node] = {**raws, **seeds, **models}
    for n in list(models.values()):
        for u in n.upstream:
            if u not in nodes:
                nodes[u] = Node(u, "raw", "raw", description="Raw table (written by the ingest).")
    for name, t in documented.items():
        node = nodes.get(name)
        if node is None or node.kind != "raw":
            continue
        node.description = (t.get("description") or node.description).strip()
        by_col = {c["name"]: c for c in t.get("columns", []) or []}
        for c in node.columns:
            d = by_col.get(c["name"], {})
            c["description"] = (d.get("description") or c["description"]).strip()
            c["tests"] = [test_label(x) for x in _tests_of(d)]
    known = set(nodes)
    for cname, (desc, mods) in CONSUMERS.items():
        reads = consumer_reads(mods, known)
        if reads:
            nodes[cname] = Node(cname, "consumer", "consumer", description=desc, upstream=reads,
                                path=", ".join(mods))
    for n in nodes.values():
        n.upstream = sorted(u for u in n.upstream if u in nodes and u != n.name)
    for n in nodes.values():
        for u in n.upstream:
            nodes[u].downstream.append(n.name)
    for n in nodes.values():
        n.downstream = sorted(set(n.downstream))
    found = warehouse.is_file()
    if found:
        _attach_warehouse(nodes, warehouse)
    return Catalog(nodes, _analyses(warehouse if found else None, known), origin, str(warehouse) if found else None)


def _cell(v: Any) -> str:
    s = "NULL" if v is None else json.dumps(v, ensure_ascii=False, default=str) if isinstance(v, (list, dict)) else str(v)
    return s if len(s) <= _CELL_CHARS else s[:_CELL_CHARS - 1] + "…"


def _attach_warehouse(nodes: dict[str, Node], warehouse: Path) -> None:
    """Types, row counts and sample rows from the warehouse (read-only); tables that are in the
    warehouse but not in the project (e.g. ``ingest_rejects``, ``build_log``) become raw nodes."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        cols: dict[str, list[tuple[str, str, str | None]]] = {}
        for t, c, typ, comment in con.execute(
                "select table_name, column_name, data_type, comment from duckdb_columns() "
                "where schema_name = 'main' and not internal order by table_name, column_index").fetchall():
            cols.setdefault(t, []).append((c, typ, comment))
        for t in cols:
            if t not in nodes:
                nodes[t] = Node(t, "raw", "raw", description="Table written by the build outside the SQL models.")
        for name, node in nodes.items():
            if name not in cols:
                continue
            declared = {c["name"]: c for c in node.columns}
            merged = []
            for c, typ, comment in cols[name]:
                d = declared.pop(c, {"name": c, "description": "", "tests": []})
                merged.append({**d, "type": typ, "description": d.get("description") or (comment or "")})
            for d in declared.values():  # documented but not in the table: keep, flagged
                merged.append({**d, "type": d.get("type") or "(not in warehouse)"})
            node.columns = merged
            node.rows = con.execute(f'select count(*) from "{name}"').fetchone()[0]
            cur = con.execute(f'select * from "{name}" limit {SAMPLE_ROWS}')
            node.sample = {"columns": [d[0] for d in cur.description],
                           "rows": [[_cell(v) for v in row] for row in cur.fetchall()]}
    finally:
        con.close()


def _analyses(warehouse: Path | None, known: set[str]) -> list[dict[str, Any]]:
    """Each analysis: name, SQL, the tables it reads, and its result (first 50 rows) or error."""
    from . import sql as sqlmod

    out = []
    con = sqlmod.connect(warehouse) if warehouse else None
    present = relations(con) if con else set()
    try:
        for name, path in analysis_files().items():
            text = path.read_text(encoding="utf-8")
            body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
            doc = " ".join(line.lstrip("- ").strip() for line in text.splitlines() if line.lstrip().startswith("--"))
            rec: dict[str, Any] = {"name": name, "sql": text, "description": doc, "path": _rel(path),
                                   "reads": sorted(set(re.findall(r"\b[a-z][a-z0-9_]*\b", body)) & known),
                                   "columns": [], "rows": [], "n_rows": None, "error": None,
                                   "absent": sorted(set(re.findall(r"\b[a-z][a-z0-9_]*\b", body)) & known - present)
                                   if con is not None else []}
            # an analysis of a table this warehouse does not hold (a partial build) is not run
            if con is not None and not rec["absent"]:
                try:
                    res = sqlmod.query(con, text)
                    rec["columns"] = res.columns
                    rows = res.rows
                    rec["n_rows"] = len(rows)
                    rec["rows"] = [[_cell(v) for v in r] for r in rows[:50]]
                except sqlmod.QueryError as exc:
                    rec["error"] = str(exc)
            out.append(rec)
    finally:
        if con is not None:
            con.close()
    return out
