"""``make bench`` (``python -m sphragis.bench``, also ``sphragis bench``): SPEC §13 in one run.

What one run measures, on this machine, against the sources of ``SPHRAGIS_DATA``:

1. **The raw parse floor**: one process, lxml ``iterparse`` over every ``word`` element of every
   XML source file (``el.clear()`` after each) plus a line split of every CoNLL-U file, on a warm
   page cache. Measured before the builds and again after them; the smaller time is the floor.
2. **The full build**, sources to all exports, as two child processes exactly as ``make export``
   runs them (``build`` then ``export``), into a temporary warehouse and export directory
   (``SPHRAGIS_WAREHOUSE``/``SPHRAGIS_OUT`` are pointed at a temporary directory, so the user's
   warehouse is never touched). Fetch is not part of it: if the sources are not unpacked yet,
   ``sphragis fetch`` runs first and is reported separately.
3. **The rebuild**: ``build --models-only`` + ``export`` on the warehouse of step 2.

For each child: wall time, CPU time (user+sys of the whole process tree, from ``wait4``), and
peak memory, sampled every ``--interval`` seconds from ``/proc`` over the whole process tree (the
child and its ingest pool workers): the peak of the summed RSS (an upper bound: pages shared
between the forked workers count once per process), the peak summed PSS (shared pages split), and
the largest single-process RSS (exact, from ``wait4``). Inside the children the steps are timed:
parse, load, models (per model), model data tests, export validation (SPEC §10 render + re-parse)
and export writing.

Printed figures and targets (SPEC §13): ratio full build / floor (≤ 2.0), peak RSS (≤ 2 GiB),
rebuild / full build (≤ 25%), and each step's time and share of the full build. All figures go to
``reports/bench.json`` (``--json``). When a step of a build fails (the models and exporters are
still evolving), the report names the step and the error, keeps every figure measured so far, and
the command exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import config

DESCRIPTION = (
    "Measure the SPEC §13 figures in one run: the raw parse floor (lxml iterparse over every XML word "
    "plus a line split of every CoNLL-U file, one process), a full build from the sources to all exports "
    "(`sphragis build` + `sphragis export` as child processes, into a temporary warehouse and export "
    "directory), and a rebuild without re-ingest (`build --models-only` + `export`). Prints the ratio "
    "full build / floor (target <= 2.0), the peak RSS of the build's process tree (<= 2 GiB), the rebuild's "
    "share of the full build (<= 25%) and each step's time and share; writes them to reports/bench.json. "
    "Exit status 1 if a build or export step failed (the report names it).")
GIB = 1 << 30
TARGETS = {"ratio": 2.0, "peak_rss_bytes": 2 * GIB, "rebuild_share": 0.25}
DEFAULT_JSON = config.REPO_ROOT / "reports" / "bench.json"


# --------------------------------------------------------------------------------------------
# the parse floor


def source_files(settings: config.Settings):
    """The treebank files ingest reads (:func:`sphragis.ingest.load.discover`), or raise
    FileNotFoundError naming the snapshot that is not unpacked."""
    from . import build
    from .ingest import load as ingest_load

    return ingest_load.discover(build.snapshot_roots(settings), config.snapshots())


def parse_floor(files) -> dict:
    """Time the raw parse floor over ``files`` in this process (SPEC §13).

    XML: ``lxml.etree.iterparse(path, events=("end",), tag="{*}word")`` over the whole file,
    clearing each word; CoNLL-U: read, decode (UTF-8, BOM stripped) and ``split("\\n")``. A file
    that is not well formed counts the words up to the error (ingest rejects the rest).

    Returns:
        ``{"seconds", "cpu_seconds", "xml_files", "xml_words", "conllu_files", "conllu_lines",
        "bytes"}``.
    """
    from lxml import etree

    words = lines = n_xml = n_conllu = size = 0
    w0, c0 = time.perf_counter(), time.process_time()
    for f in files:
        size += f.abspath.stat().st_size
        if f.snapshot["format"] == "agdt_xml":
            n_xml += 1
            try:
                for _event, el in etree.iterparse(str(f.abspath), events=("end",), tag="{*}word", huge_tree=True):
                    words += 1
                    el.clear()
            except etree.XMLSyntaxError:
                pass
        else:
            n_conllu += 1
            lines += len(f.abspath.read_bytes().decode("utf-8-sig").split("\n"))
    return {"seconds": time.perf_counter() - w0, "cpu_seconds": time.process_time() - c0,
            "xml_files": n_xml, "xml_words": words, "conllu_files": n_conllu, "conllu_lines": lines,
            "bytes": size}


def warm_cache(files) -> None:
    """Read every source file once so that the floor and the builds all run on a warm page cache."""
    for f in files:
        f.abspath.read_bytes()


# --------------------------------------------------------------------------------------------
# process-tree memory sampling


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(x) for x in fh.read().split())
        except OSError:
            continue
    return out


def _tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (Linux ``/proc/<pid>/task/<tid>/children``)."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(_children(p))
    return seen


def _rss_pss(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in bytes; (0, 0) once it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/statm") as fh:
            rss = int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0, 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError):
        pss = rss
    return rss, pss


@dataclass
class TreeSampler:
    """Samples the summed RSS/PSS of a process tree in a background thread until stopped."""

    pid: int
    interval: float = 0.1
    peak_rss: int = 0
    peak_pss: int = 0
    peak_processes: int = 0
    samples: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def sample(self) -> None:
        pids = _tree(self.pid)
        rss = pss = 0
        for p in pids:
            r, s = _rss_pss(p)
            rss += r
            pss += s
        self.samples += 1
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_pss = max(self.peak_pss, pss)
        self.peak_processes = max(self.peak_processes, len(pids))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def start(self) -> TreeSampler:
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


# --------------------------------------------------------------------------------------------
# child processes


@dataclass
class ChildResult:
    """One measured child process (a build, a rebuild or an export)."""

    name: str
    argv: list[str]
    returncode: int
    wall: float
    cpu: float
    peak_rss_tree: int
    peak_pss_tree: int
    max_process_rss: int
    peak_processes: int
    report: dict
    log: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.report.get("ok"))

    def as_json(self) -> dict:
        return {"returncode": self.returncode, "ok": self.ok, "wall_seconds": self.wall, "cpu_seconds": self.cpu,
                "peak_rss_tree_bytes": self.peak_rss_tree, "peak_pss_tree_bytes": self.peak_pss_tree,
                "max_process_rss_bytes": self.max_process_rss, "peak_processes": self.peak_processes,
                "argv": self.argv, "log": self.log, **{k: v for k, v in self.report.items() if k != "ok"}}


def run_child(name: str, mode: str, env: dict[str, str], workdir: Path, *, interval: float,
              extra: list[str] | None = None) -> ChildResult:
    """Run ``python -m sphragis.bench --child <mode>`` with ``env``, sampling its process tree.

    The child's stdout/stderr go to ``<workdir>/<name>.log``; its step timings come back through
    ``<workdir>/<name>.json`` (written as it goes, so a crash still leaves the steps done).
    """
    report_path = workdir / f"{name}.json"
    log_path = workdir / f"{name}.log"
    report_path.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "sphragis.bench", "--child", mode, "--child-report", str(report_path),
            *(extra or [])]
    with open(log_path, "wb") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(config.REPO_ROOT))
        sampler = TreeSampler(proc.pid, interval).start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            sampler.stop()
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = {"ok": False, "error": "the child wrote no report (crashed before its first step)"}
    if proc.returncode != 0 and report.get("ok"):
        report["ok"] = False
    if proc.returncode < 0 and "error" not in report:
        report["error"] = f"killed by signal {-proc.returncode}"
    return ChildResult(name, argv[1:], proc.returncode, wall, usage.ru_utime + usage.ru_stime,
                       sampler.peak_rss, sampler.peak_pss, usage.ru_maxrss * 1024, sampler.peak_processes,
                       report, str(log_path))


class _ChildReport:
    """The JSON a child writes for the parent: updated after every step."""

    def __init__(self, path: Path):
        self.path = path
        self.data: dict = {"ok": False, "step": "start", "timings": {}, "model_seconds": {}}

    def step(self, name: str) -> None:
        self.data["step"] = name
        self.flush()

    def flush(self) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, default=str), encoding="utf-8")
        os.replace(tmp, self.path)


def _child_build(report: _ChildReport, *, reingest: bool, workers: int | None) -> None:
    """A build as ``sphragis build`` runs it, with timing hooks on ingest, models and data tests."""
    from . import build, runner

    timings = report.data["timings"]
    orig_ingest, orig_models = build.ingest_into, build.run_models
    orig_run, orig_tests = runner.run, runner.run_tests
    captured: dict = {}

    def ingest_into(con, settings, out, summary, **kw):
        report.step("ingest")
        captured["summary"] = summary
        try:
            return orig_ingest(con, settings, out, summary, **kw)
        finally:
            timings.update({k: summary.timings[k] for k in ("parse", "load") if k in summary.timings})
            report.flush()

    def run_models(con, out, summary, select=None):
        report.step("models")
        captured["summary"] = summary
        t0 = time.perf_counter()
        try:
            return orig_models(con, out, summary, select)
        finally:
            timings["models_and_tests"] = time.perf_counter() - t0
            report.flush()

    def run(con, project=None, *, on_model=None, **kw):
        def hook(name, secs, rows):
            report.data["model_seconds"][name] = secs
            report.data["step"] = f"models ({name} done)"
            report.flush()
            if on_model:
                on_model(name, secs, rows)
        return orig_run(con, project, on_model=hook, **kw)

    def run_tests(con, project, only=None):
        report.step("model data tests")
        t0 = time.perf_counter()
        try:
            return orig_tests(con, project, only)
        finally:
            timings["model_tests"] = time.perf_counter() - t0
            report.flush()

    build.ingest_into, build.run_models = ingest_into, run_models
    runner.run, runner.run_tests = run, run_tests
    t0 = time.perf_counter()
    summary = build.build(reingest=reingest, workers=workers)
    report.step("swap")
    timings["build_total"] = time.perf_counter() - t0
    if "models_and_tests" in timings:
        timings["models"] = timings["models_and_tests"] - timings.get("model_tests", 0.0)
    report.data["ingest"] = summary.ingest
    report.data["rows_out"] = sum(summary.models.values())


def _child_export(report: _ChildReport) -> None:
    """An export as ``sphragis export`` runs it, timing the SPEC §10 validation separately."""
    from .export import writer

    timings = report.data["timings"]
    orig_validate = writer.validate_published_units

    def validate(*args, **kwargs):
        report.step("validation")
        t0 = time.perf_counter()
        try:
            return orig_validate(*args, **kwargs)
        finally:
            timings["validation"] = time.perf_counter() - t0
            report.step("export write")

    writer.validate_published_units = validate
    report.step("export")
    t0 = time.perf_counter()
    result = writer.export(config.settings())
    timings["export_total"] = time.perf_counter() - t0
    timings["export_write"] = timings["export_total"] - timings.get("validation", 0.0)
    report.data["units_validated"] = result.get("units_validated")
    report.data["configs"] = len(result.get("configs", {}))


def child_main(mode: str, report_path: Path, workers: int | None) -> int:
    """Entry point of a measured child (``--child build|rebuild|export``)."""
    report = _ChildReport(report_path)
    report.flush()
    try:
        if mode == "build":
            _child_build(report, reingest=True, workers=workers)
        elif mode == "rebuild":
            _child_build(report, reingest=False, workers=workers)
        elif mode == "export":
            _child_export(report)
        else:
            raise ValueError(f"unknown child mode {mode!r}")
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, then re-raised
        report.data["error"] = f"{type(exc).__name__}: {exc}"
        report.data["failed_step"] = report.data["step"]
        report.flush()
        print(f"sphragis bench ({mode}): step {report.data['step']!r} failed: {exc}", file=sys.stderr)
        return 1
    report.data["ok"] = True
    report.step("done")
    return 0


# --------------------------------------------------------------------------------------------
# the run


def _env(settings: config.Settings, warehouse: Path, out: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"SPHRAGIS_DATA": str(settings.data), "SPHRAGIS_WAREHOUSE": str(warehouse), "SPHRAGIS_OUT": str(out)})
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _ensure_sources(settings: config.Settings, env: dict[str, str], workdir: Path) -> tuple[list, dict]:
    """The source files, running ``sphragis fetch`` (timed, reported apart) if they are not unpacked."""
    try:
        return source_files(settings), {"ran": False, "seconds": None,
                                        "note": f"sources already unpacked in {settings.data}"}
    except FileNotFoundError as exc:
        _say(f"bench: sources not unpacked ({exc}); running `sphragis fetch` first (not part of the build time)")
    t0 = time.perf_counter()
    log = workdir / "fetch.log"
    with open(log, "wb") as fh:
        rc = subprocess.call([sys.executable, "-m", "sphragis.cli", "fetch", "--quiet"], env=env, stdout=fh,
                             stderr=subprocess.STDOUT, cwd=str(config.REPO_ROOT))
    fetch = {"ran": True, "seconds": time.perf_counter() - t0, "returncode": rc, "log": str(log)}
    if rc != 0:
        raise RuntimeError(f"`sphragis fetch` failed (exit {rc}): {_tail(log)}")
    return source_files(settings), fetch


def _tail(path: Path | str, n: int = 3) -> str:
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def _pair(build: ChildResult, export: ChildResult | None) -> dict:
    """Combined figures of a build child and the export child after it."""
    children = [c for c in (build, export) if c is not None]
    failed = next((c for c in children if not c.ok), None)
    out = {
        "ok": failed is None and export is not None,
        "wall_seconds": sum(c.wall for c in children),
        "cpu_seconds": sum(c.cpu for c in children),
        "peak_rss_tree_bytes": max(c.peak_rss_tree for c in children),
        "peak_pss_tree_bytes": max(c.peak_pss_tree for c in children),
        "max_process_rss_bytes": max(c.max_process_rss for c in children),
        "build": build.as_json(),
        "export": export.as_json() if export is not None else None,
    }
    if failed is not None:
        out["failed"] = {"child": failed.name, "step": failed.report.get("failed_step", failed.report.get("step")),
                         "error": failed.report.get("error") or _tail(failed.log)}
    elif export is None:
        out["failed"] = {"child": "export", "step": "not run", "error": "export skipped"}
    return out


def _steps(full: dict) -> dict:
    """Each step of the full build with seconds and share of the full build's wall time."""
    b = (full["build"] or {}).get("timings", {})
    e = ((full.get("export") or {}) or {}).get("timings", {})
    steps = {
        "parse": b.get("parse"),
        "load": b.get("load"),
        "models": b.get("models"),
        "model_tests": b.get("model_tests"),
        "validation": e.get("validation"),
        "export_write": e.get("export_write"),
    }
    measured = sum(v for v in steps.values() if v is not None)
    steps["other"] = max(0.0, full["wall_seconds"] - measured)  # interpreter start-up, imports, swap, checkpoint
    total = full["wall_seconds"] or float("nan")
    return {k: {"seconds": v, "share": (v / total if v is not None else None)} for k, v in steps.items()}


def run_bench(*, json_path: Path = DEFAULT_JSON, workdir: Path | None = None, keep: bool = False,
              workers: int | None = None, interval: float = 0.1, rebuild: bool = True) -> dict:
    """Run the whole benchmark (module docstring) and write ``json_path``; returns the report."""
    settings = config.settings()
    own_tmp = workdir is None
    work = Path(tempfile.mkdtemp(prefix="sphragis-bench-")) if own_tmp else Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    warehouse, out = work / "warehouse.duckdb", work / "sphragis"
    env = _env(settings, warehouse, out)
    extra = ["--workers", str(workers)] if workers else []
    report: dict = {
        "spec": "SPEC §13", "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "mem_total_bytes": _mem_total(), "loadavg_start": list(os.getloadavg())},
        "paths": {"data": str(settings.data), "workdir": str(work), "warehouse": str(warehouse), "out": str(out)},
        "targets": TARGETS,
    }
    try:
        files, report["fetch"] = _ensure_sources(settings, env, work)
        _say(f"bench: {len(files)} source files in {settings.data}; warming the page cache")
        warm_cache(files)
        floor1 = parse_floor(files)
        _say(f"bench: parse floor {floor1['seconds']:.2f}s ({floor1['xml_words']:,} XML words, "
             f"{floor1['conllu_lines']:,} CoNLL-U lines)")

        _say("bench: full build (sphragis build) ...")
        b = run_child("build", "build", env, work, interval=interval, extra=extra)
        _say(f"bench:   build {'ok' if b.ok else 'FAILED'} in {b.wall:.1f}s")
        e = None
        if b.ok:
            _say("bench: export (sphragis export) ...")
            e = run_child("export", "export", env, work, interval=interval)
            _say(f"bench:   export {'ok' if e.ok else 'FAILED'} in {e.wall:.1f}s")
        full = _pair(b, e)
        report["full_build"] = full

        if rebuild and b.ok:
            _say("bench: rebuild without re-ingest (sphragis build --models-only) ...")
            rb = run_child("rebuild", "rebuild", env, work, interval=interval, extra=extra)
            _say(f"bench:   rebuild {'ok' if rb.ok else 'FAILED'} in {rb.wall:.1f}s")
            re_ = None
            if rb.ok:
                re_ = run_child("rebuild-export", "export", env, work, interval=interval)
                _say(f"bench:   export {'ok' if re_.ok else 'FAILED'} in {re_.wall:.1f}s")
            report["rebuild"] = _pair(rb, re_)
        else:
            report["rebuild"] = {"ok": False, "skipped": "the full build failed, so there is no warehouse to rebuild"
                                 if not b.ok else "--no-rebuild"}

        floor2 = parse_floor(files)
        report["floor"] = {**min(floor1, floor2, key=lambda f: f["seconds"]),
                           "runs_seconds": [floor1["seconds"], floor2["seconds"]]}
        report["steps"] = _steps(full)
        report["figures"] = _figures(report)
    finally:
        report["machine"]["loadavg_end"] = list(os.getloadavg())
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        if own_tmp and not keep:
            shutil.rmtree(work, ignore_errors=True)
    return report


def _mem_total() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _figures(report: dict) -> dict:
    full, rb, floor = report["full_build"], report.get("rebuild") or {}, report["floor"]["seconds"]
    ingest = sum((full["build"].get("timings") or {}).get(k) or 0.0 for k in ("parse", "load"))
    fig = {
        "floor_seconds": floor,
        "full_build_seconds": full["wall_seconds"] if full["ok"] else None,
        "ratio": full["wall_seconds"] / floor if full["ok"] and floor else None,
        "ingest_ratio": ingest / floor if ingest and floor else None,
        "peak_rss_bytes": full["peak_rss_tree_bytes"],
        "peak_pss_bytes": full["peak_pss_tree_bytes"],
        "max_process_rss_bytes": full["max_process_rss_bytes"],
        "rebuild_seconds": rb.get("wall_seconds") if rb.get("ok") else None,
        "rebuild_share": rb["wall_seconds"] / full["wall_seconds"] if rb.get("ok") and full["ok"] else None,
    }
    if rb.get("peak_rss_tree_bytes"):
        fig["peak_rss_bytes"] = max(fig["peak_rss_bytes"], rb["peak_rss_tree_bytes"])
        fig["peak_pss_bytes"] = max(fig["peak_pss_bytes"], rb["peak_pss_tree_bytes"])
    fig["met"] = {
        "ratio": None if fig["ratio"] is None else fig["ratio"] <= TARGETS["ratio"],
        "peak_rss": fig["peak_rss_bytes"] <= TARGETS["peak_rss_bytes"],
        "rebuild_share": None if fig["rebuild_share"] is None else fig["rebuild_share"] <= TARGETS["rebuild_share"],
    }
    return fig


def print_report(report: dict, json_path: Path) -> None:
    """Human-readable summary of :func:`run_bench`'s report."""
    from rich.console import Console
    from rich.table import Table

    con = Console(stderr=False, highlight=False)
    fig, full, floor = report.get("figures", {}), report.get("full_build", {}), report.get("floor", {})

    def gib(n):
        return f"{n / GIB:.2f} GiB" if n is not None else "n/a"

    def secs(v):
        return f"{v:.2f}s" if v is not None else "n/a"

    def verdict(ok):
        return "n/a" if ok is None else ("met" if ok else "MISSED")

    con.print(f"parse floor: {secs(floor.get('seconds'))} (runs {', '.join(secs(x) for x in floor.get('runs_seconds', []))}; "
              f"{floor.get('xml_files', 0)} XML files / {floor.get('xml_words', 0):,} words, "
              f"{floor.get('conllu_files', 0)} CoNLL-U files / {floor.get('conllu_lines', 0):,} lines, "
              f"{floor.get('bytes', 0) / 1e6:.0f} MB)")
    fetch = report.get("fetch", {})
    con.print("fetch: " + (f"ran separately, {secs(fetch.get('seconds'))}" if fetch.get("ran") else "not needed"))
    if not full.get("ok"):
        f = full.get("failed", {})
        con.print(f"[bold red]full build FAILED[/] in {f.get('child')} at step {f.get('step')!r}: {f.get('error')}")
    t = Table(title="SPEC §13 figures")
    for c in ("figure", "value", "target", "verdict"):
        t.add_column(c)
    met = fig.get("met", {})
    ratio = fig.get("ratio")
    t.add_row("full build / floor", f"{ratio:.2f}" if ratio is not None else "n/a",
              f"≤ {TARGETS['ratio']}", verdict(met.get("ratio")))
    t.add_row("  (full build time)", secs(fig.get("full_build_seconds")), "", "")
    ir = fig.get("ingest_ratio")
    t.add_row("  (ingest only / floor)", f"{ir:.2f}" if ir is not None else "n/a", "", "")
    t.add_row("peak RSS (process tree)", gib(fig.get("peak_rss_bytes")), "≤ 2 GiB", verdict(met.get("peak_rss")))
    t.add_row("  (peak PSS / largest process)", f"{gib(fig.get('peak_pss_bytes'))} / {gib(fig.get('max_process_rss_bytes'))}",
              "", "")
    share = fig.get("rebuild_share")
    t.add_row("rebuild / full build", f"{share:.0%}" if share is not None else "n/a",
              f"≤ {TARGETS['rebuild_share']:.0%}", verdict(met.get("rebuild_share")))
    t.add_row("  (rebuild time)", secs(fig.get("rebuild_seconds")), "", "")
    con.print(t)
    s = Table(title="full build steps")
    for c in ("step", "seconds", "share"):
        s.add_column(c, justify="left" if c == "step" else "right")
    for name, v in report.get("steps", {}).items():
        s.add_row(name, secs(v["seconds"]), f"{v['share']:.0%}" if v["share"] is not None else "n/a")
    con.print(s)
    models = (full.get("build") or {}).get("model_seconds") or {}
    if models:
        top = sorted(models.items(), key=lambda kv: -kv[1])[:8]
        con.print("slowest models: " + ", ".join(f"{m} {v:.1f}s" for m, v in top))
    la = report.get("machine", {})
    con.print(f"load average at start/end: {la.get('loadavg_start', [0])[0]:.1f} / {la.get('loadavg_end', [0])[0]:.1f} "
              f"on {la.get('cpus')} CPUs; figures written to {json_path}")


# --------------------------------------------------------------------------------------------
# command line


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", default=str(DEFAULT_JSON), metavar="PATH",
                   help=f"where to write the figures (default {DEFAULT_JSON.relative_to(config.REPO_ROOT)})")
    p.add_argument("--workdir", metavar="DIR", help="build into DIR (kept) instead of a temporary directory")
    p.add_argument("--keep", action="store_true", help="keep the temporary warehouse, export and child logs")
    p.add_argument("--workers", type=int, default=None, help="ingest processes (default: CPU count)")
    p.add_argument("--interval", type=float, default=0.1, help="memory sampling interval in seconds (default 0.1)")
    p.add_argument("--no-rebuild", action="store_true", help="skip the rebuild measurement")
    p.add_argument("--child", choices=("build", "rebuild", "export"), help=argparse.SUPPRESS)
    p.add_argument("--child-report", help=argparse.SUPPRESS)


def _run(args: argparse.Namespace) -> int:
    if args.child:
        return child_main(args.child, Path(args.child_report), args.workers)
    json_path = Path(args.json)
    report = run_bench(json_path=json_path, workdir=Path(args.workdir) if args.workdir else None, keep=args.keep,
                       workers=args.workers, interval=args.interval, rebuild=not args.no_rebuild)
    print_report(report, json_path)
    return 0 if report.get("full_build", {}).get("ok") and (args.no_rebuild or report.get("rebuild", {}).get("ok")) else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench`` to the ``sphragis`` CLI (see :mod:`sphragis.cli`)."""
    p = subparsers.add_parser(
        "bench", help="full build / raw-parse floor ratio, peak RSS and rebuild share (SPEC §13)",
        description=DESCRIPTION)
    _add_arguments(p)
    p.set_defaults(func=_run)


def main(argv: list[str] | None = None) -> int:
    """``python -m sphragis.bench [--json PATH] [--workdir DIR] [--keep] [--workers N]``."""
    p = argparse.ArgumentParser(prog="python -m sphragis.bench", description=DESCRIPTION)
    _add_arguments(p)
    args = p.parse_args(argv)
    try:
        return _run(args)
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"sphragis bench: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
