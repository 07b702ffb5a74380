"""``sphragis leaderboard``: the scored submissions of a folder collected into the export's
leaderboard (``metadata/leaderboard.json``, rendered by :mod:`sphragis.leaderboard`). Scores are
computed, not trusted (SPEC §13).

* **Layout.** A leaderboard entry is a scored submission, the ``--json`` file of ``sphragis score``
  (:mod:`sphragis.submission`, format ``sphragis-score/1``), and the predictions file it names,
  side by side in the folder (default ``leaderboard/``): ``leaderboard/<name>.json`` records the
  name, an optional link, the fingerprint of the export it was scored against, its bootstrap
  protocol and its predictions file (``predictions.file``, a file name, e.g. ``<name>.jsonl``, and
  its ``sha256``).
* **Checks** (:func:`collect`, each failure a refusal with its reason, one line): the scored file
  is a regular file of at most :data:`~sphragis.predictions.SCORED_LIMIT` bytes holding a scored
  submission; its name and link pass :func:`~sphragis.predictions.check_name` and
  :func:`~sphragis.predictions.check_link`; its fingerprint is this export's
  (:func:`sphragis.predictions.export_fingerprint`); its protocol asks at most
  :data:`MAX_RESAMPLES` resamples; it scores every ``source_held_out_*`` configuration of the export
  (the ranking's key); the predictions file beside it is regular, within
  :data:`~sphragis.predictions.PREDICTIONS_LIMIT` bytes and has the recorded sha256. Then the
  predictions are scored again (:func:`sphragis.submission.score_submission`, with the file's
  protocol) and every figure computed from them (:data:`FIGURES`) compared with the file's: the
  same keys and types, finite numbers within :data:`TOLERANCE`.
* **Output.** The entries (:func:`_entry`) are made from the re-scored figures and checked
  (:func:`sphragis.leaderboard.check_entry`) before ``metadata/leaderboard.json`` is written
  (:func:`write`); the refused files are listed with their reasons. A folder with bad files is
  still ranked: the rest are accepted (``make export`` runs ``sphragis leaderboard`` when
  ``leaderboard/`` exists).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

from . import config
from .files import JSON_DECIMALS, InputFileError, read_regular, rounded, write_json
from .leaderboard import DEFAULT_DIR, LEADERBOARD, board, check_entry, held_out, render_table
from .predictions import FORMAT, SCORED_LIMIT, SubmissionError, check_link, check_name, shown

__all__ = ["AUDIT_FIGURES", "FIGURES", "MAX_RESAMPLES", "TOLERANCE", "Refused", "collect", "register", "write"]


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
    held = held_out(export.truth)
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


# --------------------------------------------------------------------------------------------
# command line


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else config.settings().out
    path, doc = write(Path(args.folder), out)
    for r in doc["refused"]:
        print(f"leaderboard: refused {r['file']}: {r['reason']}", file=sys.stderr)
    sys.stdout.write(render_table(board(out)))
    from .audit import card_note, rerender_card  # the audit's re-rendering, with its note

    print(f"leaderboard: {len(doc['entries'])} submission(s) accepted, {len(doc['refused'])} refused; wrote "
          f"{path}; {card_note(out, rerender_card(out))}", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add ``sphragis leaderboard`` to the CLI (loaded by :mod:`sphragis.cli`)."""
    a = subparsers.add_parser(
        "leaderboard", help="collect scored submissions into the export's leaderboard (card and docs site)",
        description="Take every scored submission (`sphragis score --json`) of FOLDER that was scored against "
        "this export (same export fingerprint) and scores every source_held_out_* configuration; refuse "
        "the others with the reason. The predictions file each one names (its predictions.file) must lie "
        "beside it in FOLDER with the sha256 it records: the predictions are scored again and a file whose "
        "figures differ is refused. Writes metadata/leaderboard.json into the export, re-renders the "
        "dataset card and prints the leaderboard: the submissions with the leakage floor and the "
        "baselines of metadata/leakage_report.json, sorted by the source-held-out track.")
    a.add_argument("folder", nargs="?", default=str(DEFAULT_DIR), metavar="FOLDER",
                   help=f"folder of scored submissions (default {DEFAULT_DIR}/)")
    a.add_argument("--out", help="export directory (default: SPHRAGIS_OUT)")
    a.set_defaults(func=_cmd_leaderboard)
