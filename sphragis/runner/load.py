"""Project and schema loading: the model files, seeds, macros, SQL tests, sources and the yml
schema files (docs, data tests, unit tests) found on disk (:func:`load_project`)."""

from __future__ import annotations

from pathlib import Path

import yaml

from ..config import MACROS_DIR, MODELS_DIR, SEEDS_DIR
from . import unittests
from .base import ModelError
from .project import Model, Project
from .render import Renderer

#: PyYAML's safe loader, in C (libyaml) when PyYAML has it: the same documents, a tenth of the time
#: (every build loads the project's schema files).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_project(models_dir: Path = MODELS_DIR, seeds_dir: Path = SEEDS_DIR, macros_dir: Path = MACROS_DIR,
                 tests_dir: Path | None = None) -> Project:
    """Discover models, seeds, macros, SQL tests, sources and schema files; resolve dependencies.

    Args:
        tests_dir: folder of SQL tests (default ``sql/tests`` beside ``macros_dir``).

    Raises:
        ModelError: two models share a name, a template does not render (the message names the
            file and line), a schema file documents an unknown model, a model reads a source
            that ``_sources.yml`` does not declare (when a ``_sources.yml`` exists), or a unit test
            is malformed (:func:`sphragis.runner.unittests.check_declared`). A ref() to an
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
    unit_tests: dict[str, dict] = {}
    for p in sorted(models_dir.rglob("*.yml")):
        doc = yaml.load(p.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
        for m in (doc.get("models", []) or []) + (doc.get("seeds", []) or []):
            schema[m["name"]] = {**m, "_file": str(p)}
        for s in doc.get("sources", []) or []:
            for t in s.get("tables", []) or []:
                sources[f"{s['name']}.{t['name']}"] = {**t, "source": s["name"], "_file": str(p)}
        for u in doc.get("unit_tests", []) or []:
            key = f"{u.get('model')}.{u.get('name')}"
            if key in unit_tests:
                raise ModelError(f"{p}: unit test {u.get('name')!r} of {u.get('model')} is declared twice "
                                 f"(also in {unit_tests[key]['_file']})")
            unit_tests[key] = {**u, "_file": str(p)}
    texts = {str(m.path): m.template for m in [*models.values(), *sql_tests.values()]}
    renderer = Renderer(macro_files, texts)
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
    project = Project(models, seeds, schema, "", sql_tests, sources, macro_files, unit_tests)
    project._renderer = renderer  # type: ignore[attr-defined]
    unittests.check_declared(project)
    return project
