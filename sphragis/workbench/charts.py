"""Interactive variation charts (SPEC §11) for the docs site, drawn by plotly.js.

The data come from the warehouse tables ``mart_variation`` and ``mart_rates`` (read-only); the
page embeds them as JSON and plotly.js (written once into the site's ``assets/`` from the
``plotly`` Python package, :func:`plotly_js`) draws:

* per category, annotator against authorial variation (percentage points) coloured by verdict,
  with the diagonal (below it: convention), filterable by kind and scheme;
* the same per category as paired bars, sorted by excess;
* per (author, project) cell, the rate of one chosen category (a heatmap author × project),
  the category chosen from a list.

No server and no network: everything is in the page or in ``assets/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from ..queries import missing_relations, records

def plotly_js() -> str:
    """The plotly.js bundle shipped inside the ``plotly`` Python package (minified).

    Raises:
        ModuleNotFoundError: plotly is not installed (``sphragis docs`` names the extra).
    """
    from plotly.offline import get_plotlyjs  # without the extra: the CLI's one line names it

    return get_plotlyjs()


def variation_data(warehouse: Path) -> dict[str, Any] | None:
    """The chart data, or None when the warehouse or one of the two marts is absent.

    Returns:
        {"variation": [row dicts of mart_variation],
         "cells": [[author, project, n_tokens], ...] (sorted),
         "categories": [{"key": "kind|scheme|category", "kind", "scheme", "category",
                         "verdict", "rates": [rate_pct or None per cell]}, ...]}
    """
    if not warehouse.is_file():
        return None
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        if missing_relations(con, ("mart_variation", "mart_rates")):
            return None
        variation = records(con, "select * exclude (n_category_tokens) from mart_variation "
                                 "order by kind, scheme, category")
        rates = records(con, "select * exclude (feature, value) from mart_rates "
                             "order by kind, scheme, category, author, project")
    finally:
        con.close()
    for v in variation:
        for k, x in v.items():
            if hasattr(x, "as_integer_ratio") and not isinstance(x, (int, float)):
                v[k] = float(x)
    cells = sorted({(r["author"], r["project"], int(r["n_tokens"])) for r in rates})
    index = {(a, p): i for i, (a, p, _) in enumerate(cells)}
    verdict = {(v["kind"], v["scheme"], v["category"]): v["verdict"] for v in variation}
    cats: dict[tuple, dict[str, Any]] = {}
    for r in rates:
        key = (r["kind"], r["scheme"], r["category"])
        c = cats.get(key)
        if c is None:
            c = cats[key] = {"key": "|".join(key), "kind": key[0], "scheme": key[1], "category": key[2],
                             "verdict": verdict.get(key), "rates": [None] * len(cells)}
        c["rates"][index[(r["author"], r["project"])]] = round(float(r["rate_pct"]), 4)
    return {"variation": variation, "cells": [list(c) for c in cells], "categories": list(cats.values())}


def data_json(data: dict[str, Any]) -> str:
    """``data`` as JSON safe to place inside a ``<script>`` element."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).replace("</", "<\\/")
