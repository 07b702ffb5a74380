"""Every SQL the product runs in the lineage: named queries and exposures in the build manifest,
so that every program's reads are in the lineage and its state.

* **Named queries** (``sql/queries/*.sql``) are the parameterized SQL the programs run (values
  passed as DuckDB ``$name``/``?`` parameters, or tables the program registers: an export's
  Parquet files, an annotation's selection). They name warehouse tables with ``{{ ref('…') }}``
  and ``{{ source('raw', '…') }}`` and are rendered by the runner's Jinja environment
  (:func:`render_query`), so their edges are known: the manifest's ``queries`` section
  (:func:`queries_section`) holds ``{name: {path, description, depends_on: {models, seeds,
  sources}}}``. Parameter-free SQL over warehouse tables is a model instead (a reporting mart).
* **Exposures** (dbt's ``exposures:`` in ``models/**/*.yml``): the programs that read the
  warehouse (export, audit, report, eval, treebank, docs, score). Each declares its ``depends_on``
  (``ref()``/``source()``) and, under ``meta.modules``, the modules that are the program; the
  named queries those modules run are derived from their code (calls ``query(<name>)`` with a
  literal name, found in the syntax tree), and their edges are added to the exposure's
  (:func:`exposures_section`).

The runner's manifest writer adds both sections with one call, :func:`sections`.
"""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path
from typing import Any

import yaml

from .config import MODELS_DIR, SQL_DIR

QUERIES_DIR = SQL_DIR / "queries"

_lock = threading.Lock()

#: ``ref('name')`` / ``source('raw', 'name')`` in an exposure's ``depends_on`` (dbt's syntax).
_DEPENDS = re.compile(r"""^\s*(ref|source)\(\s*['"](\w+)['"]\s*(?:,\s*['"](\w+)['"]\s*)?\)\s*$""")


class LineageError(ValueError):
    """A named query or exposure cannot be placed in the lineage (the message names the file)."""


def render_query(text: str, renderer: Any, name: str = "<query>") -> tuple[str, set[str], set[tuple[str, str]]]:
    """Render a named query's text with ``renderer``, the runner's Jinja environment (its macros,
    ``ref``, ``source``, ``var``; :func:`sphragis.queries.renderer`).

    Returns:
        (the SQL with ``ref()``/``source()`` resolved to table names, the names it ``ref()``-s,
        the ``(source, table)`` pairs it ``source()``-s).

    Raises:
        sphragis.runner.ModelError: the template does not render (names ``name`` and the line).
    """
    with _lock:  # the renderer records the refs of the render in progress
        renderer.rec, renderer.variables = {}, {}
        sql = renderer._call(name, lambda: renderer.env.from_string(text).render())
        return sql, set(renderer.rec.get("refs", set())), set(renderer.rec.get("sources", set()))


def query_files(folder: Path | None = None) -> dict[str, Path]:
    """The named queries of ``folder`` (default ``sql/queries``): name → path, sorted."""
    folder = folder or QUERIES_DIR
    return {p.stem: p for p in sorted(folder.glob("*.sql"))}


def _description(text: str) -> str:
    """The leading ``--`` comment of a SQL file, as one paragraph."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].strip())
    return " ".join(lines)


def _depends(project: Any, refs: set[str], sources: set[tuple[str, str]]) -> dict[str, list[str]]:
    unknown = sorted(refs - set(project.models) - set(project.seeds))
    if unknown:
        raise LineageError(f"ref() to unknown model or seed: {', '.join(unknown)}")
    return {"models": sorted(r for r in refs if r in project.models),
            "seeds": sorted(r for r in refs if r in project.seeds),
            "sources": sorted(f"{s}.{t}" for s, t in sources)}


def _rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(MODELS_DIR.parent.resolve()))
    except ValueError:
        return str(path)


def queries_section(project: Any, renderer: Any, folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """The manifest's ``queries``: ``{name: {path, description, depends_on: {models, seeds,
    sources}, writes}}`` for every named query of ``folder`` (default ``sql/queries``); ``writes``:
    the sources it inserts into (the ingest's), which are not among its inputs.

    Raises:
        LineageError: a query ``ref()``-s an unknown model or seed (names the file).
    """
    out = {}
    for name, path in query_files(folder).items():
        text = path.read_text(encoding="utf-8")
        sql, refs, sources = render_query(text, renderer, str(path))
        try:
            depends = _depends(project, refs, sources)
        except LineageError as exc:
            raise LineageError(f"{path}: {exc}") from exc
        writes = sorted(s for s in depends["sources"]
                        if re.search(rf"\binsert\s+into\s+{re.escape(s.split('.')[-1])}\b", sql, re.I))
        depends["sources"] = [s for s in depends["sources"] if s not in writes]
        out[name] = {"path": _rel(path), "description": _description(text), "depends_on": depends, "writes": writes}
    return out


def queries_called(modules: list[str]) -> list[str]:
    """Named queries that ``modules`` (importable names, each a program's own module) run: the
    literal first argument of every call to a function named ``query`` in their source; sorted.

    Raises:
        LookupError: a module has no source file.
    """
    from .state import module_file

    found: set[str] = set()
    for mod in modules:
        path = module_file(mod)
        if path is None:
            raise LookupError(f"no source file for module {mod}")
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == "query"):
                found.add(node.args[0].value)
    return sorted(found)


def exposure_specs(models_dir: Path | None = None) -> dict[str, dict[str, Any]]:
    """The ``exposures:`` entries of the schema files under ``models_dir`` (default ``models``),
    by name, each with ``_file`` (its yml).

    Raises:
        LineageError: two exposures share a name.
    """
    out: dict[str, dict[str, Any]] = {}
    for p in sorted((models_dir or MODELS_DIR).rglob("*.yml")):
        text = p.read_text(encoding="utf-8")
        if "exposures:" not in text:
            continue
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
        for e in doc.get("exposures", []) or []:
            if e["name"] in out:
                raise LineageError(f"{p}: exposure {e['name']!r} is declared twice (also in {out[e['name']]['_file']})")
            out[e["name"]] = {**e, "_file": str(p)}
    return out


def exposures_section(project: Any, queries: dict[str, dict], models_dir: Path | None = None
                      ) -> dict[str, dict[str, Any]]:
    """The manifest's ``exposures``: ``{name: {path, type, description, command, modules,
    queries, depends_on: {models, seeds, sources}}}``; ``depends_on`` holds the declared refs and
    those of the named queries (``queries``: :func:`queries_section`) its modules run.

    Raises:
        LineageError: a ``depends_on`` entry is not ``ref('…')``/``source('…', '…')``, names an
            unknown model, seed or source, or a module's named query is not in ``queries``
            (each names the yml file).
    """
    out = {}
    for name, e in sorted(exposure_specs(models_dir).items()):
        refs: set[str] = set()
        sources: set[tuple[str, str]] = set()
        for d in e.get("depends_on", []) or []:
            m = _DEPENDS.match(str(d))
            if m is None:
                raise LineageError(f"{e['_file']}: exposure {name}: depends_on entry {d!r} is not ref() or source()")
            if m.group(1) == "ref":
                refs.add(m.group(2))
            else:
                sources.add((m.group(2), m.group(3)))
        undeclared = sorted(f"{s}.{t}" for s, t in sources if f"{s}.{t}" not in project.sources)
        modules = list((e.get("meta") or {}).get("modules") or [])
        used = queries_called(modules) if modules else []
        missing = [q for q in used if q not in queries]
        try:
            if undeclared:
                raise LineageError(f"source() not declared in a _sources.yml: {', '.join(undeclared)}")
            if missing:
                raise LineageError(f"its modules run named queries that do not exist: {', '.join(missing)}")
            declared = _depends(project, refs, sources)
        except LineageError as exc:
            raise LineageError(f"{e['_file']}: exposure {name}: {exc}") from exc
        depends = {k: sorted({*declared[k], *(x for q in used for x in queries[q]["depends_on"][k])})
                   for k in declared}
        out[name] = {"path": _rel(Path(e["_file"])), "type": e.get("type", ""),
                     "description": (e.get("description") or "").strip(),
                     "command": (e.get("meta") or {}).get("command", ""), "modules": modules,
                     "queries": used, "depends_on": depends}
    return out


def sections(project: Any, renderer: Any) -> dict[str, dict[str, Any]]:
    """``{"queries": …, "exposures": …}`` for the build manifest (:func:`queries_section`,
    :func:`exposures_section`) of the runner's ``project`` (a ``sphragis.runner.Project``), its
    queries rendered by ``renderer`` (the project's Jinja environment): the one call of the
    runner's manifest writer. They belong to the package's project: a project that does not hold
    every model of ``models/`` (a test's, or a subset of the package's) gets empty sections.

    Raises:
        LineageError: see :func:`queries_section` and :func:`exposures_section`.
    """
    root = MODELS_DIR.resolve()
    held = {m.name for m in project.models.values() if root in Path(m.path).resolve().parents}
    if not held or not {p.stem for p in root.rglob("*.sql")} <= held:
        return {"queries": {}, "exposures": {}}
    queries = queries_section(project, renderer)
    return {"queries": queries, "exposures": exposures_section(project, queries)}
