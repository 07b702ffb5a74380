"""The dependency graph: topological order (:func:`order`) and dbt-style selection
(:func:`select_models`)."""

from __future__ import annotations

import graphlib
import re
from typing import TYPE_CHECKING

from .base import ModelError

if TYPE_CHECKING:
    from .project import Project


def order(project: Project, only: set[str] | None = None) -> list[str]:
    """Model names in dependency order (``graphlib``), ties broken by name (deterministic).

    Args:
        only: restrict to these models (their own dependencies must be included).

    Raises:
        ModelError: a model refs an unknown model or seed (names file and line), or a cycle.
    """
    names = only if only is not None else set(project.models)
    for name in sorted(names):
        m = project.models[name]
        if m.unknown_refs:
            bad = sorted(m.unknown_refs)[0]
            raise ModelError(f"{m.path}:{_line_of(m.template, bad)}: ref() to unknown model or seed: "
                             f"{', '.join(sorted(m.unknown_refs))}")
    ts = graphlib.TopologicalSorter()
    for name in sorted(names):
        ts.add(name, *sorted(r for r in project.models[name].refs if r in project.models))
    try:
        return list(_deterministic_order(ts))
    except graphlib.CycleError as exc:
        raise ModelError(f"models form a dependency cycle: {' -> '.join(exc.args[1])}") from exc


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
