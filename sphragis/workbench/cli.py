"""The ``sql`` and ``docs`` subcommands (registered by :func:`register`, loaded by
``sphragis.cli._load_extensions``)."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from ..files import write_text_atomic
from . import sql as sqlmod


def _cmd_sql(args: argparse.Namespace) -> int:
    warehouse = Path(args.warehouse).resolve() if args.warehouse else None
    if args.list:
        for name, path in sqlmod.analyses().items():
            print(f"{name}\t{sqlmod.description(path)}")
        return 0
    if args.query and args.file:
        raise sqlmod.QueryError("give a query or -f FILE, not both")
    if not args.query and not args.file and not args.table:
        if args.output or args.format != "table":
            raise sqlmod.QueryError("--format/--output need a query or -f FILE")
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise sqlmod.QueryError("no query given, and the interactive shell needs a terminal: "
                                    "give a query or -f FILE")
        return sqlmod.shell(warehouse)
    tables = dict(sqlmod.parse_table_option(t) for t in args.table or [])
    if tables and not (args.query or args.file):
        raise sqlmod.QueryError("--table needs a query or -f FILE (the interactive shell reads no local files)")
    text = _read_sql(sqlmod.resolve_file(args.file)) if args.file else args.query
    # checked before the query runs: the warehouse, the sources and the export are never an output
    target = sqlmod.output_file(args.output, warehouse, force=args.force) if args.output else None
    con = sqlmod.connect(warehouse, tables)
    try:
        result = sqlmod.query(con, text)
    finally:
        con.close()
    # every row to a file or a pipe (a reader of piped output cannot see a cut); a screenful on a terminal
    piped = args.output or not sys.stdout.isatty()
    max_rows = args.max_rows if args.max_rows is not None else (0 if piped else sqlmod.DEFAULT_MAX_ROWS)
    # on a terminal, fit its width (DuckDB elides middle columns); piped or to a file, every column
    width = shutil.get_terminal_size().columns if not args.output and sys.stdout.isatty() else None
    out = sqlmod.render(result, args.format, max_rows=max_rows, max_width=width)
    if args.output:
        write_text_atomic(target, out)
        print(f"wrote {result.table.num_rows:,} row(s) to {target}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    return 0


def _read_sql(path: Path) -> str:
    """The text of the ``-f`` file; a file that is not UTF-8 text is refused without showing any of it."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise sqlmod.QueryError(f"{path} is not UTF-8 text; -f reads .sql files") from None


def _cmd_docs(args: argparse.Namespace) -> int:
    from . import site

    t0 = time.perf_counter()
    rep = site.build_site(Path(args.out).resolve() if args.out else None,
                          Path(args.warehouse).resolve() if args.warehouse else None,
                          Path(args.manifest).resolve() if args.manifest else None)
    counts = ", ".join(f"{n} {layer}" for layer, n in rep["nodes"].items() if n)
    print(f"wrote {rep['pages']} pages ({counts}) to {rep['out']} in {time.perf_counter() - t0:.1f}s; "
          f"open {rep['out'] / 'index.html'}", file=sys.stderr)
    if rep["warehouse"] is None:
        print("note: no warehouse found: pages have no types, row counts or samples (run `sphragis build`)",
              file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sql`` and ``docs`` subcommands to the ``sphragis`` parser."""
    s = sub.add_parser(
        "sql", help="run read-only SQL on the warehouse, or open an interactive SQL shell",
        description="Run one read-only query on the warehouse (SPHRAGIS_WAREHOUSE) and print the result, "
        "or run a .sql file or a named analysis of sql/analyses/ with -f. Without a query, open an "
        "interactive read-only SQL shell (harlequin, from the 'workbench' extra). Writes are refused: "
        "the warehouse is opened read-only and the connection cannot attach, copy or export to files, read "
        "files, load extensions or change its settings; results leave only through --output.",
        epilog="examples: sphragis sql \"from mart_variation where verdict = 'convention'\"; "
        "sphragis sql -f top_annotator_gaps --format csv --output gaps.csv; sphragis sql --list")
    s.add_argument("query", nargs="?", help="SQL text (DuckDB dialect); omit for the interactive shell")
    s.add_argument("-f", "--file", metavar="FILE", help="a .sql file, or the name of an analysis in sql/analyses/")
    s.add_argument("--format", choices=sqlmod.FORMATS, default="table", help="output format (default table)")
    s.add_argument("-o", "--output", metavar="FILE",
                   help="write the result to FILE instead of stdout (a new file: never the warehouse, nor a file "
                   "under the sources, the export or their state folders)")
    s.add_argument("--force", action="store_true", help="with --output: replace FILE if it exists (a regular file)")
    s.add_argument("--max-rows", type=int, default=None,
                   help=f"table format: rows shown (default {sqlmod.DEFAULT_MAX_ROWS} on a terminal, all with "
                   "--output or piped; 0 = all)")
    s.add_argument("--warehouse", metavar="PATH", help="DuckDB file (default SPHRAGIS_WAREHOUSE)")
    s.add_argument("--table", action="append", metavar="NAME=FILE",
                   help="also offer your own CSV/TSV, Parquet or JSON FILE as the view NAME (repeatable; off by "
                   "default: the query itself cannot read or write any file)")
    s.add_argument("--list", action="store_true", help="list the named analyses and exit")
    s.set_defaults(func=_cmd_sql)

    d = sub.add_parser(
        "docs", help="build the static data-dictionary site (lineage, columns, samples, variation charts)",
        description="Write an offline static site (open index.html from disk; no server) documenting every "
        "raw table, seed and model: description, columns with types and data tests, row count, sample rows, "
        "SQL, upstream and downstream, a lineage picture of the whole DAG, a search box, the analyses with "
        "their results, and interactive variation charts. Reads the models, the build manifest when "
        "present, and the warehouse (read-only).")
    d.add_argument("--out", metavar="DIR", help="output folder (default site/ in the current directory; replaced whole: a new or empty "
                   "folder, or one this command wrote)")
    d.add_argument("--warehouse", metavar="PATH", help="DuckDB file (default SPHRAGIS_WAREHOUSE)")
    d.add_argument("--manifest", metavar="PATH", help="build manifest.json (default: beside the warehouse)")
    d.set_defaults(func=_cmd_docs)
