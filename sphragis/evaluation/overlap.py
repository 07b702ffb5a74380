"""Overlap manifests: the training-exclusion list of the evaluation folds (SPEC §12, seed 001).

Reads two warehouse marts (built by ``sphragis build``; see ``models/marts/evaluation/_evaluation.yml``):

* ``mart_ud_perseus_agdt_overlap``: every UD Perseus dev/test sentence resolved to its AGDT
  source sentence by NFC form-sequence equality, punctuation included (seed 001 "Leakage
  controls"; ties broken by the UD sent_id, otherwise unresolved with a reason);
* ``mart_eval_fold_overlap``: every AGDT, Gorman, Pedalion and Harrington sentence whose form
  sequence equals that of a UD Perseus or UD PROIEL dev/test sentence, compared without
  punctuation tokens (UD PROIEL has none; Gorman writes ':' for the ano teleia), with
  ``forms_identical`` marking the pairs equal with punctuation too.

The manifest (:func:`manifest`) lists, per evaluation fold, every training-side record to
exclude: ``project``, ``path``, ``upstream_sentence_id``, ``sentence_uid``, ``match_rule``
(``forms`` when some fold sentence has the identical form sequence with punctuation, else
``forms_without_punctuation``), ``role`` (``source`` for the AGDT sentence a UD Perseus sentence
was resolved to, else ``identical_text``) and the matched ``fold_sent_ids``. It is deterministic:
every list is sorted, there are no timestamps, and the JSON is written with a fixed key order.
"""

from __future__ import annotations

import os
from typing import Any

import duckdb

from ..config import evaluation_folds, training_projects
from ..files import write_json
from ..queries import records, require_relations

__all__ = ["FOLDS", "MARTS", "PROJECTS", "format_summary", "manifest", "summary", "write_manifest"]

#: The evaluation folds of seed 001, in report order: (fold name, fold project, split), from the
#: seed ``sql/seeds/evaluation_folds.csv`` (:func:`sphragis.config.evaluation_folds`; which
#: mart_eval_fold_overlap reads too).
FOLDS: tuple[tuple[str, str, str], ...] = tuple((f["name"], f["fold_project"], f["fold"]) for f in evaluation_folds())
#: Training-side projects of mart_eval_fold_overlap in source-priority order: the projects seed
#: 001's training treebank draws from (:func:`sphragis.config.training_projects`).
PROJECTS: tuple[str, ...] = training_projects()
#: Warehouse tables this module reads.
MARTS: tuple[str, ...] = ("mart_ud_perseus_agdt_overlap", "mart_eval_fold_overlap", "mart_ud_perseus_resolution_counts",
                          "mart_ud_perseus_resolved_files", "mart_eval_fold_overlap_cells", "mart_eval_overlap_sources",
                          "mart_eval_fold_exclusion_records", "mart_eval_fold_sizes")

RULES = {
    "form_sequence": "NFC-normalized FORM of every word token in order (CoNLL-U multiword ranges and "
                     "empty nodes, and AGDT artificial nodes, excluded)",
    "ud_perseus_resolution": "a UD Perseus dev/test sentence resolves to the AGDT sentence with the "
                             "identical form sequence, punctuation included; when several are "
                             "identical, to the one its sent_id (<AGDT file>@<sentence id>) names, "
                             "else it is unresolved",
    "training_overlap": "an AGDT/Gorman/Pedalion/Harrington sentence overlaps a fold sentence when "
                        "their form sequences are equal after dropping punctuation tokens (forms of "
                        "Unicode punctuation/symbol characters only); match_rule 'forms' marks the "
                        "pairs also equal with punctuation",
    "exclude": "every overlapping record of the fold (identical texts elsewhere leak as much as the "
               "source sentence itself)",
}


def _check_marts(con: duckdb.DuckDBPyConnection) -> None:
    require_relations(con, MARTS)


def summary(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Resolution and overlap counts (the figures ``sphragis eval overlap`` prints).

    Returns a dict with:

    * ``ud_perseus_agdt``: per fold (``dev``, ``test``, ``total``) the counts ``sentences``,
      ``resolved``, ``unique`` (one identical AGDT sentence), ``by_sent_id`` (several, the
      sent_id named one of them), ``unresolved``, ``sent_id_agrees``; and ``agdt_files``
      (AGDT path → resolved sentences, sorted by path);
    * ``training_overlap``: per project, per fold name and ``any_fold``, the distinct
      sentences overlapping (``all``: ignoring punctuation) and ``forms_identical`` (with
      punctuation).

    Raises:
        RuntimeError: the marts are not in the warehouse.
    """
    _check_marts(con)
    res: dict[str, Any] = {}
    for r in records(con, "select * from mart_ud_perseus_resolution_counts order by fold = 'total', fold"):
        res[r.pop("fold")] = r
    res["agdt_files"] = dict(con.execute("select * from mart_ud_perseus_resolved_files order by agdt_path").fetchall())

    cells = {(r["project"], r["fold_name"]): r for r in records(con, "from mart_eval_fold_overlap_cells")}
    overlap = {}
    for p in PROJECTS:
        overlap[p] = {}
        for name in [f[0] for f in FOLDS] + ["any_fold"]:
            c = cells.get((p, name), {"all": 0, "forms_identical": 0})
            overlap[p][name] = {"all": c["all"], "forms_identical": c["forms_identical"]}
    return {"ud_perseus_agdt": res, "training_overlap": overlap}


def manifest(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The training-exclusion manifest as a JSON-ready dict (see the module docstring).

    Keys: ``rules`` (the matching rules in words), ``sources`` (snapshot and commit of every
    project involved, from ``raw_files``), ``summary`` (:func:`summary`), ``folds`` (per fold
    name: ``fold_project``, ``fold``, ``sentences``, ``exclude_counts`` per project and the
    ``exclude`` records, sorted by project, path and sentence_uid), ``exclude_any_fold``
    (distinct records per project over all folds) and ``unresolved`` (UD Perseus sentences
    without an AGDT source: fold, sentence_uid, sent_id, reason, candidate sentence_uids).

    Raises:
        RuntimeError: the marts are not in the warehouse.
    """
    _check_marts(con)
    sources = records(con, "select * from mart_eval_overlap_sources order by project, snapshot")
    excluded = records(con, "select * from mart_eval_fold_exclusion_records "
                            "order by fold_name, project, path, sentence_uid")
    sizes = dict(con.execute("from mart_eval_fold_sizes").fetchall())
    folds: dict[str, Any] = {}
    for name, fold_project, split in FOLDS:
        recs = [{k: v for k, v in r.items() if k != "fold_name"} for r in excluded if r["fold_name"] == name]
        counts = {p: sum(1 for r in recs if r["project"] == p) for p in PROJECTS}
        folds[name] = {"fold_project": fold_project, "fold": split, "sentences": sizes.get(name, 0),
                       "exclude_counts": counts, "exclude": recs}
    any_fold = {p: len({r["sentence_uid"] for r in excluded if r["project"] == p}) for p in PROJECTS}
    unresolved = records(con, "select fold, ud_sentence_uid as sentence_uid, ud_sent_id as sent_id, reason, "
                              "candidate_sentence_uids from mart_ud_perseus_agdt_overlap where not resolved "
                              "order by fold, ud_sentence_uid")
    return {
        "description": "Training-exclusion manifest of the UD Perseus and UD PROIEL evaluation folds "
                       "(Sphragis warehouse, SPEC §12, seed 001 'Leakage controls')",
        "rules": RULES,
        "sources": sources,
        "summary": summary(con),
        "folds": folds,
        "exclude_any_fold": any_fold,
        "unresolved": unresolved,
    }


def write_manifest(con: duckdb.DuckDBPyConnection, path: str | os.PathLike) -> dict[str, Any]:
    """Write :func:`manifest` as UTF-8 JSON (2-space indent, fixed key order, trailing newline).

    The file is written beside ``path`` and renamed into place, so a failure leaves any previous
    manifest untouched; parent folders are created. Two calls on the same warehouse write
    byte-identical files.

    Returns:
        The manifest dict that was written.

    Raises:
        RuntimeError: the marts are not in the warehouse.
        OSError: the file cannot be written.
    """
    doc = manifest(con)
    write_json(path, doc)
    return doc


def format_summary(s: dict[str, Any]) -> str:
    """Plain-text rendering of :func:`summary` (what ``sphragis eval overlap`` prints)."""
    ud = s["ud_perseus_agdt"]
    lines = ["UD Perseus -> AGDT source sentences (NFC form-sequence equality, punctuation included)",
             f"  {'fold':<6} {'sentences':>9} {'resolved':>9} {'unique':>7} {'by sent_id':>10} "
             f"{'unresolved':>10} {'sent_id agrees':>14}"]
    for fold in [k for k in ud if k not in ("agdt_files",)]:
        r = ud[fold]
        lines.append(f"  {fold:<6} {r['sentences']:>9} {r['resolved']:>9} {r['unique']:>7} "
                     f"{r['by_sent_id']:>10} {r['unresolved']:>10} {r['sent_id_agrees']:>14}")
    files = ud["agdt_files"]
    lines.append(f"  resolved sentences come from {len(files)} AGDT file(s):")
    lines += [f"    {n:>6}  {p}" for p, n in files.items()]
    names = [f[0] for f in FOLDS] + ["any_fold"]
    lines += ["",
              "Training-side sentences overlapping the evaluation folds "
              "(distinct sentences: identical forms / ignoring punctuation)",
              "  " + f"{'project':<11}" + "".join(f"{n:>17}" for n in names)]
    for p, cells in s["training_overlap"].items():
        lines.append("  " + f"{p:<11}" + "".join(
            f"{str(cells[n]['forms_identical']) + ' / ' + str(cells[n]['all']):>17}" for n in names))
    return "\n".join(lines)
