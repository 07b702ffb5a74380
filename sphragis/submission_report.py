"""Rendering of a scored submission (``sphragis score``; :mod:`sphragis.submission`): the plain-text
table printed on stdout (:func:`render_table`) and the ``--markdown`` report (:func:`render_markdown`),
and the escaping of a submission's strings for Markdown (:func:`markdown_text`,
:func:`markdown_link`), which the dataset card's leaderboard uses too.

A submission's name and link are data, never markup (SPEC §13): they are checked when read
(:func:`sphragis.predictions.check_name`, :func:`~sphragis.predictions.check_link`) and escaped
wherever rendered. Markdown as the Hub renders it (CommonMark with GitHub's tables, raw HTML allowed)
gives meaning to some ASCII punctuation only, so each such character of a name is escaped:
``& < > " '`` as HTML character references (no tag or entity can start), the characters that open
emphasis, code, links, images, strikethrough, math or a heading and GitHub's cell separator with a
backslash (CommonMark's escape, which holds for any ASCII punctuation). A name is one line, so no
block (heading, list, quote) can start inside it.
"""

from __future__ import annotations

__all__ = ["markdown_link", "markdown_text", "render_markdown", "render_table"]

_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_MARKDOWN_ESCAPES = str.maketrans({c: _REFERENCES.get(c, "\\" + c) for c in "&<>\"'\\`*_[]|!~#$"})
#: Characters a checked link may hold that can end a Markdown link destination (an unbalanced
#: parenthesis): percent-encoded.
_LINK_ESCAPES = str.maketrans({c: f"%{ord(c):02X}" for c in "()"})


def markdown_text(text: str) -> str:
    """``text`` (one line) as Markdown text that renders as exactly these characters (module
    docstring), in a paragraph or a table cell."""
    return text.translate(_MARKDOWN_ESCAPES)


def markdown_link(text: str, url: str | None) -> str:
    """``text`` linked to ``url`` (a link :func:`~sphragis.predictions.check_link` accepted: an
    http(s) URL of RFC 3986 characters), both escaped; ``text`` alone when ``url`` is None."""
    if not url:
        return markdown_text(text)
    return f"[{markdown_text(text)}]({url.translate(_LINK_ESCAPES)})"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _ci(ci: list[float] | None) -> str:
    return "" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _verdict(doc: dict) -> str:
    if doc["beats_floor"] is None:
        return "no floor (not audited)" if doc["floor"] is None else "no CI"
    return "yes" if doc["beats_floor"]["accuracy"] else "NO"


def _summary_rows(scored: dict) -> list[list[str]]:
    rows = []
    for cfg, d in scored["configs"].items():
        rows.append([cfg, f"{d['rows']:,}", _pct(d["accuracy"]["value"]), _ci(d["accuracy"]["ci"]),
                     _pct(d["macro_f1"]["value"]), _ci(d["macro_f1"]["ci"]),
                     _pct((d["top_k_accuracy"] or {}).get("value")),
                     _pct((d["floor"] or {}).get("accuracy")), _pct((d["text_baseline"] or {}).get("accuracy")),
                     _verdict(d)])
    return rows


SUMMARY_HEAD = ["configuration", "rows", "accuracy", "CI", "macro-F1", "CI", "top-3", "floor", "text baseline",
                "beats floor (CI low)"]
GAP_HEAD = ["chunk size", "main", "held-out", "accuracy gap", "CI", "macro-F1 gap", "CI"]
SAME_AUTHOR_HEAD = ["held-out", "main", "authors", "main on them", "CI", "held-out", "CI", "gap", "CI"]
#: What a "–" of the tables means.
DASH_NOTE = ("–: top-3 needs a score for every author of every row and more than three authors; floor and text "
             "baseline need the export's leakage report")


def _gap_rows(scored: dict) -> list[list[str]]:
    return [[k, g["main"], g["held_out"], _pct(g["accuracy"]["gap"]), _ci(g["accuracy"]["ci"]),
             _pct(g["macro_f1"]["gap"]), _ci(g["macro_f1"]["ci"])] for k, g in scored["track_gap"].items()]


def _same_author_rows(scored: dict) -> list[list[str]]:
    rows = []
    for held, g in scored.get("same_author_gap", {}).items():
        e = g["gap"]
        rows.append([held, g["main"], str(len(g["authors"])),
                     *(x for k in ("main_same_authors", "held_out", "gap") for x in (_pct(e[k]["accuracy"]), _ci(e[k]["ci"])))])
    return rows


def _caption(scored: dict) -> list[str]:
    p = scored["protocol"]
    lines = [f"{scored['name']}: {scored['predictions']['file']} scored against the export "
             f"{scored['export']['path']} (fingerprint {scored['export']['fingerprint'][:16]}…), {p['split']} split; "
             "figures in %",
             f"CI: {round(100 * p['confidence'])} % percentile bootstrap over rows, {p['bootstrap']} resamples, "
             f"seed {p['seed']}" if p["bootstrap"] else "CI: none (bootstrap = 0)"]
    inputs = scored.get("inputs")
    if inputs:
        lines.append(f"a model may read only {', '.join(inputs['input_columns'])} (input_columns of "
                     f"metadata/dataset_variants.json; label: {inputs['label_column']}); every other column is "
                     "metadata, and these reveal the label by a train-author lookup: "
                     f"{', '.join(inputs['revealing']) or 'none'}")
    else:
        lines.append("the export declares no input columns (metadata/dataset_variants.json): export it again")
    if scored["leakage_report"] is None:
        lines.append("floor and baselines: none, the export has no metadata/leakage_report.json (run `sphragis audit`)")
    if scored["not_submitted"]:
        lines.append(f"not submitted: {', '.join(scored['not_submitted'])}")
    return lines


def render_table(scored: dict) -> str:
    """Plain-text tables of a scored submission (:func:`score_submission`): one row per
    configuration, then the track gaps, then per-author F1 with its CI."""
    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        width = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        return ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in [head, *rows]]

    lines = [*_caption(scored), "", *table(SUMMARY_HEAD, _summary_rows(scored)), DASH_NOTE]
    if scored["track_gap"]:
        lines += ["", "Track gap (main − source-held-out, each on its own authors, as seed 000):",
                  *table(GAP_HEAD, _gap_rows(scored))]
    if scored.get("same_author_gap"):
        lines += ["", "Gap on the same authors (the main track scored on the held-out track's authors only):",
                  *table(SAME_AUTHOR_HEAD, _same_author_rows(scored))]
    for cfg, d in scored["configs"].items():
        lines += ["", f"{cfg}: per-author F1", *table(
            ["author", "test rows", "predicted", "F1", "CI"],
            [[a, str(s["support"]), str(s["predicted"]), _pct(s["f1"]), _ci(s["ci"])]
             for a, s in d["per_author"].items()])]
    return "\n".join(lines) + "\n"


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows)]


def render_markdown(scored: dict) -> str:
    """The Markdown report of a scored submission (the same tables as :func:`render_table`); the
    name and link escaped (:func:`markdown_link`), the caption's lines too."""
    lines = [f"# {markdown_link(scored['name'], scored['link'])}", "",
             *(f"{markdown_text(line)}  " for line in _caption(scored)), "",
             *_md_table(SUMMARY_HEAD, [[f"`{r[0]}`", *r[1:]] for r in _summary_rows(scored)]), "", DASH_NOTE]
    if scored["track_gap"]:
        lines += ["", "## Track gap (main − source-held-out)", "", *_md_table(GAP_HEAD, _gap_rows(scored))]
    if scored.get("same_author_gap"):
        lines += ["", "## Gap on the same authors", "", *_md_table(SAME_AUTHOR_HEAD, _same_author_rows(scored))]
    lines += ["", "## Per-author F1"]
    for cfg, d in scored["configs"].items():
        lines += ["", f"### `{cfg}`", "", *_md_table(
            ["author", "test rows", "predicted", "F1", "CI"],
            [[a, str(s["support"]), str(s["predicted"]), _pct(s["f1"]), _ci(s["ci"])]
             for a, s in d["per_author"].items()])]
    return "\n".join(lines) + "\n"
