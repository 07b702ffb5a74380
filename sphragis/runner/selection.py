"""Selection: the models dbt-style selectors name (:func:`select_models`), over the project's
dependency graph (:meth:`Project.ancestors`, :meth:`Project.descendants`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import ModelError

if TYPE_CHECKING:
    from .project import Project


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
