"""Build orchestration: ingest → models → (export), atomic and locked (SPEC §2, §13).

A build writes a new warehouse beside the old one (``<warehouse>.building-<pid>``) and renames it
into place only when every model and data test succeeded, so an interrupted or failed build
leaves the previous warehouse untouched. A lock file (``<warehouse>.lock``) makes a second
concurrent build fail fast with the holder's pid and command. A build killed outright (SIGKILL,
power loss) cannot clean up: the next build, once it holds the lock, deletes the stale
``<warehouse>.building-*`` files (:func:`remove_stale_builds`).

The manifest file records every table's row hash and the stamp of the warehouse file it describes
(:func:`record_contents`, :func:`warehouse_stamp`); it is written before the swap and renamed
right after it. When the file's stamp no longer matches (another connection wrote to it, or a kill
came between the two renames), the next build checks every table (:func:`changed_tables`) and
re-ingests or rebuilds what changed behind its back (issue #27). A symlinked warehouse path is
built through to its target (:func:`through_links`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import config, fetch, pins, runner
from .files import write_json
from .hugepages import disable_transparent_huge_pages


#: DuckDB buffer-pool cap for a build (SPEC §13: peak RSS <= 2 GiB). DuckDB's default (80% of RAM)
#: let the models grow the build process to 2.1 GiB on the real sources; with this cap large
#: operators spill to ``<warehouse>.building-<pid>.tmp/`` instead (measured by ``make bench``:
#: 1 GB gave a 1.13 GiB peak, models about 8% slower).
MEMORY_LIMIT = "1536MB"


class BuildLocked(RuntimeError):
    """Another build holds the lock; the message names its pid and command."""


@dataclass
class BuildSummary:
    """What a build read and wrote (printed at the end; also kept in the warehouse as ``build_log``)."""

    ingest: dict = field(default_factory=dict)      # project -> files/sentences/tokens/rejects
    models: dict = field(default_factory=dict)      # model -> rows
    model_seconds: dict = field(default_factory=dict)  # model -> seconds
    timings: dict = field(default_factory=dict)     # step -> seconds
    rejects: list = field(default_factory=list)     # first rejects as (path, line, reason)
    status: dict = field(default_factory=dict)      # model -> (built | reused | kept, reason)
    tests: tuple = (0, 0)                           # data/SQL tests (run, skipped as unchanged)
    ingest_reused: bool = False                     # raw tables taken from the previous warehouse
    manifest: dict = field(default_factory=dict)    # runner.manifest() of the new warehouse
    unchanged_output: set = field(default_factory=set)  # rebuilt, same content: downstream reused
    up_to_date: bool = False                        # nothing to do: the warehouse was left untouched
    changed_outside: dict | None = None             # tables changed behind the build's back (changed_tables)
    plan: runner.Plan | None = None                 # what the build decided (or, dry run, would do)
    unverified: list = field(default_factory=list)  # snapshots without a fetch record (not checked)


#: Width of the printed tables when stderr is not a terminal (a log or a pipe): rich's default
#: there is 80 columns, which wraps the build summary's rows mid-cell.
LOG_WIDTH = 200


def console() -> Console:
    """The console of the build, export and identity tables: stderr, at the terminal's width, or
    :data:`LOG_WIDTH` columns when stderr is not a terminal (``COLUMNS`` still wins)."""
    out = Console(stderr=True, highlight=False)
    if out.is_terminal or os.environ.get("COLUMNS"):
        return out
    return Console(stderr=True, highlight=False, width=LOG_WIDTH)


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


def remove_stale_builds(target: Path) -> list[Path]:
    """Delete ``<target>.building-*`` files (and their WALs) left by builds that were killed.

    Call only while holding :func:`build_lock`: no other build can be writing them then, so any
    such file is the remains of an interrupted build (SPEC §13). Returns the paths removed.
    """
    removed = []
    for stale in target.parent.glob(glob.escape(target.name) + ".building-*"):
        try:
            if stale.is_dir():
                shutil.rmtree(stale)
            else:
                stale.unlink()
        except FileNotFoundError:
            continue
        removed.append(stale)
    return removed


def _progress(con: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=con, transient=False, disable=not con.is_terminal and os.environ.get("SPHRAGIS_PROGRESS") != "1",
    )


def snapshot_roots(settings: config.Settings) -> dict[str, Path]:
    """Snapshot name → unpacked folder (``<SPHRAGIS_DATA>/<name>``)."""
    return {s["name"]: settings.data / s["name"] for s in config.snapshots()}


def ingest_into(con: duckdb.DuckDBPyConnection, settings: config.Settings, out: Console, summary: BuildSummary,
                *, workers: int | None = None) -> None:
    """Discover, parse (in parallel) and load every treebank file into the raw tables."""
    from .ingest import load as ingest_load
    from .ingest import sources as ingest_sources

    t0 = time.perf_counter()
    files = ingest_sources.discover(snapshot_roots(settings), config.snapshots())
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
    summary.rejects = con.execute(
        "select path, line, reason from ingest_rejects order by file_id, line nulls first limit 20").fetchall()
    t1 = time.perf_counter()
    # parse: until the last file was parsed; load: the inserts into the raw tables after that.
    summary.timings["parse"] = (parsed_at[0] if parsed_at else t1) - t0
    summary.timings["load"] = t1 - (parsed_at[0] if parsed_at else t1)


def manifest_path(warehouse: Path) -> Path:
    """Where a build writes the manifest of the warehouse it made: ``<warehouse>.manifest.json``
    (default ``warehouse.duckdb.manifest.json``; format: :func:`sphragis.runner.manifest`)."""
    return warehouse.with_name(warehouse.name + ".manifest.json")


def warehouse_stamp(path: Path) -> list[int]:
    """A cheap stamp of the warehouse file: ``[size, mtime_ns, inode, device]`` (``os.stat``).

    Any write to the file through DuckDB (another connection deleting rows, dropping a table)
    changes its mtime; a rename keeps all four, so the stamp of ``<warehouse>.building-<pid>`` taken
    before the swap is the stamp of the warehouse after it. Recorded in the manifest file under
    ``warehouse_stamp`` (:func:`write_manifest`)."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def write_manifest(path: Path, manifest: dict, stamp: list[int]) -> None:
    """Write ``manifest`` (:func:`sphragis.runner.manifest`) with the ``stamp`` of the warehouse file
    it describes (:func:`warehouse_stamp`) to ``path``, atomically (temporary file and rename)."""
    write_json(path, {**manifest, "warehouse_stamp": stamp}, sort_keys=True)


def _recorded_tables(manifest: dict) -> dict[str, tuple[str, dict]]:
    """table → (kind ``source``/``seed``/``model``, its manifest record) for every table a build made:
    the tables whose content a build records (:func:`record_contents`) and checks when the warehouse
    file changed behind its back (:func:`changed_tables`); views are not checked."""
    out = {k.split(".", 1)[1]: ("source", v) for k, v in manifest.get("sources", {}).items() if k.startswith("raw.")}
    out.update({n: ("seed", v) for n, v in manifest.get("seeds", {}).items()})
    out.update({n: ("model", v) for n, v in manifest.get("models", {}).items() if v.get("materialized") != "view"})
    return out


def record_contents(con: duckdb.DuckDBPyConnection, manifest: dict) -> None:
    """Put the content (:func:`sphragis.runner.content_of`: columns, rows, order-insensitive row hash)
    of every table of :func:`_recorded_tables` that lacks one into ``manifest`` and store it again
    in ``build_manifest``. A model rebuilt with early cutoff already has it. Measured on the real
    warehouse: 8.5 s for the 86 tables of a full build (2% of that build, on a loaded machine)."""
    present = set(runner.relations(con))
    for name, (_kind, rec) in _recorded_tables(manifest).items():
        c = rec.get("content")
        if name in present and not (isinstance(c, list) and len(c) == 4 and c[2] is not None):
            rec["content"] = runner.content_of(con, name)
    runner.store_manifest(con, manifest)


def changed_tables(target: Path, manifest: dict, *, heal: bool = True) -> dict[str, str] | None:
    """Tables of the warehouse ``target`` whose content is no longer what its build recorded.

    Cheap when nothing happened: only when the file's :func:`warehouse_stamp` differs from the one
    in the manifest file (or that has none) is every recorded table checked, by its row hash
    (:func:`sphragis.runner.content_of`, a few seconds on the real warehouse).

    Returns:
        None when the stamp is unchanged (nothing checked); else table → what changed (``dropped``
        or ``content changed``), empty when every table is as built (then, with ``heal``, the
        manifest file is rewritten with the warehouse's manifest and the new stamp: this is how a
        manifest file left stale by a kill between the swap's two renames is replaced).
    """
    if not target.exists() or not manifest:
        return None
    mpath = manifest_path(target)
    try:
        recorded = json.loads(mpath.read_text(encoding="utf-8")).get("warehouse_stamp")
    except (OSError, ValueError):
        recorded = None
    stamp = warehouse_stamp(target)
    if recorded == stamp:
        return None
    con = duckdb.connect(str(target), read_only=True)
    try:
        present = set(runner.relations(con))
        changed = {}
        for name, (_kind, rec) in _recorded_tables(manifest).items():
            c = rec.get("content")
            if name not in present:
                if rec.get("fingerprint") or c:
                    changed[name] = "dropped"
            elif isinstance(c, list) and len(c) == 4 and c[2] is not None and runner.content_of(con, name)[:3] != c[:3]:
                changed[name] = "content changed"
    finally:
        con.close()
    if not changed and heal:
        write_manifest(mpath, manifest, stamp)
    return changed


def distrust(manifest: dict, changed: dict[str, str]) -> dict:
    """``manifest`` with the records of the ``changed`` tables marked so that a build remakes them:
    a seed is reloaded, a model rebuilt (reason "changed outside a build"); a raw table changed
    needs a re-ingest (the caller's decision)."""
    out = json.loads(json.dumps(manifest))
    for name, (kind, _rec) in _recorded_tables(out).items():
        if name in changed and kind == "seed":
            out["seeds"][name]["fingerprint"] = None
        elif name in changed and kind == "model":
            out["models"][name].update(fingerprint=None, changed_outside=changed[name])
    return out


def sources_cache_path(warehouse: Path) -> Path:
    """The sha256 of each source file with the file's stat when hashed: ``<warehouse>.sources.json``
    (:func:`ingest_fingerprint`)."""
    return warehouse.with_name(warehouse.name + ".sources.json")


#: A file changed this close (seconds) before it was hashed is not cached: a write in the same
#: timestamp tick could leave size, mtime and ctime as they were (git's "racy" index entries).
RACY_SECONDS = 3


def source_digests(files, cache: Path | None = None, *, trust_cache: bool = True) -> dict[str, str]:
    """``str(abspath)`` → sha256 of each source file (``files``: :class:`SourceFile` list).

    Args:
        cache: a JSON file of earlier sha256s (:func:`sources_cache_path`), or None to hash every
            file. A file's cached sha256 is used only while its size, mtime, ctime, inode and device
            (``os.stat``, ns) are all as they were when it was hashed; ctime is set by the kernel on
            every write and cannot be restored by ``touch``, ``cp -p``, ``tar`` or ``rsync``, and a
            file modified less than :data:`RACY_SECONDS` before it was hashed is never cached. The
            cache is rewritten only when an entry changed. Saves the 0.3-0.4 s of hashing 224 MB of
            sources on every build.
        trust_cache: False hashes every file (``--full``) and still refreshes ``cache``.
    """
    from .ingest.sources import escape_bad_bytes

    known: dict = {}
    if cache is not None:
        try:
            known = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
    fresh: dict = {}
    digests: dict[str, str] = {}
    racy_before = time.time_ns() - RACY_SECONDS * 1_000_000_000
    for f in files:
        key = escape_bad_bytes(str(f.abspath))  # the cache is UTF-8 JSON
        st = os.stat(f.abspath)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        entry = known.get(key)
        if trust_cache and isinstance(entry, list) and entry[:-1] == stamp:
            digest = entry[-1]
        else:
            with open(f.abspath, "rb") as fh:
                digest = hashlib.file_digest(fh, "sha256").hexdigest()
        if max(st.st_mtime_ns, st.st_ctime_ns) < racy_before:
            fresh[key] = [*stamp, digest]
        digests[str(f.abspath)] = digest
    if cache is not None and fresh != known:
        write_json(cache, fresh, sort_keys=True)
    return digests


def ingest_fingerprint(files, cache: Path | None = None, *, trust_cache: bool = True,
                       digests: dict[str, str] | None = None) -> str:
    """Content hash of the raw layer a build would ingest: sha256 over every source file's (snapshot,
    path, sha256 of its bytes) and over the ingest code (``ingest/*.py``, ``sql/ddl/raw.sql``, the
    loader's named queries ``sql/queries/ingest_*.sql``), the pin list and the depth limit
    ``config.MAX_TREE_DEPTH``. Equal fingerprints mean equal raw tables (ingest is deterministic, SPEC §9).

    ``cache`` and ``trust_cache``: as :func:`source_digests`, which gives the files' sha256 unless
    ``digests`` (its result) is passed.
    """
    from .ingest import sources as ingest_sources

    if digests is None:
        digests = source_digests(files, cache, trust_cache=trust_cache)
    h = hashlib.sha256()
    code = (sorted(Path(ingest_sources.__file__).parent.glob("*.py")) + [config.SQL_DIR / "ddl" / "raw.sql"]
            + sorted((config.SQL_DIR / "queries").glob("ingest_*.sql")) + [config.SOURCES_FILE])
    for p in code:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    h.update(f"max_tree_depth\0{config.MAX_TREE_DEPTH}\n".encode())  # the parser's rejection limit
    for f in files:
        h.update(f"{f.snapshot['name']}\0{f.path}\0{digests[str(f.abspath)]}\n".encode())
    return h.hexdigest()


RAW_TABLES = ("raw_files", "raw_sentences", "raw_tokens", "ingest_rejects")


def source_fingerprints(con: duckdb.DuckDBPyConnection, raw_fingerprint: str | None) -> dict[str, str]:
    """``"raw.<table>"`` → fingerprint of every source the models read: the raw tables share
    :func:`ingest_fingerprint`; ``pin_missing_files`` (made anew by every build from the pin list,
    :func:`sphragis.pins.load_missing_files`, and read here from ``con``) the sha256 of its rows."""
    fps = {f"raw.{t}": raw_fingerprint for t in RAW_TABLES} if raw_fingerprint else {}
    pin_rows = con.execute("select * from pin_missing_files order by all").fetchall()
    fps["raw.pin_missing_files"] = hashlib.sha256(repr(pin_rows).encode()).hexdigest()
    return fps


def _source_fingerprints_of(settings: config.Settings, raw_fingerprint: str | None) -> dict[str, str]:
    """:func:`source_fingerprints` without a warehouse: the pin list loaded into a scratch database."""
    mem = duckdb.connect()
    try:
        pins.load_missing_files(mem, settings)
        return source_fingerprints(mem, raw_fingerprint)
    finally:
        mem.close()


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
    fps = _source_fingerprints_of(settings, raw_fingerprint)
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

        report = runner.execute(con, project, options, on_model=on_model)
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
    """``settings`` with the warehouse path resolved when it is a symbolic link (issue #27).

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
        FileNotFoundError: sources not fetched, or (reingest=False) no warehouse to reuse.
        runner.ModelError / runner.ModelTestFailure: a model or a data test failed; the previous
            warehouse is left as it was.
    """
    settings = through_links(settings or config.settings())
    disable_transparent_huge_pages()
    out = out or console()
    project = project or runner.load_project()
    target = settings.warehouse
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
            fp, do_ingest = _check_sources(settings, prev, reingest=reingest, full=full, summary=summary, step=step)
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
                    ingest_into(con, settings, out, summary, workers=workers)
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
                   step: Callable[[str], None]) -> tuple[str | None, bool]:
    """(fingerprint of the raw layer, whether to re-ingest) against the current warehouse's manifest
    ``prev``; ``reingest=False`` takes the raw layer of the warehouse as it is."""
    prev_sources = {k: v.get("fingerprint") for k, v in prev.get("sources", {}).items() if v.get("fingerprint")}
    if not reingest:
        if not settings.warehouse.exists():
            raise FileNotFoundError(f"no warehouse at {settings.warehouse} to rebuild from; run a full build first")
        return prev_sources.get("raw.raw_tokens"), False
    step("check sources")
    t0 = time.perf_counter()
    # --full hashes every source file again; otherwise unchanged files keep their cached sha256
    files = _discover(settings)
    digests = source_digests(files, sources_cache_path(settings.warehouse), trust_cache=not full)
    # the files read are the ones fetch unpacked (SPEC §1): else fetch.SourcesChanged names the file
    summary.unverified = fetch.verify_sources(snapshot_roots(settings), files, digests)
    fp = ingest_fingerprint(files, digests=digests)
    summary.timings["check sources"] = time.perf_counter() - t0
    return fp, full or prev_sources.get("raw.raw_tokens") != fp


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
    fp, do_ingest = _check_sources(settings, prev, reingest=reingest, full=full, summary=summary,
                                   step=lambda _name: None)
    do_ingest = do_ingest or _raw_changed(summary.changed_outside, reingest=reingest, target=settings.warehouse)
    summary.ingest_reused = not do_ingest
    if not do_ingest and not full:
        summary.plan = plan_current(settings.warehouse, settings, fp, select=select, project=project, previous=prev)
    if summary.plan is None:  # a re-ingest (or --full) builds on a new, empty file
        summary.plan = runner.plan(None, project, runner.Options(
            variables=_variables(settings), select=select, full=full,
            source_fingerprints=_source_fingerprints_of(settings, fp), previous=prev))
    summary.up_to_date = summary.ingest_reused and summary.plan.up_to_date
    return summary


def _discover(settings: config.Settings):
    from .ingest import sources as ingest_sources  # not .load: no Arrow/NumPy import to check the sources

    return ingest_sources.discover(snapshot_roots(settings), config.snapshots())


def print_plan(summary: BuildSummary, out: Console | None = None) -> None:
    """Print what a build would do (:func:`dry_run`): per model to build, the reason; counts of
    the models reused and kept and of the tests to run. Early cutoff may reuse more than shown."""
    out = out or console()
    p = summary.plan
    _print_changed_outside(summary, out)
    if summary.up_to_date:
        out.print(f"up to date: a build would change nothing ({len(p.models)} models reused, "
                  f"{len(p.skipped_tests)} tests passed before)")
        return
    out.print(f"raw layer: {'reused (sources unchanged)' if summary.ingest_reused else 'would be re-ingested'}"
              + (f"; seeds to load: {', '.join(sorted(p.stale_seeds))}" if p.stale_seeds else ""))
    for name, d in p.models.items():
        if d.action == "build":
            out.print(f"  build {name}: {d.reason}", markup=False)
    by = {k: sum(1 for d in p.models.values() if d.action == k) for k in ("build", "reuse", "keep")}
    out.print(f"models: {by['build']} to build, {by['reuse']} reused, {by['keep']} kept (not selected); "
              f"tests: {len(p.tests)} to run, {len(p.skipped_tests)} skipped (passed before); "
              "a model rebuilt with unchanged output lets its dependents be reused (early cutoff)")


def _print_changed_outside(summary: BuildSummary, out: Console) -> None:
    if summary.changed_outside:
        out.print("changed outside a build (rebuilt): " + ", ".join(
            f"{t} ({why})" for t, why in sorted(summary.changed_outside.items())), markup=False)


def print_summary(summary: BuildSummary, out: Console | None = None) -> None:
    """Print rows in (per project), rows out (per mart) and step timings."""
    out = out or console()
    _print_changed_outside(summary, out)
    if summary.ingest:
        # a build that reused the raw layer shows what it holds, titled so (nothing was ingested)
        t = Table(title="raw layer (reused, not re-ingested): rows per project" if summary.ingest_reused
                  else "ingest: rows in per project")
        # per file, sentences in the file = ingested + rejected (checked by the ingest, SPEC §13);
        # "in files" is absent from the summaries of warehouses built before it was recorded
        cols = {"files": "files", "counted": "sentences in files", "sentences": "ingested", "tokens": "tokens",
                "rejects": "rejects"}
        t.add_column("project")
        for head in cols.values():
            t.add_column(head, justify="right")
        for p, v in sorted(summary.ingest.items()):
            t.add_row(p, *(f"{v[k]:,}" if k in v else "?" for k in cols))
        tot = {k: sum(v.get(k, 0) for v in summary.ingest.values()) for k in cols}
        t.add_row("all", *(f"{tot[k]:,}" for k in cols))
        out.print(t)
    if summary.unverified:
        out.print(f"sources not verified (no fetch record: laid out by hand, not by `sphragis fetch`): "
                  f"{', '.join(summary.unverified)}", markup=False)
    n_rejects = sum(v["rejects"] for v in summary.ingest.values()) if summary.ingest else 0
    if n_rejects:
        out.print(f"[bold]rejected at ingest: {n_rejects:,}[/bold] (all in table ingest_rejects); first:")
        for path, line, reason in summary.rejects:
            out.print(f"  {path}:{line if line is not None else '?'}: {reason}", markup=False)
    if summary.models and not summary.up_to_date:  # up to date: one line below, not 71 "reused" rows
        t = Table(title="models: rows out")
        t.add_column("model")
        t.add_column("rows", justify="right")
        t.add_column("status")
        staging = {m for m in summary.models if runner.layer(m) == "staging"}
        for m, n in summary.models.items():
            if m not in staging:
                st = summary.status.get(m, ("built", ""))
                t.add_row(m, f"{n:,}" if n is not None else "view", f"{st[0]}: {st[1]}" if st[0] == "built" else st[0])
        out.print(t)
        if staging:  # so that the table's rows and the count of models built below add up
            out.print(f"({len(staging)} staging view{'s' if len(staging) != 1 else ''} (stg_*, renaming only) "
                      "not listed)")
    if summary.up_to_date:
        n_reused = sum(1 for s in summary.status.values() if s[0] == "reused")
        out.print(f"up to date: nothing to build, load or test (sources unchanged, {n_reused} models reused, "
                  f"{summary.tests[1]} tests passed before); the warehouse was left untouched")
    elif summary.status:
        by = {k: sorted(m for m, s in summary.status.items() if s[0] == k) for k in ("built", "reused", "kept")}
        out.print(f"raw layer: {'reused (sources unchanged)' if summary.ingest_reused else 're-ingested'}; "
                  f"models: {len(by['built'])} built, {len(by['reused'])} reused (fingerprint unchanged), "
                  f"{len(by['kept'])} kept (not selected); tests: {summary.tests[0]} run, "
                  f"{summary.tests[1]} skipped (unchanged, passed before)")
        reasons: dict[str, list[str]] = {}
        for m in by["built"]:
            reasons.setdefault(summary.status[m][1], []).append(m)
        for why, names in sorted(reasons.items()):
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            out.print(f"  built ({why}): {shown}", markup=False)
        if summary.unchanged_output:
            out.print(f"  rebuilt, unchanged output (downstream reused): {', '.join(sorted(summary.unchanged_output))}",
                      markup=False)
    out.print("time: " + ", ".join(f"{k} {v:.1f}s" + (" (summed, during models)" if k == "model tests" else "")
                                   for k, v in summary.timings.items()))
