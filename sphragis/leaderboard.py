"""The leaderboard of scored submissions, for the dataset card and the docs
site (issue 34; SPEC §11; seed 000 "Residual leakage": the audit's figures are "published on the
leaderboard", the floor a real model must clear).

* **Submissions.** A folder (default ``leaderboard/``) of scored submissions, the ``--json`` files
  of ``sphragis score`` (:mod:`sphragis.submission`, format ``sphragis-score/1``), each with a name,
  an optional link, the fingerprint of the export it was scored against and its predictions file
  (``predictions.file``, a file name, and its ``sha256``), which lies **beside it** in the folder:
  ``leaderboard/<name>.json`` and e.g. ``leaderboard/<name>.jsonl``. Scores are computed, not
  trusted (SPEC §13): :func:`collect` reads each ``*.json`` (a regular file of at most
  :data:`~sphragis.predictions.SCORED_LIMIT` bytes), checks its name and link
  (:func:`~sphragis.predictions.check_name`, :func:`~sphragis.predictions.check_link`), that its
  fingerprint is this export's (:func:`sphragis.submission.export_fingerprint`), that it scores
  every ``source_held_out_*`` configuration of the export (the ranking's key) and that the
  predictions file has the recorded sha256; then it re-scores the predictions with the file's
  bootstrap protocol (at most :data:`MAX_RESAMPLES` resamples) and compares every figure computed
  from them (:data:`FIGURES`: per configuration, the track gaps, the track means and the gaps on
  the same authors; same keys and types, finite numbers within :data:`TOLERANCE`). A file that
  fails any of these is refused with the reason (one line); the entries of the accepted ones are
  made from the re-scored figures and checked (:func:`check_entry`) before anything is written.
  They go to ``<export>/metadata/leaderboard.json`` with the fingerprint (:func:`write`;
  ``sphragis leaderboard``, whose command line is in :mod:`sphragis.submission`, then re-renders
  the card).
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

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from . import config
from .benchmark import BY_NAME, CONFIGS
from .files import JSON_DECIMALS, JSON_RECORD_LIMIT, InputFileError, read_regular, rounded, write_json
from .predictions import (FORMAT, SCORED_LIMIT, SubmissionError, check_link, check_name, export_fingerprint,
                          shown)

__all__ = ["DEFAULT_DIR", "LEADERBOARD", "Refused", "board", "check_entry", "collect", "render_table", "write"]

#: Default folder of scored submissions (relative to the current directory; like ``reports/``).
DEFAULT_DIR = Path("leaderboard")
#: The accepted submissions inside the export.
LEADERBOARD = Path("metadata") / "leaderboard.json"
HELD_OUT_TRACK = "source_held_out"
MAIN_TRACK = "main"


def _held_out(configs) -> list[str]:
    return [c for c in configs if BY_NAME[c].track == HELD_OUT_TRACK]


def _entry(path: Path, doc: dict) -> dict[str, Any]:
    """The leaderboard's record of a scored submission (``doc``: its figures as re-scored)."""
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


#: Most bootstrap resamples the leaderboard re-scores a submission with (its ``protocol.bootstrap``;
#: ``sphragis score`` uses 999): the re-scoring's time grows with them.
MAX_RESAMPLES = 9999
#: The parts of a scored submission computed from its predictions alone: re-scored and compared.
FIGURES = ("configs", "not_submitted", "track_gap", "track_mean", "same_author_gap")
#: A configuration's figures taken from the export's leakage report when it was scored (they follow
#: the audit, not the predictions): not compared, the re-scored ones are used.
AUDIT_FIGURES = ("floor", "text_baseline", "majority", "beats_floor")
#: Largest difference allowed between a figure of the file and the same figure re-scored (both
#: rounded to ``JSON_DECIMALS`` decimals): one unit of the last decimal, as a value at the half may
#: round either way on another machine.
TOLERANCE = 1.5 * 10.0 ** -JSON_DECIMALS


class Refused(ValueError):
    """A scored submission the leaderboard does not take; the message is the reason (one line)."""


def _compared(doc: dict) -> dict[str, Any]:
    """The :data:`FIGURES` of a scored submission, each configuration without :data:`AUDIT_FIGURES`."""
    figures = {k: doc.get(k) for k in FIGURES}
    if isinstance(figures["configs"], dict):
        figures["configs"] = {c: ({k: v for k, v in d.items() if k not in AUDIT_FIGURES} if isinstance(d, dict) else d)
                              for c, d in figures["configs"].items()}
    return figures


def _difference(theirs: Any, ours: Any, where: str) -> str | None:
    """Where the file's value ``theirs`` differs from the re-scored ``ours`` (the first place, as a
    reason), or None: the same keys, lengths and types, strings and booleans equal, numbers finite
    and within :data:`TOLERANCE`."""
    if isinstance(ours, dict) or isinstance(ours, list):
        if type(theirs) is not type(ours):
            return f"{where} must be a{'n object' if isinstance(ours, dict) else ' list'}, found {shown(theirs)}"
        if isinstance(ours, dict) and set(theirs) != set(ours):
            return f"{where} has the keys {shown(sorted(set(theirs) ^ set(ours)))} in only one of the two"
        if len(theirs) != len(ours):
            return f"{where} has {len(theirs)} items, re-scored {len(ours)}"
        pairs = ((theirs[k], ours[k], f"{where}.{k}") for k in ours) if isinstance(ours, dict) else \
            ((t, o, f"{where}[{i}]") for i, (t, o) in enumerate(zip(theirs, ours)))
        return next((d for d in (_difference(*p) for p in pairs) if d), None)
    number = isinstance(ours, (int, float)) and not isinstance(ours, bool)
    if number and (isinstance(theirs, bool) or not isinstance(theirs, (int, float))):
        return f"{where} must be a number, found {shown(theirs)}"
    if number and not math.isfinite(theirs):
        return f"{where} must be a finite number, found {shown(theirs)}"
    if number and abs(theirs - ours) <= TOLERANCE:
        return None
    if not number and type(theirs) is type(ours) and theirs == ours:
        return None
    return f"{where} is {shown(theirs)} in the file, {shown(ours)} re-scored from its predictions"


def _protocol(doc: dict) -> dict[str, Any]:
    """The bootstrap of the file's ``protocol`` (``bootstrap``, ``seed``, ``confidence``), checked:
    whole numbers 0 to :data:`MAX_RESAMPLES` and 0 to 2**63 - 1, a fraction strictly between 0 and 1."""
    p = doc["protocol"]
    for key, low, high in (("bootstrap", 0, MAX_RESAMPLES), ("seed", 0, 2 ** 63 - 1)):
        v = p.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise Refused(f"protocol.{key} must be a whole number from {low} to {high:,}, found {shown(v)}")
    c = p.get("confidence")
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not (math.isfinite(c) and 0 < c < 1):
        raise Refused(f"protocol.confidence must be a number strictly between 0 and 1, found {shown(c)}")
    return {"bootstrap": p["bootstrap"], "seed": p["seed"], "confidence": c}


def _predictions_file(folder: Path, doc: dict) -> tuple[Path, str]:
    """The predictions file a scored submission names (``predictions.file``, a file name in
    ``folder``) and the sha256 it records."""
    name, digest = doc["predictions"].get("file"), doc["predictions"].get("sha256")
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name \
            or not name.isprintable():
        raise Refused(f"predictions.file must be the name of the predictions file beside it, found {shown(name)}")
    if not isinstance(digest, str) or len(digest) != 64 or not all(ch in "0123456789abcdef" for ch in digest):
        raise Refused(f"predictions.sha256 must be a sha256 hex digest, found {shown(digest)}")
    return folder / name, digest


#: The members of a scored submission and their JSON types, checked first (their values after).
_SHAPE = {"name": str, "export": dict, "predictions": dict, "protocol": dict, "configs": dict}


def _read_scored(path: Path) -> dict:
    """A scored submission's JSON object, read as a regular file of at most
    :data:`~sphragis.predictions.SCORED_LIMIT` bytes."""
    try:
        doc = json.loads(read_regular(path, SCORED_LIMIT).decode("utf-8"))
    except InputFileError as exc:
        raise Refused(str(exc).removeprefix(f"{path}: ")) from None
    except OSError as exc:
        raise Refused(f"unreadable ({exc.strerror})") from None
    except (ValueError, RecursionError) as exc:
        raise Refused(f"not JSON ({shown(str(exc), 120)})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or any(
            not isinstance(doc.get(key), kind) for key, kind in _SHAPE.items()):
        raise Refused(f"not a scored submission (format {FORMAT}, written by `sphragis score --json`)")
    return doc


def _accept(path: Path, doc: dict, export, held: list[str]) -> dict[str, Any]:
    """The leaderboard entry of the scored submission ``doc`` (read from ``path``) after its
    predictions are re-scored against ``export`` (a :class:`sphragis.submission.Export`) and every
    figure compared (module docstring).

    Raises:
        Refused: the reason, one line.
    """
    from .submission import score_submission
    from .submission_input import read_bytes

    try:
        name, link = check_name(doc.get("name"), "name"), check_link(doc.get("link"), "link")
    except SubmissionError as exc:
        raise Refused(str(exc)) from None
    theirs = doc["export"].get("fingerprint")
    if theirs != export.fingerprint:
        digest = theirs if isinstance(theirs, str) and len(theirs) == 64 and theirs.isascii() and theirs.isalnum() \
            else shown(theirs)
        raise Refused(f"scored against another export (fingerprint {digest}, this export's is "
                      f"{export.fingerprint}): score it again with `sphragis score`")
    protocol = _protocol(doc)
    predictions, digest = _predictions_file(path.parent, doc)
    missing = [c for c in held if c not in doc["configs"]]
    if missing:
        raise Refused(f"does not score {', '.join(missing)}: the leaderboard ranks by the source-held-out track")
    try:
        data = read_bytes(predictions)
    except SubmissionError as exc:
        raise Refused(f"its predictions file: {exc}") from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise Refused(f"its predictions file {predictions} is not the one scored (sha256 "
                      f"{hashlib.sha256(data).hexdigest()}, the scored file records {digest}): score it again")
    try:
        ours = rounded(score_submission(predictions, export.out, **protocol, name=name, link=link, export=export,
                                        data=data))
    except SubmissionError as exc:
        raise Refused(f"its predictions do not fit this export: {exc}") from None
    different = _difference(_compared(doc), _compared(ours), "figures")
    if different:
        raise Refused(f"{different.removeprefix('figures.')}: a scored submission's figures are recomputed "
                      "from its predictions, and these differ")
    entry = _entry(path, ours)
    problem = check_entry(entry)
    if problem:  # the scorer's own figures out of range: a bug, not the submitter's
        raise Refused(f"re-scored figures out of range: {problem}")
    return entry


def collect(folder: Path, out: Path) -> dict[str, Any]:
    """Check every ``*.json`` of ``folder`` against the export ``out`` (module docstring): each is
    read (a regular file of at most :data:`~sphragis.predictions.SCORED_LIMIT` bytes), its name
    and link checked, its predictions file (beside it) re-scored and every figure compared
    (:func:`_accept`); a predictions file in JSON named by another scored file is not an entry.

    Returns:
        {"export_fingerprint": str, "entries": [entry, ...] (by file name, each valid by
        :func:`check_entry`), "refused": [{"file", "reason"}, ...]}.

    Raises:
        SubmissionError: ``folder`` is not a directory, or the export has no Parquet file.
    """
    from .submission import load_export

    if not folder.is_dir():
        raise SubmissionError(f"{folder}: no such folder of scored submissions (write them with "
                              "`sphragis score PREDICTIONS --json <folder>/<name>.json`)")
    export = load_export(out)
    held = _held_out(export.truth)
    docs: dict[Path, dict | Refused] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            docs[path] = _read_scored(path)
        except Refused as exc:
            docs[path] = exc
    named = {d["predictions"].get("file") for d in docs.values()
             if isinstance(d, dict) and isinstance(d["predictions"].get("file"), str)}
    entries, refused = [], []
    for path, doc in docs.items():
        if isinstance(doc, Refused) and path.name in named:
            continue  # the predictions of another entry, in JSON Lines
        try:
            if isinstance(doc, Refused):
                raise doc
            entries.append(_accept(path, doc, export, held))
        except Refused as exc:
            refused.append({"file": str(path), "reason": str(exc)})
    return {"export_fingerprint": export.fingerprint, "entries": entries, "refused": refused}


def write(folder: Path, out: Path) -> tuple[Path, dict[str, Any]]:
    """:func:`collect` and write the result to ``<out>/metadata/leaderboard.json`` (only entries
    that passed every check are in it; nothing is written when :func:`collect` raises).

    Returns:
        (the path written, the document).
    """
    doc = collect(folder, out)
    return write_json(out / LEADERBOARD, doc), doc


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
