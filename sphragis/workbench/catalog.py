"""What the data dictionary documents: every raw table, seed, model and named query, with its
columns, tests, SQL and edges, plus the programs that read the warehouse (the exposures) and the
analyses.

Sources, in order of preference:

* the build's ``manifest.json`` when one exists (keys ``models`` {name: {path, layer,
  materialized, description, columns, depends_on, fingerprint}}, ``seeds``, ``sources``,
  ``queries`` and ``exposures`` (:mod:`sphragis.dag`), ``edges``): descriptions, columns and every
  edge are taken from it; nothing is found by reading Python source;
* otherwise :func:`sphragis.runner.load_project` (model files, their ``ref()``/``source()`` calls
  and the schema ``.yml`` files) and :func:`sphragis.dag.sections` (what the manifest would hold);
* the raw layer's DDL (``sql/ddl/raw.sql``; a column's description is its trailing ``--``
  comment) and any ``_sources.yml`` beside the models;
* the warehouse (opened read-only): column types, row counts and sample rows.

Every structure here is plain data (dicts/lists) so :mod:`.site` only renders.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from .. import config, dag, runner
from ..queries import relations, renderer
from ..runner import tests_of as _tests_of

#: Layers in lineage order (left to right in the picture): the model layers of
#: :func:`sphragis.runner.layer` (``marts`` shown as ``mart``), the named queries, and the
#: consumers (the manifest's exposures).
LAYERS = ("raw", "seed", "staging", "intermediate", "mart", "query", "consumer")

SAMPLE_ROWS = 5
_CELL_CHARS = 160


@dataclass
class Node:
    """One documented object.

    Attributes:
        name: table, named query or consumer name; the page is ``<kind>/<name>.html``.
        kind: ``raw``, ``seed``, ``model``, ``query`` or ``consumer``.
        layer: one of :data:`LAYERS`.
        description: prose from the yml / DDL (may be empty).
        columns: [{name, type, description, tests: [str]}] in table order.
        tests: model-level data tests as display strings.
        sql: the model's or query's SQL template, the raw table's DDL, or the seed's CSV header.
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


def layer_of(name: str, layer: str | None = None) -> str:
    """The lineage layer of model ``name``: ``layer`` (the manifest's) or
    :func:`sphragis.runner.layer`, ``marts`` shown as ``mart``."""
    layer = layer or runner.layer(name)
    return "mart" if layer == "marts" else layer


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
            v = runner.test_args(t, k)
            v = v.get("combination_of_columns", v.get("expression", v)) if k in ("unique_combination", "expression") else v
        if k == "accepted_values" and isinstance(v, dict):
            return "accepted_values: " + ", ".join(str(x) for x in v.get("values", []))
        if k == "relationships" and isinstance(v, dict):
            m = runner.REF.search(str(v.get("to", "")))
            return f"relationships: {m.group(1) if m else v.get('to')}.{v.get('field')}"
        if isinstance(v, list):
            return f"{k}: " + ", ".join(str(x) for x in v)
        return f"{k}: {v}"
    return json.dumps(t, sort_keys=True, default=str)


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


# --------------------------------------------------------------------------------------------
# analyses


def analysis_files() -> dict[str, Path]:
    """The named analyses (``sql/analyses/*.sql``)."""
    from .sql import analyses

    return analyses()


# --------------------------------------------------------------------------------------------
# assembling


def _dag_nodes(lineage: dict[str, dict], tables: dict[str, Node]) -> dict[str, Node]:
    """Nodes of the named queries (kind ``query``) and of the exposures (kind ``consumer``) of a
    manifest's ``queries`` and ``exposures`` sections (:mod:`sphragis.dag`), their upstream the
    tables of ``depends_on`` (sources as ``raw.<table>`` → ``<table>``) and, for an exposure, the
    named queries it runs."""
    def reads(d: dict) -> list[str]:
        return sorted({_source_name(x) for k in ("models", "seeds", "sources") for x in d.get(k, [])})

    out: dict[str, Node] = {}
    for name, q in sorted(lineage.get("queries", {}).items()):
        path = config.REPO_ROOT / q["path"] if not Path(q["path"]).is_absolute() else Path(q["path"])
        writes = ", ".join(_source_name(w) for w in q.get("writes", []))
        out[name] = Node(name, "query", "query",
                         description=q.get("description", "") + (f" Writes {writes}." if writes else ""),
                         sql=path.read_text(encoding="utf-8") if path.is_file() else "", path=q["path"],
                         upstream=reads(q.get("depends_on", {})))
    for name, e in sorted(lineage.get("exposures", {}).items()):
        if name in tables or name in out:
            raise ValueError(f"exposure {name!r} has the name of a table or named query; rename it in {e['path']}")
        command = f"`{e['command']}`: " if e.get("command") else ""
        out[name] = Node(name, "consumer", "consumer", description=command + e.get("description", ""),
                         path=", ".join(e.get("modules", [])) or e.get("path", ""),
                         upstream=sorted({*reads(e.get("depends_on", {})), *e.get("queries", [])}))
    return out


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
        models[name] = Node(name, "model", layer_of(name, m.get("layer")),
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
        models[name] = Node(name, "model", layer_of(name),
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
    lineage = None
    if manifest is not None:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        if "queries" in doc and "exposures" in doc:
            lineage = {"queries": doc["queries"], "exposures": doc["exposures"]}
        m_models, m_seeds = _from_manifest(doc)
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
    if lineage is None:  # no manifest, or one written before it held them: what it would hold
        lineage = dag.sections(project, renderer(project))
    raws = raw_tables()
    documented = {key.split(".", 1)[1]: t for key, t in project.sources.items()}  # _sources.yml, as the runner read it
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
    nodes.update(_dag_nodes(lineage, nodes))
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
