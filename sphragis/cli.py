"""The ``sphragis`` command line.

Subcommands (``sphragis <cmd> --help`` explains each):

* ``fetch``  unpack the pinned snapshots (SPEC §1) into ``SPHRAGIS_DATA``;
* ``build``  ingest every treebank file into the raw tables and build the SQL models (SPEC §2–§8);
* ``export`` write the benchmark configurations and metadata to ``SPHRAGIS_OUT`` (SPEC §9);
* ``eval``   the evaluation toolkit of seed 001 (SPEC §12);
* ``audit``  the leakage audit and text baselines (SPEC §11).

Errors in the input or the build are printed as one clear message (file and line where known)
with exit status 1, never as a bare traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from . import config


def _cmd_fetch(args: argparse.Namespace) -> int:
    from . import fetch

    t0 = time.perf_counter()
    roots = fetch.fetch_all(progress=not args.quiet, force=args.force)
    print(f"fetched {len(roots)} snapshots into {config.settings().data} in {time.perf_counter() - t0:.1f}s",
          file=sys.stderr)
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from . import build

    t0 = time.perf_counter()
    summary = build.build(reingest=not args.models_only, workers=args.workers, select=args.select or None,
                          full=args.full)
    summary.timings["total"] = time.perf_counter() - t0
    build.print_summary(summary)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from .export import writer

    t0 = time.perf_counter()
    report = writer.export(config.settings(), full=args.full)
    writer.print_summary(report, seconds=time.perf_counter() - t0)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sphragis",
        description="DuckDB corpus warehouse for Ancient Greek treebanks and the Sphragis benchmark. "
        "Paths come from SPHRAGIS_MIRROR, SPHRAGIS_DATA, SPHRAGIS_WAREHOUSE and SPHRAGIS_OUT (see README).",
    )
    sub = p.add_subparsers(dest="command", required=True)

    f = sub.add_parser("fetch", help="unpack the pinned upstream snapshots (verifying every sha256)",
                       description="Unpack every pinned snapshot (sphragis/sources.json) from the mirror "
                       "SPHRAGIS_MIRROR (default ../shared/sources) into SPHRAGIS_DATA (default data/sources), "
                       "verifying each archive's sha256; without a mirror, fetch each pinned commit from "
                       "its upstream git repository. Re-running is a no-op when nothing changed.")
    f.add_argument("--force", action="store_true", help="re-unpack snapshots that are already in place")
    f.add_argument("--quiet", action="store_true", help="no progress output")
    f.set_defaults(func=_cmd_fetch)

    b = sub.add_parser("build", help="ingest the sources and build all SQL models into the warehouse",
                       description="Parse every treebank file (in parallel) into the raw tables, then build "
                       "the SQL models in dependency order and run their data tests. Unchanged sources and "
                       "models (same fingerprint) are reused from the current warehouse. The new warehouse "
                       "replaces SPHRAGIS_WAREHOUSE (default warehouse.duckdb) only if everything succeeded; "
                       "its manifest goes to <warehouse>.manifest.json.")
    b.add_argument("--models-only", action="store_true",
                   help="reuse the raw tables of the current warehouse; rebuild only the models")
    b.add_argument("--workers", type=int, default=None, help="ingest processes (default: CPU count)")
    b.add_argument("--select", action="append", metavar="SELECTOR",
                   help="build only these models: MODEL, +MODEL (with its ancestors), MODEL+ (with its "
                   "descendants), +MODEL+, state:modified+ (repeatable; README 'Incremental builds')")
    b.add_argument("--full", action="store_true",
                   help="re-ingest and rebuild every model, ignoring the fingerprints of the current warehouse")
    b.set_defaults(func=_cmd_build)

    e = sub.add_parser("export", help="write the benchmark configurations (Parquet + dataset card + metadata)",
                       description="Write every configuration and split as Parquet with a dataset card "
                       "(README.md with configs: YAML) so datasets.load_dataset(<out>, name) works offline, "
                       "plus metadata/*.json and LICENSES.md, into SPHRAGIS_OUT (default dist/sphragis). "
                       "The directory is replaced atomically.")
    e.add_argument("--full", action="store_true",
                   help="validate every unit and write every file, ignoring what the last export did")
    e.set_defaults(func=_cmd_export)

    for register in _EXTENSIONS:
        register(sub)
    return p


#: Subcommand registrars contributed by other modules (eval, audit, bench): each takes the
#: subparsers object and adds its parser with ``set_defaults(func=...)``.
_EXTENSIONS: list = []


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sphragis`` console script; returns the exit status."""
    _load_extensions()
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("sphragis: interrupted; previous outputs are untouched", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - every error gets one clear line, see module docstring
        if isinstance(exc, (OSError, RuntimeError, ValueError, LookupError)):
            print(f"sphragis {args.command}: error: {exc}", file=sys.stderr)
            return 1
        raise


def _load_extensions() -> None:
    import importlib

    for mod in ("sphragis.evaluation.cli", "sphragis.audit", "sphragis.bench"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise
            continue
        if m.register not in _EXTENSIONS:
            _EXTENSIONS.append(m.register)


if __name__ == "__main__":
    raise SystemExit(main())
