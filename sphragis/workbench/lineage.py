"""The lineage picture: the whole DAG (raw → stg → int → marts → export) as a static SVG.

Layout: grandalf's Sugiyama layered layout (PyPI ``grandalf``; ranks by longest path, crossing
reduction, dummy vertices routing long edges), drawn left to right. Every node is a link to its
page and is coloured by layer; an edge is a cubic Bézier through grandalf's route points. The
SVG is plain markup in the page: no script, so it works opened from disk.
"""

from __future__ import annotations

from html import escape

from .catalog import LAYERS, Catalog

#: Fill colour per layer (the legend shows them in :data:`LAYERS` order).
COLORS = {"raw": "#d9d9d9", "seed": "#fde4a5", "staging": "#cfe2f3", "intermediate": "#b6d7a8",
          "mart": "#f4b6b6", "query": "#c9e9ef", "consumer": "#d5c8ec"}

CHAR_W = 6.7   # px per character of the 11.5px monospace label
NODE_H = 22
RANK_GAP = 55  # px between ranks (horizontal, after the rotation)
NODE_GAP = 8   # px between nodes of one rank (vertical)
DUMMY = 4      # px a long edge's waypoint takes in a rank


def layout(cat: Catalog, names: set[str] | None = None
           ) -> tuple[dict[str, tuple[float, float, float]], list[tuple[str, str, list[tuple[float, float]]]]]:
    """Positions and edge routes, left to right, of ``names`` (default every node) and the edges
    among them.

    Returns:
        (nodes, edges): nodes maps name → (x centre, y centre, width) in px; edges are
        (upstream, downstream, [(x, y), ...]) from the right side of the upstream box to the left
        side of the downstream box.
    """
    from grandalf.graphs import Edge, Graph, Vertex
    from grandalf.layouts import SugiyamaLayout

    class _View:
        def __init__(self, w: float, h: float):
            self.w, self.h, self.xy = w, h, (0.0, 0.0)

    names = sorted(names if names is not None else cat.nodes)
    widths = {n: max(60.0, CHAR_W * len(n) + 16) for n in names}
    verts = {n: Vertex(n) for n in names}
    for n in names:
        # grandalf lays out top-down; give it the rotated box (height ↔ width) and swap after.
        verts[n].view = _View(NODE_H + NODE_GAP, widths[n])
    edges = [Edge(verts[u], verts[d]) for u, d in cat.edges() if u in verts and d in verts]
    g = Graph(list(verts.values()), edges)
    pos: dict[str, tuple[float, float, float]] = {}
    routes: list[tuple[str, str, list[tuple[float, float]]]] = []
    y_offset = 0.0
    for comp in g.C:  # connected components, stacked vertically
        sug = SugiyamaLayout(comp)
        sug.xspace, sug.yspace = NODE_GAP, RANK_GAP
        sug.dw, sug.dh = DUMMY, DUMMY  # long-edge waypoints: thin, so bundles stay compact
        # optimize=True ranks each source just before its first reader (short edges from seeds)
        sug.init_all(roots=[v for v in comp.sV if not v.e_in()], optimize=True)
        sug.draw(3)
        placed = {v.data: v.view.xy for v in comp.sV}
        # grandalf: y grows with rank (our x), x across the rank (our y)
        ranks_x = {}
        for v in comp.sV:
            ranks_x.setdefault(sug.grx[v].rank, []).append(v)
        rank_w = {r: max(widths[v.data] for v in vs) for r, vs in ranks_x.items()}
        x_at, acc = {}, 20.0
        for r in sorted(rank_w):
            x_at[r] = acc + rank_w[r] / 2
            acc += rank_w[r] + RANK_GAP
        min_y = min(xy[0] for xy in placed.values())
        for v in comp.sV:
            pos[v.data] = (x_at[sug.grx[v].rank], placed[v.data][0] - min_y + 20 + y_offset, widths[v.data])
        # route points of dummy vertices (long edges), in our rotated coordinates
        for e in comp.sE:
            u, d = e.v[0].data, e.v[1].data
            pts = []
            ctrl = sug.ctrls.get(e)  # rank → vertex along a long edge (ends included)
            if ctrl:
                for rank in sorted(ctrl)[1:-1]:  # the first and last are the end vertices
                    dv = ctrl[rank]
                    if rank in x_at:  # a rank of waypoints only has no column: the curve skips it
                        pts.append((x_at[rank], dv.view.xy[0] - min_y + 20 + y_offset))
            routes.append((u, d, pts))
        y_offset = max(p[1] for p in pos.values()) + NODE_H + 30
    return pos, routes


def svg(cat: Catalog, href_prefix: str = "", names: set[str] | None = None, focus: str | None = None) -> str:
    """The lineage SVG (a string of markup): nodes link to ``href_prefix + node.href``.

    Args:
        names: draw only these nodes (default all); ``focus`` is drawn with a thick border.
    """
    pos, routes = layout(cat, names)
    cls = "lineage local" if names is not None else "lineage"
    width = max(x + w / 2 for x, _, w in pos.values()) + 20
    height = max(y for _, y, _ in pos.values()) + NODE_H / 2 + 12
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="lineage of every table">',
           "<defs><marker id=\"arr\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
           "markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#888\"/>"
           "</marker></defs>", '<g class="edges" fill="none" stroke="#999" stroke-width="1">']
    for u, d, pts in sorted(routes):
        (ux, uy, uw), (dx, dy, dw) = pos[u], pos[d]
        path = [(ux + uw / 2, uy)] + pts + [(dx - dw / 2, dy)]
        seg = [f"M {path[0][0]:.1f} {path[0][1]:.1f}"]
        for (x0, y0), (x1, y1) in zip(path, path[1:]):
            mx = (x0 + x1) / 2
            seg.append(f"C {mx:.1f} {y0:.1f}, {mx:.1f} {y1:.1f}, {x1:.1f} {y1:.1f}")
        out.append(f'<path data-from="{escape(u)}" data-to="{escape(d)}" d="{" ".join(seg)}" '
                   'marker-end="url(#arr)"/>')
    out.append("</g><g class=\"nodes\" font-family=\"ui-monospace, monospace\" font-size=\"11.5\">")
    for name, (x, y, w) in sorted(pos.items()):
        node = cat.nodes[name]
        out.append(f'<a href="{escape(href_prefix + node.href)}" data-node="{escape(name)}">'
                   f'<title>{escape(node.layer)}: {escape(name)}</title>'
                   f'<rect x="{x - w / 2:.1f}" y="{y - NODE_H / 2:.1f}" width="{w:.1f}" height="{NODE_H}" rx="4" '
                   f'fill="{COLORS[node.layer]}" stroke="#222" stroke-width="{2.5 if name == focus else 0.8}"/>'
                   f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{escape(name)}</text></a>')
    out.append("</g></svg>")
    return "\n".join(out)


def legend() -> str:
    """HTML legend of the layer colours."""
    return " ".join(f'<span class="swatch" style="background:{COLORS[layer]}"></span>{escape(layer)}'
                    for layer in LAYERS)
