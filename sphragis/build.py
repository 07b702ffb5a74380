"""Build orchestration: ingest → models → (export), atomic and locked (SPEC §2, §13).

A build writes a new warehouse beside the old one (``<warehouse>.building-<pid>``) and renames it
into place only when every model and data test succeeded, so an interrupted or failed build
leaves the previous warehouse untouched. A lock file (``<warehouse>.lock``) makes a second
concurrent build fail fast with the holder's pid and command. A build killed outright (SIGKILL,
power loss) cannot clean up: the next build, once it holds the lock, deletes the stale
``<warehouse>.building-*`` files (:func:`remove_stale_builds`).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import config, pins, runner


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


def console() -> Console:
    return Console(stderr=True, highlight=False)


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

    t0 = time.perf_counter()
    files = ingest_load.discover(snapshot_roots(settings), config.snapshots())
    parsed_at: list[float] = []

    def stream(it):
        yield from it
        parsed_at.append(time.perf_counter())

    with _progress(out) as prog:
        task = prog.add_task("parse and load treebank files", total=len(files))
        parsed = ingest_load.iter_parsed(files, workers=workers, progress=lambda: prog.advance(task))
        # The loader inserts each batch while the pool parses the next files.
        summary.ingest = ingest_load.load(con, files, stream(parsed))
    summary.rejects = con.execute(
        "select path, line, reason from ingest_rejects order by file_id, line nulls first limit 20").fetchall()
    t1 = time.perf_counter()
    # parse: until the last file was parsed (loading overlaps it); load: the rest of the loading.
    summary.timings["parse"] = (parsed_at[0] if parsed_at else t1) - t0
    summary.timings["load"] = t1 - (parsed_at[0] if parsed_at else t1)


def run_models(con: duckdb.DuckDBPyConnection, out: Console, summary: BuildSummary,
               select: list[str] | None = None, variables: dict | None = None) -> None:
    """Build the SQL models (all, or ``select`` and their ancestors) and run their data tests.

    ``variables`` override the runner's build variables (e.g. ``registry_profile``).
    """
    project = runner.load_project()
    t0 = time.perf_counter()
    n = len(project.ancestors(select)) if select else len(project.models)
    with _progress(out) as prog:
        task = prog.add_task("build models", total=n)

        def on_model(name, secs, rows):
            summary.models[name] = rows
            summary.model_seconds[name] = secs
            prog.update(task, advance=1, description=f"build models ({name})")

        runner.run(con, project, on_model=on_model, select=select, variables=variables)
    summary.timings["models"] = time.perf_counter() - t0


def build(settings: config.Settings | None = None, *, reingest: bool = True, workers: int | None = None,
          out: Console | None = None, select: list[str] | None = None) -> BuildSummary:
    """Build the warehouse atomically.

    Args:
        settings: paths (default from the environment).
        reingest: parse the sources again (True) or reuse the raw tables of the current
            warehouse and rebuild only the models (False; SPEC §13 "rebuild without re-ingest").
        workers: ingest process-pool size (default: CPU count).
        select: build only these models and their ancestors (development aid).

    Returns:
        BuildSummary.

    Raises:
        BuildLocked: another build is running.
        FileNotFoundError: sources not fetched, or (reingest=False) no warehouse to reuse.
        runner.ModelError / runner.ModelTestFailure: a model or a data test failed; the previous
            warehouse is left as it was.
    """
    settings = settings or config.settings()
    out = out or console()
    target = settings.warehouse
    target.parent.mkdir(parents=True, exist_ok=True)
    summary = BuildSummary()
    with build_lock(target):
        remove_stale_builds(target)
        tmp = target.with_name(f"{target.name}.building-{os.getpid()}")
        try:
            if not reingest:
                if not target.exists():
                    raise FileNotFoundError(f"no warehouse at {target} to rebuild from; run a full build first")
                shutil.copyfile(target, tmp)
            con = duckdb.connect(str(tmp))
            con.execute("set enable_progress_bar = false")  # our own progress bars report models
            con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
            try:
                if reingest:
                    ingest_into(con, settings, out, summary, workers=workers)
                pins.load_missing_files(con, settings)  # source table of mart_seed_reconciliation
                run_models(con, out, summary, select, {"registry_profile": settings.registry_profile})
                con.execute("create or replace table build_log as select ?::json as summary",
                            [json.dumps({"ingest": summary.ingest, "models": summary.models}, sort_keys=True)])
                con.execute("checkpoint")
            finally:
                con.close()
            # A WAL left beside the old warehouse belongs to the old file: never let the new one
            # replay it.
            Path(str(target) + ".wal").unlink(missing_ok=True)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
            Path(str(tmp) + ".wal").unlink(missing_ok=True)
    return summary


def print_summary(summary: BuildSummary, out: Console | None = None) -> None:
    """Print rows in (per project), rows out (per mart) and step timings."""
    out = out or console()
    if summary.ingest:
        t = Table(title="ingest: rows in per project")
        for col in ("project", "files", "sentences", "tokens", "rejects"):
            t.add_column(col, justify="right" if col != "project" else "left")
        for p, v in sorted(summary.ingest.items()):
            t.add_row(p, *(f"{v[k]:,}" for k in ("files", "sentences", "tokens", "rejects")))
        tot = {k: sum(v[k] for v in summary.ingest.values()) for k in ("files", "sentences", "tokens", "rejects")}
        t.add_row("all", *(f"{tot[k]:,}" for k in ("files", "sentences", "tokens", "rejects")))
        out.print(t)
    n_rejects = sum(v["rejects"] for v in summary.ingest.values()) if summary.ingest else 0
    if n_rejects:
        out.print(f"[bold]rejected at ingest: {n_rejects:,}[/bold] (all in table ingest_rejects); first:")
        for path, line, reason in summary.rejects:
            out.print(f"  {path}:{line if line is not None else '?'}: {reason}", markup=False)
    if summary.models:
        t = Table(title="models: rows out")
        t.add_column("model")
        t.add_column("rows", justify="right")
        for m, n in summary.models.items():
            if not m.startswith("stg_"):
                t.add_row(m, f"{n:,}")
        out.print(t)
    out.print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in summary.timings.items()))
