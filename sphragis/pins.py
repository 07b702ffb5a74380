"""The pin list as a warehouse table: upstream files the mirror lacks (SPEC §1).

``sphragis/sources.json`` names, per snapshot, the upstream files at the pinned commit that the
mirror could not hold (``missing``). :func:`load_missing_files` writes them to the table
``pin_missing_files`` before the models run, so that ``mart_seed_reconciliation`` can name them
as causes. For a UD treebank the snapshot's own ``stats.xml`` (same pinned commit) states the
sentence count of each split file, so the size of a missing ``*-ud-train.conllu`` is known from
the revision even though the file is not; for other files it is NULL.

Python only reads the files here (JSON, XML); the models do the relational work.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
from lxml import etree

from . import config

_UD_SPLIT = re.compile(r"-ud-(train|dev|test)\.conllu$")


class PinError(ValueError):
    """A snapshot's stats.xml cannot be read (the message names the file)."""


def ud_split_sentences(stats: Path) -> dict[str, int]:
    """Sentences per split from a UD treebank's ``stats.xml`` (``<size><train><sentences>`` …).

    Returns:
        {"train": n, "dev": n, "test": n, "total": n} for the elements present; {} if the file
        does not exist.

    Raises:
        PinError: the file is not well-formed XML or a count is not an integer (names file and line).
    """
    if not stats.is_file():
        return {}
    try:
        root = etree.parse(str(stats)).getroot()
    except etree.XMLSyntaxError as exc:
        raise PinError(f"{stats}:{exc.lineno}: {exc.msg}") from None
    out = {}
    for el in root.iterfind("size/*/sentences"):
        try:
            out[el.getparent().tag] = int(el.text)
        except (TypeError, ValueError):
            raise PinError(f"{stats}:{el.sourceline}: sentence count {el.text!r} is not an integer") from None
    return out


def missing_file_rows(settings: config.Settings) -> list[tuple]:
    """One tuple per missing upstream file of the pin list, in the column order of
    ``pin_missing_files`` (:func:`ddl`: snapshot, project, treebank_source, revision, path,
    ud_split, split_sentences, devtest_sentences).

    ``ud_split`` is ``train``/``dev``/``test`` for a UD split file (else NULL); ``split_sentences``
    that split's sentence count and ``devtest_sentences`` the dev+test count, both from the
    snapshot's ``stats.xml`` (NULL when not a UD split file or the stats are absent).
    """
    rows = []
    for snap in config.snapshots():
        stats = ud_split_sentences(settings.data / snap["name"] / "stats.xml") if snap["missing"] else {}
        for path in snap["missing"]:
            m = _UD_SPLIT.search(path)
            split = m.group(1) if m else None
            devtest = stats["dev"] + stats["test"] if {"dev", "test"} <= stats.keys() else None
            rows.append((snap["name"], snap["project"], snap["treebank_source"], snap["commit"], path, split,
                         stats.get(split) if split else None, devtest if split else None))
    return rows


def ddl() -> str:
    """The ``create or replace table pin_missing_files`` statement of ``sql/ddl/raw.sql`` (the raw
    layer's DDL is the one home of the table's columns).

    Raises:
        LookupError: raw.sql has no such statement.
    """
    path = config.DDL_DIR / "raw.sql"
    m = re.search(r"^create or replace table pin_missing_files \(.*?^\);", path.read_text(encoding="utf-8"),
                  re.MULTILINE | re.DOTALL)
    if m is None:
        raise LookupError(f"{path}: no `create or replace table pin_missing_files` statement")
    return m.group(0)


def load_missing_files(con: duckdb.DuckDBPyConnection, settings: config.Settings) -> int:
    """(Re)create ``pin_missing_files`` from the pin list; returns its row count."""
    con.execute(ddl())
    rows = missing_file_rows(settings)
    if rows:
        con.executemany("insert into pin_missing_files values (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)
