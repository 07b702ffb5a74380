"""The leaderboard of scored submissions, for the dataset card and the docs
site (SPEC §11; seed 000 "Residual leakage": the audit's figures are "published on the
leaderboard", the floor a real model must clear).

* **Submissions.** A folder (default ``leaderboard/``) of scored submissions, the ``--json`` files
  of ``sphragis score`` (:mod:`sphragis.submission`, format ``sphragis-score/1``), each with a name,
  an optional link and the fingerprint of the export it was scored against. :func:`collect` takes
  a file only when its fingerprint is this export's (:func:`sphragis.submission.export_fingerprint`)
  and it scores every ``source_held_out_*`` configuration of the export (the ranking's key);
  every other file is refused with the reason. The accepted entries go to
  ``<export>/metadata/leaderboard.json`` with the fingerprint (:func:`write`; ``sphragis
  leaderboard``, whose command line is in :mod:`sphragis.submission`, then re-renders the card).
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
  fingerprint is not the export's (the export changed after ``sphragis leaderboard``) is left
  out, with a note.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import config
from .benchmark import BY_NAME, CONFIGS
from .files import write_json
from .predictions import FORMAT, SubmissionError, export_fingerprint

__all__ = ["DEFAULT_DIR", "LEADERBOARD", "board", "collect", "render_table", "write"]

#: Default folder of scored submissions (relative to the current directory; like ``reports/``).
DEFAULT_DIR = Path("leaderboard")
#: The accepted submissions inside the export.
LEADERBOARD = Path("metadata") / "leaderboard.json"
HELD_OUT_TRACK = "source_held_out"
MAIN_TRACK = "main"


def _held_out(configs) -> list[str]:
    return [c for c in configs if BY_NAME[c].track == HELD_OUT_TRACK]


def _entry(path: Path, doc: dict) -> dict[str, Any]:
    """The leaderboard's record of a scored submission (figures as the file has them)."""
    return {
        "name": doc["name"], "link": doc.get("link"), "file": path.name,
        "predictions_sha256": doc["predictions"]["sha256"],
        "configs": {cfg: {"accuracy": d["accuracy"]["value"], "accuracy_ci": d["accuracy"]["ci"],
                          "macro_f1": d["macro_f1"]["value"], "macro_f1_ci": d["macro_f1"]["ci"],
                          "top_k": (d.get("top_k_accuracy") or {}).get("value"),
                          "beats_floor": (d.get("beats_floor") or {}).get("accuracy")}
                    for cfg, d in doc["configs"].items()},
        "track_gap": doc.get("track_gap", {}),
        "track_mean": doc.get("track_mean", {}),
        "same_author_gap": {h: (g.get("gap") or {}).get("gap") for h, g in doc.get("same_author_gap", {}).items()},
    }


def collect(folder: Path, out: Path) -> dict[str, Any]:
    """Check every ``*.json`` of ``folder`` against the export ``out`` (module docstring).

    Returns:
        {"export_fingerprint": str, "entries": [entry, ...] (by file name), "refused":
        [{"file", "reason"}, ...]}.

    Raises:
        SubmissionError: ``folder`` is not a directory, or the export has no Parquet file.
    """
    if not folder.is_dir():
        raise SubmissionError(f"{folder}: no such folder of scored submissions (write them with "
                              "`sphragis score PREDICTIONS --json <folder>/<name>.json`)")
    fingerprint = export_fingerprint(out)
    held = _held_out(c for c in CONFIGS if (out / "data" / c).is_dir())
    entries, refused = [], []
    for path in sorted(folder.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            refused.append({"file": str(path), "reason": f"unreadable ({exc})"})
            continue
        try:
            if doc.get("format") != FORMAT:
                raise TypeError
            theirs = doc["export"]["fingerprint"]
            entry = _entry(path, doc)
        except (AttributeError, KeyError, TypeError):
            refused.append({"file": str(path), "reason": f"not a scored submission (format {FORMAT}, "
                                                         "written by `sphragis score --json`)"})
            continue
        if theirs != fingerprint:
            refused.append({"file": str(path), "reason": f"scored against another export (fingerprint {theirs}, "
                                                         f"this export's is {fingerprint}): score it again "
                                                         "with `sphragis score`"})
            continue
        missing = [c for c in held if c not in entry["configs"]]
        if missing:
            refused.append({"file": str(path), "reason": f"does not score {', '.join(missing)}: the leaderboard "
                                                         "ranks by the source-held-out track"})
            continue
        entries.append(entry)
    return {"export_fingerprint": fingerprint, "entries": entries, "refused": refused}


def write(folder: Path, out: Path) -> tuple[Path, dict[str, Any]]:
    """:func:`collect` and write the result to ``<out>/metadata/leaderboard.json``.

    Returns:
        (the path written, the document).
    """
    doc = collect(folder, out)
    return write_json(out / LEADERBOARD, doc), doc


def _load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def column_order(configs: list[str]) -> list[str]:
    """``configs`` in the order the card's tables show them: the main track, the work-held-out
    track, then the source-held-out track the leaderboard ranks by (each in ``CONFIGS`` order)."""
    held = _held_out(configs)
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
           for c in _held_out(configs)]
    mean = leakage.get("track_means", {}).get(mean_key, {}).get(HELD_OUT_TRACK, {})
    same = [((leakage.get("same_author_gap", {}).get(c) or {}).get(mean_key) or {}).get("gap", {}).get("accuracy")
            for c in _held_out(configs)]
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
            "top_k": _mean([e["configs"].get(c, {}).get("top_k") for c in _held_out(configs)]),
            "same_author_gap": _mean([(e.get("same_author_gap", {}).get(c) or {}).get("accuracy")
                                      for c in _held_out(configs)]),
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
        if accepted.get("export_fingerprint") != fingerprint:
            note = (f"{len(accepted.get('entries', []))} submission(s) of {LEADERBOARD} were scored against another "
                    "export and are not shown: score them again and run `sphragis leaderboard`")
        else:
            rows += [_submission_row(e, configs) for e in accepted["entries"]]
    held = _held_out(configs)
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
