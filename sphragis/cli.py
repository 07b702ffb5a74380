"""The ``sphragis`` command line.

Subcommands (``sphragis <cmd> --help`` explains each):

* ``fetch``  unpack the pinned snapshots (SPEC §1) into ``SPHRAGIS_DATA``;
* ``build``  ingest every treebank file into the raw tables and build the SQL models (SPEC §2–§8);
* ``export`` write the benchmark configurations and metadata to ``SPHRAGIS_OUT`` (SPEC §9);
* ``eval``   the evaluation toolkit of seed 001 (SPEC §12);
* ``audit``  the leakage audit and text baselines (SPEC §11);
* ``score``  score authorship predictions against the export (:mod:`sphragis.submission`);
* ``leaderboard`` the leaderboard of scored submissions, re-scored (:mod:`sphragis.leaderboard_collect`;
  rendered by :mod:`sphragis.leaderboard`);
* ``report`` the variation and leakage report (SPEC §11);
* ``export-treebank`` the leakage-clean CoNLL-U training treebank for parsers (seed 001);
* ``folds``  the protocol's documentary and verse evaluation folds with their manifests (seed 001);
* ``sql``    read-only SQL on the warehouse, or an interactive shell (:mod:`sphragis.workbench.sql`);
* ``docs``   the static data-dictionary site (:mod:`sphragis.workbench.site`).

Errors in the input or the build are printed as one clear message (file and line where known)
with exit status 1, never as a bare traceback (:func:`error_message`: a full disk, a read-only
folder, a truncated warehouse, a missing extra each say what to do); Ctrl-C prints one line and
exits with status 130 (:mod:`sphragis.interrupts`; the console script, :mod:`sphragis.entry`,
covers the imports before :func:`main` and the interpreter's exit after it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from . import config
from .interrupts import interrupted as _interrupted
from .interrupts import take_interrupts


def _cmd_fetch(args: argparse.Namespace) -> int:
    from . import fetch

    pins = config.snapshots()
    unknown = sorted(set(args.names) - {p["name"] for p in pins})
    if unknown:
        raise LookupError(f"unknown snapshot(s) {', '.join(unknown)}; pinned: {', '.join(p['name'] for p in pins)}")
    pins = [p for p in pins if not args.names or p["name"] in args.names]
    if args.list:
        rows = fetch.plan(snapshots=pins)
        cols = ["snapshot", "project", "commit", "license", "state", "archive", "sha256", "from"]
        width = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols[:-1]}
        for r in [dict(zip(cols, cols)), *rows]:
            print("  ".join(r[c].ljust(width[c]) for c in cols[:-1]) + "  " + r["from"])
        return 0
    t0 = time.perf_counter()
    results = fetch.fetch_all(progress=not args.quiet, snapshots=pins, force=args.force)
    fetched = sum(1 for r in results.values() if not r.skipped)
    print(f"{len(results)} snapshots in {config.settings().data} ({fetched} fetched, {len(results) - fetched} "
          f"already in place) in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    import dataclasses

    from . import build, identity
    from .progress import StepLog

    t0 = time.perf_counter()
    settings = config.settings()
    if args.registry_profile:
        settings = dataclasses.replace(settings, registry_profile=args.registry_profile)
    if args.split_profile:
        settings = dataclasses.replace(settings, split_profile=args.split_profile)
    if args.dry_run:
        build.print_plan(build.dry_run(settings, reingest=not args.models_only, select=args.select or None,
                                       full=args.full))
        return 0
    summary = build.build(settings, reingest=not args.models_only, workers=args.workers,
                          select=args.select or None, full=args.full, on_step=StepLog(build.console(), "build: "))
    summary.timings["total"] = time.perf_counter() - t0
    build.print_summary(summary)
    if not args.select and not summary.up_to_date:  # an untouched warehouse: its table was printed before
        identity.print_text_identity(settings.warehouse, build.console())
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from .build_summary import console
    from .export import writer
    from .progress import StepLog

    t0 = time.perf_counter()
    report = writer.export(config.settings(), full=args.full, on_step=StepLog(console(), "export: "))
    writer.print_summary(report, seconds=time.perf_counter() - t0)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sphragis",
        description="DuckDB corpus warehouse for Ancient Greek treebanks and the Sphragis benchmark. "
        "Paths come from SPHRAGIS_MIRROR, SPHRAGIS_DATA, SPHRAGIS_WAREHOUSE and SPHRAGIS_OUT (see docs/building.md).",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    f = sub.add_parser("fetch", help="unpack the pinned upstream snapshots (mirror, else upstream git)",
                       description="Unpack every pinned snapshot (sphragis/sources.json) into SPHRAGIS_DATA "
                       "(default data/sources). Source: the mirror SPHRAGIS_MIRROR (default ../shared/sources, "
                       "used if it exists; each archive's sha256 is verified), otherwise each pinned commit "
                       "from its upstream git repository (SPHRAGIS_MIRROR=none forces this). Re-running is a "
                       "no-op when nothing changed.")
    f.add_argument("names", nargs="*", metavar="NAME", help="snapshot names (default: all pinned snapshots)")
    f.add_argument("--list", action="store_true",
                   help="show each pinned snapshot (project, commit, license, state, archive file name and sha256 for a "
                   "mirror folder, where it would come from)")
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
    b.add_argument("--workers", type=int, default=None, help="ingest processes, and models and tests run at once (default: CPU count; models at most 4)")
    b.add_argument("--select", action="append", metavar="SELECTOR",
                   help="build only these models: MODEL, +MODEL (with its ancestors), MODEL+ (with its "
                   "descendants), +MODEL+, state:modified+ (repeatable; docs/incremental.md)")
    b.add_argument("--full", action="store_true",
                   help="re-ingest and rebuild every model, ignoring the fingerprints of the current warehouse")
    b.add_argument("--dry-run", action="store_true",
                   help="print what would be rebuilt and why, changing nothing (docs/incremental.md)")
    b.add_argument("--registry-profile", metavar="NAME",
                   help="works-registry profile (default SPHRAGIS_REGISTRY_PROFILE or "
                   f"{config.DEFAULT_REGISTRY_PROFILE!r}: seed 000's curation decisions; 'scholarly': "
                   "the overrides of sql/seeds/works_registry_profiles.csv)")
    b.add_argument("--split-profile", choices=config.SPLIT_PROFILES,
                   help="main-track split profile (default SPHRAGIS_SPLIT_PROFILE or "
                   f"{config.DEFAULT_SPLIT_PROFILE!r}: seed 000's split; 'grouped': each passage-overlap "
                   "group in one split, docs/overlap.md)")
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


#: Subcommand registrars contributed by other modules (eval, audit, report, bench): each takes the
#: subparsers object and adds its parser with ``set_defaults(func=...)``.
_EXTENSIONS: list = []


def _version() -> str:
    """The installed distribution's version (``pyproject.toml``), else the package's own."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sphragis-warehouse")
    except PackageNotFoundError:
        from . import __version__

        return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """The ``sphragis`` command line (run by the console script, :func:`sphragis.entry.main`);
    returns the exit status."""
    args = None
    try:
        take_interrupts()  # from here on Ctrl-C is a KeyboardInterrupt (a build's clean-up runs), reported below
        from .hugepages import disable_transparent_huge_pages

        disable_transparent_huge_pages()  # every subcommand's DuckDB work runs faster without them
        _load_extensions()
        args = build_parser().parse_args(argv)
        return args.func(args)
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as exc:  # noqa: BLE001 - every error gets one clear line, see module docstring
        import duckdb

        if isinstance(exc, duckdb.InterruptException) or str(exc) == "Query interrupted":
            return _interrupted()  # Ctrl-C during a DuckDB query on this thread
        message = error_message(exc)
        if message is None:
            raise
        print(f"sphragis {args.command}: error: {message}" if args else f"sphragis: error: {message}", file=sys.stderr)
        return 1


def error_message(exc: BaseException) -> str | None:
    """The one line the CLI prints for ``exc`` (faults end cleanly, SPEC §13), or None for a bug.

    * a full disk or a folder that cannot be written (``OSError`` ENOSPC, EDQUOT, EACCES, EROFS,
      EPERM, also when DuckDB reports it): the file, and what to do;
    * a warehouse DuckDB cannot read (truncated, corrupt, another version): the file, and to rebuild it;
    * an optional extra not installed (``ModuleNotFoundError``): the package and the install command;
    * the project's own errors (``OSError``, ``RuntimeError``, ``ValueError``, ``LookupError``,
      DuckDB's errors): their message, whose first line names the file or model.
    """
    import errno

    import duckdb

    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        extra = _extra_of(top)
        if extra is None:
            return f"the Python package {top!r} is not installed; reinstall sphragis (`make install` in a checkout)"
        return (f"the Python package {top!r} is not installed; it comes with the {extra!r} extra: "
                f"`.venv/bin/pip install -e '.[{extra}]'` in a checkout, else `pip install 'sphragis-warehouse[{extra}]'`")
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left on the device of {exc.filename or 'the output'}; free some space and run again"
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        where = exc.filename or "a file"
        return f"cannot write or read {where}: {exc.strerror}; check the folder's permissions or choose another path"
    if isinstance(exc, (duckdb.Error, RuntimeError)):
        if "No space left on device" in text or "disk is full" in text.lower():
            return f"no space left on the device: {first}; free some space and run again"
        if _corrupt(text):
            return f"{first}; the file is not a complete warehouse: rebuild it with `sphragis build --full`"
        if isinstance(exc, duckdb.Error):
            return text
    if isinstance(exc, (OSError, RuntimeError, ValueError, LookupError)):
        return text
    return None


def _extra_of(package: str) -> str | None:
    """The first optional extra of the installed distribution that requires ``package`` (by its
    import name, ``-`` and ``_`` alike), or None (a required package, or not found)."""
    import re
    from importlib.metadata import PackageNotFoundError, requires

    try:
        reqs = requires("sphragis-warehouse") or []
    except PackageNotFoundError:
        return None
    want = package.lower().replace("_", "-")
    for r in reqs:
        m = re.match(r"([A-Za-z0-9_.-]+).*extra == \"([^\"]+)\"", r)
        if m and m.group(1).lower().replace("_", "-") == want:
            return m.group(2)
    return None


#: Phrases of DuckDB's messages for a file that is not a (complete) database.
_CORRUPT = ("IO Error: Could not read enough bytes from file", "but it is not a valid DuckDB database file",
            "Corrupt database file", "does not match stored checksum")


def _corrupt(text: str) -> bool:
    return any(p in text for p in _CORRUPT)


def _load_extensions() -> None:
    import importlib

    for mod in ("sphragis.evaluation.cli", "sphragis.audit", "sphragis.report", "sphragis.bench",
                "sphragis.bench_audit", "sphragis.export.treebank", "sphragis.export.folds", "sphragis.workbench.cli",
                "sphragis.submission", "sphragis.leaderboard_collect"):
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
