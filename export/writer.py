"""Write the Sphragis benchmark from the warehouse (SPEC §9, §10).

Layout of ``SPHRAGIS_OUT`` (default ``dist/sphragis``)::

    README.md                       dataset card (export/card.py, rendered from the files below;
                                    ``sphragis audit`` re-renders it with the leaderboard); its
                                    ``configs:`` YAML lets ``datasets.load_dataset(<out>, "sentence_10")`` work offline
    LICENSES.md                     per-source license, attribution, NC/SA implications
    data/<config>/<split>-00000-of-00001.parquet
    metadata/dataset_variants.json  every config: authors, rows per split, chunk ids, exclusions, the
                                    columns a model may read and what each other column reveals
    metadata/build_report.json      SPEC §6–§8 counts, repairs, rejects, held-out choices
    metadata/source_revisions.json  pinned snapshots and the files read from each
    metadata/leakage_report.json    SPEC §11 (written by ``sphragis audit`` after the export; `make export` runs it)

This module runs the export; its parts are modules of their own: the columns and file layout
(:mod:`.layout`), the assembly of each configuration split from the warehouse with Arrow
(:mod:`.assembly`), the validation of every published unit while the files are written
(:mod:`.validation`, with the renderer and the SPEC §5 rules of :mod:`.conllu_units`), the
metadata files (:mod:`.metadata`), the card (:mod:`.card`) and the state that makes an unchanged
export a no-op (:mod:`.export_state`).

The directory is written beside the old one and swapped in only when complete (SPEC §13). Row
order, column order, Arrow types and JSON key order are fixed, so two exports of the same
warehouse are byte-identical.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pyarrow as pa

from sphragis import config, state
from sphragis.benchmark import CONFIGS, SPLITS
from sphragis.build import build_lock, console, remove_stale_builds
from sphragis.files import claim_output_dir, replace_dir, restore_dir
from sphragis.hugepages import disable_transparent_huge_pages
from sphragis.queries import require_relations

from .assembly import ExportError, fetch_units, unit_hashes, write_config
from .export_state import ExportState
from .layout import data_file
from .validation import UnitValidation

#: Tables the export reads (checked before anything is done).
REQUIRED = ("mart_benchmark_rows", "mart_split_rows", "int_eligible_sentences", "int_units")


#: The kind of output folder the export writes (:func:`sphragis.files.claim_output_dir`: it replaces
#: only a folder marked as an export, or an empty one).
OUTPUT_KIND = "export"


def _open(settings: config.Settings) -> duckdb.DuckDBPyConnection:
    if not settings.warehouse.exists():
        raise ExportError(f"no warehouse at {settings.warehouse}; run `sphragis build` (or `make build`) first")
    return duckdb.connect(str(settings.warehouse), read_only=True)


def export(settings: config.Settings | None = None, *, full: bool = False,
           on_step: Callable[[str], None] | None = None) -> dict:
    """Validate and write every configuration, the metadata and the card (see module docstring).

    Work already done is reused (:class:`ExportState`, kept in ``<out>.state/``): when nothing the
    last export read changed (its code, named queries, seeds, templates, the warehouse tables it
    read, libraries: :mod:`sphragis.state`) and the files are the ones written, nothing is done;
    else, while the code is unchanged, units already validated (by content hash) are not validated
    again, and a configuration split whose rows and units are unchanged is hard-linked from the
    previous export instead of rewritten (same bytes: the writer is deterministic).

    Args:
        full: ignore the saved state (validate every unit, write every file).
        on_step: called with the name of each step as it starts (``check state``, ``read units``,
            ``validate and write``; :class:`sphragis.progress.StepLog` prints them to a log).

    Returns:
        {"configs": {config: {split: {"rows": n, "authors": m}}}, "units_validated": n, "out": str,
        "reuse": {"up_to_date": bool, "units_cached": n, "files_reused": n, "files_written": n,
        "changed": [input, ...] (not up to date: what changed, :func:`sphragis.state.changed`)},
        "timings": {step: seconds}}

    Raises:
        ExportError: no warehouse, or a required table is missing.
        UnitValidationError: a published unit breaks CoNLL-U or a SPEC §5 invariant.
        sphragis.build.BuildLocked: another export into the same directory is running.
        sphragis.files.OutputRefused: ``SPHRAGIS_OUT`` is a folder the product did not write, or
            holds or lies inside the sources or the warehouse.
    """
    settings = settings or config.settings()
    step = on_step or (lambda _name: None)
    disable_transparent_huge_pages()
    step("check state")
    con = _open(settings)
    timings: dict[str, float] = {}
    try:
        require_relations(con, REQUIRED, ExportError, f"warehouse {settings.warehouse}")
        out = claim_output_dir(settings.out, OUTPUT_KIND, protected=settings.inputs())
        remove_stale_builds(out)  # folders left by killed exports, also when this one has nothing to do
        previous = ExportState.load(out, con, full=full)
        if previous.up_to_date(out):
            return {**previous.doc["report"], "out": str(out), "reuse": {
                "up_to_date": True, "units_cached": 0, "files_reused": 0, "files_written": 0}, "timings": timings}
        recording = state.RecordingConnection(con)  # the tables the export reads, for its state
        validated = {"n": 0, "wait": 0.0}
        with UnitValidation() as validation:  # its workers start before the units are read
            step("read units")
            t0 = time.perf_counter()
            units = fetch_units(recording)
            timings["fetch units"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            if previous.validated:  # units validated before (by content hash) are not validated again
                hashes = unit_hashes(units)
                todo = previous.unvalidated(hashes)
                validation.submit(units.filter(pa.array(todo)) if not all(todo) else units)
            else:  # nothing cached (--full or a first export): the loader starts before the hashing
                validation.submit(units)
                hashes = unit_hashes(units)
            started = time.perf_counter() - t0

            def finish_validation() -> None:  # after writing, before the swap
                t = time.perf_counter()
                validated["n"] = validation.result()
                validated["wait"] = time.perf_counter() - t

            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name(f"{out.name}.building-{os.getpid()}")
            with build_lock(out):  # a second concurrent export fails fast naming the holder
                restore_dir(out)  # an export killed between the two renames of replace_dir's fallback
                tmp.mkdir()
                step(f"validate {units.num_rows:,} units and write the configurations")
                t0 = time.perf_counter()
                summary, files = _write_all(recording, units, tmp, out, previous, hashes,
                                            before_swap=finish_validation)
                # validation: hashing, rendering and the wait for the loader after the writing
                timings["validation"] = started + validated["wait"]
                timings["writing"] = time.perf_counter() - t0 - validated["wait"]
                report = {"configs": summary, "units_validated": units.num_rows, "out": str(out)}
                reused = sum(1 for f in files.values() if f["reused"])
                previous.save(out, con, recording.tables, hashes, files, report)
        n_units = validated["n"]
    finally:
        con.close()
    return {**report, "reuse": {"up_to_date": False, "units_cached": units.num_rows - n_units,
                                "files_reused": reused, "files_written": len(files) - reused,
                                "changed": previous.changed},
            "timings": timings}


#: Threads writing configuration splits at once (DuckDB and pyarrow release the GIL while they
#: query, gather and encode; each file is written by one thread, so its bytes do not depend on this).
WRITER_THREADS = 2


def _write_all(con: duckdb.DuckDBPyConnection, units, tmp: Path, out: Path, previous: ExportState | None = None,
               hashes: pa.Array | None = None, before_swap: Callable[[], None] | None = None) -> tuple[dict, dict]:
    """Write every configuration, the metadata and the card into ``tmp``, then swap it into ``out``.

    A configuration split whose fingerprint (:meth:`ExportState.file_fingerprints`) matches the
    previous export's is hard-linked from ``out`` instead of written. The others are written by
    :data:`WRITER_THREADS` threads (each with its own DuckDB cursor), the training splits first
    (the largest files); the same threads write the metadata (its row and author counts come from
    ``mart_config_summary`` and must equal the files' own) and, when no previous file can be reused,
    compute the fingerprints meanwhile; then they measure what each metadata column reveals on the
    files written (``dataset_variants.json``). The card is rendered last, from the files written.
    ``before_swap`` (e.g. waiting for the validation) runs after everything is written and before
    the swap; if it raises, nothing is swapped.

    Returns ({config: {split: {"rows": n, "authors": m}}}, {relative path: file record}). ``tmp`` is
    removed in any case.

    Raises:
        ExportError: a file's row or author count differs from ``mart_config_summary``.
    """
    from . import card, metadata

    previous = previous or ExportState({})
    files: dict[str, dict] = {}
    keys = [(cfg, split) for cfg in CONFIGS for split in SPLITS]

    def on_cursor(fn: Callable, *args):  # a DuckDB connection is used by one thread at a time
        cur = con.cursor()
        try:
            return fn(cur, *args)
        finally:
            cur.close()

    def write(key: tuple[str, str]) -> dict:
        n, authors = on_cursor(write_config, units, *key, tmp / data_file(*key))
        return {"rows": n, "authors": authors}

    def fingerprints() -> dict[tuple[str, str], str]:
        return on_cursor(previous.file_fingerprints, units, unit_hashes(units) if hashes is None else hashes)

    try:
        with ThreadPoolExecutor(max_workers=WRITER_THREADS) as pool:
            if previous.doc.get("files"):  # a previous export's files may be reused: fingerprints first
                fps = fingerprints()
                reused = {key: previous.reusable(out, data_file(*key), fps[key]) for key in keys}
            else:
                fps, reused = None, dict.fromkeys(keys)
            todo = sorted((key for key, old in reused.items() if old is None), key=lambda key: key[1] != "train")
            for key in keys:
                (tmp / data_file(*key)).parent.mkdir(parents=True, exist_ok=True)
                if reused[key] is not None:
                    _link_or_copy(out / data_file(*key), tmp / data_file(*key))
            (tmp / "metadata").mkdir()
            expected = on_cursor(metadata.config_summary)
            jobs = {key: pool.submit(write, key) for key in todo if key[1] == "train"}
            meta_job = pool.submit(on_cursor, metadata.write_all, tmp, expected)
            card_job = pool.submit(card.load_validators)  # its imports, while the files are written
            fps_job = pool.submit(fingerprints) if fps is None else None
            jobs.update({key: pool.submit(write, key) for key in todo if key not in jobs})
            written = {key: job.result() for key, job in jobs.items()}
            # what each metadata column reveals, measured on the files just written (SPEC §11)
            lookup_jobs = {cfg: pool.submit(metadata.column_lookups, tmp, cfg) for cfg in CONFIGS}
            meta_job.result()
            card_job.result()
            fps = fps_job.result() if fps_job is not None else fps
            on_cursor(metadata.write_variants, tmp, expected, {cfg: job.result() for cfg, job in lookup_jobs.items()})
        summary: dict[str, dict[str, dict]] = {}
        for cfg, split in keys:
            rel, old = data_file(cfg, split), reused[(cfg, split)]
            got = old["summary"] if old is not None else written[(cfg, split)]
            if got != expected[cfg][split]:
                raise ExportError(f"{rel}: {got} written, mart_config_summary says {expected[cfg][split]}")
            summary.setdefault(cfg, {})[split] = got
            files[rel] = {"fingerprint": fps[(cfg, split)], "summary": got, "reused": old is not None}
        del units
        card.write_card(tmp)  # rendered from the files just written (export/card.py)
        if before_swap is not None:
            before_swap()
        replace_dir(tmp, out, OUTPUT_KIND)
        return summary, files
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def print_summary(report: dict, seconds: float) -> None:
    """Print rows per configuration and split, and the time taken."""
    from rich.table import Table

    t = Table(title=f"export: {report['out']}")
    for col in ("configuration", "authors", *SPLITS):
        t.add_column(col, justify="left" if col == "configuration" else "right")
    # in benchmark order (a report read back from the JSON state has its keys sorted)
    for cfg, splits in sorted(report["configs"].items(), key=lambda kv: CONFIGS.index(kv[0])):
        authors = max(v["authors"] for v in splits.values())
        t.add_row(cfg, str(authors), *(f"{splits[s]['rows']:,}" for s in SPLITS))
    con = console()
    con.print(t)
    r = report.get("reuse", {})
    if r.get("up_to_date"):
        con.print("export up to date (nothing it reads changed since the last export: code, named queries, seeds, "
                  f"templates, warehouse tables, libraries); time {seconds:.1f}s")
        return
    if r.get("changed") and r["changed"] not in state.NOTHING_TO_COMPARE:
        con.print(f"export redone: changed since the last export: {state.describe(r['changed'])}", markup=False)
    con.print(f"units validated with the CoNLL 2018 loader: {report['units_validated']:,} "
              f"({r.get('units_cached', 0):,} of them validated before, by content hash); files: "
              f"{r.get('files_written', 0)} written, {r.get('files_reused', 0)} reused (rows unchanged); "
              f"time {seconds:.1f}s")
