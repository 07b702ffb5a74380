"""The scheduler: models and tests run ``workers`` at a time, each on its own cursor, as ``dbt
build --threads`` does (:func:`execute`); the one executor of tests (:func:`run_tests` runs tests
alone through it)."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import duckdb

from . import cutoff
from .base import MANIFEST_TABLE, MAX_WORKERS, CompiledTest, Failure, ModelError, ModelTestFailure, Options, sha
from .datatests import check, data_tests
from .manifest import manifest, relations, store
from .plan import Decision, Plan, content, plan, unknown
from .load import load_project
from .project import Project
from .seeds import load_seeds


@dataclass
class RunReport:
    """What :func:`execute` did.

    Attributes:
        rows: model → row count (tables; views too when built).
        status: model → (``"built"`` | ``"reused"`` | ``"kept"``, reason) for every model present
            after the run (``kept``: outside the selection, left as it was).
        seconds: model → seconds to build it.
        tests_run / tests_skipped: counts of data, SQL and unit tests run, and skipped as unchanged.
        test_seconds: seconds spent in tests.
        test_records: test id → record of the manifest's ``tests``.
        unchanged_output: models rebuilt whose content equals their previous version (early
            cutoff: their dependents saw the previous output fingerprint and were reused).
        manifest: the manifest written into the warehouse (:func:`sphragis.runner.manifest`).
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


def default_workers() -> int:
    """How many models and tests :func:`execute` runs at once: the machine's CPUs, at most
    :data:`MAX_WORKERS` (DuckDB also runs each query on several threads; the memory limit set on
    the connection is shared by all of them)."""
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


class _Scheduler:
    """One run's state: what is decided, done, queued and running. :meth:`run` drives the pool;
    a model starts once every model and seed it reads is built (or reused) and their gating data
    tests passed; a ready test goes before a ready model."""

    def __init__(self, con: duckdb.DuckDBPyConnection, p: Plan, o: Options, tests: dict[str, CompiledTest], *,
                 stop_on_failure: bool = True):
        self.con, self.p, self.o, self.tests = con, p, o, tests
        self.project = p.project
        self.stop_on_failure = stop_on_failure
        self.report = RunReport()
        self.rels = dict(p.rels)
        self.has_dependents = {r for m in self.project.models.values() for r in m.refs}
        self.effective: dict[str, str] = {}
        self.done: set[str] = p.readable()  # what tests may read: seeds, sources, models once built or kept
        self.skipped: set[str] = set()
        self.results: dict[str, dict] = {}
        self.waiting = list(p.order)  # models not decided or not started
        self.decisions: dict[str, Decision] = {}
        self.queued: list[str] = []  # tests whose tables are all done, not started
        self.seen_tests: set[str] = set()
        self.running: dict[Future, tuple] = {}  # future → ("model", name, Decision) | ("test", tid, fingerprint)
        self.failures: dict[str, list[Failure]] = {}
        self.errors: list[BaseException] = []
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        # model or seed → its data tests not finished yet that read only seeds, it and what it is
        # built from: those gate its dependents (a relationships test towards a model built from it
        # waits for that model instead)
        self.untested: dict[str, int] = {}
        self.gates: set[str] = set()
        for tid, t in tests.items():
            if t.model is None:
                continue
            upstream = (self.project.ancestors({t.model}, tests=False) if t.model in self.project.models
                        else {t.model})
            if set(t.depends_on) <= upstream | self.done:
                self.untested[t.model] = self.untested.get(t.model, 0) + 1
                self.gates.add(tid)

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._local.cursor = self.con.cursor()
            self._cursors.append(cur)
        return cur

    def _model_job(self, name: str, compare: bool, old_content):
        return cutoff.build_one(self._cursor(), self.project.models[name], self.p.rendered[name], self.rels,
                                old_content=old_content if compare else None, compare=compare)

    def _test_job(self, t: CompiledTest):
        t0 = time.perf_counter()
        fail = check(self._cursor(), t)
        return fail, time.perf_counter() - t0

    def _record(self, name: str, d: Decision, output: str, content_: list | None, rows: int | None) -> None:
        self.results[name] = {"fingerprint": d.fingerprint, "output_fingerprint": output, "content": content_,
                              "sql_hash": sha(self.p.rendered[name]), "inputs": d.inputs, "rows": rows,
                              "materialized": self.project.models[name].materialized}

    def _finish_test(self, tid: str, fingerprint: str, fail: list[Failure] | None) -> None:
        t = self.tests[tid]
        self.report.test_records[tid] = {"model": t.model, "test": t.description, "sql": t.sql,
                                         "depends_on": list(t.depends_on), "fingerprint": fingerprint,
                                         "status": "fail" if fail else "pass"}
        if tid in self.gates:
            self.untested[t.model] -= 1
        if fail:
            self.failures[tid] = fail

    def _settle(self) -> None:
        """Decide what needs no worker (reuse, keep, skip) and queue the tests that became ready."""
        p, report = self.p, self.report
        for name in list(self.waiting):
            m = self.project.models[name]
            if any(r in self.project.models and r not in self.effective and r not in self.skipped for r in m.refs):
                continue
            d = self.decisions.setdefault(name, p.decide(name, self.effective))
            if d.action == "build":
                continue
            self.waiting.remove(name)
            if d.action == "skip":
                self.skipped.add(name)
                continue
            self.effective[name] = d.output
            self.done.add(name)
            if d.action == "keep":  # left as it is: its tests do not run
                report.status[name] = ("kept", d.reason)
                self.untested[name] = 0
                self.seen_tests.update(tid for tid, t in self.tests.items() if t.model == name)
                continue
            old = p.previous(name)
            report.status[name] = ("reused", "unchanged")
            report.rows[name] = old.get("rows")
            self._record(name, d, d.output, content(old), old.get("rows"))
        for tid, t in self.tests.items():
            if tid in self.seen_tests or not set(t.depends_on) <= self.done:  # a test reads its own model
                continue
            self.seen_tests.add(tid)
            f = p.test_fingerprint(t, self.effective)
            if p.passed_before(tid, f):
                report.tests_skipped += 1
                self._finish_test(tid, f, None)
            else:
                self.queued.append(tid)

    def _next_job(self, pool: ThreadPoolExecutor):
        p = self.p
        if self.queued:
            tid = self.queued.pop(0)
            fingerprint = p.test_fingerprint(self.tests[tid], self.effective)
            return pool.submit(self._test_job, self.tests[tid]), ("test", tid, fingerprint)
        for name in self.waiting:
            d = self.decisions.get(name)
            if d is None or any(r not in self.done or self.untested.get(r, 0) for r in self.project.models[name].refs
                                if r in self.project.models or r in self.project.seeds):
                continue
            self.waiting.remove(name)
            m, old = self.project.models[name], p.previous(name)
            # early cutoff: a table with dependents rebuilt over its previous version is compared
            # with it; the same content hands on the previous output fingerprint
            compare = (not self.o.full and m.materialized != "view" and self.rels.get(name) == "table"
                       and name in self.has_dependents and bool(old) and not unknown(d.fingerprint)
                       and not unknown(p.previous_output(name)))
            return pool.submit(self._model_job, name, compare, content(old)), ("model", name, d)
        return None

    def _collect(self, fut: Future) -> None:
        kind, key, extra = self.running.pop(fut)
        try:
            got = fut.result()
        except ModelError as exc:
            self.errors.append(exc)
            return
        if kind == "test":
            fail, secs = got
            self.report.tests_run += 1
            self.report.test_seconds += secs
            self._finish_test(key, extra, fail)
            return
        d, m = extra, self.project.models[key]
        rows, secs, content_, same = got
        self.rels[key] = "view" if m.materialized == "view" else "table"
        self.report.rows[key], self.report.seconds[key] = rows, secs
        self.report.status[key] = ("built", d.reason)
        out = d.output
        if same:
            out = self.p.previous_output(key)
            self.report.unchanged_output.add(key)
        self.effective[key] = out
        self.done.add(key)
        self._record(key, d, out, content_, rows)
        if self.o.on_model:
            self.o.on_model(key, secs, rows)

    def run(self) -> None:
        """Run every job; after the first failure (``stop_on_failure``) nothing new starts and what
        is running finishes. Ctrl-C or an error here interrupts the queries running on the cursors."""
        n = self.o.workers or default_workers()
        with ThreadPoolExecutor(max_workers=n, thread_name_prefix="sphragis-model") as pool:
            try:
                while True:
                    self._settle()
                    while not (self.stop_on_failure and (self.failures or self.errors)) and len(self.running) < n:
                        job = self._next_job(pool)
                        if job is None:
                            break
                        self.running[job[0]] = job[1]
                    if not self.running:
                        break
                    finished, _ = wait(self.running, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        self._collect(fut)
            except BaseException:
                # stop the queries running on the workers' cursors now rather than wait for them to
                # finish (a long query would hold Ctrl-C back); again until every job has ended, since a job
                # may start its next query after an interrupt (a query not yet begun when Ctrl-C
                # came would otherwise run to its end)
                pending = set(self.running)
                while pending:
                    for cur in list(self._cursors):
                        cur.interrupt()
                    _, pending = wait(pending, timeout=0.1)
                raise
            finally:
                wait(self.running)  # what is still running finishes before its cursor closes
                for cur in self._cursors:
                    cur.close()

    def failed(self) -> list[Failure]:
        """The failures, in the order of the tests (data tests by model, SQL tests, unit tests)."""
        return [f for tid in self.tests for f in self.failures.get(tid, [])]


def execute(con: duckdb.DuckDBPyConnection, project: Project | None = None, options: Options | None = None,
            **overrides) -> RunReport:
    """Build the models (reusing unchanged ones), running each model's tests right after it.

    What to build, reuse and test is decided by :func:`sphragis.runner.plan` (its
    :meth:`Plan.decide`), with the output fingerprints of the models actually built: a model
    rebuilt with the same content as before hands on its previous output fingerprint (early cutoff).
    Models and tests run ``options.workers`` at a time, each on its own cursor of ``con``; the
    tables do not depend on ``workers`` (each model's SQL reads only finished tables).

    Args:
        con: an open DuckDB connection holding the raw tables (and, for reuse, the models and the
            ``build_manifest`` of the previous build).
        project: from :func:`sphragis.runner.load_project` (default: the repository's models).
        options: :class:`Options`; ``overrides``: its fields by name (``select=[...]``, ``full=True``).

    Returns:
        :class:`RunReport`; the manifest is also stored in table ``build_manifest``.

    Raises:
        ModelError: a model's SQL failed (names the model file and DuckDB's message).
        ModelTestFailure: data, SQL or unit tests failed (no model that reads the tested one is started).
    """
    from .. import udfs  # imported here: a plan alone (an up-to-date build) needs no UDFs

    o = Options.of(options, **overrides)
    project = project or load_project()
    p = plan(con, project, o)
    udfs.register(con)  # the cursors share the connection's functions
    if not p.up_to_date:
        # until the new manifest is written at the end, the tables may differ from what the old one
        # says: a run that fails midway leaves none (the next run then rebuilds everything)
        con.execute(f"drop table if exists {MANIFEST_TABLE}")
    load_seeds(con, project, p.stale_seeds)
    s = _Scheduler(con, p, o, dict(p.compiled_tests) if o.test else {})
    s.run()
    if s.errors:
        raise s.errors[0]
    if s.failures:
        raise ModelTestFailure(s.failed())
    if s.waiting:
        raise ModelError(f"models never became ready: {', '.join(s.waiting)}")  # a runner bug, not a user error
    report = s.report
    order = {n: i for i, n in enumerate(p.order)}
    report.status = dict(sorted(report.status.items(), key=lambda kv: order[kv[0]]))
    report.rows = dict(sorted(report.rows.items(), key=lambda kv: order[kv[0]]))
    for name in p.order:  # models outside the selection keep the record of their last build
        if name not in s.results and p.previous(name) and name in s.rels:
            s.results[name] = p.previous(name)
    report.manifest = manifest(project, s.results, p.seeds_fp, p.sources_fp, report.test_records)
    store(con, report.manifest)
    return report


def run(con: duckdb.DuckDBPyConnection, project: Project | None = None, options: Options | None = None,
        **overrides) -> dict[str, int]:
    """Load seeds, build the models in dependency order with their tests (:func:`execute`).

    ``select`` takes selectors (:func:`sphragis.runner.select_models`); a model the selection needs
    that is not in ``con`` is built too, so ``select=["int_tokens"]`` on an empty database builds
    its ancestors.

    Returns:
        model name → row count of the models built or reused.

    Raises:
        ModelError, ModelTestFailure: as :func:`execute`.
    """
    return execute(con, project, options, **overrides).rows


def run_tests(con: duckdb.DuckDBPyConnection, project: Project, only: set[str] | None = None, *,
              workers: int | None = None) -> list[Failure]:
    """Run every declared data test (of the models in ``only``, default all) on the tables of
    ``con`` as they are, through the scheduler (no model is built; every test runs).

    Returns:
        :class:`Failure` list (model, test, detail) in the tests' order; the detail gives the
        number of failing rows and up to five of them (e.g. the registry keys without a registry row).
    """
    tests = {t.id: t for t in data_tests(project, only)}
    p = Plan(project, True, {}, relations(con), {}, {}, set(), [], tests)
    s = _Scheduler(con, p, Options(full=True, workers=workers), tests, stop_on_failure=False)
    s.done |= set(p.rels)
    s.run()
    if s.errors:
        raise s.errors[0]
    return s.failed()
