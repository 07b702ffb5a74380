"""The leaderboard of scored submissions, for the dataset card and the docs
site (SPEC §11; seed 000 "Residual leakage": the audit's figures are "published on the
leaderboard", the floor a real model must clear).

* **Submissions** (:mod:`sphragis.leaderboard_collect`, ``sphragis leaderboard``): the scored
  submissions of a folder (default ``leaderboard/``), each beside its predictions file, re-scored
  against the export and compared; the accepted entries go to ``<export>/metadata/leaderboard.json``
  with the export's fingerprint, each valid by :func:`check_entry`.
* **Rows** (:func:`board`, what the card, the docs page and ``sphragis leaderboard`` render):
  the accepted submissions and, from ``metadata/leakage_report.json``, the floor (markup →
  author), the text baseline, the genre and project lookups and the majority baseline; per row the
  test accuracy of every configuration with its 95 % bootstrap CI, the mean over the
  source-held-out track (the ranking key) with its CI, the rows it is tied with (their CIs of that
  mean overlap), the top-3 accuracy (mean over that track), the seed's gap (mean over the main
  track minus that mean, each on its own authors) and the gap on the same authors (the main track
  scored on the held-out track's authors), and for submissions on how many configurations the
  CI's lower bound beats the floor. Sorted by the held-out mean, best first (ties by name). Every
  "–" has its reason in the board's ``dashes`` (:data:`DASHES`). An entry whose recorded
  fingerprint is not the export's (the export changed after ``sphragis leaderboard``), or that
  :func:`check_entry` finds invalid (the file edited since), is left out, with a note. Renderers
  escape a submission's name and link (the card: :func:`sphragis.submission_report.markdown_link`;
  the docs site: Jinja's HTML autoescaping).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from . import config
from .benchmark import BY_NAME, CONFIGS
from .files import JSON_RECORD_LIMIT, read_regular
from .predictions import SubmissionError, check_link, check_name, export_fingerprint, shown

__all__ = ["DEFAULT_DIR", "LEADERBOARD", "board", "cells", "check_entry", "held_out", "render_table"]

#: Default folder of scored submissions (relative to the current directory; like ``reports/``).
DEFAULT_DIR = Path("leaderboard")
#: The accepted submissions inside the export.
LEADERBOARD = Path("metadata") / "leaderboard.json"
HELD_OUT_TRACK = "source_held_out"
MAIN_TRACK = "main"


def held_out(configs) -> list[str]:
    """The source-held-out configurations of ``configs`` (the ranking's key), in their order."""
    return [c for c in configs if BY_NAME[c].track == HELD_OUT_TRACK]


def _fraction(v: Any, low: float = 0.0) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and low <= v <= 1


def _interval_ok(ci: Any, low: float = 0.0) -> bool:
    return ci is None or (isinstance(ci, list) and len(ci) == 2 and all(_fraction(x, low) for x in ci)
                          and ci[0] <= ci[1])


def check_entry(entry: Any) -> str | None:
    """What is wrong with a leaderboard entry (the shape :func:`collect` writes), or None: the name
    and link as :func:`~sphragis.predictions.check_name` and
    :func:`~sphragis.predictions.check_link` take them; per configuration, accuracy and macro-F1
    fractions in [0, 1] with None or a ``[low, high]`` CI of fractions, top-k a fraction or None,
    ``beats_floor`` a boolean or None; the held-out track's mean a fraction with its CI; the gaps
    on the same authors None or in [-1, 1]. What the board (:func:`board`) renders is checked
    again when it reads ``metadata/leaderboard.json``, which may have been edited."""
    if not isinstance(entry, dict):
        return f"an entry must be an object, found {shown(entry)}"
    try:
        check_name(entry.get("name"), "name")
        check_link(entry.get("link"), "link")
    except SubmissionError as exc:
        return str(exc)
    configs = entry.get("configs")
    if not isinstance(configs, dict) or not configs or not all(c in BY_NAME for c in configs):
        return f"configs must map configurations to figures, found {shown(configs)}"
    for cfg, d in configs.items():
        if not isinstance(d, dict):
            return f"configs.{cfg} must be an object, found {shown(d)}"
        for key in ("accuracy", "macro_f1"):
            if not _fraction(d.get(key)) or not _interval_ok(d.get(f"{key}_ci")):
                return (f"configs.{cfg}.{key} must be a fraction in [0, 1] with its CI, found "
                        f"{shown(d.get(key))} {shown(d.get(f'{key}_ci'))}")
        if d.get("top_k") is not None and not _fraction(d["top_k"]):
            return f"configs.{cfg}.top_k must be a fraction in [0, 1], found {shown(d['top_k'])}"
        if d.get("beats_floor") is not None and not isinstance(d["beats_floor"], bool):
            return f"configs.{cfg}.beats_floor must be true, false or null, found {shown(d['beats_floor'])}"
    means = entry.get("track_mean", {})
    if not isinstance(means, dict):
        return f"track_mean must be an object, found {shown(means)}"
    mean = means.get(HELD_OUT_TRACK)
    if mean is not None and not (isinstance(mean, dict) and _fraction(mean.get("accuracy"))
                                 and _interval_ok(mean.get("ci"))):
        return f"track_mean.{HELD_OUT_TRACK} must be a fraction in [0, 1] with its CI, found {shown(mean)}"
    gaps = entry.get("same_author_gap", {})
    if not isinstance(gaps, dict):
        return f"same_author_gap must be an object, found {shown(gaps)}"
    for cfg, g in gaps.items():
        if g is not None and not (isinstance(g, dict) and _fraction(g.get("accuracy"), -1.0)
                                  and _interval_ok(g.get("ci"), -1.0)):
            return f"same_author_gap.{cfg} must be a difference in [-1, 1] with its CI, found {shown(g)}"
    return None


def _load(path: Path) -> dict | None:
    """The JSON document ``path`` of the export (a regular file, bounded), or None when absent."""
    try:
        return json.loads(read_regular(path, JSON_RECORD_LIMIT).decode("utf-8"))
    except FileNotFoundError:
        return None


def column_order(configs: list[str]) -> list[str]:
    """``configs`` in the order the card's tables show them: the main track, the work-held-out
    track, then the source-held-out track the leaderboard ranks by (each in ``CONFIGS`` order)."""
    held = held_out(configs)
    return [c for c in configs if c not in held] + held


#: The audit's own rows (``metadata/leakage_report.json``): (system, kind, result key in a
#: configuration's entry, track_means key), the majority read from the markup classifier's.
AUDIT_ROWS = (("markup → author (leakage floor)", "floor", "markup_author", "markup_author"),
              ("text → author (character n-gram baseline)", "baseline", "text_author", "text_author"),
              ("genre → author (lookup baseline)", "baseline", "genre_author", "genre_author"),
              ("project → author (lookup baseline)", "baseline", "project_author", "project_author"),
              ("majority author", "baseline", "markup_author", "majority"))

#: Why a cell of the leaderboard is "–": the reasons the legend lists, keyed by where the dash is.
DASHES = {
    "config": "the system does not score that configuration (a submission may score any; every one of the "
              "audit's rows scores every configuration the export has)",
    "ci": "no interval: the submission was scored with `--bootstrap 0`",
    "top_k": "top-3: a lookup names one author, and so does a submission without a score for every author of "
             "every row (the majority row's top-3 is its three most frequent training authors)",
    "gap": "a gap needs the system's scores on both tracks it compares",
    "beats_floor": "beats floor: only for submissions (the floor and the baselines are the audit's own figures)",
}


def _audit_row(leakage: dict, configs: list[str], system: str, kind: str, key: str, mean_key: str) -> dict:
    """One of :data:`AUDIT_ROWS` from the leakage report."""
    audited = leakage.get("configs", {})
    majority = mean_key == "majority"

    def fit(c: str) -> dict | None:
        return audited.get(c, {}).get(key)

    acc = {c: ((fit(c)["majority"]["test"] if majority else fit(c)["test"])["accuracy"] if fit(c) else None)
           for c in configs}
    ci = {c: ((fit(c).get("majority_test_ci") if majority else fit(c).get("test_ci")) or {}).get("accuracy")
          if fit(c) else None for c in configs}
    top = [(fit(c).get("test_top_k") or {}).get("majority_accuracy" if majority else "accuracy") if fit(c) else None
           for c in held_out(configs)]
    mean = leakage.get("track_means", {}).get(mean_key, {}).get(HELD_OUT_TRACK, {})
    same = [((leakage.get("same_author_gap", {}).get(c) or {}).get(mean_key) or {}).get("gap", {}).get("accuracy")
            for c in held_out(configs)]
    return {"system": system, "kind": kind, "link": None, "beats_floor": None, "accuracy": acc, "ci": ci,
            "held_out_mean": mean.get("accuracy"), "held_out_mean_ci": mean.get("ci"), "top_k": _mean(top),
            "same_author_gap": _mean(same)}


def _submission_row(e: dict, configs: list[str]) -> dict:
    """A scored submission's row (:func:`_entry`)."""
    beats = [e["configs"][c]["beats_floor"] for c in configs if c in e["configs"]]
    mean = e.get("track_mean", {}).get(HELD_OUT_TRACK) or {}
    return {"system": e["name"], "kind": "submission", "link": e.get("link"),
            "accuracy": {c: e["configs"].get(c, {}).get("accuracy") for c in configs},
            "ci": {c: e["configs"].get(c, {}).get("accuracy_ci") for c in configs},
            "held_out_mean": mean.get("accuracy"), "held_out_mean_ci": mean.get("ci"),
            "top_k": _mean([e["configs"].get(c, {}).get("top_k") for c in held_out(configs)]),
            "same_author_gap": _mean([(e.get("same_author_gap", {}).get(c) or {}).get("accuracy")
                                      for c in held_out(configs)]),
            # None: scored without a floor (the export was not audited) or a CI
            "beats_floor": (f"{sum(b is True for b in beats)}/{len(beats)}" if any(b is not None for b in beats)
                            else None)}


def board(out: Path) -> dict[str, Any] | None:
    """The leaderboard rows of the export ``out`` (module docstring), or None when the export has
    no ``metadata/leakage_report.json`` and no ``metadata/leaderboard.json``.

    Returns:
        {"configs": [config, ...] (main track, work-held-out track, then source-held-out), "held_out":
        [...], "rows": [{"rank", "system", "kind" ("submission", "floor", "baseline"), "link",
        "accuracy": {config: float | None}, "ci": {config: [low, high] | None}, "held_out_mean",
        "held_out_mean_ci", "tied_with": [ranks whose held-out-mean CI overlaps this row's], "top_k"
        (mean top-3 accuracy over the source-held-out track), "gap" (mean over the main track minus
        the held-out mean: the seed's gap, each track on its own authors), "same_author_gap" (mean
        over the source-held-out configurations of the main track scored on their authors minus
        them), "beats_floor": "n/m" | None}], "dashes": [the reasons of :data:`DASHES` that some
        "–" of the rows has], "note": str | None, "fingerprint": str | None}, fractions.
    """
    leakage = _load(out / config.LEAKAGE_REPORT)
    accepted = _load(out / LEADERBOARD)
    if leakage is None and accepted is None:
        return None
    configs = column_order([c for c in CONFIGS if (out / "data" / c).is_dir()])
    rows: list[dict[str, Any]] = []
    if leakage and leakage.get("configs"):
        rows += [_audit_row(leakage, configs, *spec) for spec in AUDIT_ROWS]
    note = None
    fingerprint = None
    if accepted is not None:
        fingerprint = export_fingerprint(out)
        accepted = accepted if isinstance(accepted, dict) else {}
        entries = accepted.get("entries") if isinstance(accepted.get("entries"), list) else [None]
        if accepted.get("export_fingerprint") != fingerprint:
            note = (f"{len(entries)} submission(s) of {LEADERBOARD} were scored against another "
                    "export and are not shown: score them again and run `sphragis leaderboard`")
        else:
            valid = [e for e in entries if check_entry(e) is None]
            rows += [_submission_row(e, configs) for e in valid]
            if len(valid) < len(entries):  # the file was edited after `sphragis leaderboard` wrote it
                note = (f"{len(entries) - len(valid)} submission(s) of {LEADERBOARD} are not shown: their "
                        "figures are not valid; run `sphragis leaderboard` again")
    held = held_out(configs)
    for r in rows:
        r["held_out_mean"] = r["held_out_mean"] if r["held_out_mean"] is not None else _mean(
            [r["accuracy"][c] for c in held])
        main = _mean([r["accuracy"][c] for c in configs if BY_NAME[c].track == MAIN_TRACK])
        r["gap"] = None if main is None or r["held_out_mean"] is None else main - r["held_out_mean"]
    rows.sort(key=lambda r: (r["held_out_mean"] is None, -(r["held_out_mean"] or 0.0), r["system"]))
    for rank, r in enumerate(rows, start=1):
        r["rank"] = rank
    for r in rows:  # tied: the two intervals of the ranking key overlap
        r["tied_with"] = [o["rank"] for o in rows if o is not r and _overlap(r["held_out_mean_ci"], o["held_out_mean_ci"])]
    return {"configs": configs, "held_out": held, "rows": rows, "dashes": _dashes(rows, configs), "note": note,
            "fingerprint": fingerprint}


def _overlap(a: list[float] | None, b: list[float] | None) -> bool:
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def _dashes(rows: list[dict], configs: list[str]) -> list[str]:
    """The reasons (:data:`DASHES`) of the "–" the rows have, in that order."""
    seen = set()
    for r in rows:
        if any(r["accuracy"][c] is None for c in configs) or r["held_out_mean"] is None:
            seen.add("config")
        if any(r["accuracy"][c] is not None and r["ci"][c] is None for c in configs):
            seen.add("ci")
        if r["top_k"] is None:
            seen.add("top_k")
        if r["gap"] is None or r["same_author_gap"] is None:
            seen.add("gap")
        if r["beats_floor"] is None:
            seen.add("beats_floor")
    return [DASHES[k] for k in DASHES if k in seen]


def _mean(scores: list[float | None]) -> float | None:
    return sum(scores) / len(scores) if scores and None not in scores else None


#: The leaderboard's columns after the configurations (plain text and Markdown).
TAIL_HEAD = ["source-held-out mean [95 % CI]", "tied with", "top-3 (held-out mean)",
             "gap (seed's: own authors)", "gap on the same authors", "beats floor"]


def cells(b: dict[str, Any], r: dict[str, Any]) -> list[str]:
    """A board row as the text of its cells (accuracy in %, CIs in brackets), in the order of
    ``["#", "system", *configs, *TAIL_HEAD]``; "–" where :func:`board`'s ``dashes`` says why."""
    return [str(r["rank"]), r["system"], *(_with_ci(r["accuracy"][c], r["ci"][c]) for c in b["configs"]),
            _with_ci(r["held_out_mean"], r["held_out_mean_ci"]), ", ".join(map(str, r["tied_with"])) or "none",
            _pct(r["top_k"]), _pct(r["gap"]), _pct(r["same_author_gap"]), r["beats_floor"] or "–"]


def _with_ci(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "–"
    return _pct(value) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else " [–]")


def render_table(b: dict[str, Any]) -> str:
    """Plain-text leaderboard (test accuracy in %, 95 % CIs), with the legend of its "–"."""
    head = ["#", "system", *b["configs"], *TAIL_HEAD]
    rows = [cells(b, r) for r in b["rows"]]
    width = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in [head, *rows]]
    lines += [f"–: {d}" for d in b["dashes"]]
    return "\n".join(lines + ([f"note: {b['note']}"] if b["note"] else [])) + "\n"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"
