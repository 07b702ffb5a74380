"""The human-readable SPEC §11 report: variation tables and the leakage audit, as Markdown
(Jinja2 template ``sphragis/templates/report.md.j2``) with one chart per table (matplotlib, Agg
backend), written to ``reports/`` (git-ignored; the charts are generated, never committed).

Inputs: the warehouse tables ``mart_variation`` and ``mart_merge_effects`` (opened read-only) and
the export's ``metadata/leakage_report.json`` (written by ``sphragis audit``). A missing input
leaves its section with a note instead of failing, so the report can be rendered at any stage.

Entry points: ``sphragis report`` (registered here, :func:`register`) and ``sphragis audit
--report`` (see :mod:`sphragis.audit`, which imports this module; this one does not import it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import jinja2

from . import config
from .benchmark import CONFIGS
from .config import TEMPLATES_DIR, reports_dir
from .files import open_output_dir, write_text_atomic
from .queries import missing_relations, query, records

DEFAULT_DIR = reports_dir()
#: The kind of output folder ``reports/`` is (:func:`sphragis.files.claim_output_dir`): the report
#: adds its files to it.
REPORTS_KIND = "reports"
TEMPLATES = TEMPLATES_DIR
REPORT_NAME = "variation_and_leakage.md"

#: Pre-merge relations the seed discusses (seed 000 "What annotator variation remains"), shown
#: in both schemes where they exist, plus every Gender value.
HIGHLIGHT_DEPRELS = ("vocative", "discourse", "dislocated", "appos", "case", "conj")
HIGHLIGHT_FEATURE = "Gender"


def load_variation(warehouse: Path) -> dict[str, Any]:
    """Highlighted variation rows, all category points for the chart, and the merge effects.

    Returns:
        {"highlight": [...], "points": [...], "merges": [...], "note": str | None}; rows are dicts
        of the mart columns. ``note`` explains an absent warehouse or table (lists then empty).
    """
    empty = {"highlight": [], "points": [], "merges": [], "note": None}
    if not warehouse.is_file():
        return {**empty, "note": "no warehouse there; run `sphragis build`"}
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        missing = missing_relations(con, ("mart_merge_effects", "mart_variation"))
        if missing:
            return {**empty, "note": f"the warehouse lacks {', '.join(missing)}; run `sphragis build`"}
        highlight = records(con, query("report_variation_highlight"),
                            {"deprels": list(HIGHLIGHT_DEPRELS), "feature": HIGHLIGHT_FEATURE})
        points = records(con, "select kind, scheme, category, annotator_variation_pp, authorial_variation_pp, verdict "
                         "from mart_variation where verdict is not null order by kind, scheme, category")
        merges = records(con, "select * from mart_merge_effects "
                         "order by kind, published_category, part_share_pct desc, part_category")
    finally:
        con.close()
    return {"highlight": highlight, "points": points, "merges": merges, "note": None}


def load_leakage(path: Path) -> dict[str, Any] | None:
    """The leakage report document, or None when ``path`` does not exist.

    Raises:
        ValueError: the file is not JSON; the message names the file, line and column and says
            to run ``sphragis audit`` again (it writes the file).
    """
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: not a leakage report ({exc.msg}); "
                         "run `sphragis audit` to write it again") from exc


# --------------------------------------------------------------------------------------------
# charts


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise RuntimeError("the report's charts need matplotlib: pip install 'sphragis-warehouse[audit]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def chart_variation(points: list[dict], highlight: list[dict], path: Path) -> Path:
    """Scatter of annotator (x) against authorial (y) variation of every category, diagonal
    drawn (below it: convention), highlighted categories labelled. Returns ``path``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 6))
    colors = {"deprel": "tab:blue", "upos": "tab:green", "feats": "tab:orange"}
    for kind, color in colors.items():
        xs = [p["annotator_variation_pp"] for p in points if p["kind"] == kind]
        ys = [p["authorial_variation_pp"] for p in points if p["kind"] == kind]
        ax.scatter(xs, ys, s=12, alpha=0.5, color=color, label=kind)
    top = max([1.0] + [max(p["annotator_variation_pp"], p["authorial_variation_pp"]) for p in points])
    ax.plot([0, top], [0, top], color="grey", linewidth=0.8, linestyle="--")
    labelled: dict[tuple, list[str]] = {}  # a category whose two schemes coincide gets one label
    for h in highlight:
        if h["verdict"] is None:
            continue
        xy = (round(h["annotator_variation_pp"], 4), round(h["authorial_variation_pp"], 4), h["category"])
        labelled.setdefault(xy, []).append("pre" if h["scheme"] == "pre_merge" else "pub")
    for (x, y, category), schemes in sorted(labelled.items()):
        ax.scatter([x], [y], s=30, facecolors="none", edgecolors="black")
        ax.annotate(f"{category} ({'+'.join(schemes)})", (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("annotator variation (pp)")
    ax.set_ylabel("authorial variation (pp)")
    ax.set_title("Categories below the diagonal vary more by annotator (convention)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def chart_merges(merges: list[dict], path: Path) -> Path:
    """Horizontal bars: annotator variation of each DEPREL merge part and of the merged
    published category (hatched). Returns ``path``."""
    plt = _pyplot()
    rows = [m for m in merges if m["kind"] == "deprel" and m["part_annotator_variation_pp"] is not None]
    labels, values, merged_flags = [], [], []
    for pub in sorted({m["published_category"] for m in rows}):
        parts = [m for m in rows if m["published_category"] == pub]
        labels.append(f"{pub} (merged)")
        values.append(parts[0]["merged_annotator_variation_pp"] or 0.0)
        merged_flags.append(True)
        for m in parts:
            labels.append(f"  {m['part_category']}")
            values.append(m["part_annotator_variation_pp"])
            merged_flags.append(False)
    fig, ax = plt.subplots(figsize=(7.5, max(3.0, 0.22 * len(labels) + 1)))
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, values, color=["tab:red" if f else "tab:blue" for f in merged_flags],
            hatch=None)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("annotator variation (pp)")
    ax.set_title("DEPREL merges: published category (red) and its pre-merge parts (blue)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def chart_audit(table: list[dict], path: Path) -> Path:
    """Grouped bars of test accuracy per configuration: markup→author, markup→project,
    text→author, and the majority-class baseline. Returns ``path``."""
    plt = _pyplot()
    series = [("markup_author", "markup → author"), ("markup_project", "markup → project"),
              ("text_author", "text → author"), ("majority_author", "majority author")]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.2
    for k, (key, label) in enumerate(series):
        xs = [i + (k - 1.5) * width for i in range(len(table))]
        ax.bar(xs, [row[key]["accuracy"] for row in table], width=width, label=label)
    ax.set_xticks(range(len(table)))
    ax.set_xticklabels([row["config"] for row in table], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("test accuracy")
    ax.set_title("Leakage floor (markup only) and text baseline, test split")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------------
# rendering


def audit_table(leakage: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per configuration (report order) with the test scores of the three classifiers
    and the majority baseline: {"config", "markup_author", "markup_project", "text_author",
    "majority_author", "majority_project", "rows"}; scores are {"accuracy", "macro_f1"}."""
    out = []
    for cfg in CONFIGS:
        r = leakage.get("configs", {}).get(cfg)
        if not r:
            continue
        out.append({
            "config": cfg,
            "rows": r["rows"],
            "markup_author": r["markup_author"]["test"],
            "markup_project": r["markup_project"]["test"],
            "text_author": r["text_author"]["test"],
            "majority_author": r["markup_author"]["majority"]["test"],
            "majority_project": r["markup_project"]["majority"]["test"],
        })
    return out


def render_report(warehouse: Path, leakage: Path, out_dir: Path = DEFAULT_DIR) -> Path:
    """Render ``<out_dir>/variation_and_leakage.md`` and its charts (PNG beside it).

    Args:
        warehouse: the DuckDB warehouse (read-only) holding mart_variation / mart_merge_effects.
        leakage: path of ``leakage_report.json``.
        out_dir: output directory (created).

    Returns:
        The Markdown file's path. The report names the warehouse and the leakage report by paths
        relative to ``out_dir``; a failure leaves no ``out_dir`` behind that it created.
    """
    variation = load_variation(warehouse)
    doc = load_leakage(leakage)
    created = not out_dir.exists()
    out_dir = open_output_dir(out_dir, REPORTS_KIND, protected=(*config.settings().inputs(), warehouse, leakage))
    try:
        return _render(warehouse, leakage, out_dir, variation, doc)
    except BaseException:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise


def _render(warehouse: Path, leakage: Path, out_dir: Path, variation: dict, doc: dict | None) -> Path:
    table = audit_table(doc) if doc else []
    charts = {}
    if variation["points"]:
        charts["variation"] = chart_variation(variation["points"], variation["highlight"],
                                              out_dir / "variation.png").name
    if variation["merges"]:
        charts["merges"] = chart_merges(variation["merges"], out_dir / "merge_effects.png").name
    if table:
        charts["audit"] = chart_audit(table, out_dir / "leakage_audit.png").name
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["pp"] = lambda v: "–" if v is None else f"{v:.2f}"
    env.filters["pp3"] = lambda v: "–" if v is None else f"{v:+.3f}"
    env.filters["pct"] = lambda v: "–" if v is None else f"{100 * v:.1f}"
    text = env.get_template("report.md.j2").render(
        warehouse=os.path.relpath(warehouse, out_dir), leakage_path=os.path.relpath(leakage, out_dir), variation=variation, merges=variation["merges"],
        leakage=doc, table=table, charts=charts,
        gap_rows=sorted(((k, g) for k, g in (doc or {}).get("track_gap", {}).items()), key=lambda kg: int(kg[0])), highlight_deprels=HIGHLIGHT_DEPRELS,
        highlight_feature=HIGHLIGHT_FEATURE)
    return write_text_atomic(out_dir / REPORT_NAME, text)


def cmd_report(args: argparse.Namespace) -> int:
    """``sphragis report`` (also ``sphragis audit --report``): render the report from the warehouse
    and ``<args.out or SPHRAGIS_OUT>/metadata/leakage_report.json`` into ``args.report_dir``."""
    settings = config.settings()
    out = Path(args.out) if args.out else settings.out
    md = render_report(warehouse=settings.warehouse, leakage=out / config.LEAKAGE_REPORT,
                       out_dir=Path(args.report_dir))
    print(f"report: wrote {md}", file=sys.stderr)
    return 0


def add_report_dir_option(parser: argparse.ArgumentParser) -> None:
    """``--report-dir`` (default :data:`DEFAULT_DIR`), read by :func:`cmd_report`; for ``sphragis
    report`` and ``sphragis audit --report``."""
    parser.add_argument("--report-dir", default=str(DEFAULT_DIR), help=f"report directory (default {DEFAULT_DIR})")


def register(subparsers) -> None:
    """Add ``sphragis report`` to the CLI (loaded by :mod:`sphragis.cli`)."""
    r = subparsers.add_parser(
        "report", help="render the variation and leakage report (Markdown + charts) under reports/",
        description="Render the SPEC §11 report: variation tables (mart_variation, mart_merge_effects) from "
        "the warehouse and the leakage audit (metadata/leakage_report.json of the export), with one "
        "chart per table, into --report-dir (default reports/, git-ignored).")
    r.add_argument("--out", help="export directory holding metadata/leakage_report.json (default: SPHRAGIS_OUT)")
    add_report_dir_option(r)
    r.set_defaults(func=cmd_report)
