"""The leaderboard of scored submissions, for the dataset card and the docs
site (issue 34; SPEC §11; seed 000 "Residual leakage": the audit's figures are "published on the
leaderboard", the floor a real model must clear).

* **Submissions.** A folder (default ``leaderboard/``) of scored submissions, the ``--json`` files
  of ``sphragis score`` (:mod:`sphragis.submission`, format ``sphragis-score/1``), each with a name,
  an optional link and the fingerprint of the export it was scored against. :func:`collect` takes
  a file only when its fingerprint is this export's (:func:`sphragis.submission.export_fingerprint`)
  and it scores every ``source_held_out_*`` configuration of the export (the ranking's key);
  every other file is refused with the reason. The accepted entries go to
  ``<export>/metadata/leaderboard.json`` with the fingerprint (:func:`write`; ``sphragis
  leaderboard``, whose command line is in :mod:`sphragis.submission`, then re-renders the card).
* **Rows** (:func:`board`, what the card and the docs page render): the accepted submissions and,
  from ``metadata/leakage_report.json``, the floor (markup → author), the text baseline and the
  majority baseline; per row the test accuracy of every configuration, the mean over the
  source-held-out track, the gap (mean over the main track minus that), and for submissions on how many configurations the CI's lower bound beats
  the floor. Sorted by the held-out mean, best first (ties by name). An entry whose recorded
  fingerprint is not the export's (the export changed after ``sphragis leaderboard``) is left out,
  with a note.
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
                          "beats_floor": (d.get("beats_floor") or {}).get("accuracy")}
                    for cfg, d in doc["configs"].items()},
        "track_gap": doc.get("track_gap", {}),
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


def board(out: Path) -> dict[str, Any] | None:
    """The leaderboard rows of the export ``out`` (module docstring), or None when the export has
    no ``metadata/leakage_report.json`` and no ``metadata/leaderboard.json``.

    Returns:
        {"configs": [config, ...] (main track, work-held-out track, then source-held-out), "held_out":
        [...], "rows": [{"rank",
        "system", "kind" ("submission", "floor", "baseline"), "link", "accuracy": {config: float |
        None}, "held_out_mean": float | None, "gap": mean main-track minus held-out mean | None,
        "beats_floor": "n/m" | None}], "note": str | None,
        "fingerprint": str | None} with accuracies as fractions.
    """
    leakage = _load(out / config.LEAKAGE_REPORT)
    accepted = _load(out / LEADERBOARD)
    if leakage is None and accepted is None:
        return None
    configs = column_order([c for c in CONFIGS if (out / "data" / c).is_dir()])
    rows: list[dict[str, Any]] = []
    audited = (leakage or {}).get("configs", {})
    for system, kind, pick in (("markup → author (leakage floor)", "floor", lambda r: r["markup_author"]["test"]),
                               ("text → author (character n-gram baseline)", "baseline",
                                lambda r: r["text_author"]["test"]),
                               ("majority author", "baseline", lambda r: r["markup_author"]["majority"]["test"])):
        if audited:
            rows.append({"system": system, "kind": kind, "link": None, "beats_floor": None,
                         "accuracy": {c: pick(audited[c])["accuracy"] if c in audited else None for c in configs}})
    note = None
    fingerprint = None
    if accepted is not None:
        fingerprint = export_fingerprint(out)
        if accepted.get("export_fingerprint") != fingerprint:
            note = (f"{len(accepted.get('entries', []))} submission(s) of {LEADERBOARD} were scored against another "
                    "export and are not shown: score them again and run `sphragis leaderboard`")
        else:
            for e in accepted["entries"]:
                beats = [e["configs"][c]["beats_floor"] for c in configs if c in e["configs"]]
                rows.append({"system": e["name"], "kind": "submission", "link": e.get("link"),
                             "accuracy": {c: e["configs"].get(c, {}).get("accuracy") for c in configs},
                             # None: scored without a floor (the export was not audited) or a CI
                             "beats_floor": (f"{sum(b is True for b in beats)}/{len(beats)}"
                                             if any(b is not None for b in beats) else None)})
    held = _held_out(configs)
    for r in rows:
        r["held_out_mean"] = _mean([r["accuracy"][c] for c in held])
        main = _mean([r["accuracy"][c] for c in configs if BY_NAME[c].track == MAIN_TRACK])
        r["gap"] = None if main is None or r["held_out_mean"] is None else main - r["held_out_mean"]
    rows.sort(key=lambda r: (r["held_out_mean"] is None, -(r["held_out_mean"] or 0.0), r["system"]))
    for rank, r in enumerate(rows, start=1):
        r["rank"] = rank
    return {"configs": configs, "held_out": held, "rows": rows, "note": note, "fingerprint": fingerprint}


def _mean(scores: list[float | None]) -> float | None:
    return sum(scores) / len(scores) if scores and None not in scores else None


def render_table(b: dict[str, Any]) -> str:
    """Plain-text leaderboard (test accuracy in %)."""
    head = ["#", "system", *b["configs"], "source-held-out mean", "gap", "beats floor"]
    rows = [[str(r["rank"]), r["system"], *(_pct(r["accuracy"][c]) for c in b["configs"]),
             _pct(r["held_out_mean"]), _pct(r["gap"]), r["beats_floor"] or "–"] for r in b["rows"]]
    width = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in [head, *rows]]
    return "\n".join(lines + ([f"note: {b['note']}"] if b["note"] else [])) + "\n"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"
