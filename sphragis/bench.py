"""``make bench`` (``python -m sphragis.bench``, also ``sphragis bench``): SPEC §13 in one run.

Every build and export runs as a child process (``python -m sphragis.bench --child build|export``)
into a temporary warehouse and export directory, so the user's are never touched. A child calls
:func:`sphragis.build.build` / :func:`sphragis.export.writer.export` and reads the step timings
they record (``BuildSummary.timings`` via the ``on_step`` hook, the export report's ``timings``);
a thread samples the memory of the child and its workers with psutil (PSS summed over the process
tree, so pages forked workers share with their parent count once; still called "peak RSS" in the
report) and keeps the peak per step (:mod:`sphragis.measure`). One run measures, in order:

1. **the parse floor**: lxml ``iterparse`` over every XML ``word`` plus a line split of every
   CoNLL-U file, one process, warm page cache (the smaller of a run before and one after);
2. **full**: ``build --full`` + ``export --full`` (sources to all exports);
3. **no change**: ``build`` + ``export`` again (everything reused);
4. **one-row edit**: the same after editing one row of ``works_registry.csv`` (a work title);
5. **growth**: full builds from 25 % and 50 % of the source files (a deterministic subset: per
   snapshot, the files with the smallest sha256 of their path) beside the 100 % of step 2; time
   and peak RSS per step at each size and the exponent ``b`` of ``time ≈ a · size^b`` fitted by
   least squares on log-log (size = bytes of source read), so a build on a corpus ``k`` times
   larger is predicted to take ``k^b`` times as long;
6. **long sentence** (SPEC §13): a full build of a small tree (the 0 % subset: one file per
   snapshot) alone, then with one more UD Perseus file holding a flat sentence of
   :data:`sphragis.bench_inputs.LONG_FLAT_TOKENS` tokens (every token under the root), a chain of
   :data:`sphragis.bench_inputs.LONG_CHAIN_TOKENS` (each token under the previous one, the deepest tree the build
   accepts) and a cycle as long, then with the flat sentence
   :data:`sphragis.bench_inputs.LONGER_FLAT_TOKENS` long; time, CPU and peak RSS of each, the models
   that took longest, and the longer build against the long one
   (:func:`sphragis.bench_inputs.longer_vs_long`: a build linear in a sentence's length adds about
   five times as much, and the models growing faster are named).
7. **what users wait for**, after those: ``sphragis audit --full`` and ``sphragis export-treebank``
   (with the UD validator, its cache cleared) as children of their own, each with wall time, CPU
   and peak RSS, and ``make export`` end to end from unpacked sources = the full build + full
   export of step 2 + the audit (wall and CPU summed, peak RSS the largest), and its ratio to the
   parse floor;
8. **the CPU-second budget** (:func:`budget`): per step of ``make export`` (the build's steps,
   the export, the audit's load, fits and outputs) and of ``make treebank``, its CPU seconds (the
   child's own and its workers', :class:`sphragis.measure.Sampler`), its share of ``make export``'s
   CPU, its peak RSS and what it buys (:data:`BUYS`).

``--fraction F`` runs all of it on a deterministic fraction of the source files (as the growth
builds choose them) without the growth builds: a smoke run of a few minutes.

Each child's CPU time (user + system, with the worker processes it waits for) is measured too:
the full build's CPU divided by the machine's cores is the least wall time any schedule of that
work could take, printed beside the ratio.

Targets: full build / floor ≤ 10 (SPEC's 2.0 stays the goal), peak RSS ≤ 2 GiB (the
long-sentence build included),
no-change rebuild ≤ 5 % and one-row-edit rebuild ≤ 40 % of the full build (same run). Figures go to
``reports/bench.json``. The machine may be shared: compare only figures of one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import config
from .bench_inputs import (LONG_CHAIN_TOKENS, LONG_FLAT_TOKENS, LONGER_FLAT_TOKENS, edited_seeds, long_sentence_file,
                           longer_vs_long, parse_floor, source_files, subset_files, subset_tree)
from .files import check_output_file, write_text_atomic
from .measure import Sampler, timed_call
from .state import state_dir

DESCRIPTION = ("Measure SPEC §13 in one run: parse floor, full build (build --full + export --full), "
               "no-change rebuild, rebuild after a one-row works_registry.csv edit, peak RSS, and builds "
               "from 25/50/100%% of the source files with the fitted growth exponent per step, and a small "
               "build with and without a 20,000-token (then a 100,000-token) sentence, a 1,000-deep chain and a "
               "1,000-token cycle.")
GIB = 1 << 30
TARGETS = {"ratio": 10.0, "spec_ratio": 2.0, "peak_rss_bytes": 2 * GIB, "no_change_share": 0.05,
           "edit_share": 0.40}
#: Wall-time targets (seconds) of what users wait for, keyed as :func:`waits` names them.
WAIT_TARGETS = {"audit": 30.0, "treebank": 150.0, "make export": 120.0}
SIZES = (0.25, 0.5, 1.0)
DEFAULT_JSON = config.REPO_ROOT / "reports" / "bench.json"
def child_main(mode: str, report_path: Path, *, full: bool, seeds: str | None) -> int:
    """A measured child: one build or one export, its timings and RSS peaks written to ``report_path``."""
    from rich.console import Console

    from . import build, runner

    sampler = Sampler()
    data: dict = {"mode": mode, "ok": False}
    t0 = time.perf_counter()
    try:
        if mode == "build":
            project = runner.load_project(seeds_dir=Path(seeds)) if seeds else None
            s = build.build(full=full, project=project, out=Console(stderr=True, quiet=True), on_step=sampler.step)
            data["timings"] = s.timings
            data["status"] = {k: sum(1 for v in s.status.values() if v[0] == k) for k in ("built", "reused")}
            data["tests"] = s.tests
            data["model_seconds"] = s.model_seconds
        elif mode == "audit":
            from . import audit

            sampler.step("audit")
            data["exit"] = audit._cmd_audit(argparse.Namespace(out=None, config=None, full=True, quiet=True,
                                                               report=False), on_step=sampler.step)
        elif mode == "treebank":
            from .export import treebank

            sampler.step("treebank")
            out = config.settings().out.with_name("treebank")
            shutil.rmtree(state_dir(out), ignore_errors=True)  # validate every file
            m = treebank.export_treebank(out)
            data["timings"] = m["seconds"]
        else:
            from .export import writer  # only here: a build child pays no Arrow import, as `sphragis build`

            sampler.step("export")
            r = writer.export(config.settings(), full=full)
            data["timings"], data["reuse"] = r.get("timings", {}), r.get("reuse", {})
        data["ok"] = True
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        data["error"] = f"{type(exc).__name__}: {exc}"
    data["seconds"] = time.perf_counter() - t0
    data["peak_rss_by_step"] = sampler.stop()
    data["cpu_by_step"] = sampler.cpu
    report_path.write_text(json.dumps(data, default=str), encoding="utf-8")
    return 0 if data["ok"] else 1


def run_child(mode: str, env: dict, work: Path, name: str, *flags: str) -> dict:
    """Run one child (``mode`` build|export) with ``env``; its report plus the wall and CPU time."""
    report = work / f"{name}-{mode}.json"
    argv = [sys.executable, "-m", "sphragis.bench", "--child", mode, "--child-report", str(report), *flags]
    with open(work / f"{name}-{mode}.log", "wb") as log:
        rc, wall, cpu = timed_call(argv, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(config.REPO_ROOT))
    try:
        out = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        out = {"ok": False, "error": f"no report (exit {rc}); see {work / f'{name}-{mode}.log'}"}
    return {**out, "wall_seconds": wall, "cpu_seconds": cpu, "ok": out.get("ok", False) and rc == 0}


def scenario(name: str, env: dict, work: Path, *, full: bool = False, seeds: Path | None = None) -> dict:
    """A build then an export child; wall time, peak RSS and the steps of both."""
    flags = (["--full"] if full else []) + (["--seeds", str(seeds)] if seeds else [])
    _say(f"bench: {name} ...")
    b = run_child("build", env, work, name, *flags)
    e = run_child("export", env, work, name, *(["--full"] if full else [])) if b["ok"] else {"ok": False}
    res = {"ok": b["ok"] and e["ok"], "build": b, "export": e,
           "wall_seconds": b["wall_seconds"] + e.get("wall_seconds", 0.0),
           "cpu_seconds": b.get("cpu_seconds", 0.0) + e.get("cpu_seconds", 0.0),
           "peak_rss_bytes": max([*b.get("peak_rss_by_step", {}).values(), *e.get("peak_rss_by_step", {}).values(), 0]),
           "error": b.get("error") or e.get("error")}
    _say(f"bench:   {name}: {'ok' if res['ok'] else 'FAILED: ' + str(res['error'])} in {res['wall_seconds']:.1f}s")
    return res


def _figure(r: dict) -> dict:
    """Wall, CPU and peak RSS of one child's result, and its CPU and peak RSS per step."""
    return {"ok": r.get("ok", False), "wall_seconds": r.get("wall_seconds"), "cpu_seconds": r.get("cpu_seconds"),
            "peak_rss_bytes": max([*r.get("peak_rss_by_step", {}).values(), 0]), "error": r.get("error"),
            "cpu_by_step": r.get("cpu_by_step", {}), "peak_rss_by_step": r.get("peak_rss_by_step", {})}


def waits(full: dict, env: dict, work: Path) -> dict[str, dict]:
    """What users wait for (module docstring, 6.): the full build and export of ``full`` (step 2),
    then an audit and a treebank export run here, and ``make export`` end to end (build + export +
    audit summed); each ``{"ok", "wall_seconds", "cpu_seconds", "peak_rss_bytes"}``."""
    out = {"build": _figure(full["build"]), "export": _figure(full.get("export") or {})}
    for mode in ("audit", "treebank"):
        _say(f"bench: {mode} ...")
        out[mode] = _figure(run_child(mode, env, work, "waits", "--full") if full["ok"] else {})
        _say(f"bench:   {mode}: {'ok' if out[mode]['ok'] else 'FAILED: ' + str(out[mode]['error'])}")
    parts = [out[k] for k in ("build", "export", "audit")]
    out["make export"] = {"ok": all(p["ok"] for p in parts),
                          "wall_seconds": sum(p["wall_seconds"] or 0.0 for p in parts),
                          "cpu_seconds": sum(p["cpu_seconds"] or 0.0 for p in parts),
                          "peak_rss_bytes": max(p["peak_rss_bytes"] for p in parts), "error": None}
    return out


#: What a second of each measured step buys (the CPU-second budget of ``make bench``): the step
#: names are the build's ``on_step`` steps, the export, the audit's steps and the treebank export.
BUYS = {
    "start": "the child process's start: Python and library imports",
    "check sources": "sha256 check of the pinned source files: an edited or unpinned file is refused (SPEC §2)",
    "plan": "fingerprints of models, seeds and raw tables: what must be rebuilt",
    "copy warehouse": "the new warehouse beside the old one, swapped in only on success",
    "ingest": "parse + load: every file, sentence and token in the lossless raw layer, rejects with reasons (§2)",
    "models": "the SQL models (normalization §3-§5, curation §6, dedup, overlap and splits §7-§8, "
              "variation §11) and their data tests",
    "record contents": "row hashes of every table: changes made behind the build's back are noticed",
    "swap": "checkpoint and atomic replacement of the warehouse",
    "export": "every published unit through the CoNLL 2018 loader, the Parquet configurations and the card (§9-§10)",
    "audit": "the audit's start: the state check (the fits are reused when nothing they read changed)",
    "audit: load": "the export read once, markup and character n-gram counts per distinct unit",
    "audit: fits": "the leaderboard's floor and baselines: markup→author, markup→project, text→author "
                   "LinearSVC fits of every configuration (§11)",
    "audit: outputs": "leakage report, reference submission, card re-rendered, audit_results table",
    "treebank": "the leakage-clean CoNLL-U training treebank, both loaders and the UD validator (levels 1-5)",
}


def budget(waits_: dict[str, dict]) -> list[dict]:
    """The CPU-second budget of ``make export`` (build, export, audit) and ``make treebank``: per
    measured step (:data:`BUYS`, in the order run) its CPU seconds (user + system, the workers it
    waited for included), its share of the ``make export`` CPU, its peak RSS and what it buys.

    Returns:
        ``[{"step", "part", "cpu_seconds", "share_of_make_export", "peak_rss_bytes", "buys"}]``;
        a part measured without steps (an older child) is one row named after the part.
    """
    total = (waits_.get("make export") or {}).get("cpu_seconds") or 0.0
    rows = []
    for part in ("build", "export", "audit", "treebank"):
        w = waits_.get(part) or {}
        steps = dict(w.get("cpu_by_step") or {})
        if not steps and w.get("cpu_seconds") is not None:
            steps = {part: w["cpu_seconds"]}
        for name, cpu in steps.items():
            rows.append({"step": name, "part": part, "cpu_seconds": cpu,
                         "share_of_make_export": cpu / total if total and part != "treebank" else None,
                         "peak_rss_bytes": (w.get("peak_rss_by_step") or {}).get(name, w.get("peak_rss_bytes")),
                         "buys": BUYS.get(name, "")})
    return rows


def steps_of(res: dict) -> dict[str, dict]:
    """Per step: seconds and peak RSS (the RSS of the hook step that contains it)."""
    b, e = res["build"], res.get("export") or {}
    bt, et, bp, ep = b.get("timings", {}), e.get("timings", {}), b.get("peak_rss_by_step", {}), e.get("peak_rss_by_step", {})
    out = {k: {"seconds": bt.get(k), "peak_rss_bytes": bp.get("ingest")} for k in ("parse", "load")}
    out["models"] = {"seconds": bt.get("models"), "peak_rss_bytes": bp.get("models")}
    out["model tests"] = {"seconds": bt.get("model tests"), "peak_rss_bytes": bp.get("models")}
    for k in ("fetch units", "validation", "writing"):
        out[k] = {"seconds": et.get(k), "peak_rss_bytes": ep.get("export")}
    out["total"] = {"seconds": res["wall_seconds"], "peak_rss_bytes": res["peak_rss_bytes"]}
    return out


def growth_exponent(sizes: list[float], seconds: list[float | None]) -> float | None:
    """Least-squares slope of log(seconds) on log(size): ``b`` in ``seconds ≈ a · size^b``."""
    pts = [(math.log(s), math.log(t)) for s, t in zip(sizes, seconds) if t and t > 0]
    if len(pts) < 2:
        return None
    mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
    var = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / var if var else None


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _env(data: Path, work: Path, tag: str) -> dict:
    return {**os.environ, "SPHRAGIS_DATA": str(data), "SPHRAGIS_WAREHOUSE": str(work / f"{tag}.duckdb"),
            "SPHRAGIS_OUT": str(work / f"{tag}-out"), "PYTHONUNBUFFERED": "1"}


def run_bench(json_path: Path = DEFAULT_JSON, workdir: Path | None = None, keep: bool = False,
              growth: bool = True, fraction: float | None = None) -> dict:
    """Run every measurement of the module docstring; write and return the report. ``fraction``:
    measure on that fraction of the source files only (:func:`subset_tree`; a smoke run)."""
    settings = config.settings()
    work = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="sphragis-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    report: dict = {"spec": "SPEC §13", "cpus": cpus, "loadavg_start": os.getloadavg()[0],
                    "targets": TARGETS | {"wall_seconds": WAIT_TARGETS}, "workdir": str(work)}
    try:
        files = source_files(settings)
        if fraction:  # a smoke run: the floor and every step on the same fraction of the files
            files = subset_files(files, fraction)
        for f in files:  # warm the page cache
            f.abspath.read_bytes()
        floors = [parse_floor(files)]
        _say(f"bench: parse floor {floors[0]['seconds']:.2f}s over {len(files)} files")
        data = settings.data
        if fraction:
            report["fraction"] = fraction
            subset_tree(files, 1.0, work / "data-smoke")  # files is that fraction already
            data = work / "data-smoke"
        env = _env(data, work, "w100")
        runs = {"full": scenario("full build", env, work, full=True)}
        runs["no_change"] = scenario("no-change rebuild", env, work)
        runs["edit"] = scenario("one-row works_registry.csv edit", env, work, seeds=edited_seeds(work / "seeds"))
        total_bytes = sum(f.abspath.stat().st_size for f in files)
        sizes = {fraction or 1.0: (total_bytes, runs["full"])}
        if growth:
            for frac in SIZES[:-1]:
                tag = f"w{int(frac * 100)}"
                size = subset_tree(files, frac, work / f"data-{tag}")
                sizes[frac] = (size, scenario(f"{int(frac * 100)}% build", _env(work / f"data-{tag}", work, tag),
                                              work, full=True))
        report["long_sentence"] = long_sentence_runs(files, work)
        report["waits"] = waits(runs["full"], env, work)
        report["budget"] = budget(report["waits"])
        floors.append(parse_floor(files))
        report["floor"] = min(floors, key=lambda f: f["seconds"])
        report["runs"] = runs
        report["growth"] = _growth(sizes)
        report["figures"] = _figures(report)
    finally:
        report["loadavg_end"] = os.getloadavg()[0]
        write_text_atomic(check_output_file(json_path, protected=config.settings().inputs(), force=True),
                          json.dumps(report, indent=1, default=str) + "\n")
        if not workdir and not keep:
            shutil.rmtree(work, ignore_errors=True)
    return report


def long_sentence_runs(files, work: Path) -> dict:
    """Step 6 of the module docstring: full builds (and exports) of the 0 % subset of ``files``
    alone (``small``), with :func:`long_sentence_file` beside it (``long``: a flat sentence of
    :data:`LONG_FLAT_TOKENS`) and with its flat sentence :data:`LONGER_FLAT_TOKENS` long instead
    (``longer``), and the longer build measured against the long one (``longer_vs_long``: the
    ratios of wall time, CPU and peak RSS over and above the small tree's, and every model whose
    time grew more than the sentence did; a build that grows linearly stays near the length ratio)."""
    data = work / "data-long"
    subset_tree(files, 0.0, data)
    out = {"small": scenario("small tree", _env(data, work, "small"), work, full=True)}
    for key, flat in (("long", LONG_FLAT_TOKENS), ("longer", LONGER_FLAT_TOKENS)):
        long_sentence_file(data / "ud-perseus", flat)
        out[key] = scenario(f"small tree + flat {flat:,}-token sentence + {LONG_CHAIN_TOKENS:,}-token chain, cycle",
                            _env(data, work, key), work, full=True)
    models = out["long"]["build"].get("model_seconds", {})
    out["slowest_models"] = dict(sorted(models.items(), key=lambda kv: -kv[1])[:3])
    out["longer_vs_long"] = longer_vs_long(out)
    return out


def _growth(sizes: dict) -> dict:
    fracs = sorted(sizes)
    table = {f: {"bytes": sizes[f][0], "ok": sizes[f][1]["ok"], "steps": steps_of(sizes[f][1])} for f in fracs}
    names = list(table[fracs[-1]]["steps"])
    return {"sizes": table, "exponent": {n: growth_exponent([table[f]["bytes"] for f in fracs],
                                                           [table[f]["steps"][n]["seconds"] for f in fracs])
                                         for n in names}}


def _figures(report: dict) -> dict:
    runs, floor = report["runs"], report["floor"]["seconds"]
    full = runs["full"]["wall_seconds"] if runs["full"]["ok"] else None
    share = {k: runs[k]["wall_seconds"] / full if full and runs[k]["ok"] else None for k in ("no_change", "edit")}
    peak = max(r["peak_rss_bytes"] for r in [*runs.values(), *_long_runs(report)])
    # the full build's CPU (user + system, process tree) over this machine's cores: no schedule of
    # that work can take less wall time, so it bounds the ratio from below without less work
    cpu, cpus = runs["full"].get("cpu_seconds"), report.get("cpus") or 1
    bound = cpu / cpus if full and cpu else None
    waits_ = report.get("waits") or {}
    end = waits_.get("make export") or {}
    end_wall = end.get("wall_seconds") if end.get("ok") else None
    wait_met = {f"{k} seconds": bool((waits_.get(k) or {}).get("ok")) and waits_[k]["wall_seconds"] <= target
                for k, target in WAIT_TARGETS.items()}
    return {"floor_seconds": floor, "full_seconds": full, "ratio": full / floor if full else None,
            "make_export_seconds": end_wall, "make_export_ratio": end_wall / floor if end_wall else None,
            "full_cpu_seconds": cpu if full else None, "cores_busy": cpu / full if full and cpu else None,
            "cpu_bound_seconds": bound, "cpu_bound_ratio": bound / floor if bound else None,
            "no_change_share": share["no_change"], "edit_share": share["edit"], "peak_rss_bytes": peak,
            "met": {"ratio": full is not None and full / floor <= TARGETS["ratio"],
                    "peak_rss": peak <= TARGETS["peak_rss_bytes"],
                    "no_change_share": share["no_change"] is not None and share["no_change"] <= TARGETS["no_change_share"],
                    "edit_share": share["edit"] is not None and share["edit"] <= TARGETS["edit_share"],
                    **wait_met}}


def _long_runs(report: dict) -> list[dict]:
    long = report.get("long_sentence") or {}
    return [long[k] for k in ("small", "long", "longer") if k in long]


def print_report(report: dict) -> None:
    """The figures, the runs and the growth table, on stdout."""
    fig, runs = report.get("figures", {}), report.get("runs", {})

    def secs(v):
        return f"{v:7.2f}s" if v is not None else "    n/a"

    def gib(v):
        return f"{v / GIB:.2f} GiB" if v else "n/a"

    def ok(k):
        return "met" if fig.get("met", {}).get(k) else "MISSED"

    print(f"parse floor               {secs(fig.get('floor_seconds'))}")
    print(f"full build (to exports)   {secs(fig.get('full_seconds'))}   ratio "
          f"{fig.get('ratio') or float('nan'):.1f} (target <= {TARGETS['ratio']:g}, SPEC goal {TARGETS['spec_ratio']:g}): {ok('ratio')}")
    if fig.get("cpu_bound_seconds"):
        print(f"    CPU {fig['full_cpu_seconds']:.1f}s (user + system, process tree) = {fig['cores_busy']:.2f} of "
              f"{report.get('cpus')} cores busy; even with every core busy it takes >= {fig['cpu_bound_seconds']:.1f}s "
              f"(ratio >= {fig['cpu_bound_ratio']:.1f}) unless the work itself shrinks")
    for k, label in (("no_change", "no-change rebuild"), ("edit", "one-row registry edit")):
        r, sh = runs.get(k, {}), fig.get(f"{k}_share")
        print(f"{label:<26}{secs(r.get('wall_seconds'))}   share {f'{sh:.1%}' if sh is not None else 'n/a'} "
              f"(target <= {TARGETS[k + '_share']:.0%}): {ok(k + '_share')}"
              + (f"   FAILED: {r.get('error')}" if r and not r.get("ok") else ""))
        b = r.get("build", {})
        print(f"    models built/reused {b.get('status')}, tests run/skipped {b.get('tests')}, "
              f"export {(r.get('export') or {}).get('reuse')}")
    long = report.get("long_sentence") or {}
    for k, label in (("small", "small tree (0% subset)"), ("long", f"  + flat {LONG_FLAT_TOKENS:,}"),
                     ("longer", f"  + flat {LONGER_FLAT_TOKENS:,}")):
        r = long.get(k)
        if r:
            print(f"{label:<26}{secs(r.get('wall_seconds'))}   CPU {secs(r.get('cpu_seconds'))}   "
                  f"peak RSS {gib(r.get('peak_rss_bytes'))}"
                  + (f"   FAILED: {r.get('error')}" if not r.get("ok") else ""))
    if long.get("slowest_models"):
        print(f"    (flat {LONG_FLAT_TOKENS:,} + chain, cycle {LONG_CHAIN_TOKENS:,} tokens) slowest models: "
              + ", ".join(f"{m} {v:.1f}s" for m, v in long["slowest_models"].items()))
    grow = long.get("longer_vs_long") or {}
    if grow.get("ok"):
        said = {"wall_seconds": "wall", "cpu_seconds": "CPU", "peak_rss_bytes": "peak RSS"}
        print(f"    {LONGER_FLAT_TOKENS:,} against {LONG_FLAT_TOKENS:,} tokens (x{grow['length_ratio']:g} the sentence), "
              "over the small tree: " + ", ".join(
                  f"{said[k]} x{grow[k]['ratio']:.1f}" if grow[k]["ratio"] is not None else f"{said[k]} n/a"
                  for k in said)
              + "; models growing faster than the sentence: "
              + (", ".join(f"{m} {a:.1f}s -> {b:.1f}s" for m, (a, b) in grow["models_growing_faster"].items())
                 or "none"))
    print(f"peak RSS (process tree)   {gib(fig.get('peak_rss_bytes'))} (target <= 2 GiB): {ok('peak_rss')}")
    if report.get("waits"):
        print(f"\nwhat users wait for{' (fraction ' + str(report['fraction']) + ' of the sources)' if report.get('fraction') else ''}:")
        print(f"{'step':<14}{'wall':>9}{'CPU':>9}{'peak RSS':>11}   target (wall)")
        for k, w in report["waits"].items():
            target = f"   <= {WAIT_TARGETS[k]:g}s: {ok(k + ' seconds')}" if k in WAIT_TARGETS else ""
            print(f"{k:<14}{secs(w['wall_seconds'])}{secs(w['cpu_seconds'])}{gib(w['peak_rss_bytes']):>11}{target}"
                  + ("" if w["ok"] else f"   FAILED: {w.get('error')}"))
        if fig.get("make_export_ratio"):
            print(f"make export end to end / parse floor: {fig['make_export_ratio']:.1f}")
    if report.get("budget"):
        print("\nCPU-second budget (make export = build + export + audit; then make treebank):")
        for b in report["budget"]:
            share = f"{b['share_of_make_export']:6.1%}" if b["share_of_make_export"] is not None else "     -"
            print(f"  {b['step']:<16}{secs(b['cpu_seconds'])} {share}  {b['buys']}")
    g = report.get("growth", {})
    if g:
        fracs = sorted(g["sizes"])
        print("\nsteps per corpus size (seconds / peak RSS of the step) and fitted exponent b (time ~ size^b):")
        head = "".join(f"{int(f * 100)}% ({g['sizes'][f]['bytes'] / 1e6:.0f} MB)".rjust(22) for f in fracs)
        print(f"{'step':<13}{head}{'b':>7}")
        for step, b in g["exponent"].items():
            cells = "".join(f"{secs(g['sizes'][f]['steps'][step]['seconds'])} / {gib(g['sizes'][f]['steps'][step]['peak_rss_bytes']):>8}"
                            .rjust(22) for f in fracs)
            print(f"{step:<13}{cells}{f'{b:7.2f}' if b is not None else '    n/a'}")
    print(f"\nload average {report.get('loadavg_start', 0):.1f} -> {report.get('loadavg_end', 0):.1f} on "
          f"{report.get('cpus')} CPUs (timings are noisy on a shared machine; compare figures of one run)")


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", default=str(DEFAULT_JSON), metavar="PATH", help="where to write the figures")
    p.add_argument("--workdir", metavar="DIR", help="work in DIR (kept) instead of a temporary directory")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    p.add_argument("--no-growth", action="store_true", help="skip the 25%% and 50%% builds")
    p.add_argument("--fraction", type=float, metavar="F",
                   help="smoke run: every step on a deterministic fraction F (0-1] of the source files, "
                        "no growth builds")
    p.add_argument("--child", choices=("build", "export", "audit", "treebank"), help=argparse.SUPPRESS)
    p.add_argument("--child-report", help=argparse.SUPPRESS)
    p.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--seeds", help=argparse.SUPPRESS)


def _run(args: argparse.Namespace) -> int:
    if args.child:
        return child_main(args.child, Path(args.child_report), full=args.full, seeds=args.seeds)
    report = run_bench(Path(args.json), Path(args.workdir) if args.workdir else None, args.keep,
                       not args.no_growth and not args.fraction, fraction=args.fraction)
    print_report(report)
    return 0 if all(r["ok"] for r in [*report.get("runs", {}).values(), *_long_runs(report)]) else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench`` to the ``sphragis`` CLI (see :mod:`sphragis.cli`)."""
    p = subparsers.add_parser("bench", help="SPEC §13 figures: floor ratio, rebuild shares, RSS, growth",
                              description=DESCRIPTION)
    _add_arguments(p)
    p.set_defaults(func=_run)


def main(argv: list[str] | None = None) -> int:
    """``python -m sphragis.bench [--json PATH] [--workdir DIR] [--keep] [--no-growth]``."""
    p = argparse.ArgumentParser(prog="python -m sphragis.bench", description=DESCRIPTION)
    _add_arguments(p)
    return _run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
