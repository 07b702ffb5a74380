"""``sphragis docs``: the static data-dictionary site.

Pages (all relative links, no server, no network; open ``index.html`` from disk):

* ``index.html``: the lineage picture of the whole DAG (:mod:`.lineage`, laid out in the page by the
  vendored elkjs), a search box, and every
  table grouped by layer with its description and row count;
* ``raw/<t>.html``, ``seed/<t>.html``, ``model/<t>.html``, ``consumer/<name>.html``: description,
  columns (type, description, data tests), row count, sample rows, the SQL, upstream and
  downstream with a local lineage picture;
* ``analyses.html``: each ``sql/analyses/*.sql`` with its result on the warehouse;
* ``docs/<page>.html``: the pages of the checkout's ``docs/`` (the contract, how the warehouse is
  built, the rules, the benchmark, the evaluation definitions; :mod:`.pages`);
* ``variation.html``: interactive charts of ``mart_variation`` and ``mart_rates`` (:mod:`.charts`);
* ``leaderboard.html``: the leaderboard of the export (:func:`sphragis.leaderboard.board`);
* ``assets/``: the stylesheet, the search, lineage and chart scripts, elkjs (``elk.bundled.js``, with
  its license) from ``templates/vendor/``, and plotly.js from the ``plotly`` package.

The site is written into a fresh temporary folder and renamed over ``out`` when complete.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from .. import config, leaderboard
from ..files import claim_output_dir, replace_dir
from . import charts, lineage, pages as doc_pages
from .catalog import LAYERS, Catalog, build_catalog

#: Default output folder: ``site/`` in the current directory (git-ignored), like ``config.reports_dir``.
DEFAULT_DIR = Path("site")
#: The kind of output folder the site is (:func:`sphragis.files.claim_output_dir`).
OUTPUT_KIND = "site"

#: Static files copied into ``assets/`` (package data of :mod:`sphragis.workbench`).
ASSETS = ("style.css", "search.js", "lineage.js", "variation.js")

LAYER_TITLES = {"raw": "Raw tables", "seed": "Seeds", "staging": "Staging models",
                "intermediate": "Intermediate models", "mart": "Marts", "query": "Named queries",
                "consumer": "Consumers"}


def _templates() -> resources.abc.Traversable:
    return resources.files("sphragis.workbench") / "templates"


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FunctionLoader(
        lambda name: (_templates() / name).read_text(encoding="utf-8")),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda v: "–" if v is None else f"{v:,}"
    env.filters["frac"] = lambda v: "–" if v is None else f"{100 * v:.1f}"
    return env


def search_index(cat: Catalog) -> list[dict[str, Any]]:
    """One entry per page: name, layer, href (from the site root), first sentence of the
    description and the column names (what the search box matches)."""
    out = [{"n": n.name, "l": n.layer, "h": n.href, "d": n.description.split(". ")[0][:160],
            "c": " ".join(c["name"] for c in n.columns)} for n in sorted(cat.nodes.values(), key=lambda n: n.name)]
    out += [{"n": a["name"], "l": "analysis", "h": f"analyses.html#{a['name']}", "d": a["description"][:160], "c": ""}
            for a in cat.analyses]
    out.append({"n": "variation", "l": "page", "h": "variation.html",
                "d": "Interactive charts: annotator vs authorial variation, rates per cell", "c": ""})
    out.append({"n": "leaderboard", "l": "page", "h": "leaderboard.html",
                "d": "Scored submissions with the leakage floor and the baselines", "c": ""})
    return out


def build_site(out: Path | None = None, warehouse: Path | None = None, manifest: Path | None = None,
               export: Path | None = None) -> dict[str, Any]:
    """Write the site.

    Args:
        out: target folder (default ``site/`` in the current directory; replaced whole: only a
            folder this command wrote, or an empty one).
        warehouse: default ``SPHRAGIS_WAREHOUSE``.
        manifest: a build manifest (default: found beside the warehouse, else the runner's view).
        export: the export whose leaderboard is shown (default ``SPHRAGIS_OUT``).

    Returns:
        {"out": Path, "pages": int, "nodes": {layer: count}, "origin": str, "warehouse": str | None}.

    Raises:
        runner.ModelError: the models do not load.
        RuntimeError: plotly is not installed.
        sphragis.files.OutputRefused: ``out`` is a folder the product did not write, or holds or
            lies inside the sources, the warehouse or the export.
        sphragis.build.BuildLocked: another ``sphragis docs`` writes ``out``.
    """
    from ..build import build_lock, remove_stale_builds

    settings = config.settings()
    export = export or settings.out
    warehouse = warehouse or settings.warehouse
    out = claim_output_dir((out or DEFAULT_DIR).resolve(), OUTPUT_KIND, protected=(*settings.inputs(), export))
    cat = build_catalog(warehouse, manifest=manifest)
    env = _env()
    out.parent.mkdir(parents=True, exist_ok=True)
    with build_lock(out):  # a second `sphragis docs` into the same folder fails fast
        remove_stale_builds(out)  # what a killed run left
        tmp = out.with_name(f"{out.name}.building-{os.getpid()}")
        tmp.mkdir()
        try:
            pages = _write(cat, env, tmp, warehouse, export)
            replace_dir(tmp, out, OUTPUT_KIND)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    by_layer = {layer: len(v) for layer, v in cat.by_layer().items()}
    return {"out": out, "pages": pages, "nodes": by_layer, "origin": cat.origin, "warehouse": cat.warehouse}


def _write(cat: Catalog, env: jinja2.Environment, root: Path, warehouse: Path, export: Path) -> int:
    assets = root / "assets"
    assets.mkdir()
    for name in ASSETS:
        (assets / name).write_text((_templates() / name).read_text(encoding="utf-8"), encoding="utf-8")
    for name in lineage.VENDOR:  # the layout library and its license
        (assets / name).write_bytes((_templates() / "vendor" / name).read_bytes())
    (assets / "search-index.js").write_text(
        "window.SPHRAGIS_INDEX = " + json.dumps(search_index(cat), ensure_ascii=False) + ";\n", encoding="utf-8")
    (assets / "plotly.min.js").write_text(charts.plotly_js(), encoding="utf-8")
    common = {"cat": cat, "layers": LAYERS, "titles": LAYER_TITLES, "legend": lineage.legend(cat),
              "built": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    pages = 0

    def page(rel: str, template: str, **ctx: Any) -> None:
        nonlocal pages
        depth = rel.count("/")
        html = env.get_template(template).render(**common, root="../" * depth, **ctx)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
        pages += 1

    page("index.html", "index.html.j2", lineage_box=lineage.box(cat, box_id="lineage-box"), by_layer=cat.by_layer())
    for node in sorted(cat.nodes.values(), key=lambda n: n.name):
        near = {node.name, *node.upstream, *node.downstream}
        page(node.href, "node.html.j2", node=node,
             local_box=lineage.box(cat, "../", names=near, focus=node.name))
    page("analyses.html", "analyses.html.j2", analyses=cat.analyses)
    for name, (title, html) in doc_pages.html_pages().items():
        page(f"docs/{name}", "doc.html.j2", title=title, html=html,
             source="README.md" if name == "index.html" else name[:-5] + ".md")
    data = charts.variation_data(warehouse)
    page("variation.html", "variation.html.j2", data_json=charts.data_json(data) if data else None,
         n_categories=len(data["categories"]) if data else 0, n_cells=len(data["cells"]) if data else 0)
    page("leaderboard.html", "leaderboard.html.j2", board=leaderboard.board(export), export=export,
         tail_head=leaderboard.TAIL_HEAD, cells=leaderboard.cells)
    return pages
