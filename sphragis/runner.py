"""The SQL models runner: a small dbt-style engine over DuckDB, with state-based rebuilds.

* **Models** are Jinja-templated ``.sql`` files under ``models/`` (one table per file, named after
  the file stem). A model names its inputs with ``{{ ref('model_or_seed') }}`` and
  ``{{ source('raw', 'raw_table') }}`` (the raw tables are documented in ``models/_sources.yml``);
  the dependency graph comes from rendering those calls, and the models run in ``graphlib``
  topological order (ties broken by name, so runs are deterministic).
  ``{{ config(materialized='view') }}`` makes a view instead of a table; ``{{ var('split_seed') }}``
  reads a build variable (:func:`project_vars`: ``BUILD_VARS`` and ``projects``, the seed
  ``source_priority``).
* **Macros**: every ``sql/macros/*.sql`` file is loaded once and its macros become Jinja globals,
  so a template error names the model file and its own line.
* **Seeds**: every ``sql/seeds/*.csv`` is loaded as a table named after its stem, and can be
  ``ref()``-ed. Columns are VARCHAR unless the seed's entry in a schema file types them, as dbt's
  seed config does (``config: {column_types: {priority: integer}}``): the type is declared once,
  there, and a value that does not convert fails the load naming the CSV file and line.
* **Schema files**: ``models/**/*.yml`` document models and columns and declare data tests under
  ``data_tests:`` (dbt ≥ 1.8; ``tests:`` is accepted as an alias): ``unique``, ``not_null``,
  ``accepted_values: {values: [...]}``, ``relationships: {to: ref('x'), field: y}``, and
  model-level ``unique_combination: {combination_of_columns: [cols]}`` and ``expression:
  {expression: <sql boolean true on every row, may ref()>}`` (arguments also under dbt's
  ``arguments:`` key; dbt runs the same two from ``sql/dbt/generic_tests.sql``).
  A model's tests run right after it is built (as ``dbt build`` does), so a failing ``int_*`` test
  stops the build before the marts; :class:`ModelTestFailure` names model, column, test and rows.
  Like ``dbt build --threads``, models and tests run :func:`default_workers` at a time on their
  own cursors: a model starts once the models and seeds it reads are built and their tests passed.
* **SQL tests**: every ``sql/tests/*.sql`` is a templated query that must return no rows; they run
  after the models they ``ref()``.
* **Fingerprints and reuse**: each model's fingerprint is the sha256 of the runner version, its
  materialization, its rendered SQL (which contains every ``var()`` value it reads) and the
  fingerprints of its inputs: models, seeds (sha256 of the CSV bytes and column types) and raw tables (given by the
  build: the content hash of the source files they were parsed from). A model whose fingerprint
  equals the one recorded in the warehouse's manifest is reused as it is; the others are rebuilt in
  order. A test is skipped when it passed before with the same SQL on the same fingerprints.
* **Early cutoff**: when a table with dependents is rebuilt over its previous version (not with
  ``full``), the two are compared (:func:`content_of`: columns and types, row count and
  order-insensitive row hashes); when equal, the model keeps its previous *output fingerprint*, which
  is what its dependents' fingerprints read, so they are reused (as in Shake or Bazel). The
  manifest records ``output_fingerprint`` per model, so later builds reuse the same way. Views are
  not compared (reading one runs its whole query). A run drops the old manifest before it changes
  anything, so a run that fails midway leaves no manifest describing tables it replaced.
* **Plan** (:func:`plan`): the decisions above, made without touching the warehouse; ``execute``
  takes each decision from it, and a build skips everything when the plan is ``up_to_date``.
* **Selection** (:func:`select_models`): ``model``, ``+model`` (with its ancestors), ``model+``
  (with its descendants), ``+model+``, and ``state:modified`` / ``state:modified+`` (models whose
  fingerprint differs from the warehouse's, and their descendants). Models outside the selection
  are left as they are; one the selection needs that is not in the warehouse is built too.
* **Manifest** (:func:`manifest`): models, seeds, sources, tests, edges and fingerprints, kept in
  the warehouse (table ``build_manifest``) and written beside it by the build (README "Manifest").
"""

from __future__ import annotations

import graphlib
import hashlib
import json
import re
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import jinja2
import yaml

from .config import BUILD_VARS, MACROS_DIR, MODELS_DIR, SEEDS_DIR, SQL_DIR, projects

#: The defaults of ``var()``: :data:`sphragis.config.BUILD_VARS` (their one home).
DEFAULT_VARS = BUILD_VARS
SQL_TESTS_DIR = SQL_DIR / "tests"
#: The table holding the manifest of the build that made the warehouse (one row, column ``manifest``).
MANIFEST_TABLE = "build_manifest"
MANIFEST_VERSION = 1
#: The most models and tests :func:`execute` runs at once (:func:`default_workers`).
MAX_WORKERS = 4
#: Part of every fingerprint: the SQL engine and the Python UDFs (the bytes of ``udfs.py``, read
#: without importing it) decide what a model's SQL means.
RUNNER_VERSION = hashlib.sha256(
    f"{MANIFEST_VERSION}|duckdb {duckdb.__version__}|".encode()
    + Path(__file__).with_name("udfs.py").read_bytes()).hexdigest()[:16]


class ModelError(RuntimeError):
    """A model failed to render or execute; the message names the model file (and line)."""


class ModelTestFailure(RuntimeError):
    """One or more declared data tests failed; ``failures`` lists (model, test, detail)."""

    def __init__(self, failures: list[tuple[str, str, str]]):
        self.failures = failures
        lines = [f"{len(failures)} data test(s) failed:"] + [f"  {m}: {t}: {d}" for m, t, d in failures]
        super().__init__("\n".join(lines))


@dataclass
class Model:
    """One model file: ``name`` (table), ``path``, raw template text, ``refs`` and ``sources``
    (``(source_name, table)`` pairs)."""

    name: str
    path: Path
    template: str
    refs: set[str] = field(default_factory=set)
    sources: set = field(default_factory=set)
    materialized: str = "table"
    unknown_refs: set[str] = field(default_factory=set)


@dataclass
class Project:
    """Models, seeds and schema declarations found on disk."""

    models: dict[str, Model]
    seeds: dict[str, Path]
    schema: dict[str, dict]
    macros: str = ""
    sql_tests: dict[str, Model] = field(default_factory=dict)
    sources: dict[str, dict] = field(default_factory=dict)  # "raw.raw_tokens" -> _sources.yml entry
    macro_files: list[Path] = field(default_factory=list)

    def ancestors(self, names, *, tests: bool = True) -> set[str]:
        """``names`` and every model they (or, with ``tests``, their data tests) depend on,
        transitively.

        Raises:
            ModelError: a name is not a model.
        """
        todo, seen = list(names), set()
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            if n not in self.models:
                raise ModelError(f"unknown model {n!r}")
            seen.add(n)
            todo.extend(r for r in self.models[n].refs if r in self.models)
            if tests:
                todo.extend(r for r in self.test_refs(n) if r in self.models)
        return seen

    def descendants(self, names) -> set[str]:
        """``names`` and every model that reads them, transitively."""
        children: dict[str, set[str]] = {}
        for m in self.models.values():
            for r in m.refs:
                children.setdefault(r, set()).add(m.name)
        todo, seen = list(names), set()
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(children.get(n, ()))
        return seen & set(self.models)

    def test_refs(self, name: str) -> set[str]:
        """Models that the data tests of ``name`` read (``relationships`` targets)."""
        out = set()
        for col in self.schema.get(name, {}).get("columns", []) or []:
            for t in _tests_of(col):
                if isinstance(t, dict) and "relationships" in t:
                    to = _test_args(t, "relationships")["to"]
                    m = _REF.search(to)
                    out.add(m.group(1) if m else to)
        for t in _tests_of(self.schema.get(name, {})):
            if isinstance(t, dict) and "expression" in t:
                out.update(_REF.findall(_test_args(t, "expression")["expression"]))
        return out

    def order(self, only: set[str] | None = None) -> list[str]:
        """Model names in dependency order (``graphlib``), deterministic across runs.

        Args:
            only: restrict to these models (their own dependencies must be included).

        Raises:
            ModelError: a model refs an unknown model or seed (names file and line), or a cycle.
        """
        names = only if only is not None else set(self.models)
        for name in sorted(names):
            m = self.models[name]
            if m.unknown_refs:
                bad = sorted(m.unknown_refs)[0]
                raise ModelError(f"{m.path}:{_line_of(m.template, bad)}: ref() to unknown model or seed: "
                                 f"{', '.join(sorted(m.unknown_refs))}")
        ts = graphlib.TopologicalSorter()
        for name in sorted(names):
            ts.add(name, *sorted(r for r in self.models[name].refs if r in self.models))
        try:
            return list(_deterministic_order(ts))
        except graphlib.CycleError as exc:
            raise ModelError(f"models form a dependency cycle: {' -> '.join(exc.args[1])}") from exc


def _tests_of(spec: dict) -> list:
    """The tests a model or column declares: ``data_tests:`` (dbt ≥ 1.8) plus the ``tests:`` alias."""
    return list(spec.get("data_tests") or []) + list(spec.get("tests") or [])


def project_vars() -> dict:
    """The defaults of ``var()``: :data:`DEFAULT_VARS` and ``projects``, the treebank projects of
    the seed ``source_priority`` (:func:`sphragis.config.projects`: dicts with project, priority,
    treebank_source, syntax_scheme, tag_source), highest SPEC §7 priority first. dbt gets the same
    values from ``dbt_project.yml`` (``tests/test_dbt.py`` checks it)."""
    return {**DEFAULT_VARS, "projects": [dict(p) for p in projects()]}


def _test_args(test: dict, name: str) -> dict:
    """The arguments of the generic test ``{name: {...}}`` of a schema file, in either of dbt's
    forms: the keys themselves or (dbt ≥ 1.10) under ``arguments:``."""
    spec = test[name] or {}
    return {**(spec.get("arguments") or {}), **{k: v for k, v in spec.items() if k not in ("arguments", "config")}}


def _line_of(template: str, name: str) -> int:
    for i, line in enumerate(template.splitlines(), start=1):
        if re.search(r"ref\(\s*['\"]" + re.escape(name) + r"['\"]", line):
            return i
    return 1


def _deterministic_order(ts: graphlib.TopologicalSorter):
    ts.prepare()
    while ts.is_active():
        ready = sorted(ts.get_ready())
        yield from ready
        ts.done(*ready)


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates (keyed by template name, checked against a checksum of
    the source; in Jinja's per-user temp folder): compiling the ~80 templates took 0.4-0.9 s of
    every build. A cache that cannot be written is skipped, never an error."""

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:
        return _TemplateCache()
    except (OSError, RuntimeError):  # no safe temp folder: compile every time
        return None


class _Renderer:
    """One Jinja environment per project: macros are globals; ``ref``/``source``/``config``/``var``
    are globals that act on the render in progress, so macros calling them work too."""

    def __init__(self, macro_files: list[Path], texts: dict[str, str]):
        self.texts = texts  # template name (file path) -> text
        self.env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                      loader=jinja2.FunctionLoader(self._load), bytecode_cache=_bytecode_cache())
        self.rec: dict = {}
        self.variables: dict = {}
        self.env.globals.update(ref=self._ref, source=self._source, config=self._config, var=self._var)
        self.defaults = project_vars()
        for p in macro_files:
            self.texts[str(p)] = p.read_text(encoding="utf-8")
            mod = self._call(str(p), lambda name=str(p): self.env.get_template(name).module)
            self.env.globals.update({k: getattr(mod, k) for k in dir(mod) if not k.startswith("_")})

    def _load(self, name: str):
        return self.texts[name], name, lambda: True

    def _ref(self, name):
        self.rec.setdefault("refs", set()).add(name)
        return name

    def _source(self, source_name, table=None):
        if table is None:  # one-argument form (older models): the raw layer
            source_name, table = "raw", source_name
        self.rec.setdefault("sources", set()).add((source_name, table))
        return table

    def _config(self, materialized="table", **_):
        self.rec["materialized"] = materialized
        return ""

    def _var(self, name, default=None):
        values = {**self.defaults, **self.variables}
        if name in values:
            return values[name]
        if default is not None:
            return default
        raise ModelError(f"unknown var {name!r}")

    def render_string(self, text: str, where: str) -> tuple[str, dict]:
        """(rendered SQL, record) of a template string from a schema file (``where`` names it)."""
        self.rec, self.variables = {}, {}
        sql = self._call(where, lambda: self.env.from_string(text).render())
        return sql, self.rec

    def render(self, path: Path, variables: dict | None = None) -> tuple[str, dict]:
        """(rendered SQL, record of refs/sources/materialized) of the template at ``path``."""
        self.rec, self.variables = {}, variables or {}
        sql = self._call(str(path), lambda: self.env.get_template(str(path)).render())
        return sql, self.rec

    def _call(self, name: str, fn):
        try:
            return fn()
        except jinja2.TemplateSyntaxError as exc:
            raise ModelError(f"{exc.filename or name}:{exc.lineno}: template error: {exc.message}") from exc
        except (jinja2.TemplateError, ModelError, TypeError) as exc:
            raise ModelError(f"{name}:{_template_line(exc, name)}: template error: {exc}") from exc


def _template_line(exc: BaseException, name: str) -> str:
    """The line of template ``name`` (and of any macro file) where ``exc`` was raised (from the
    traceback Jinja rewrites to template lines)."""
    lines, tb = [], exc.__traceback__
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn == name:
            lines.append(str(tb.tb_lineno))
        elif fn.endswith(".sql"):
            lines.append(f"? (in {fn}:{tb.tb_lineno})")
        tb = tb.tb_next
    return lines[0] if lines else "?"


#: PyYAML's safe loader, in C (libyaml) when PyYAML has it: the same documents, a tenth of the time
#: (0.02 s instead of 0.23 s for the project's schema files; every build loads them).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_project(models_dir: Path = MODELS_DIR, seeds_dir: Path = SEEDS_DIR, macros_dir: Path = MACROS_DIR,
                 tests_dir: Path | None = None) -> Project:
    """Discover models, seeds, macros, SQL tests, sources and schema files; resolve dependencies.

    Args:
        tests_dir: folder of SQL tests (default ``sql/tests`` beside ``macros_dir``).

    Raises:
        ModelError: two models share a name, a template does not render (the message names the
            file and line), a schema file documents an unknown model, or a model reads a source
            that ``_sources.yml`` does not declare (when a ``_sources.yml`` exists). A ref() to an
            unknown model or seed is an error when that model is built (see :meth:`Project.order`).
    """
    tests_dir = tests_dir if tests_dir is not None else macros_dir.parent / "tests"
    macro_files = sorted(macros_dir.glob("*.sql")) if macros_dir.exists() else []
    seeds = {p.stem: p for p in sorted(seeds_dir.glob("*.csv"))} if seeds_dir.exists() else {}
    models: dict[str, Model] = {}
    for p in sorted(models_dir.rglob("*.sql")):
        if p.stem in models:
            raise ModelError(f"duplicate model name {p.stem!r}: {models[p.stem].path} and {p}")
        models[p.stem] = Model(p.stem, p, p.read_text(encoding="utf-8"))
    sql_tests = {p.stem: Model(p.stem, p, p.read_text(encoding="utf-8"))
                 for p in sorted(tests_dir.glob("*.sql"))} if tests_dir.exists() else {}
    schema: dict[str, dict] = {}
    sources: dict[str, dict] = {}
    for p in sorted(models_dir.rglob("*.yml")):
        doc = yaml.load(p.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
        for m in (doc.get("models", []) or []) + (doc.get("seeds", []) or []):
            schema[m["name"]] = {**m, "_file": str(p)}
        for s in doc.get("sources", []) or []:
            for t in s.get("tables", []) or []:
                sources[f"{s['name']}.{t['name']}"] = {**t, "source": s["name"], "_file": str(p)}
    texts = {str(m.path): m.template for m in [*models.values(), *sql_tests.values()]}
    renderer = _Renderer(macro_files, texts)
    for m in [*models.values(), *sql_tests.values()]:
        _sql, rec = renderer.render(m.path)
        m.refs, m.sources = rec.get("refs", set()), rec.get("sources", set())
        m.materialized = rec.get("materialized", "table")
        m.unknown_refs = m.refs - set(models) - set(seeds)
        undeclared = sorted(f"{s}.{t}" for s, t in m.sources if sources and f"{s}.{t}" not in sources)
        if undeclared:
            raise ModelError(f"{m.path}: source() not declared in a _sources.yml: {', '.join(undeclared)}")
    for name in schema:
        if name not in models and name not in seeds:
            raise ModelError(f"{schema[name]['_file']}: documents unknown model or seed {name!r}")
    project = Project(models, seeds, schema, "", sql_tests, sources, macro_files)
    project._renderer = renderer  # type: ignore[attr-defined]
    return project


def _renderer(project: Project) -> _Renderer:
    r = getattr(project, "_renderer", None)
    if r is None:  # a Project assembled by hand (tests): texts from its models
        texts = {str(m.path): m.template for m in [*project.models.values(), *project.sql_tests.values()]}
        r = _Renderer(project.macro_files or (sorted(MACROS_DIR.glob("*.sql")) if MACROS_DIR.exists() else []),
                      texts)
        project._renderer = r  # type: ignore[attr-defined]
    return r


def render(project: Project, name: str, variables: dict | None = None) -> str:
    """The SQL of model (or SQL test) ``name`` with refs/sources resolved to table names.

    Raises:
        ModelError: the template does not render (names the file and line).
    """
    m = project.models.get(name) or project.sql_tests[name]
    return _renderer(project).render(m.path, variables)[0]


def _sha(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def seed_fingerprint(path: Path, column_types: dict[str, str] | None = None) -> str:
    """A seed's fingerprint: sha256 of the CSV's bytes, and of its declared column types when it
    has any (so retyping a column rebuilds what reads it)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return _sha(digest, sorted(column_types.items())) if column_types else digest


def seed_column_types(project: Project, name: str) -> dict[str, str]:
    """The ``config: {column_types: {column: type}}`` a schema file declares for seed ``name``
    (dbt's seed config), types upper-cased; ``{}`` when it declares none.

    Raises:
        ModelError: a declared column is not in the CSV's header (names the schema file).
    """
    spec = project.schema.get(name) or {}
    types = {c: str(t).upper() for c, t in ((spec.get("config") or {}).get("column_types") or {}).items()}
    unknown = sorted(set(types) - set(_csv_columns(project.seeds[name])))
    if unknown:
        raise ModelError(f"{spec['_file']}: seed {name} types columns not in {project.seeds[name]}: "
                         f"{', '.join(unknown)}")
    return types


def load_seeds(con: duckdb.DuckDBPyConnection, project: Project, names=None) -> dict[str, int]:
    """(Re)create one table per seed CSV (or per seed of ``names``), VARCHAR columns except those
    :func:`seed_column_types` declares; returns seed name → row count.

    Raises:
        ModelError: a declared column is unknown, or a value does not convert to its column's type
            (names the CSV file; DuckDB's message gives the line and value).
    """
    counts = {}
    for name, path in project.seeds.items():
        if names is not None and name not in names:
            continue
        columns = {**_csv_columns(path), **seed_column_types(project, name)}
        try:
            con.execute(
                f"create or replace table {name} as select * from read_csv(?, header=true, "
                "delim=',', quote='\"', escape='\"', auto_detect=false, columns=?)",
                [str(path), columns],
            )
        except duckdb.Error as exc:  # DuckDB's first paragraph: the CSV line, its text, the column
            first = " | ".join(str(exc).split("\n\n")[0].splitlines())
            raise ModelError(f"seed {name} ({path}) does not load with its column types: {first}") from exc
        counts[name] = con.execute(f"select count(*) from {name}").fetchall()[0][0]
    return counts


def _csv_columns(path: Path) -> dict[str, str]:
    """The CSV header's columns in order, each typed VARCHAR."""
    import csv

    with path.open(encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    return {h: "VARCHAR" for h in header}


@dataclass
class RunReport:
    """What :func:`execute` did.

    Attributes:
        rows: model → row count (tables; views too when built).
        status: model → (``"built"`` | ``"reused"`` | ``"kept"``, reason) for every model present
            after the run (``kept``: outside the selection, left as it was).
        seconds: model → seconds to build it.
        tests_run / tests_skipped: counts of data and SQL tests run, and skipped as unchanged.
        test_seconds: seconds spent in tests.
        test_records: test id → record of the manifest's ``tests``.
        unchanged_output: models rebuilt whose content equals their previous version (early
            cutoff: their dependents saw the previous output fingerprint and were reused).
        manifest: the manifest written into the warehouse (:func:`manifest`).
    """

    rows: dict = field(default_factory=dict)
    status: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    tests_run: int = 0
    tests_skipped: int = 0
    test_seconds: float = 0.0
    test_records: dict = field(default_factory=dict)
    unchanged_output: set = field(default_factory=set)
    manifest: dict = field(default_factory=dict)


def read_manifest(con: duckdb.DuckDBPyConnection) -> dict:
    """The manifest stored in the warehouse by the last build ({} if none or another version)."""
    if not con.execute("select 1 from duckdb_tables() where table_name = ? and database_name = current_database()",
                       [MANIFEST_TABLE]).fetchall():
        return {}
    doc = json.loads(con.execute(f"select manifest from {MANIFEST_TABLE}").fetchall()[0][0])
    return doc if doc.get("version") == MANIFEST_VERSION and doc.get("runner_version") == RUNNER_VERSION else {}


def _relations(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    rows = con.execute(
        "select table_name, 'table' from duckdb_tables() where database_name = current_database() "
        "union all select view_name, 'view' from duckdb_views() "
        "where not internal and database_name = current_database()").fetchall()
    return dict(rows)


def select_models(project: Project, selectors: list[str], modified: set[str]) -> set[str]:
    """The models named by dbt-style ``selectors`` (a union).

    ``model``; ``+model`` (and its ancestors); ``model+`` (and its descendants); ``+model+``;
    ``state:modified`` (``modified``: models whose fingerprint differs from the warehouse's, or
    that are missing from it) and ``state:modified+`` (and their descendants).

    Raises:
        ModelError: an unknown model name.
    """
    out: set[str] = set()
    for sel in selectors:
        up, down = sel.startswith("+"), sel.endswith("+")
        core = sel.strip("+")
        base = set(modified) if core == "state:modified" else {core}
        for n in base:
            if n not in project.models:
                raise ModelError(f"--select {sel}: unknown model {n!r}")
        got = set(base)
        if up:
            got |= project.ancestors(base)
        if down:
            got |= project.descendants(base)
        out |= got
    return out


@dataclass
class Decision:
    """What a run does with one model (:meth:`Plan.decide`).

    Attributes:
        action: ``"build"`` | ``"reuse"`` (fingerprint unchanged, table present) | ``"keep"``
            (outside the selection, present: left as it is) | ``"skip"`` (outside the selection
            and not needed by it, absent).
        reason: why it is built (``SQL changed``, ``input changed: x``, ``--full``, ...), else "".
        fingerprint: the model's fingerprint from its current inputs (None for keep/skip).
        inputs: input name → the fingerprint it contributes (models: their output fingerprint).
        output: the fingerprint its dependents see: the previous build's ``output_fingerprint`` when
            reused or kept, else ``fingerprint`` (early cutoff may still hand on the previous one).
    """

    action: str
    reason: str = ""
    fingerprint: str | None = None
    inputs: dict = field(default_factory=dict)
    output: str | None = None


@dataclass
class Plan:
    """What :func:`execute` would do to a warehouse, decided without touching it (:func:`plan`).

    The decisions assume that every model rebuilt changes its output; early cutoff (module
    docstring) can only turn a later ``build`` into ``reuse``, so ``models`` and ``tests`` are an
    upper bound of the work, and exact when nothing is to be built.

    Attributes:
        models: model → :class:`Decision` for every model the run keeps, reuses or builds.
        tests: ids of the data and SQL tests that would run; ``skipped_tests``: those the run
            reaches but skips (they passed before on the same fingerprints).
        stale_seeds: seeds to (re)load: CSV changed, table missing, or ``--full``.
        sources_changed: ``"raw.<table>"`` whose fingerprint differs from the manifest's.
        modified: models whose fingerprint, as if every model were current, differs from the
            manifest's or that are missing (``state:modified``).
        fingerprints: model → that fingerprint; ``rendered``: model → its SQL; ``order``: every model
            in dependency order; ``chosen``: the selection; ``needed``: it and its ancestors.
    """

    project: Project
    full: bool
    prev: dict
    rels: dict
    sources_fp: dict
    seeds_fp: dict
    stale_seeds: set
    order: list
    rendered: dict
    inputs: dict
    fingerprints: dict
    modified: set
    chosen: set
    needed: set
    compiled_tests: dict  # test id -> (id, model or None, description, SQL, models/seeds it reads)
    sql_test_paths: dict  # test id -> path of the SQL test file
    models: dict = field(default_factory=dict)
    tests: list = field(default_factory=list)
    skipped_tests: list = field(default_factory=list)
    sources_changed: list = field(default_factory=list)

    @property
    def up_to_date(self) -> bool:
        """Nothing to build, load or test: the warehouse already is what a build would make."""
        return (not self.stale_seeds and not self.tests and not self.sources_changed
                and all(d.action in ("reuse", "keep") for d in self.models.values()))

    def previous(self, name: str) -> dict:
        """The manifest record of model ``name`` in the warehouse ({} if none)."""
        return self.prev.get("models", {}).get(name, {})

    def _previous_output(self, name: str) -> str | None:
        old = self.previous(name)
        return old.get("output_fingerprint") or old.get("fingerprint")

    def _reusable(self, name: str, fingerprint: str) -> bool:
        m = self.project.models[name]
        return (not self.full and self.previous(name).get("fingerprint") == fingerprint and not _unknown(fingerprint)
                and self.rels.get(name) == ("view" if m.materialized == "view" else "table"))

    def _fingerprint(self, name: str, inputs: dict) -> str:
        m = self.project.models[name]
        f = _sha(RUNNER_VERSION, m.materialized, self.rendered[name], sorted(inputs.items()))
        return "unfingerprinted:" + f if any(_unknown(v) for v in inputs.values()) else f

    def decide(self, name: str, effective: dict) -> Decision:
        """The one home of the per-model decision (used by :func:`plan` and :func:`execute`).

        Args:
            effective: model → output fingerprint of the models decided (or built) before it.
        """
        m = self.project.models[name]
        if name not in self.chosen and name in self.rels:
            # outside the selection and present: left as it is (unfingerprinted if no build recorded it)
            return Decision("keep", "not selected", output=self._previous_output(name) or f"unfingerprinted:{name}")
        if name not in self.chosen and name not in self.needed:
            return Decision("skip")
        cur = {k: (effective.get(k, v) if k in self.project.models else v) for k, v in self.inputs[name].items()}
        f = self._fingerprint(name, cur)
        if self._reusable(name, f):
            return Decision("reuse", "", f, cur, self._previous_output(name))
        reason = _reason(self.full, self.previous(name), name in self.rels, m.materialized, self.rendered[name], cur)
        return Decision("build", reason, f, cur, f)

    def test_fingerprint(self, t: tuple, effective: dict) -> str:
        """Fingerprint of compiled test ``t``: its SQL and what its models/seeds hand on."""
        _tid, _model, _desc, sql, deps = t
        return _sha(RUNNER_VERSION, sql, [(d, effective.get(d) or self.seeds_fp.get(d)) for d in deps])

    def passed_before(self, tid: str, fingerprint: str) -> bool:
        """The test passed in the warehouse's build with the same fingerprint (so it is skipped)."""
        old = self.prev.get("tests", {}).get(tid, {})
        return not self.full and old.get("fingerprint") == fingerprint and old.get("status") == "pass"


def plan(
    con: duckdb.DuckDBPyConnection | None,
    project: Project | None = None,
    *,
    variables: dict | None = None,
    select: list[str] | None = None,
    full: bool = False,
    source_fingerprints: dict[str, str] | None = None,
    test: bool = True,
    previous: dict | None = None,
) -> Plan:
    """Decide what :func:`execute` would build, reuse, keep and test, without side effects: it only
    reads ``con`` (its relations and ``build_manifest``), the seed CSVs and the templates.

    Args:
        con: the warehouse (read-only is enough), or None for an empty one (then ``previous`` is
            the manifest compared with). The other arguments are those of :func:`execute`.

    Returns:
        :class:`Plan` (``up_to_date`` is true when a run would change nothing).

    Raises:
        ModelError: a template does not render, an unknown ref, a cycle or an unknown selector.
    """
    project = project or load_project()
    renderer = _renderer(project)
    srcfp = dict(source_fingerprints or {})
    if full:
        prev = {}
    elif previous is not None or con is None:
        prev = previous or {}
    else:
        prev = read_manifest(con)
    rels = _relations(con) if con is not None else {}
    seeds_fp = {n: seed_fingerprint(path, seed_column_types(project, n)) for n, path in project.seeds.items()}
    stale_seeds = {n for n in project.seeds
                   if full or n not in rels or prev.get("seeds", {}).get(n, {}).get("fingerprint") != seeds_fp[n]}
    order = project.order()
    compiled = {t[0]: t for t in _compiled_tests(project)}
    sql_test_paths = {}
    for name, t in sorted(project.sql_tests.items()):
        tid = f"sql_test.{name}"
        compiled[tid] = (tid, None, f"sql test {t.path.name}", renderer.render(t.path, variables)[0], sorted(t.refs))
        sql_test_paths[tid] = t.path
    p = Plan(project, full, prev, rels, srcfp, seeds_fp, stale_seeds, order, {}, {}, {}, set(), set(), set(),
             compiled, sql_test_paths)
    p.sources_changed = sorted(k for k, v in srcfp.items()
                               if prev.get("sources", {}).get(k, {}).get("fingerprint") != v)
    current: dict[str, str] = {}  # output fingerprints as if every model were current
    for name in order:
        m = project.models[name]
        p.rendered[name] = renderer.render(m.path, variables)[0]
        # a ref to a table that is neither a model nor a seed of ``project`` (a hand-made Project
        # over tables built elsewhere) has no fingerprint: what reads it is never reused
        p.inputs[name] = {**{r: (current[r] if r in project.models else seeds_fp.get(r)) for r in m.refs},
                          **{f"{s}.{t}": srcfp.get(f"{s}.{t}") for s, t in m.sources}}
        f = p.fingerprints[name] = p._fingerprint(name, p.inputs[name])
        if p._reusable(name, f):
            current[name] = p._previous_output(name)
        else:
            current[name] = f
            p.modified.add(name)
    p.chosen = select_models(project, select, p.modified) if select else set(order)
    p.needed = project.ancestors(p.chosen)

    effective: dict[str, str] = {}
    done = set(project.seeds)
    for name in order:
        d = p.decide(name, effective)
        if d.action == "skip":
            continue
        p.models[name] = d
        effective[name] = d.output
        done.add(name)
    if test:  # the tests execute would run: those of the seeds and of the models it builds or reuses
        for tid, t in compiled.items():
            owner = t[1]  # a data test runs after its model is built or reused (not kept, not skipped)
            if owner is not None and owner not in project.seeds and \
                    p.models.get(owner, Decision("keep")).action == "keep":
                continue
            if set(t[4]) <= done:
                skip = p.passed_before(tid, p.test_fingerprint(t, effective))
                (p.skipped_tests if skip else p.tests).append(tid)
    return p


def default_workers() -> int:
    """How many models and tests :func:`execute` runs at once: the machine's CPUs, at most
    :data:`MAX_WORKERS` (DuckDB also runs each query on several threads; the memory limit set on
    the connection is shared by all of them)."""
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def execute(
    con: duckdb.DuckDBPyConnection,
    project: Project | None = None,
    *,
    variables: dict | None = None,
    select: list[str] | None = None,
    full: bool = False,
    source_fingerprints: dict[str, str] | None = None,
    test: bool = True,
    on_model: Callable[[str, float, int | None], None] | None = None,
    previous: dict | None = None,
    workers: int | None = None,
) -> RunReport:
    """Build the models (reusing unchanged ones), running each model's data tests right after it.

    What to build, reuse and test is decided by :func:`plan` (its :meth:`Plan.decide`), with the
    output fingerprints of the models actually built: a model rebuilt with the same content as
    before hands on its previous output fingerprint (early cutoff, module docstring).

    Models and tests run ``workers`` at a time, each on its own cursor of ``con``, as ``dbt build
    --threads`` does: a model starts once every model and seed it reads is built (or reused) and
    their data tests have passed; a ready test goes before a ready model. After the first failure
    nothing new starts; what is running finishes, then the failure is raised. The tables do not
    depend on ``workers`` (each model's SQL reads only finished tables).

    Args:
        con: an open DuckDB connection holding the raw tables (and, for reuse, the models and the
            ``build_manifest`` of the previous build).
        project: from :func:`load_project` (default: the repository's models).
        variables: overrides for ``var()``.
        select: dbt-style selectors (:func:`select_models`); default every model.
        full: rebuild every (selected) model and rerun every test, whatever the fingerprints say.
        source_fingerprints: ``"raw.<table>"`` → content hash of each raw table; a model reading a
            source without one is always rebuilt.
        test: run the data and SQL tests.
        on_model: callback ``(name, seconds, rows)`` after each model built (on the calling thread).
        previous: the manifest to compare with, when ``con`` is a new file (default: the one in
            ``con``); its models are not in ``con``, so they are built, with the reason it gives.
        workers: models and tests at once (default :func:`default_workers`; 1 runs them in order).

    Returns:
        :class:`RunReport`; the manifest is also stored in table ``build_manifest``.

    Raises:
        ModelError: a model's SQL failed (names the model file and DuckDB's message).
        ModelTestFailure: data or SQL tests failed (no model that reads the tested one is started).
    """
    from . import udfs  # imported here: a plan alone (an up-to-date build) needs no UDFs

    project = project or load_project()
    p = plan(con, project, variables=variables, select=select, full=full, source_fingerprints=source_fingerprints,
             test=test, previous=previous)
    udfs.register(con)  # the cursors share the connection's functions
    report = RunReport()
    rels = dict(p.rels)
    if not p.up_to_date:
        # until the new manifest is written at the end, the tables may differ from what the old one
        # says: a run that fails midway leaves none (the next run then rebuilds everything)
        con.execute(f"drop table if exists {MANIFEST_TABLE}")
    load_seeds(con, project, p.stale_seeds)
    has_dependents = {r for m in project.models.values() for r in m.refs}
    # data tests (owned by a model or a seed) and SQL tests (owned by none), in a stable order
    tests = dict(p.compiled_tests) if test else {}
    # model or seed → its data tests not finished yet that read only seeds, it and what it is built
    # from: those gate its dependents (a relationships test towards a model built from it waits
    # for that model instead)
    untested: dict[str, int] = {}
    gates: set[str] = set()
    for tid, t in tests.items():
        owner = t[1]
        if owner is None:
            continue
        upstream = project.ancestors({owner}, tests=False) if owner in project.models else {owner}
        if set(t[4]) <= upstream | set(project.seeds):
            untested[owner] = untested.get(owner, 0) + 1
            gates.add(tid)

    effective: dict[str, str] = {}
    done: set[str] = set(project.seeds)  # what tests may read: seeds, and models once built or kept
    skipped: set[str] = set()
    results: dict[str, dict] = {}
    waiting = list(p.order)  # models not decided or not started
    decisions: dict[str, Decision] = {}
    queued: list[str] = []  # tests whose tables are all done, not started
    seen_tests: set[str] = set()
    running: dict = {}  # future → ("model", name, Decision) | ("test", tid, test fingerprint)
    failures: list[tuple[str, str, str]] = []
    errors: list[BaseException] = []
    local = threading.local()
    cursors: list[duckdb.DuckDBPyConnection] = []

    def cursor() -> duckdb.DuckDBPyConnection:
        cur = getattr(local, "cursor", None)
        if cur is None:
            cur = local.cursor = con.cursor()
            cursors.append(cur)
        return cur

    def model_job(name: str, compare: bool, old_content):
        return _build_one(cursor(), project.models[name], p.rendered[name], rels,
                          old_content=old_content if compare else None, compare=compare)

    def test_job(t):
        t0 = time.perf_counter()
        fail = _check(cursor(), t[1] or t[0], t[2], t[3])
        return fail, time.perf_counter() - t0

    def record(name: str, d: Decision, output: str, content: list | None, rows: int | None) -> None:
        results[name] = {"fingerprint": d.fingerprint, "output_fingerprint": output, "content": content,
                         "sql_hash": _sha(p.rendered[name]), "inputs": d.inputs, "rows": rows,
                         "materialized": project.models[name].materialized}

    def finish_test(tid: str, fingerprint: str, fail: list | None) -> None:
        t = tests[tid]
        report.test_records[tid] = {"model": t[1], "test": t[2], "sql": t[3], "depends_on": t[4],
                                    "fingerprint": fingerprint, "status": "fail" if fail else "pass"}
        if tid in gates:
            untested[t[1]] -= 1
        if fail:
            path = p.sql_test_paths.get(tid)
            failures.extend((m, f"{path}: {d}" if path else d, x) for m, d, x in fail)

    def settle() -> None:
        """Decide what needs no worker (reuse, keep, skip) and queue the tests that became ready."""
        for name in list(waiting):
            m = project.models[name]
            if any(r in project.models and r not in effective and r not in skipped for r in m.refs):
                continue
            d = decisions.setdefault(name, p.decide(name, effective))
            if d.action == "build":
                continue
            waiting.remove(name)
            if d.action == "skip":
                skipped.add(name)
                continue
            effective[name] = d.output
            done.add(name)
            if d.action == "keep":  # left as it is: its tests do not run
                report.status[name] = ("kept", d.reason)
                untested[name] = 0
                seen_tests.update(tid for tid, t in tests.items() if t[1] == name)
                continue
            old = p.previous(name)
            report.status[name] = ("reused", "unchanged")
            report.rows[name] = old.get("rows")
            record(name, d, d.output, _content(old), old.get("rows"))
        for tid, t in tests.items():
            if tid in seen_tests or not set(t[4]) <= done:  # a test reads its own model
                continue
            seen_tests.add(tid)
            f = p.test_fingerprint(t, effective)
            if p.passed_before(tid, f):
                report.tests_skipped += 1
                finish_test(tid, f, None)
            else:
                queued.append(tid)

    def next_job(pool):
        if queued:
            tid = queued.pop(0)
            return pool.submit(test_job, tests[tid]), ("test", tid, p.test_fingerprint(tests[tid], effective))
        for name in waiting:
            d = decisions.get(name)
            if d is None or any(r not in done or untested.get(r, 0) for r in project.models[name].refs
                                if r in project.models or r in project.seeds):
                continue
            waiting.remove(name)
            m, old = project.models[name], p.previous(name)
            # early cutoff: a table with dependents rebuilt over its previous version is compared
            # with it; the same content hands on the previous output fingerprint
            compare = (not full and m.materialized != "view" and rels.get(name) == "table" and name in has_dependents
                       and bool(old) and not _unknown(d.fingerprint) and not _unknown(p._previous_output(name)))
            return pool.submit(model_job, name, compare, _content(old)), ("model", name, d)
        return None

    n = workers or default_workers()
    with ThreadPoolExecutor(max_workers=n, thread_name_prefix="sphragis-model") as pool:
        try:
            while True:
                settle()
                while not (failures or errors) and len(running) < n:
                    job = next_job(pool)
                    if job is None:
                        break
                    running[job[0]] = job[1]
                if not running:
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    kind, key, extra = running.pop(fut)
                    try:
                        got = fut.result()
                    except ModelError as exc:
                        errors.append(exc)
                        continue
                    if kind == "test":
                        fail, secs = got
                        report.tests_run += 1
                        report.test_seconds += secs
                        finish_test(key, extra, fail)
                        continue
                    d, m = extra, project.models[key]
                    rows, secs, content, same = got
                    rels[key] = "view" if m.materialized == "view" else "table"
                    report.rows[key], report.seconds[key] = rows, secs
                    report.status[key] = ("built", d.reason)
                    out = d.output
                    if same:
                        out = p._previous_output(key)
                        report.unchanged_output.add(key)
                    effective[key] = out
                    done.add(key)
                    record(key, d, out, content, rows)
                    if on_model:
                        on_model(key, secs, rows)
        except BaseException:
            # Ctrl-C (KeyboardInterrupt) or an error here: stop the queries running on the workers'
            # cursors now rather than wait for them to finish (issue #27: Ctrl-C took 77 s)
            for cur in list(cursors):
                cur.interrupt()
            raise
        finally:
            wait(running)  # what is still running finishes before its cursor closes
            for cur in cursors:
                cur.close()
    if errors:
        raise errors[0]
    if failures:
        raise ModelTestFailure(failures)
    if waiting:
        raise ModelError(f"models never became ready: {', '.join(waiting)}")  # a runner bug, not a user error
    order = {n: i for i, n in enumerate(p.order)}
    report.status = dict(sorted(report.status.items(), key=lambda kv: order[kv[0]]))
    report.rows = dict(sorted(report.rows.items(), key=lambda kv: order[kv[0]]))
    for name in p.order:  # models outside the selection keep the record of their last build
        if name not in results and p.previous(name) and name in rels:
            results[name] = p.previous(name)
    report.manifest = manifest(project, results, p.seeds_fp, p.sources_fp, report.test_records)
    con.execute(f"create or replace table {MANIFEST_TABLE} as select ?::varchar as manifest",
                [json.dumps(report.manifest, sort_keys=True, ensure_ascii=False)])
    return report


def _content(old: dict) -> list | None:
    """A previous build's recorded :func:`content_of` list, when it has all four entries."""
    c = old.get("content")
    return c if isinstance(c, list) and len(c) == 4 else None


def _unknown(fingerprint: str | None) -> bool:
    """An input without a usable fingerprint (a source the build gave none for, or a model built
    from one): whatever reads it is never reused."""
    return fingerprint is None or fingerprint.startswith("unfingerprinted:")


def _reason(full, old, present, materialized, sql, cur_inputs) -> str:
    if full:
        return "--full"
    if not old:
        return "new (no earlier build of it)"
    if old.get("changed_outside"):
        return f"changed outside a build ({old['changed_outside']})"
    if old.get("sql_hash") != _sha(sql):
        return "SQL changed"
    changed = sorted(k for k, v in cur_inputs.items() if old.get("inputs", {}).get(k) != v)
    if changed:
        return "input changed: " + ", ".join(changed[:3]) + (" …" if len(changed) > 3 else "")
    if old.get("materialized", materialized) != materialized:
        return "materialization changed"
    return "not in the warehouse" if not present else "fingerprint changed"


def _build_one(con: duckdb.DuckDBPyConnection, m: Model, sql: str, rels: dict, *, compare: bool = False,
               old_content: list | None = None) -> tuple[int | None, float, list | None, bool]:
    """Create model ``m`` from ``sql`` (replacing what has its name).

    With ``compare`` (a table replacing a table), the new table is made beside the old one and
    compared with it (early cutoff), each check only when the cheaper ones before it found no
    difference: columns (names and types, in order) and row count; the fast row hash; the strict
    row hash (:func:`content_of`). ``old_content`` is the old table's, as the manifest recorded it;
    what it lacks is computed from the old table.

    Returns:
        (rows or None for a view, seconds, the new table's content (None when the columns or the
        row count differ), whether the content equals the old table's).
    """
    kind = "view" if m.materialized == "view" else "table"
    t0 = time.perf_counter()
    new = f"{m.name}__sphragis_new" if compare else m.name
    content, same = None, False
    try:
        if not compare and m.name in rels:
            con.execute(f"drop {rels[m.name]} {m.name}")
        con.execute(f"create {kind} {new} as\n{sql}")
        rows = None if kind == "view" else con.execute(f"select count(*) from {new}").fetchall()[0][0]
        if compare:
            old = list(old_content or []) + [None] * (4 - len(old_content or []))
            if old[0] is None:
                old[0], old[1] = _columns(con, m.name), con.execute(f"select count(*) from {m.name}").fetchone()[0]
            content = [_columns(con, new), rows, None, None]
            if content[:2] == old[:2]:
                content[2] = content_of(con, new)[2]
                if content[2] == (old[2] or content_of(con, m.name)[2]):
                    content[3] = content_of(con, new, strict=True)[3]
                    same = content[3] == (old[3] or content_of(con, m.name, strict=True)[3])
            con.execute(f"drop table {m.name}")
            con.execute(f"alter table {new} rename to {m.name}")
    except duckdb.Error as exc:
        raise ModelError(f"model {m.name} ({m.path}) failed: {exc}") from exc
    return rows, time.perf_counter() - t0, content, same


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[list[str]]:
    return [list(r) for r in con.execute(
        "select column_name, data_type from duckdb_columns() where database_name = current_database() "
        "and schema_name = current_schema() and table_name = ? order by column_index", [table]).fetchall()]


def _nested(data_type: str) -> bool:
    return "[" in data_type or data_type.startswith(("STRUCT", "MAP", "UNION"))


def content_of(con: duckdb.DuckDBPyConnection, table: str, *, strict: bool = False) -> list:
    """What early cutoff compares of a table: ``[columns, rows, row_hash, strict_row_hash]``.

    ``columns`` is ``[[name, type], ...]`` in order. The hashes are ``sum(hash(row)::hugeint)`` over
    the rows, as decimal strings: order-insensitive (a table is a multiset of rows; its physical
    order is not part of what a build reproduces, nor of what the export reads). DuckDB's row hash
    combines the columns in order, but it gives NULL, ``[]``, ``[NULL]`` and ``{'a': NULL}`` the
    same hash; ``strict_row_hash`` (None unless ``strict``) hashes nested columns (lists, structs,
    maps) by their ``to_json`` text, which tells them apart. Like SQL equality, neither tells
    ``-0.0`` from ``0.0``. Cost on the real warehouse: the row hash 0.05-0.4 s per table of up to
    1.6 M rows; the strict one the same without nested columns, about 1 s with them (``int_units``,
    whose token lists are nested), so it is computed only when the row hash matched.
    """
    cols = _columns(con, table)
    if strict:
        quoted = [('"' + c.replace('"', '""') + '"', t) for c, t in cols]
        expr = "hash(" + ", ".join(f"to_json({q})" if _nested(t) else q for q, t in quoted) + ")"
    else:
        expr = "hash(t)"
    rows, h = con.execute(f"select count(*), coalesce(sum({expr}::hugeint), 0)::varchar from {table} as t").fetchone()
    return [cols, rows, None, h] if strict else [cols, rows, h, None]


def _check(con, model: str, desc: str, sql: str) -> list[tuple[str, str, str]]:
    try:
        n = con.execute(f"select count(*) from ({sql})").fetchone()[0]
    except duckdb.Error as exc:
        return [(model, desc, f"test query failed: {exc}")]
    if not n:
        return []
    cur = con.execute(f"select * from ({sql}) limit 5")
    names = [d[0] for d in cur.description]
    sample = "; ".join(
        ", ".join(f"{k}={_short(v)}" for k, v in zip(names, row) if not isinstance(v, (list, dict)))
        for row in cur.fetchall())
    return [(model, desc, f"{n} failing row(s), e.g. {sample}")]


def run(
    con: duckdb.DuckDBPyConnection,
    project: Project | None = None,
    *,
    variables: dict | None = None,
    on_model: Callable[[str, float, int], None] | None = None,
    test: bool = True,
    select: list[str] | None = None,
    full: bool = False,
) -> dict[str, int]:
    """Load seeds, build the models in dependency order with their data tests (:func:`execute`).

    ``select`` takes selectors (:func:`select_models`); a model the selection needs that is not in
    ``con`` is built too, so ``select=["int_tokens"]`` on an empty database builds its ancestors.

    Returns:
        model name → row count of the models built or reused.

    Raises:
        ModelError, ModelTestFailure: as :func:`execute`.
    """
    return execute(con, project, variables=variables, on_model=on_model, test=test, select=select,
                   full=full).rows


def _compiled_tests(project: Project) -> list[tuple[str, str, str, str, list[str]]]:
    """Every data test as (id, model, description, SQL, models it reads)."""
    return [(f"test.{model}.{desc}", model, desc, sql, deps) for model, desc, sql, deps in _compile(project)]


_REF = re.compile(r"ref\(\s*['\"]([^'\"]+)['\"]\s*\)")


def compile_tests(project: Project, only: set[str] | None = None) -> list[tuple[str, str, str]]:
    """Every declared data test (of the models in ``only``, default all) as
    (model, description, SQL selecting the failing rows)."""
    return [(m, d, s) for m, d, s, _ in _compile(project, only)]


def _compile(project: Project, only: set[str] | None = None) -> list[tuple[str, str, str, list[str]]]:
    out = []
    for model, spec in sorted(project.schema.items()):
        if only is not None and model not in only:
            continue
        for t in _tests_of(spec):
            if isinstance(t, dict) and "unique_combination" in t:
                cols = ", ".join(_test_args(t, "unique_combination")["combination_of_columns"])
                out.append((model, f"unique_combination({cols})",
                            f"select {cols}, count(*) as n from {model} group by all having count(*) > 1", [model]))
            elif isinstance(t, dict) and "expression" in t:
                # the expression may ref() a seed or model (dbt renders test arguments the same way)
                expr, rec = _renderer(project).render_string(_test_args(t, "expression")["expression"], spec["_file"])
                out.append((model, f"expression({expr})", f"select * from {model} where not coalesce(({expr}), false)",
                            sorted({model, *rec.get("refs", ())})))
            else:
                raise ModelError(f"{spec['_file']}: unknown model-level test {t!r} on {model}")
        for col in spec.get("columns", []) or []:
            c = col["name"]
            for t in _tests_of(col):
                deps = [model]
                if t == "unique":
                    sql = f"select {c}, count(*) as n from {model} where {c} is not null group by 1 having count(*) > 1"
                elif t == "not_null":
                    sql = f"select * from {model} where {c} is null"
                elif isinstance(t, dict) and "accepted_values" in t:
                    vals = ", ".join("'" + str(v).replace("'", "''") + "'"
                                     for v in _test_args(t, "accepted_values")["values"])
                    sql = f"select {c}, count(*) as n from {model} where {c} is not null and {c}::varchar not in ({vals}) group by 1"
                    t = "accepted_values"
                elif isinstance(t, dict) and "relationships" in t:
                    args = _test_args(t, "relationships")
                    m = _REF.search(args["to"])
                    to = m.group(1) if m else args["to"]
                    field_ = args["field"]
                    sql = (f"select x.{c}, count(*) as n from {model} x where x.{c} is not null and not exists "
                           f"(select 1 from {to} y where y.{field_} = x.{c}) group by 1")
                    t = f"relationships(to {to}.{field_})"
                    deps = sorted({model, to})
                else:
                    raise ModelError(f"{spec['_file']}: unknown test {t!r} on {model}.{c}")
                out.append((model, f"{t}({c})", sql, deps))
    return out


def run_tests(con: duckdb.DuckDBPyConnection, project: Project, only: set[str] | None = None) -> list[tuple[str, str, str]]:
    """Run every declared data test (of ``only``, default all).

    Returns:
        Failures as (model, test, detail); the detail gives the number of failing rows and up to
        five of them (e.g. the registry keys without a registry row).
    """
    failures = []
    for model, desc, sql, _deps in _compile(project, only):
        failures += _check(con, model, desc, sql)
    return failures


def _short(v: object) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def layer(name: str) -> str:
    """The dbt layer of a model from its name: ``stg_`` staging, ``int_`` intermediate, else marts."""
    return {"stg": "staging", "int": "intermediate"}.get(name.split("_", 1)[0], "marts")


def manifest(project: Project, results: dict, seeds_fp: dict, sources_fp: dict, tests: dict) -> dict:
    """The build manifest (README "Manifest"): a JSON-ready dict with top-level keys

    * ``models``: {name: {path, layer, materialized, description, columns: [{name, description}],
      depends_on: {models, seeds, sources}, fingerprint, sql_hash, output_fingerprint, content,
      inputs, rows}} for every model present (``output_fingerprint``: what its dependents' inputs
      record, the previous one when early cutoff found the content unchanged; ``content``:
      :func:`content_of` when it was computed, else null);
    * ``seeds``: {name: {path, fingerprint}}; ``sources``: {"raw.<table>": {description, columns,
      fingerprint}};
    * ``tests``: {id: {model, test, sql, depends_on, fingerprint, status}} (data and SQL tests);
    * ``edges``: [[upstream, downstream], ...] sorted (sources as ``raw.<table>``);
    * ``version``, ``runner_version``. Paths are relative to the repository when inside it.
    """
    def rel(p: Path) -> str:
        try:
            return str(Path(p).resolve().relative_to(MODELS_DIR.parent.resolve()))
        except ValueError:
            return str(p)

    models, edges = {}, set()
    for name, m in sorted(project.models.items()):
        spec = project.schema.get(name, {})
        deps = {"models": sorted(r for r in m.refs if r in project.models),
                "seeds": sorted(r for r in m.refs if r in project.seeds),
                "sources": sorted(f"{s}.{t}" for s, t in m.sources)}
        for d in deps["models"] + deps["seeds"] + deps["sources"]:
            edges.add((d, name))
        r = results.get(name, {})
        models[name] = {
            "path": rel(m.path), "layer": layer(name), "materialized": m.materialized,
            "description": spec.get("description", ""),
            "columns": [{"name": c["name"], "description": c.get("description", "")}
                        for c in spec.get("columns", []) or []],
            "depends_on": deps, "fingerprint": r.get("fingerprint"), "sql_hash": r.get("sql_hash"),
            "output_fingerprint": r.get("output_fingerprint") or r.get("fingerprint"),
            "content": r.get("content"), "inputs": r.get("inputs", {}), "rows": r.get("rows")}
    sources = {k: {"description": v.get("description", ""),
                   "columns": [{"name": c["name"], "description": c.get("description", "")}
                               for c in v.get("columns", []) or []],
                   "fingerprint": sources_fp.get(k)} for k, v in sorted(project.sources.items())}
    for k, v in sorted(sources_fp.items()):
        sources.setdefault(k, {"description": "", "columns": [], "fingerprint": v})
    return {"version": MANIFEST_VERSION, "runner_version": RUNNER_VERSION, "models": models,
            "seeds": {n: {"path": rel(p), "fingerprint": seeds_fp.get(n),
                          **({"column_types": t} if (t := seed_column_types(project, n)) else {})}
                      for n, p in sorted(project.seeds.items())},
            "sources": sources, "tests": dict(sorted(tests.items())), "edges": sorted([list(e) for e in edges])}
