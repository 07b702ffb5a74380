"""Plan and state: per model, whether to build, reuse, keep or skip it, decided from fingerprints
(:class:`Plan`, :func:`plan`), without touching the warehouse; and which tests run or are skipped
because they passed before on the same fingerprints."""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from . import base
from .base import CompiledTest, Options, sha
from .datatests import data_tests, sql_tests
from .selection import select_models
from .manifest import read_manifest, relations
from .load import load_project
from .project import Project
from .render import renderer
from .seeds import seed_column_types, seed_fingerprint
from .unittests import unit_tests


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
    """What :func:`sphragis.runner.execute` would do to a warehouse, decided without touching it.

    The decisions assume that every model rebuilt changes its output; early cutoff can only turn a
    later ``build`` into ``reuse``, so ``models`` and ``tests`` are an upper bound of the work, and
    exact when nothing is to be built.

    Attributes:
        models: model → :class:`Decision` for every model the run keeps, reuses or builds.
        tests: ids of the data, SQL and unit tests that would run; ``skipped_tests``: those the run
            reaches but skips (they passed before on the same fingerprints).
        stale_seeds: seeds to (re)load: CSV changed, table missing, or ``--full``.
        sources_changed: ``"raw.<table>"`` whose fingerprint differs from the manifest's.
        modified: models whose fingerprint, as if every model were current, differs from the
            manifest's or that are missing (``state:modified``).
        fingerprints: model → that fingerprint; ``rendered``: model → its SQL; ``order``: every model
            in dependency order; ``chosen``: the selection; ``needed``: it and its ancestors.
        compiled_tests: test id → :class:`CompiledTest` (data tests, SQL tests, unit tests).
    """

    project: Project
    full: bool
    prev: dict
    rels: dict
    sources_fp: dict
    seeds_fp: dict
    stale_seeds: set
    order: list
    compiled_tests: dict[str, CompiledTest]
    rendered: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)
    fingerprints: dict = field(default_factory=dict)
    modified: set = field(default_factory=set)
    chosen: set = field(default_factory=set)
    needed: set = field(default_factory=set)
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

    def previous_output(self, name: str) -> str | None:
        """The output fingerprint the warehouse's build recorded for ``name`` (None if none)."""
        old = self.previous(name)
        return old.get("output_fingerprint") or old.get("fingerprint")

    def _reusable(self, name: str, fingerprint: str) -> bool:
        m = self.project.models[name]
        return (not self.full and self.previous(name).get("fingerprint") == fingerprint and not unknown(fingerprint)
                and self.rels.get(name) == ("view" if m.materialized == "view" else "table"))

    def _fingerprint(self, name: str, inputs: dict) -> str:
        m = self.project.models[name]
        f = sha(base.RUNNER_VERSION, m.materialized, self.rendered[name], sorted(inputs.items()))
        return "unfingerprinted:" + f if any(unknown(v) for v in inputs.values()) else f

    def decide(self, name: str, effective: dict) -> Decision:
        """The one home of the per-model decision (used by :func:`plan` and the scheduler).

        Args:
            effective: model → output fingerprint of the models decided (or built) before it.
        """
        m = self.project.models[name]
        if name not in self.chosen and name in self.rels:
            # outside the selection and present: left as it is (unfingerprinted if no build recorded it)
            return Decision("keep", "not selected", output=self.previous_output(name) or f"unfingerprinted:{name}")
        if name not in self.chosen and name not in self.needed:
            return Decision("skip")
        cur = {k: (effective.get(k, v) if k in self.project.models else v) for k, v in self.inputs[name].items()}
        f = self._fingerprint(name, cur)
        if self._reusable(name, f):
            return Decision("reuse", "", f, cur, self.previous_output(name))
        reason = _reason(self.full, self.previous(name), name in self.rels, m.materialized, self.rendered[name], cur)
        return Decision("build", reason, f, cur, f)

    def test_fingerprint(self, t: CompiledTest, effective: dict) -> str:
        """Fingerprint of test ``t``: its SQL and what its models, seeds and sources hand on."""
        return sha(base.RUNNER_VERSION, t.sql,
                   [(d, effective.get(d) or self.seeds_fp.get(d) or self.sources_fp.get(d)) for d in t.depends_on])

    def passed_before(self, tid: str, fingerprint: str) -> bool:
        """The test passed in the warehouse's build with the same fingerprint (so it is skipped)."""
        old = self.prev.get("tests", {}).get(tid, {})
        return not self.full and old.get("fingerprint") == fingerprint and old.get("status") == "pass"

    def readable(self) -> set[str]:
        """What a test may read before any model is built: the seeds and the sources."""
        return set(self.project.seeds) | {f"{s}.{t}" for m in self.project.models.values() for s, t in m.sources}


def plan(con: duckdb.DuckDBPyConnection | None, project: Project | None = None, options: Options | None = None,
         **overrides) -> Plan:
    """Decide what :func:`sphragis.runner.execute` would build, reuse, keep and test, without side
    effects: it only reads ``con`` (its relations and ``build_manifest``), the seed CSVs and the
    templates.

    Args:
        con: the warehouse (read-only is enough), or None for an empty one (then
            ``options.previous`` is the manifest compared with).
        options: :class:`Options` (``on_model`` and ``workers`` are not used); ``overrides``: its
            fields by name.

    Returns:
        :class:`Plan` (``up_to_date`` is true when a run would change nothing).

    Raises:
        ModelError: a template does not render, an unknown ref, a cycle or an unknown selector.
    """
    o = Options.of(options, **overrides)
    project = project or load_project()
    srcfp = dict(o.source_fingerprints or {})
    if o.full:
        prev = {}
    elif o.previous is not None or con is None:
        prev = o.previous or {}
    else:
        prev = read_manifest(con)
    rels = relations(con) if con is not None else {}
    seeds_fp = {n: seed_fingerprint(path, seed_column_types(project, n)) for n, path in project.seeds.items()}
    stale_seeds = {n for n in project.seeds
                   if o.full or n not in rels or prev.get("seeds", {}).get(n, {}).get("fingerprint") != seeds_fp[n]}
    order = project.order()
    compiled = {t.id: t for t in [*data_tests(project), *sql_tests(project, o.variables),
                                  *unit_tests(project, o.variables)]}
    p = Plan(project, o.full, prev, rels, srcfp, seeds_fp, stale_seeds, order, compiled)
    p.sources_changed = sorted(k for k, v in srcfp.items()
                               if prev.get("sources", {}).get(k, {}).get("fingerprint") != v)
    r = renderer(project)
    current: dict[str, str] = {}  # output fingerprints as if every model were current
    for name in order:
        m = project.models[name]
        p.rendered[name] = r.render(m.path, o.variables)[0]
        # a ref to a table that is neither a model nor a seed of ``project`` (a hand-made Project
        # over tables built elsewhere) has no fingerprint: what reads it is never reused
        p.inputs[name] = {**{r_: (current[r_] if r_ in project.models else seeds_fp.get(r_)) for r_ in m.refs},
                          **{f"{s}.{t}": srcfp.get(f"{s}.{t}") for s, t in m.sources}}
        f = p.fingerprints[name] = p._fingerprint(name, p.inputs[name])
        if p._reusable(name, f):
            current[name] = p.previous_output(name)
        else:
            current[name] = f
            p.modified.add(name)
    p.chosen = select_models(project, o.select, p.modified) if o.select else set(order)
    p.needed = project.ancestors(p.chosen)

    effective: dict[str, str] = {}
    done = p.readable()
    for name in order:
        d = p.decide(name, effective)
        if d.action == "skip":
            continue
        p.models[name] = d
        effective[name] = d.output
        done.add(name)
    if o.test:  # the tests execute would run: those of the seeds and of the models it builds or reuses
        for tid, t in compiled.items():
            # a data test runs after its model is built or reused (not kept, not skipped)
            if t.model is not None and t.model not in project.seeds and \
                    p.models.get(t.model, Decision("keep")).action == "keep":
                continue
            if set(t.depends_on) <= done:
                skip = p.passed_before(tid, p.test_fingerprint(t, effective))
                (p.skipped_tests if skip else p.tests).append(tid)
    return p


def content(old: dict) -> list | None:
    """A previous build's recorded :func:`sphragis.runner.content_of` list, when it has all four entries."""
    c = old.get("content")
    return c if isinstance(c, list) and len(c) == 4 else None


def unknown(fingerprint: str | None) -> bool:
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
    if old.get("sql_hash") != sha(sql):
        return "SQL changed"
    changed = sorted(k for k, v in cur_inputs.items() if old.get("inputs", {}).get(k) != v)
    if changed:
        return "input changed: " + ", ".join(changed[:3]) + (" …" if len(changed) > 3 else "")
    if old.get("materialized", materialized) != materialized:
        return "materialization changed"
    return "not in the warehouse" if not present else "fingerprint changed"
