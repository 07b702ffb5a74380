"""What a build tells its user: :class:`BuildSummary` (what it read and wrote), the console it
prints to, the summary table (:func:`print_summary`) and a dry run's plan (:func:`print_plan`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import duckdb
from rich.console import Console
from rich.table import Table

from . import runner


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
    # per file, sentences in the file = ingested + rejected, and words in the file = tokens + words
    # rejected (checked by the ingest, SPEC §13); the counts "in files" and the words rejected are
    # absent from the summaries of warehouses built before they were recorded
    cols = {"files": "files", "counted": "sentences in files", "sentences": "ingested",
            "words_counted": "words in files", "tokens": "tokens", "rejects": "rejects",
            "words_rejected": "words rejected"}
    tot = {k: sum(v.get(k, 0) for v in summary.ingest.values()) for k in cols}
    if summary.ingest and summary.up_to_date:  # nothing was built: what the raw layer holds, in one line
        out.print(f"raw layer (reused): {len(summary.ingest)} projects, {tot['files']:,} files, "
                  f"{tot['sentences']:,} sentences, {tot['tokens']:,} tokens, {tot['rejects']:,} rejects", markup=False)
    elif summary.ingest:
        # a build that reused the raw layer shows what it holds, titled so (nothing was ingested)
        t = Table(title="raw layer (reused, not re-ingested): rows per project" if summary.ingest_reused
                  else "ingest: rows in per project")
        t.add_column("project")
        for head in cols.values():
            t.add_column(head, justify="right")
        for p, v in sorted(summary.ingest.items()):
            t.add_row(p, *(f"{v[k]:,}" if k in v else "?" for k in cols))
        t.add_row("all", *(f"{tot[k]:,}" for k in cols))
        out.print(t)
    if summary.unverified:
        out.print(f"sources not verified (no fetch record: laid out by hand, not by `sphragis fetch`): "
                  f"{', '.join(summary.unverified)}", markup=False)
    n_rejects = tot["rejects"]
    if n_rejects:
        out.print(f"[bold]rejected at ingest: {n_rejects:,}[/bold] (all in table ingest_rejects); first:")
        for path, line, reason in summary.rejects:
            out.print(f"  {path}:{line if line is not None else '?'}: {reason}", markup=False)
    if summary.models and not summary.up_to_date:  # up to date: one line below, not 71 "reused" rows
        staging = {m for m in summary.models if runner.layer(m) == "staging"}
        listed = {m: n for m, n in summary.models.items() if m not in staging}
        status = {}
        for m in listed:
            what, why = summary.status.get(m, ("built", ""))
            status[m] = f"{what}: {why}" if what == "built" else what
        # one status for every model (a first or --full build: all "built: new"): said once, in the
        # lines below the table, not repeated on each of ~100 rows
        same = len(set(status.values())) == 1
        t = Table(title="models: rows out")
        t.add_column("model")
        t.add_column("rows", justify="right")
        if not same:
            t.add_column("status")
        for m, n in listed.items():
            t.add_row(m, f"{n:,}" if n is not None else "view", *(() if same else (status[m],)))
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
            if len(names) == len(summary.status):
                out.print(f"  every model built, {why}", markup=False)
                continue
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            out.print(f"  built, {why}: {shown}", markup=False)
        if summary.unchanged_output:
            out.print(f"  rebuilt, unchanged output (downstream reused): {', '.join(sorted(summary.unchanged_output))}",
                      markup=False)
    out.print("time: " + ", ".join(f"{k} {v:.1f}s" + (" (summed, during models)" if k == "model tests" else "")
                                   for k, v in summary.timings.items()))


def largest_sentence_note(con: duckdb.DuckDBPyConnection, memory_limit: str) -> str:
    """What to say after a model ran out of memory under DuckDB's ``memory_limit`` (a setting such as
    ``"1536MB"``, :data:`sphragis.build.MEMORY_LIMIT`): the
    warehouse's largest sentence (tokens, file and upstream id, from ``raw_sentences``), usually
    the cause when a model's memory grows with the square of a sentence's length."""
    try:
        row = con.execute("select s.n_tokens, f.path, s.upstream_sentence_id from raw_sentences as s "
                          "inner join raw_files as f using (file_id) "
                          "order by s.n_tokens desc, f.path, s.sentence_pos limit 1").fetchone()
    except duckdb.Error as exc:
        return f"out of memory (DuckDB memory_limit {memory_limit}); the largest sentence is unknown ({exc})"
    if row is None:
        return f"out of memory (DuckDB memory_limit {memory_limit}); the warehouse has no sentence"
    return (f"out of memory (DuckDB memory_limit {memory_limit}); the largest sentence of the warehouse: "
            f"{row[0]:,} tokens, {row[1]} sentence {row[2]}")
