"""The dataset card's figures from the leakage audit (:mod:`.card`; ``metadata/leakage_report.json``,
written by ``sphragis audit``, and the leaderboard of :mod:`sphragis.leaderboard`): the leaderboard's
cells, the per-configuration audit table, what the floor measures, the tracks on the same authors and
the confounds. Every number comes from the report; the wording the card chooses between follows them
(:func:`reading`)."""

from __future__ import annotations

from typing import Any

from sphragis import leaderboard
from sphragis.audit_claims import THIN_ROWS
from sphragis.benchmark import BY_NAME, CONFIGS, config_of
from sphragis.submission_report import markdown_link

#: The per-configuration audit table's columns: the report's result keys.
AUDIT_COLUMNS = ("markup_author", "markup_project", "text_author", "genre_author", "project_author")


def audit_table(leakage: dict | None) -> dict | None:
    """The per-configuration table (test accuracy and macro-F1 of every system) and the method
    lines, in the leaderboard's column order; None without a report."""
    if not leakage:
        return None
    rows = []
    for cfg in leaderboard.column_order([c for c in CONFIGS if c in leakage["configs"]]):
        r = leakage["configs"][cfg]
        rows.append({"config": cfg, **{k: r[k]["test"] for k in AUDIT_COLUMNS},
                     "majority_author": r["markup_author"]["majority"]["test"]})
    return {"rows": rows, "classifier": leakage["method"]["classifier"],
            "subsampling": leakage["method"]["subsampling"], "stopping_rule": leakage["method"].get("stopping_rule")}


def board_cells(board: dict | None) -> tuple[list[str], list[list[str]]]:
    """The leaderboard's header and rows as Markdown cells (:func:`sphragis.leaderboard.cells`;
    configurations in backticks, a submission's name escaped and linked to its link:
    :func:`sphragis.submission_report.markdown_link`)."""
    if not board:
        return [], []
    head = ["#", "system", *(f"`{c}`" for c in board["configs"]), *leaderboard.TAIL_HEAD]
    rows = []
    for r in board["rows"]:
        cells = leaderboard.cells(board, r)
        cells[1] = markdown_link(cells[1], r["link"])
        rows.append(cells)
    return head, rows


def reading(leakage: dict | None) -> dict | None:
    """What the floor measures (the report's ``floor_reading``) and the wording the numbers allow:
    ``syntax`` when markup → author inside a project beats its majority with the CI's lower bound
    (the floor is then not annotator signal alone); ``annotator`` likewise for markup → project
    inside an author (the annotators are told apart)."""
    r = (leakage or {}).get("floor_reading")
    if not r or r["within_project"]["accuracy"] is None:
        return None
    wp, wa = r["within_project"], r["within_author"]
    syntax = wp["ci"] is not None and wp["ci"][0] > wp["majority_accuracy"]
    annotator = wa["accuracy"] is not None and wa["ci"] is not None and wa["ci"][0] > wa["majority_accuracy"]
    return {**r, "syntax": syntax, "annotator": annotator}


def same_author_gaps(leakage: dict | None) -> list[dict]:
    """One entry per held-out configuration of ``same_author_gap``: its authors, the text and markup
    classifiers' main-track-on-its-authors, held-out and gap figures, and the seed's gap (main minus
    held-out on their own authors) beside them."""
    out = []
    configs = (leakage or {}).get("configs", {})
    for held, g in (leakage or {}).get("same_author_gap", {}).items():
        if not g.get("text_author") or not g.get("markup_author"):
            continue
        main = g["main"]

        def seed(key: str) -> float:
            return configs[main][key]["test"]["accuracy"] - configs[held][key]["test"]["accuracy"]

        out.append({"config": held, "authors": len(g["authors"]), "text": g["text_author"], "markup": g["markup_author"],
                    "seed_text": seed("text_author"), "seed_markup": seed("markup_author")})
    return sorted(out, key=lambda e: CONFIGS.index(e["config"]))


def confounds(leakage: dict | None) -> dict | None:
    """The card's confounds from each configuration's ``confounds``: neighbour leakage of the atomic
    configurations, held-out works of ``source_held_out_1``, the largest training share of each
    atomic configuration, and the test split's thin authors of every configuration."""
    configs = (leakage or {}).get("configs", {})
    if not configs:
        return None
    atomic = [c for c in CONFIGS if c in configs and BY_NAME[c].chunk_target_size == 1]
    out: dict[str, Any] = {"thin_rows": THIN_ROWS, "neighbours": [], "shares": [], "thin": [], "held_out_works": None}
    for cfg in atomic:
        c = configs[cfg]["confounds"]
        if c.get("neighbours", {}).get("test"):
            out["neighbours"].append({"config": cfg, "share": c["neighbours"]["test"]["share"]})
        if c.get("largest_train_share"):
            out["shares"].append({"config": cfg, **c["largest_train_share"]})
    held = configs.get(config_of("source_held_out", 1), {}).get("confounds", {}).get("held_out_works")
    if held:
        out["held_out_works"] = {"both": [a for a, w in held.items() if w["held_out_project_is_held_out_work"]],
                                 "shared": [a for a, w in held.items() if not w["held_out_project_is_held_out_work"]]}
    for cfg in (c for c in CONFIGS if c in configs):
        thin = configs[cfg]["confounds"]["thin_authors"]["test"]
        out["thin"].append({"config": cfg, "authors": [f"{a} ({n})" for a, n in sorted(thin.items())],
                            "one": sum(1 for n in thin.values() if n == 1)})
    return out


def context(leakage: dict | None, board: dict | None) -> dict[str, Any]:
    """Everything the card template takes from the audit and the leaderboard."""
    head, rows = board_cells(board)
    return {"leaderboard": audit_table(leakage), "board_head": head, "board_cells": rows, "reading": reading(leakage),
            "gaps": same_author_gaps(leakage), "confounds": confounds(leakage)}


def filters() -> dict[str, Any]:
    """The template's filters for these figures (fractions shown in %)."""
    def pct(v: float | None) -> str:
        return "–" if v is None else f"{100 * v:.1f}"

    def ci(v: list[float] | None) -> str:
        return "–" if not v else f"{pct(v[0])}–{pct(v[1])} %"

    return {"ci": ci, "points": lambda v: "–" if v is None else f"{100 * v:.1f}",
            "acc_ci": lambda d: "–" if not d else f"{pct(d['accuracy'])} [{pct(d['ci'][0])}, {pct(d['ci'][1])}]"
            if d.get("ci") else pct(d["accuracy"])}
