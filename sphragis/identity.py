"""Cross-project text identity in the build summary (SPEC §5.1: "every build reports it"), and
the size of the lexicon check.

The figures come from the marts ``mart_cross_project_agreement`` and ``mart_lexicon_check``
(models/marts); this module only prints them.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from rich.console import Console
from rich.table import Table

MART = "mart_cross_project_agreement"
LEXICON_MART = "mart_lexicon_check"


def text_identity(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, int, int, int]]:
    """Per project pair: pairs of records of one sentence (same dedup key, two projects) and how
    many have identical published ``text``, over retained pairs and over all pairs (SPEC §5.1).

    Args:
        con: a connection to a built warehouse.

    Returns:
        Rows ``(project_pair, retained_pairs, retained_identical, all_pairs, all_identical)``,
        project pairs in name order and the total (``all``) last.

    Raises:
        duckdb.CatalogException: the warehouse has no ``mart_cross_project_agreement``.
    """
    rows = con.table(MART).filter("field = 'text'").project("scope, project_pair, n, n_agree").fetchall()
    by_pair: dict[str, dict[str, tuple[int, int]]] = {}
    for scope, pair, n, agree in rows:
        by_pair.setdefault(pair, {})[scope] = (n, agree)
    order = sorted(p for p in by_pair if p != "all") + (["all"] if "all" in by_pair else [])
    return [(p, *by_pair[p].get("retained", (0, 0)), *by_pair[p].get("all", (0, 0))) for p in order]


def lexicon_check_size(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """The size of the lexicon check (SPEC §5.1): published forms that occur in no source
    as an unsplit word, and the published tokens with those forms.

    Args:
        con: a connection to a built warehouse.

    Returns:
        ``(forms, tokens)``.

    Raises:
        duckdb.CatalogException: the warehouse has no ``mart_lexicon_check``.
    """
    ((forms, tokens),) = con.table(LEXICON_MART).aggregate("count(*), coalesce(sum(n_tokens), 0)").fetchall()
    return int(forms), int(tokens)


def print_text_identity(warehouse: Path, out: Console | None = None) -> None:
    """Print the per-project-pair text identity table of the warehouse at ``warehouse``.

    Args:
        warehouse: path of a built warehouse (opened read-only).
        out: console to print to (default: stderr).
    """
    out = out or Console(stderr=True, highlight=False)
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = text_identity(con)
        forms, tokens = lexicon_check_size(con)
    finally:
        con.close()
    t = Table(title="cross-project text identity (SPEC §5.1): pairs (retained / all) with the same text")
    t.add_column("project pair", no_wrap=True)
    for col in ("retained", "same", "%", "all", "same", "%"):  # pairs, identical text, share
        t.add_column(col, justify="right", no_wrap=True)
    for pair, rn, ra, an, aa in rows:
        t.add_row(pair, f"{rn:,}", f"{ra:,}", f"{100 * ra / rn:.1f}" if rn else "-",
                  f"{an:,}", f"{aa:,}", f"{100 * aa / an:.1f}" if an else "-")
    out.print(t)
    out.print(f"lexicon check ({LEXICON_MART}): {forms:,} published forms ({tokens:,} tokens) "
              "occur in no source as an unsplit word")
