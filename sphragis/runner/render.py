"""Rendering: the Jinja environment of a project (macros as globals; ``ref``, ``source``,
``config`` and ``var`` acting on the render in progress), and :func:`render`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from ..config import MACROS_DIR, edition_variants, layer_attributes, projects
from .base import DEFAULT_VARS, ModelError

if TYPE_CHECKING:
    from .project import Project


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates (keyed by template name, checked against a checksum of
    the source; in Jinja's per-user temp folder): compiling every template took a noticeable
    share of every build. A cache that cannot be written is skipped, never an error."""

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


def project_vars() -> dict:
    """The defaults of ``var()``: :data:`DEFAULT_VARS`; ``projects``, the project registry, the
    seed ``projects`` (:func:`sphragis.config.projects`: one dict of strings per project with the
    registry's columns, :data:`sphragis.config.PROJECT_COLUMNS`), highest SPEC §7 priority first; and
    ``edition_variants``, the rules of the seed ``edition_variants`` in order
    (:func:`sphragis.config.edition_variants`: dicts with pattern, replacement); and
    ``layer_attributes``, the seed ``layer_attributes`` (:func:`sphragis.config.layer_attributes`:
    the word attributes of each layer of a multi-layer format). dbt gets the same values from
    ``dbt_project.yml`` (``make dbt-vars``; ``tests/test_dbt.py`` checks it)."""
    return {**DEFAULT_VARS, "projects": [dict(p) for p in projects()],
            "edition_variants": [dict(v) for v in edition_variants()],
            "layer_attributes": [dict(a) for a in layer_attributes()]}


class Renderer:
    """One Jinja environment per project: macros are globals; ``ref``/``source``/``config``/``var``
    are globals that act on the render in progress, so macros calling them work too."""

    def __init__(self, macro_files: list[Path], texts: dict[str, str]):
        self.texts = texts  # template name (file path) -> text
        self.env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                      loader=jinja2.FunctionLoader(self._load), bytecode_cache=_bytecode_cache())
        self.rec: dict = {}
        self.variables: dict = {}
        self.rename: dict = {}
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
        return self.rename.get(name, name)

    def _source(self, source_name, table=None):
        if table is None:  # one-argument form (older models): the raw layer
            source_name, table = "raw", source_name
        self.rec.setdefault("sources", set()).add((source_name, table))
        return self.rename.get(f"{source_name}.{table}", table)

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

    def render(self, path: Path, variables: dict | None = None,
               rename: dict[str, str] | None = None) -> tuple[str, dict]:
        """(rendered SQL, record of refs/sources/materialized) of the template at ``path``.

        Args:
            variables: overrides of ``var()``.
            rename: ``ref`` name or ``"<source>.<table>"`` → the table name to put in its place
                (a unit test's given inputs); others render as their own name.
        """
        self.rec, self.variables, self.rename = {}, variables or {}, rename or {}
        try:
            sql = self._call(str(path), lambda: self.env.get_template(str(path)).render())
        finally:
            self.rename = {}
        return sql, self.rec

    def render_string(self, text: str, where: str) -> tuple[str, dict]:
        """(rendered SQL, record) of a template string from a schema file (``where`` names it in
        errors), e.g. a data test's ``expression`` that calls ``ref()``."""
        self.rec, self.variables = {}, {}
        sql = self._call(where, lambda: self.env.from_string(text).render())
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


def renderer(project: Project) -> Renderer:
    """The project's :class:`Renderer` (made by :func:`sphragis.runner.load_project`; for a
    Project assembled by hand, made here from its models' texts)."""
    r = getattr(project, "_renderer", None)
    if r is None:  # a Project assembled by hand (tests): texts from its models
        texts = {str(m.path): m.template for m in [*project.models.values(), *project.sql_tests.values()]}
        r = Renderer(project.macro_files or (sorted(MACROS_DIR.glob("*.sql")) if MACROS_DIR.exists() else []),
                     texts)
        project._renderer = r  # type: ignore[attr-defined]
    return r


def render(project: Project, name: str, variables: dict | None = None) -> str:
    """The SQL of model (or SQL test) ``name`` with refs/sources resolved to table names.

    Raises:
        ModelError: the template does not render (names the file and line).
    """
    m = project.models.get(name) or project.sql_tests[name]
    return renderer(project).render(m.path, variables)[0]
