"""Build orchestration: ingest → models → (export), atomic and locked (SPEC §2, §13).

A build writes a new warehouse beside the old one (``<warehouse>.building-<pid>``) and renames it
into place only when every model and data test succeeded, so an interrupted or failed build
leaves the previous warehouse untouched. A lock file (``<warehouse>.lock``) makes a second
concurrent build fail fast with the holder's pid and command. A build killed outright (SIGKILL,
power loss) cannot clean up: the next build deletes the ``<warehouse>.building-<pid>*`` files
whose process is gone (:func:`remove_stale_builds`, which the export and the treebank use for
their ``<out>.building-<pid>`` folders too).

The manifest file records every table's row hash and the stamp of the warehouse file it describes
(:func:`record_contents`, :func:`warehouse_stamp`); it is written before the swap and renamed
right after it. When the file's stamp no longer matches (another connection wrote to it, or a kill
came between the two renames), the next build checks every table (:func:`changed_tables`) and
re-ingests or rebuilds what changed behind its back (SPEC §13). A symlinked warehouse path is
built through to its target (:func:`through_links`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
from rich.console import Console

from . import config, fetch, pins, runner
from .progress import progress as _progress
from .build_summary import LOG_WIDTH, BuildSummary, console, largest_sentence_note, print_plan, print_summary  # noqa: F401 (re-exported)
from .files import check_output_file
from .hugepages import disable_transparent_huge_pages
from .ingest_state import (RAW_TABLES, ingest_fingerprint, source_digests, source_fingerprints,  # noqa: F401
                           source_fingerprints_of, sources_cache_path)
from .warehouse_state import (changed_tables, distrust, manifest_path, record_contents,  # noqa: F401
                              warehouse_stamp, write_manifest)


#: DuckDB buffer-pool cap for a build (SPEC §13: peak RSS <= 2 GiB). DuckDB's default (80% of RAM)
#: let the models grow the build process past 2 GiB on the real sources; with this cap large
#: operators spill to ``<warehouse>.building-<pid>.tmp/`` instead (``make bench`` measures the
#: peak; a lower cap spills more and slows the models).
MEMORY_LIMIT = "1536MB"


class BuildLocked(RuntimeError):
    """Another build holds the lock; the message names its pid and command."""


@contextlib.contextmanager
def build_lock(target: Path):
    """Hold ``<target>.lock`` for the duration; raise :class:`BuildLocked` if another build has it."""
    lock_path = target.with_name(target.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(lock_path, "a+")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "unknown holder"
        fh.close()
        raise BuildLocked(f"another build is running on {target} ({holder}); lock file {lock_path}") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()}: {' '.join(sys.argv)}\n")
    fh.flush()
    try:
        yield
    finally:
        fh.seek(0)
        fh.truncate()
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


#: The process id in the name of a run's work file or folder: ``<target>.building-<pid>`` and
#: what hangs off it (``.wal``, ``.manifest.json``, DuckDB's ``.tmp/``, the ingest's ``.ingest-*/``).
_BUILDING_PID = re.compile(r"\.building-(\d+)(?:\.|$)")


def remove_stale_builds(target: Path) -> list[Path]:
    """Delete what killed runs of a step left beside its output ``target`` (SPEC §13): the files and
    folders ``<target>.building-<pid>*`` whose process no longer runs (gone, or a zombie). A
    running one's are left alone, so a run may call this before it takes the lock (an export
    or treebank export that finds its output up to date still cleans up after a killed one).
    Used for the warehouse (builds), the export and the training treebank. Returns the paths removed.
    """
    removed = []
    for stale in target.parent.glob(glob.escape(target.name) + ".building-*"):
        m = _BUILDING_PID.match(stale.name, len(target.name))
        if m is None or _running(int(m[1])):
            continue
        try:
            if stale.is_dir():
                shutil.rmtree(stale)
            else:
                stale.unlink()
        except FileNotFoundError:
            continue
        removed.append(stale)
    return removed


def _running(pid: int) -> bool:
    """True if process ``pid`` runs (psutil; a zombie has ended, another user's counts as running)."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def snapshot_roots(settings: config.Settings) -> dict[str, Path]:
    """Snapshot name → unpacked folder (``<SPHRAGIS_DATA>/<name>``)."""
    return {s["name"]: settings.data / s["name"] for s in config.snapshots()}


def ingest_into(con: duckdb.DuckDBPyConnection, settings: config.Settings, out: Console, summary: BuildSummary,
                *, workers: int | None = None, files: list | None = None) -> None:
    """Parse (in parallel) and load ``files`` (:class:`sphragis.ingest.sources.SourceFile`; default:
    every treebank and metadata file discovered now) into the raw tables (a metadata file verbatim,
    :func:`sphragis.ingest.metadata_files.load_metadata_files`)."""
    from .ingest import load as ingest_load
    from .ingest.metadata_files import load_metadata_files

    t0 = time.perf_counter()
    files = _discover(settings) if files is None else files
    metadata = [f for f in files if f.kind == "metadata_files"]
    files = [f for f in files if f.kind == "treebank_files"]
    parsed_at: list[float] = []

    def stream(it):
        yield from it
        parsed_at.append(time.perf_counter())

    # The workers write their rows as Parquet beside the database being built (a killed build's
    # leftovers then match <warehouse>.building-* and go with remove_stale_builds).
    db = con.execute("select path from duckdb_databases() where database_name = current_database()").fetchone()[0]
    where = {"dir": Path(db).parent, "prefix": Path(db).name + ".ingest-"} if db else {"prefix": "sphragis-ingest-"}
    with _progress(out) as prog, tempfile.TemporaryDirectory(**where) as spill_to:
        task = prog.add_task("parse and load treebank files", total=len(files))
        parsed = ingest_load.iter_parsed(files, workers=workers, progress=lambda: prog.advance(task),
                                         spill_to=Path(spill_to))
        # The workers spill Parquet while they parse; the loader inserts it all once parsing ends.
        summary.ingest = ingest_load.load(con, files, stream(parsed), spill_to=Path(spill_to))
    load_metadata_files(con, metadata)
    summary.rejects = con.execute(
        "select path, line, reason from ingest_rejects order by file_id, line nulls first limit 20").fetchall()
    t1 = time.perf_counter()
    # parse: until the last file was parsed; load: the inserts into the raw tables after that.
    summary.timings["parse"] = (parsed_at[0] if parsed_at else t1) - t0
    summary.timings["load"] = t1 - (parsed_at[0] if parsed_at else t1)


def _variables(settings: config.Settings) -> dict:
    """The build variables a build passes to the runner (``var()``).

    Raises:
        ValueError: ``settings.split_profile`` is not one of :data:`sphragis.config.SPLIT_PROFILES`.
    """
    if settings.split_profile not in config.SPLIT_PROFILES:
        raise ValueError(f"unknown split profile {settings.split_profile!r} (SPHRAGIS_SPLIT_PROFILE or "
                         f"--split-profile); known: {', '.join(config.SPLIT_PROFILES)}")
    return {"registry_profile": settings.registry_profile, "split_profile": settings.split_profile}


def plan_current(target: Path, settings: config.Settings, raw_fingerprint: str | None, *,
                 select: list[str] | None = None, project: runner.Project | None = None,
                 previous: dict | None = None) -> runner.Plan | None:
    """What a build on the current warehouse ``target`` would do, without touching it
    (:func:`sphragis.runner.plan` over a read-only connection); None if there is no warehouse or it
    has a write-ahead log beside it (then only a real build can tell). ``previous``: the manifest to
    compare with (default the one in the warehouse; :func:`distrust` marks what changed outside a build)."""
    if not target.exists() or Path(str(target) + ".wal").exists():
        return None
    fps = source_fingerprints_of(settings, raw_fingerprint)
    try:
        con = duckdb.connect(str(target), read_only=True)
    except duckdb.Error:
        return None
    try:
        return runner.plan(con, project, runner.Options(variables=_variables(settings), select=select,
                                                        source_fingerprints=fps, previous=previous))
    finally:
        con.close()


def run_models(con: duckdb.DuckDBPyConnection, out: Console, summary: BuildSummary, options: runner.Options,
               project: runner.Project | None = None) -> runner.RunReport:
    """Build the SQL models (reusing unchanged ones) with their tests, showing progress:
    :func:`sphragis.runner.execute` with ``options`` (:class:`sphragis.runner.Options`; its
    ``on_model`` is the progress bar's). Fills ``summary``'s models, status, timings, tests and manifest."""
    project = project or runner.load_project()
    t0 = time.perf_counter()
    with _progress(out) as prog:
        task = prog.add_task("build models", total=len(project.models))

        def on_model(name, secs, rows):
            summary.model_seconds[name] = secs
            prog.update(task, advance=1, description=f"build models ({name})")

        try:
            report = runner.execute(con, project, options, on_model=on_model)
        except runner.ModelError as exc:
            if isinstance(exc.__cause__, duckdb.OutOfMemoryException):
                raise runner.ModelError(f"{exc}\n{largest_sentence_note(con, MEMORY_LIMIT)}") from exc
            raise
    summary.models = {k: v for k, v in report.rows.items()}
    summary.status = report.status
    # the runner builds models and runs their tests at once (runner.execute): "models" is its wall
    # time, tests included; "model tests" the summed time of the tests, spent alongside the models
    summary.timings["models"] = time.perf_counter() - t0
    summary.timings["model tests"] = report.test_seconds
    summary.tests = (report.tests_run, report.tests_skipped)
    summary.manifest = report.manifest
    summary.unchanged_output = set(report.unchanged_output)
    return report


def _previous_state(target: Path) -> tuple[dict, dict]:
    """(manifest, ingest summary) of the current warehouse, or ({}, {})."""
    if not target.exists():
        return {}, {}
    try:
        con = duckdb.connect(str(target), read_only=True)
    except duckdb.Error:
        return {}, {}
    try:
        man = runner.read_manifest(con)
        log = con.execute("select summary from build_log").fetchone() if con.execute(
            "select 1 from duckdb_tables() where table_name = 'build_log'").fetchall() else None
        return man, (json.loads(log[0]).get("ingest", {}) if log else {})
    finally:
        con.close()


def through_links(settings: config.Settings) -> config.Settings:
    """``settings`` with the warehouse path resolved when it is a symbolic link.

    A build writes beside the file it replaces and renames over it; over a link that would replace
    the link with a regular file and leave its target stale. The build therefore works on the
    link's target (its lock, ``.building-*``, manifest and source cache beside the target), and the
    link keeps pointing at the new warehouse. A dangling link is resolved too (the build creates
    its target).
    """
    if not settings.warehouse.is_symlink():
        return settings
    return dataclasses.replace(settings, warehouse=Path(os.path.realpath(settings.warehouse)))


def build(settings: config.Settings | None = None, *, reingest: bool = True, workers: int | None = None,
          out: Console | None = None, select: list[str] | None = None, full: bool = False,
          project: runner.Project | None = None, on_step: Callable[[str], None] | None = None) -> BuildSummary:
    """Build the warehouse atomically, reusing what has not changed.

    The raw layer is re-ingested only when its fingerprint (:func:`ingest_fingerprint`) differs from
    the current warehouse's; each model is rebuilt only when its fingerprint differs
    (:mod:`sphragis.runner`). When the sources are unchanged and the runner's plan
    (:func:`plan_current`) has nothing to build, load or test, the build stops there: no copy, no
    runner, no swap, the warehouse file is left untouched and ``summary.up_to_date`` is set.
    Otherwise unchanged work is reused by copying the current warehouse to the new file first;
    after a re-ingest the new file starts empty (so it stays compact). Either way the new file
    replaces the old one only on success, and the manifest is written to :func:`manifest_path`.

    Args:
        settings: paths (default from the environment).
        reingest: check the sources and re-ingest if they changed (True), or take the raw tables of
            the current warehouse as they are (False; ``--models-only``).
        workers: ingest process-pool size (default: CPU count), and models run at once (default
            :func:`sphragis.runner.default_workers`).
        select: dbt-style selectors of the models to build (:func:`sphragis.runner.select_models`).
        full: re-ingest and rebuild everything, ignoring fingerprints (``--full``).
        project: the models, seeds and tests to build (default :func:`sphragis.runner.load_project`).
        on_step: called with the name of each step as it starts (``check sources``, ``plan``, ``copy
            warehouse``, ``ingest``, ``models``, ``swap``); their times end up in ``summary.timings``.

    Returns:
        BuildSummary (``status`` says per model built/reused/kept and why).

    Raises:
        BuildLocked: another build is running.
        sphragis.files.OutputRefused: the warehouse path names something other than a regular file
            (a folder, a device, a FIFO), or lies inside the mirror or the unpacked sources.
        FileNotFoundError: sources not fetched, or (reingest=False) no warehouse to reuse.
        runner.ModelError / runner.ModelTestFailure: a model or a data test failed; the previous
            warehouse is left as it was.
    """
    settings = through_links(settings or config.settings())
    disable_transparent_huge_pages()
    out = out or console()
    project = project or runner.load_project()
    target = settings.warehouse
    # the warehouse is replaced by a new file: only a regular file, never one among the sources
    check_output_file(target, protected=tuple(p for p in settings.inputs() if p != target), force=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    summary = BuildSummary()
    step = on_step or (lambda _name: None)
    with build_lock(target):
        remove_stale_builds(target)
        tmp = target.with_name(f"{target.name}.building-{os.getpid()}")
        tmp_manifest = tmp.with_name(tmp.name + ".manifest.json")
        t0 = time.perf_counter()
        prev, prev_ingest, changed = _previous_state_checked(target, full=full)
        summary.changed_outside = changed
        if changed is not None:  # the file's stamp changed: every table was checked
            summary.timings["check warehouse"] = time.perf_counter() - t0
        try:
            fp, do_ingest, files = _check_sources(settings, prev, reingest=reingest, full=full, summary=summary,
                                                  step=step)
            do_ingest = do_ingest or _raw_changed(changed, reingest=reingest, target=target)
            if not do_ingest and not full:
                step("plan")
                t0 = time.perf_counter()
                summary.plan = plan_current(target, settings, fp, select=select, project=project, previous=prev)
                summary.timings["plan"] = time.perf_counter() - t0
                if summary.plan is not None and summary.plan.up_to_date:
                    # nothing to build, load or test: no copy, no runner, no swap; the file is untouched
                    _mark_up_to_date(summary, summary.plan, prev, prev_ingest)
                    return summary
            if not do_ingest:
                step("copy warehouse")
                t0 = time.perf_counter()
                shutil.copyfile(target, tmp)
                summary.timings["copy warehouse"] = time.perf_counter() - t0
                summary.ingest, summary.ingest_reused = prev_ingest, True
            con = duckdb.connect(str(tmp))
            con.execute("set enable_progress_bar = false")  # our own progress bars report models
            con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
            try:
                if do_ingest:
                    step("ingest")
                    ingest_into(con, settings, out, summary, workers=workers, files=files)
                    fp = _parsed_fingerprint(con, settings, files)
                step("models")
                pins.load_missing_files(con, settings)  # source table of mart_seed_reconciliation
                options = runner.Options(variables=_variables(settings), select=select, full=full,
                                         source_fingerprints=source_fingerprints(con, fp), workers=workers,
                                         previous=prev if (do_ingest or changed) and not full else None)
                run_models(con, out, summary, options, project)
                step("record contents")
                t0 = time.perf_counter()
                record_contents(con, summary.manifest)
                summary.timings["record contents"] = time.perf_counter() - t0
                con.execute("create or replace table build_log as select ?::json as summary",
                            [json.dumps({"ingest": summary.ingest, "models": summary.models}, sort_keys=True)])
                step("swap")
                t0 = time.perf_counter()
                con.execute("checkpoint")
            finally:
                con.close()
            # The manifest, with the stamp of the file it describes, is complete on disk before the
            # swap; a kill between the two renames leaves a manifest whose stamp does not match the
            # warehouse, which the next build checks table by table (changed_tables) and rewrites.
            write_manifest(tmp_manifest, summary.manifest, warehouse_stamp(tmp))
            # A WAL left beside the old warehouse belongs to the old file: never let the new one
            # replay it.
            Path(str(target) + ".wal").unlink(missing_ok=True)
            os.replace(tmp, target)
            os.replace(tmp_manifest, manifest_path(target))
            summary.timings["swap"] = time.perf_counter() - t0
        finally:
            tmp.unlink(missing_ok=True)
            tmp_manifest.unlink(missing_ok=True)
            Path(str(tmp) + ".wal").unlink(missing_ok=True)
    return summary


def _previous_state_checked(target: Path, *, full: bool, heal: bool = True) -> tuple[dict, dict, dict | None]:
    """:func:`_previous_state` with the manifest :func:`distrust`-ed for the tables
    :func:`changed_tables` finds changed behind the build's back (None: the file's stamp is as built)."""
    prev, prev_ingest = _previous_state(target)
    changed = None if full else changed_tables(target, prev, heal=heal)
    return (distrust(prev, changed) if changed else prev), prev_ingest, changed


def _raw_changed(changed: dict | None, *, reingest: bool, target: Path) -> bool:
    """Whether a raw table was changed outside a build (then the raw layer is re-ingested).

    Raises:
        RuntimeError: so, but the build was asked to reuse the raw layer (``--models-only``).
    """
    raw = sorted(t for t in changed or {} if t in RAW_TABLES)
    if raw and not reingest:
        raise RuntimeError(f"raw table(s) {', '.join(raw)} of {target} changed outside a build; "
                           "run `sphragis build` without --models-only to re-ingest them")
    return bool(raw)


def _check_sources(settings: config.Settings, prev: dict, *, reingest: bool, full: bool, summary: BuildSummary,
                   step: Callable[[str], None]) -> tuple[str | None, bool, list | None]:
    """(fingerprint of the raw layer, whether to re-ingest, the treebank files checked) against the
    current warehouse's manifest ``prev``; ``reingest=False`` takes the raw layer of the warehouse
    as it is (no files checked: None)."""
    prev_sources = {k: v.get("fingerprint") for k, v in prev.get("sources", {}).items() if v.get("fingerprint")}
    if not reingest:
        if not settings.warehouse.exists():
            raise FileNotFoundError(f"no warehouse at {settings.warehouse} to rebuild from; run a full build first")
        return prev_sources.get("raw.raw_tokens"), False, None
    step("check sources")
    t0 = time.perf_counter()
    # --full hashes every source file again; otherwise unchanged files keep their cached sha256
    files = _discover(settings)
    digests = source_digests(files, sources_cache_path(settings.warehouse), trust_cache=not full)
    # the files read are the ones fetch unpacked (SPEC §1): else fetch.SourcesChanged names the file
    summary.unverified = fetch.verify_sources(snapshot_roots(settings), files, digests)
    fp = ingest_fingerprint(files, digests=digests)
    summary.timings["check sources"] = time.perf_counter() - t0
    return fp, full or prev_sources.get("raw.raw_tokens") != fp, files


def _parsed_fingerprint(con: duckdb.DuckDBPyConnection, settings: config.Settings, files: list) -> str:
    """The raw layer's fingerprint from the bytes the ingest parsed (``raw_files.sha256``), which
    must be the fetched ones (SPEC §1, §13): a file changed between the check of the sources and
    its parse is caught here, before the warehouse is swapped in, and the state the build records
    is that of what it read, so a later restore of the file is seen as a change.

    Raises:
        fetch.SourcesChanged: a file of a fetched snapshot was parsed with other bytes than the
            pinned ones (names it, and the way out).
    """
    parsed = dict(zip((str(f.abspath) for f in files if f.kind == "treebank_files"),
                      (sha for (sha,) in con.execute("select sha256 from raw_files order by file_id").fetchall()),
                      strict=True))
    parsed |= dict(zip((str(f.abspath) for f in files if f.kind == "metadata_files"),
                       (sha for (sha,) in con.execute("select sha256 from raw_metadata_files order by rowid").fetchall()),
                       strict=True))
    fetch.verify_sources(snapshot_roots(settings), files, parsed, when="while the build read it")
    return ingest_fingerprint(files, digests=parsed)


def _mark_up_to_date(summary: BuildSummary, plan: runner.Plan, prev: dict, prev_ingest: dict) -> None:
    """Fill ``summary`` for a build that found nothing to do (everything reused from ``prev``)."""
    summary.up_to_date, summary.ingest, summary.ingest_reused, summary.manifest = True, prev_ingest, True, prev
    summary.status = {n: ("reused", "unchanged") if d.action == "reuse" else ("kept", d.reason)
                      for n, d in plan.models.items()}
    summary.models = {n: plan.previous(n).get("rows") for n in plan.models}
    summary.tests = (0, len(plan.skipped_tests))


def dry_run(settings: config.Settings | None = None, *, reingest: bool = True, select: list[str] | None = None,
            full: bool = False, project: runner.Project | None = None) -> BuildSummary:
    """What :func:`build` would do, changing nothing (``sphragis build --dry-run``): the sources are
    checked, the plan made (:func:`sphragis.runner.plan`) over the current warehouse, read-only.

    Returns:
        BuildSummary with ``plan`` set, ``up_to_date``, and ``ingest_reused`` false when the sources
        changed (then every model is planned on an empty warehouse, as a re-ingesting build makes).

    Raises:
        FileNotFoundError: sources not fetched, or (reingest=False) no warehouse.
    """
    settings = through_links(settings or config.settings())
    summary = BuildSummary()
    prev, _ingest, summary.changed_outside = _previous_state_checked(settings.warehouse, full=full, heal=False)
    fp, do_ingest, _files = _check_sources(settings, prev, reingest=reingest, full=full, summary=summary,
                                           step=lambda _name: None)
    do_ingest = do_ingest or _raw_changed(summary.changed_outside, reingest=reingest, target=settings.warehouse)
    summary.ingest_reused = not do_ingest
    if not do_ingest and not full:
        summary.plan = plan_current(settings.warehouse, settings, fp, select=select, project=project, previous=prev)
    if summary.plan is None:  # a re-ingest (or --full) builds on a new, empty file
        summary.plan = runner.plan(None, project, runner.Options(
            variables=_variables(settings), select=select, full=full,
            source_fingerprints=source_fingerprints_of(settings, fp), previous=prev))
    summary.up_to_date = summary.ingest_reused and summary.plan.up_to_date
    return summary


def _discover(settings: config.Settings):
    """Every source file a build reads: the treebank files, then the metadata files."""
    from .ingest import sources as ingest_sources  # not .load: no Arrow/NumPy import to check the sources

    roots, pins = snapshot_roots(settings), config.snapshots()
    return ingest_sources.discover(roots, pins) + ingest_sources.discover(roots, pins, "metadata_files")


