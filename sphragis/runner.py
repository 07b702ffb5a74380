"""The SQL models runner: a small dbt-style engine over DuckDB.

* **Models** are Jinja-templated ``.sql`` files under ``models/`` (one table per file, named after
  the file stem). A model names its inputs with ``{{ ref('model_or_seed') }}`` and
  ``{{ source('raw_table') }}``; the dependency graph comes from rendering those calls, and the
  models run in ``graphlib`` topological order (ties broken by name, so runs are deterministic).
  ``{{ config(materialized='view') }}`` makes a view instead of a table; ``{{ var('split_seed') }}``
  reads a build variable.
* **Macros**: every ``sql/macros/*.sql`` file is prepended to each model, so its macros are global.
* **Seeds**: every ``sql/seeds/*.csv`` is loaded as a table named after its stem (all columns
  VARCHAR; models type them), and can be ``ref()``-ed.
* **Schema files**: ``models/**/*.yml`` document models (``models:``) and seeds (``seeds:``) and
  their columns, and declare data tests
  (``unique``, ``not_null``, ``accepted_values: {values: [...]}``,
  ``relationships: {to: ref('x'), field: y}``, and model-level ``unique_combination: [cols]``
  and ``expression: <sql boolean that must hold on every row>``). Every build runs them all;
  any failure raises :class:`ModelTestFailure` naming model, column, test and sample rows.
"""

from __future__ import annotations

import graphlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import jinja2
import yaml

from . import udfs
from .config import DEFAULT_REGISTRY_PROFILE, MACROS_DIR, MODELS_DIR, SEEDS_DIR, SPLIT_SEED, TRAINING_TREEBANK_VARS

DEFAULT_VARS = {"split_seed": SPLIT_SEED, "min_cell_tokens": 1000, "min_author_rows": 50,
                "registry_profile": DEFAULT_REGISTRY_PROFILE, "default_registry_profile": DEFAULT_REGISTRY_PROFILE}
DEFAULT_VARS.update(TRAINING_TREEBANK_VARS)


class ModelError(RuntimeError):
    """A model failed to render or execute; the message names the model file."""


class ModelTestFailure(RuntimeError):
    """One or more declared data tests failed; ``failures`` lists (model, test, detail)."""

    def __init__(self, failures: list[tuple[str, str, str]]):
        self.failures = failures
        lines = [f"{len(failures)} data test(s) failed:"] + [f"  {m}: {t}: {d}" for m, t, d in failures]
        super().__init__("\n".join(lines))


@dataclass
class Model:
    """One model file: ``name`` (table), ``path``, raw template text, ``refs`` and ``sources``."""

    name: str
    path: Path
    template: str
    refs: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    materialized: str = "table"
    unknown_refs: set[str] = field(default_factory=set)


@dataclass
class Project:
    """Models, seeds and schema declarations found on disk."""

    models: dict[str, Model]
    seeds: dict[str, Path]
    schema: dict[str, dict]
    macros: str

    def ancestors(self, names: list[str]) -> set[str]:
        """``names`` and every model they (or their data tests) depend on, transitively.

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
            todo.extend(r for r in self.test_refs(n) if r in self.models)
        return seen

    def test_refs(self, name: str) -> set[str]:
        """Models that the data tests of ``name`` read (``relationships`` targets)."""
        out = set()
        for col in self.schema.get(name, {}).get("columns", []) or []:
            for t in col.get("tests", []) or []:
                if isinstance(t, dict) and "relationships" in t:
                    m = _REF.search(t["relationships"]["to"])
                    out.add(m.group(1) if m else t["relationships"]["to"])
        return out

    def order(self, only: set[str] | None = None) -> list[str]:
        """Model names in dependency order (``graphlib``), deterministic across runs.

        Args:
            only: restrict to these models (their own dependencies must be included).
        """
        names = only if only is not None else set(self.models)
        for name in sorted(names):
            if self.models[name].unknown_refs:
                raise ModelError(f"{self.models[name].path}: ref() to unknown model or seed: "
                                 f"{', '.join(sorted(self.models[name].unknown_refs))}")
        ts = graphlib.TopologicalSorter()
        for name in sorted(names):
            ts.add(name, *sorted(r for r in self.models[name].refs if r in self.models))
        try:
            return list(_deterministic_order(ts))
        except graphlib.CycleError as exc:
            raise ModelError(f"models form a dependency cycle: {' -> '.join(exc.args[1])}") from exc


def _deterministic_order(ts: graphlib.TopologicalSorter):
    ts.prepare()
    while ts.is_active():
        ready = sorted(ts.get_ready())
        yield from ready
        ts.done(*ready)


def _env() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def load_project(models_dir: Path = MODELS_DIR, seeds_dir: Path = SEEDS_DIR, macros_dir: Path = MACROS_DIR) -> Project:
    """Discover models, seeds, macros and schema files, and resolve each model's dependencies.

    Raises:
        ModelError: two models share a name, or a template does not render (the message names
            the file). A ref() to an unknown model or seed is an error when that model is built
            (see :meth:`Project.order`).
    """
    macros = "".join(p.read_text(encoding="utf-8") for p in sorted(macros_dir.glob("*.sql"))) if macros_dir.exists() else ""
    seeds = {p.stem: p for p in sorted(seeds_dir.glob("*.csv"))} if seeds_dir.exists() else {}
    models: dict[str, Model] = {}
    for p in sorted(models_dir.rglob("*.sql")):
        if p.stem in models:
            raise ModelError(f"duplicate model name {p.stem!r}: {models[p.stem].path} and {p}")
        models[p.stem] = Model(p.stem, p, p.read_text(encoding="utf-8"))
    schema: dict[str, dict] = {}
    for p in sorted(models_dir.rglob("*.yml")):
        doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        for m in (doc.get("models", []) or []) + (doc.get("seeds", []) or []):
            schema[m["name"]] = {**m, "_file": str(p)}
    env = _env()
    for m in models.values():
        rec = {"refs": set(), "sources": set(), "materialized": "table"}

        def ref(name, _rec=rec):
            _rec["refs"].add(name)
            return name

        def source(name, _rec=rec):
            _rec["sources"].add(name)
            return name

        def config(materialized="table", _rec=rec, **_):
            _rec["materialized"] = materialized
            return ""

        try:
            env.from_string(macros + m.template).render(ref=ref, source=source, config=config, var=_var({}))
        except jinja2.TemplateError as exc:
            raise ModelError(f"{m.path}: template error: {exc}") from exc
        m.refs, m.sources, m.materialized = rec["refs"], rec["sources"], rec["materialized"]
        m.unknown_refs = m.refs - set(models) - set(seeds)
    for name in schema:
        if name not in models and name not in seeds:
            raise ModelError(f"{schema[name]['_file']}: documents unknown model or seed {name!r}")
    return Project(models, seeds, schema, macros)


def _var(overrides: dict) -> Callable[[str], object]:
    values = {**DEFAULT_VARS, **overrides}

    def var(name, default=None):
        if name in values:
            return values[name]
        if default is not None:
            return default
        raise ModelError(f"unknown var {name!r}")

    return var


def render(project: Project, name: str, variables: dict | None = None) -> str:
    """The SQL of model ``name`` with refs/sources resolved to table names."""
    m = project.models[name]
    return _env().from_string(project.macros + m.template).render(
        ref=lambda n: n, source=lambda n: n, config=lambda **_: "", var=_var(variables or {})
    )


def load_seeds(con: duckdb.DuckDBPyConnection, project: Project) -> dict[str, int]:
    """(Re)create one all-VARCHAR table per seed CSV; returns seed name → row count."""
    counts = {}
    for name, path in project.seeds.items():
        con.execute(
            f"create or replace table {name} as select * from read_csv(?, header=true, all_varchar=true, "
            "delim=',', quote='\"', escape='\"', auto_detect=false, columns=?)",
            [str(path), _csv_columns(path)],
        )
        counts[name] = con.execute(f"select count(*) from {name}").fetchall()[0][0]
    return counts


def _csv_columns(path: Path) -> dict[str, str]:
    import csv

    with path.open(encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    return {h: "VARCHAR" for h in header}


def run(
    con: duckdb.DuckDBPyConnection,
    project: Project | None = None,
    *,
    variables: dict | None = None,
    on_model: Callable[[str, float, int], None] | None = None,
    test: bool = True,
    select: list[str] | None = None,
) -> dict[str, int]:
    """Load seeds, build every model in dependency order, then run all declared data tests.

    Args:
        con: an open DuckDB connection holding the raw tables.
        project: from :func:`load_project` (default: the repository's models).
        variables: overrides for ``var()``.
        on_model: callback ``(name, seconds, rows)`` after each model (progress reporting).
        test: run the schema tests (every build does; tests of the runner may switch it off).
        select: build only these models and their ancestors (and run only their tests).

    Returns:
        model name → row count.

    Raises:
        ModelError: a model's SQL failed (names the model file and DuckDB's message).
        ModelTestFailure: a declared data test failed.
    """
    project = project or load_project()
    load_seeds(con, project)
    udfs.register(con)
    counts: dict[str, int] = {}
    only = project.ancestors(select) if select else None
    for name in project.order(only):
        m = project.models[name]
        sql = render(project, name, variables)
        kind = "view" if m.materialized == "view" else "table"
        t0 = time.perf_counter()
        try:
            _drop(con, name)
            con.execute(f"create {kind} {name} as\n{sql}")
        except duckdb.Error as exc:
            raise ModelError(f"model {name} ({m.path}) failed: {exc}") from exc
        counts[name] = con.execute(f"select count(*) from {name}").fetchall()[0][0]
        if on_model:
            on_model(name, time.perf_counter() - t0, counts[name])
    if test:
        failures = run_tests(con, project, only)
        if failures:
            raise ModelTestFailure(failures)
    return counts


def _drop(con: duckdb.DuckDBPyConnection, name: str) -> None:
    kind = con.execute(
        "select 'view' from duckdb_views() where view_name = ? and not internal "
        "union all select 'table' from duckdb_tables() where table_name = ?", [name, name]).fetchone()
    if kind:
        con.execute(f"drop {kind[0]} {name}")


_REF = re.compile(r"ref\(\s*['\"]([^'\"]+)['\"]\s*\)")


def compile_tests(project: Project, only: set[str] | None = None) -> list[tuple[str, str, str]]:
    """Every declared data test (of the models in ``only``, default all) as
    (model, description, SQL selecting the failing rows)."""
    out = []
    for model, spec in sorted(project.schema.items()):
        if only is not None and model not in only and model not in project.seeds:
            continue
        for t in spec.get("tests", []) or []:
            if isinstance(t, dict) and "unique_combination" in t:
                cols = ", ".join(t["unique_combination"])
                out.append((model, f"unique_combination({cols})",
                            f"select {cols}, count(*) as n from {model} group by all having count(*) > 1"))
            elif isinstance(t, dict) and "expression" in t:
                out.append((model, f"expression({t['expression']})",
                            f"select * from {model} where not coalesce(({t['expression']}), false)"))
            else:
                raise ModelError(f"{spec['_file']}: unknown model-level test {t!r} on {model}")
        for col in spec.get("columns", []) or []:
            c = col["name"]
            for t in col.get("tests", []) or []:
                if t == "unique":
                    sql = f"select {c}, count(*) as n from {model} where {c} is not null group by 1 having count(*) > 1"
                elif t == "not_null":
                    sql = f"select * from {model} where {c} is null"
                elif isinstance(t, dict) and "accepted_values" in t:
                    vals = ", ".join("'" + str(v).replace("'", "''") + "'" for v in t["accepted_values"]["values"])
                    sql = f"select {c}, count(*) as n from {model} where {c} is not null and {c}::varchar not in ({vals}) group by 1"
                    t = "accepted_values"
                elif isinstance(t, dict) and "relationships" in t:
                    to = t["relationships"]["to"]
                    m = _REF.search(to)
                    to = m.group(1) if m else to
                    field_ = t["relationships"]["field"]
                    sql = (f"select x.{c}, count(*) as n from {model} x where x.{c} is not null and not exists "
                           f"(select 1 from {to} y where y.{field_} = x.{c}) group by 1")
                    t = f"relationships(to {to}.{field_})"
                else:
                    raise ModelError(f"{spec['_file']}: unknown test {t!r} on {model}.{c}")
                out.append((model, f"{t}({c})", sql))
    return out


def run_tests(con: duckdb.DuckDBPyConnection, project: Project, only: set[str] | None = None) -> list[tuple[str, str, str]]:
    """Run every declared data test (of ``only``, default all).

    Returns:
        Failures as (model, test, detail); the detail gives the number of failing rows and up to
        five of them (e.g. the registry keys without a registry row).
    """
    failures = []
    for model, desc, sql in compile_tests(project, only):
        n = con.execute(f"select count(*) from ({sql})").fetchone()[0]
        if n:
            cur = con.execute(f"select * from ({sql}) limit 5")
            names = [d[0] for d in cur.description]
            sample = "; ".join(
                ", ".join(f"{k}={_short(v)}" for k, v in zip(names, row) if not isinstance(v, (list, dict)))
                for row in cur.fetchall())
            failures.append((model, desc, f"{n} failing row(s), e.g. {sample}"))
    return failures


def _short(v: object) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."
