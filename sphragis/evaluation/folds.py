"""Gold folds and bucket maps for the evaluation toolkit (SPEC §12, seed 001).

* **Named UD folds.** ``<project>-<split>`` for every CoNLL-U snapshot of the pin list
  (``sphragis/sources.json``) and ``split`` in ``dev``/``test``: ``ud_perseus-dev``,
  ``ud_perseus-test``, ``ud_proiel-dev``, ``ud_proiel-test``, ``ud_ptnk-dev``, ``ud_ptnk-test``.
  The gold text is the UD file *as published*, read byte-for-byte from the unpacked snapshot
  ``<SPHRAGIS_DATA>/<snapshot>/<file>`` (the file name is the snapshot's ``treebank_files``
  pattern with ``*`` replaced by the split, e.g. ``grc_perseus-ud-test.conllu``). When a
  warehouse connection is given, the file's sha256 is checked against ``raw_files`` so the gold
  is the very file the warehouse ingested.
* **Bucket maps.** ``sent_id → label`` for ``--by genre`` / ``--by author``: the fold's
  sentences in ``int_sentences`` joined to the works registry seed (``works_registry``: project,
  document_key, author, work, work_id, genre, decision, justification; SPEC §6) on
  ``(project, document_key)``. The author label is the registry's ``author`` whatever its
  ``decision`` (an excluded document still has a descriptive label); sentences of documents
  missing from the registry are left out of the map (the scorer puts them in ``(unassigned)``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .. import config
from ..queries import query

__all__ = [
    "BUCKET_COLUMNS",
    "SPLITS",
    "Fold",
    "bucket_map",
    "fold_path",
    "fold_text",
    "known_folds",
    "protocol_fold_dir",
    "protocol_fold_path",
    "protocol_folds",
    "read_conllu",
]

#: Splits that are evaluation folds (train is not a gold fold, and is absent from the mirror).
SPLITS: tuple[str, ...] = ("dev", "test")
#: ``--by`` choices → works-registry column.
BUCKET_COLUMNS: dict[str, str] = {"genre": "genre", "author": "author"}


@dataclass(frozen=True)
class Fold:
    """A named UD fold: ``name`` (``<project>-<split>``), ``project`` key, ``split``,
    ``snapshot`` (pin-list name, the folder under ``SPHRAGIS_DATA``) and ``file`` (the
    upstream path inside the snapshot, also ``raw_files.path``)."""

    name: str
    project: str
    split: str
    snapshot: str
    file: str


def known_folds() -> dict[str, Fold]:
    """Every named UD fold, keyed by name, in pin-list order (see the module docstring)."""
    out: dict[str, Fold] = {}
    for snap in config.snapshots():
        if snap.get("format") != "conllu":
            continue
        for pattern in snap.get("treebank_files", []):
            if pattern.count("*") != 1:
                continue
            for split in SPLITS:
                name = f"{snap['project']}-{split}"
                out[name] = Fold(name, snap["project"], split, snap["name"], pattern.replace("*", split))
    return out


#: The columns of the seed ``protocol_folds`` (SPEC §12: the protocol's further folds).
PROTOCOL_FOLD_COLUMNS = ("fold", "project", "layer", "genre", "repair_lemmas", "description")


def protocol_folds() -> dict[str, dict[str, str]]:
    """The protocol's further evaluation folds (seed 001: ``papygreek``, ``verse``), keyed by name,
    from the seed ``sql/seeds/protocol_folds.csv`` (the one the fold models read): dicts with the
    seed's columns. ``sphragis folds`` writes them; the evaluation commands read them by name."""
    return {r["fold"]: r for r in config.read_seed("protocol_folds", PROTOCOL_FOLD_COLUMNS)}


def protocol_fold_dir(settings: config.Settings | None = None) -> Path:
    """Where ``sphragis folds`` writes by default: ``folds`` beside ``SPHRAGIS_OUT`` (``dist/folds``)."""
    return (settings or config.settings()).out.with_name("folds")


def protocol_fold_path(name: str, folds_dir: Path | None = None) -> Path:
    """The CoNLL-U file of the protocol fold ``name``: ``<folds_dir>/<name>/<name>.conllu``
    (default folder :func:`protocol_fold_dir`).

    Raises:
        ValueError: ``name`` is not a fold of the seed ``protocol_folds``.
        FileNotFoundError: the fold has not been written (``sphragis folds``).
    """
    if name not in protocol_folds():
        raise ValueError(f"unknown protocol fold {name!r}; known: {', '.join(protocol_folds())}")
    path = (folds_dir or protocol_fold_dir()) / name / f"{name}.conllu"
    if not path.is_file():
        raise FileNotFoundError(f"fold {name}: {path} not found; write it with `sphragis folds` (make folds)")
    return path


def _fold(name: str) -> Fold:
    folds = known_folds()
    if name not in folds:
        raise ValueError(f"unknown fold {name!r}; known folds: {', '.join(folds)} "
                         "(or give the path of a .conllu file, or a warehouse annotation "
                         "VIEW:SELECTION: see `sphragis eval --help`)")
    return folds[name]


def _settings(source: object) -> config.Settings:
    return source if isinstance(source, config.Settings) else config.settings()


def fold_path(source: config.Settings | duckdb.DuckDBPyConnection | None, name: str) -> Path:
    """Path of the unpacked UD file of fold ``name`` (``<SPHRAGIS_DATA>/<snapshot>/<file>``).

    ``source`` gives the settings (a :class:`~sphragis.config.Settings`; anything else, e.g. a
    connection or ``None``, means ``config.settings()``).

    Raises:
        ValueError: ``name`` is not a known fold (the message lists the known ones).
        FileNotFoundError: the file is not there (snapshots not fetched: ``sphragis fetch``).
    """
    fold = _fold(name)
    path = _settings(source).data / fold.snapshot / fold.file
    if not path.is_file():
        raise FileNotFoundError(f"fold {name}: {path} not found; run `sphragis fetch` "
                                "(or set SPHRAGIS_DATA)")
    return path


def fold_text(source: config.Settings | duckdb.DuckDBPyConnection | None, name: str) -> str:
    """CoNLL-U text of the named gold fold, as published upstream (SPEC §12).

    Args:
        source: :class:`~sphragis.config.Settings`, or an open warehouse connection (then the
            file's sha256 must equal the ``raw_files`` row of the same snapshot and path), or
            ``None`` (settings from the environment).
        name: a fold name from :func:`known_folds`, e.g. ``"ud_perseus-test"``.

    Returns:
        The file decoded as UTF-8, unchanged.

    Raises:
        ValueError: unknown fold, or the file differs from the one the warehouse ingested.
        FileNotFoundError: the snapshot is not unpacked under ``SPHRAGIS_DATA``.
    """
    path = fold_path(source, name)
    data = path.read_bytes()
    if isinstance(source, duckdb.DuckDBPyConnection):
        fold = _fold(name)
        row = source.execute("select sha256 from raw_files where snapshot = ? and path = ?",
                             [fold.snapshot, fold.file]).fetchone()
        if row is not None and row[0] != hashlib.sha256(data).hexdigest():
            raise ValueError(f"fold {name}: {path} is not the file the warehouse ingested "
                             f"(sha256 {hashlib.sha256(data).hexdigest()} vs {row[0]})")
    return data.decode("utf-8")


def read_conllu(source: config.Settings | duckdb.DuckDBPyConnection | None, spec: str,
                role: str = "input") -> tuple[str, str]:
    """Resolve a command-line gold/annotation argument: an existing file path, else a fold name (a
    UD fold of :func:`known_folds`, or a protocol fold of :func:`protocol_folds` as ``sphragis
    folds`` wrote it in :func:`protocol_fold_dir`).

    ``role`` names the argument in error messages (e.g. ``"--pred"``).

    Returns:
        ``(label, text)``: the fold name or the path as given, and the CoNLL-U text.

    Raises:
        FileNotFoundError: ``spec`` looks like a path (has a ``.conllu`` suffix or a ``/``) but
            no such file exists, or the fold's file is missing.
        ValueError: ``spec`` is neither an existing file nor a known fold.
    """
    p = Path(spec).expanduser()
    if p.is_file():
        return spec, p.read_text(encoding="utf-8")
    if spec in known_folds():
        return spec, fold_text(source, spec)
    if spec in protocol_folds():
        return spec, protocol_fold_path(spec, protocol_fold_dir(_settings(source))).read_text(encoding="utf-8")
    if p.suffix == ".conllu" or "/" in spec:
        raise FileNotFoundError(f"{role}: no such file: {spec}")
    try:
        return spec, fold_text(source, spec)
    except ValueError as exc:  # unknown fold
        raise ValueError(f"{role}: {exc}") from None


def bucket_map(con: duckdb.DuckDBPyConnection, by: str, *, fold: str | None = None,
               sent_ids: Iterable[str] | None = None) -> dict[str, str]:
    """``sent_id → genre`` or ``sent_id → author`` for a gold fold (SPEC §6 registry, §12).

    Give either ``fold`` (a name from :func:`known_folds` or :func:`protocol_folds`: that fold's
    sentences in the warehouse) or ``sent_ids`` (the ``# sent_id`` values of an arbitrary gold file: they are
    looked up in the UD project of the warehouse that holds most of them, so PROIEL's numeric
    ids cannot be confused with another treebank's).

    Args:
        con: warehouse connection with ``int_sentences`` and the ``works_registry`` seed.
        by: ``"genre"`` or ``"author"``.

    Returns:
        ``{sent_id: label}`` for the sentences whose document is in the registry.

    Raises:
        ValueError: unknown ``by``; neither or both of ``fold``/``sent_ids``; unknown fold; none
            of ``sent_ids`` is in the warehouse; a sent_id maps to two labels.
    """
    if by not in BUCKET_COLUMNS:
        raise ValueError(f"unknown bucket {by!r}; choose one of {', '.join(BUCKET_COLUMNS)}")
    if (fold is None) == (sent_ids is None):
        raise ValueError("bucket_map needs exactly one of fold= or sent_ids=")
    if fold is not None and fold in protocol_folds():
        rows = con.execute(query("protocol_fold_bucket_labels"), {"by": by, "fold": fold}).fetchall()
        return {sid: label for sid, label, _ in rows}
    if fold is not None:
        f = _fold(fold)
        params = {"project": f.project, "path": f.file, "sent_ids": None}
    else:
        ids = sorted(set(sent_ids))
        ud_projects = sorted({f.project for f in known_folds().values()})
        ranked = con.execute(
            "select project, count(distinct upstream_sentence_id) as n from int_sentences "
            "where project in (select unnest(?)) and upstream_sentence_id in (select unnest(?)) "
            "group by project order by n desc, project", [ud_projects, ids]).fetchall()
        if not ranked:
            raise ValueError("none of the gold file's sent_ids is in the warehouse; "
                             "--by needs a named fold or a file of UD sentences the warehouse holds")
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            raise ValueError(f"the gold file's sent_ids occur equally often in {ranked[0][0]} and "
                             f"{ranked[1][0]}; use a named fold for --by")
        params = {"project": ranked[0][0], "path": None, "sent_ids": ids}
    rows = con.execute(query("fold_bucket_labels"), {**params, "by": BUCKET_COLUMNS[by]}).fetchall()
    clashes = [r[0] for r in rows if r[2] > 1]
    if clashes:
        raise ValueError(f"sent_id {clashes[0]!r} maps to more than one {by} "
                         f"({len(clashes)} such sent_ids)")
    return {sid: label for sid, label, _ in rows}
