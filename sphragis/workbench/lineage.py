"""The lineage picture: the whole DAG (raw → stg → int → marts → consumers) and each table's
neighbourhood, laid out in the browser by ELK.

Layout: the Eclipse Layout Kernel's layered (Sugiyama) algorithm, elkjs 0.12.1 (npm ``elkjs``,
EPL-2.0), vendored as ``templates/vendor/elk.bundled.js`` with its license beside it and copied
into the site's ``assets/``, so the site works opened from disk with no network. ELK ranks the
nodes by the longest path from the sources (a seed sits just before its first reader), orders each
rank by layer sweeps with greedy switching (:data:`ELK_OPTIONS`), places them by network simplex,
routes the edges orthogonally and merges the edges of one port into one trunk. The test suite
bounds the crossings per edge (fewer than two; the previous layout, grandalf's Sugiyama, PyPI
``grandalf``, drew about 3.6): points where two edges' polylines cross, over every pair of edges without a shared end, counted from the
layout's coordinates (``SphragisLineage.crossings`` in lineage.js, tested in
``tests/test_docs_site.py``).

This module only writes the graph as JSON into the page (:func:`graph`, :func:`box`); the script
``templates/lineage.js`` lays it out, draws the SVG (a box per node linking to its page, coloured
by the node's layer through the CSS class ``layer-<layer>``, so any node kind the catalog adds
is drawn), fits it to the frame and offers the focus view (``+name+``).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .catalog import LAYERS, Catalog

#: ELK layered options (https://eclipse.dev/elk/reference/algorithms/org-eclipse-elk-layered.html),
#: the one home of the layout's settings; lineage.js passes them to ELK unchanged.
ELK_OPTIONS = {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.edgeRouting": "ORTHOGONAL",
    "elk.layered.mergeEdges": "true",
    "elk.layered.thoroughness": "30",
    # sources (seeds, raw tables, named queries) placed beside their first reader rather than all in
    # the first layer: shorter edges, far fewer crossings
    "elk.layered.layering.strategy": "LONGEST_PATH_SOURCE",
    "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
    "elk.layered.cycleBreaking.strategy": "DEPTH_FIRST",
    "elk.layered.crossingMinimization.greedySwitch.type": "TWO_SIDED",
    "elk.layered.spacing.nodeNodeBetweenLayers": "24",
    "elk.layered.spacing.edgeNodeBetweenLayers": "8",
    "elk.layered.spacing.edgeEdgeBetweenLayers": "5",
    "elk.spacing.nodeNode": "8",
    "elk.randomSeed": "1",
}

#: Files of ``templates/vendor/`` the site copies into ``assets/`` (the layout library and its license).
VENDOR = ("elk.bundled.js", "elkjs-LICENSE.md")


def graph(cat: Catalog, names: set[str] | None = None, focus: str | None = None,
          href_prefix: str = "") -> dict[str, Any]:
    """The lineage as plain data for ``lineage.js``.

    Args:
        names: the nodes to draw (default every node of the catalog); edges among them only.
        focus: a node drawn with a thick border (the page's own table).
        href_prefix: prepended to every node's page path (``"../"`` on a table's page).

    Returns:
        {"nodes": [{"id", "layer", "href"}, ...] sorted by name, "edges": [[upstream, downstream], ...]
        sorted, "focus": str | None, "layers": [layer, ...] in :data:`LAYERS` order then any other
        layer a node has, "elk": :data:`ELK_OPTIONS`}.
    """
    keep = set(cat.nodes) if names is None else set(names) & set(cat.nodes)
    nodes = [{"id": n, "layer": cat.nodes[n].layer, "href": href_prefix + cat.nodes[n].href} for n in sorted(keep)]
    layers = list(LAYERS) + sorted({n["layer"] for n in nodes} - set(LAYERS))
    edges = [[u, d] for u, d in cat.edges() if u in keep and d in keep]
    return {"nodes": nodes, "edges": edges, "focus": focus, "layers": layers, "elk": ELK_OPTIONS}


def box(cat: Catalog, href_prefix: str = "", names: set[str] | None = None, focus: str | None = None,
        box_id: str | None = None) -> str:
    """The HTML of one lineage frame: a ``div.lineage-box`` holding the graph as JSON, which
    ``lineage.js`` lays out and draws (arguments as :func:`graph`).

    Without JavaScript the frame says so; every table is still linked from the page's lists.
    """
    data = json.dumps(graph(cat, names, focus, href_prefix), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # no "</script>" inside the script element
    local = " local" if names is not None else ""
    ident = f' id="{escape(box_id)}"' if box_id else ""
    return (f'<div class="lineage-box{local}"{ident} data-lineage>'
            f'<script type="application/json" class="lineage-data">{data}</script>'
            '<noscript>The lineage picture needs JavaScript (it is laid out in the page by ELK).</noscript>'
            "</div>")


def legend(cat: Catalog | None = None) -> str:
    """HTML legend of the layer colours (the layers of :data:`LAYERS`, then any other layer a node
    of ``cat`` has); the colours are the ``layer-<layer>`` classes of ``style.css``."""
    layers = list(LAYERS)
    if cat is not None:
        layers += sorted({n.layer for n in cat.nodes.values()} - set(LAYERS))
    return " ".join(f'<span class="swatch layer-{escape(layer)}"></span>{escape(layer)}' for layer in layers)
