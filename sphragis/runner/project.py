"""The project: its models (:class:`Model`), seeds, schema declarations and SQL tests
(:class:`Project`, made by :func:`sphragis.runner.load_project`), and the dependency graph between
them (ancestors, descendants, topological order)."""

from __future__ import annotations

import graphlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from .base import ModelError

#: A ``ref('name')`` call (as the yml of a ``relationships`` test or a unit test's input writes it).
REF = re.compile(r"ref\(\s*['\"]([^'\"]+)['\"]\s*\)")


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
    """Models, seeds and schema declarations found on disk.

    ``unit_tests``: ``"<model>.<name>"`` → the yml entry of a dbt-style unit test (with ``_file``).
    """

    models: dict[str, Model]
    seeds: dict[str, Path]
    schema: dict[str, dict]
    macros: str = ""
    sql_tests: dict[str, Model] = field(default_factory=dict)
    sources: dict[str, dict] = field(default_factory=dict)  # "raw.raw_tokens" -> _sources.yml entry
    macro_files: list[Path] = field(default_factory=list)
    unit_tests: dict[str, dict] = field(default_factory=dict)

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
        """Models and seeds that the data tests of ``name`` read (``relationships`` targets and the
        ``ref()`` calls of its ``expression`` tests)."""
        out = set()
        for col in self.schema.get(name, {}).get("columns", []) or []:
            for t in tests_of(col):
                if isinstance(t, dict) and "relationships" in t:
                    to = test_args(t, "relationships")["to"]
                    m = REF.search(to)
                    out.add(m.group(1) if m else to)
        for t in tests_of(self.schema.get(name, {})):
            if isinstance(t, dict) and "expression" in t:
                out.update(REF.findall(test_args(t, "expression")["expression"]))
        return out

    def order(self, only: set[str] | None = None) -> list[str]:
        """Model names in dependency order (``graphlib``), ties broken by name (deterministic).

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


def tests_of(spec: dict) -> list:
    """The tests a model or column declares: ``data_tests:`` (dbt ≥ 1.8) plus the ``tests:`` alias."""
    return list(spec.get("data_tests") or []) + list(spec.get("tests") or [])


def test_args(test: dict, name: str) -> dict:
    """The arguments of the generic test ``{name: {...}}`` of a schema file, in either of dbt's
    forms: the keys themselves or (dbt ≥ 1.10) under ``arguments:`` (``config:`` is not one)."""
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
