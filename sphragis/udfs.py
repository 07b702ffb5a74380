"""Scalar functions the SQL models call that DuckDB does not have built in.

:func:`register` adds them to a connection; :func:`sphragis.runner.run` calls it before building
any model, so every model can use them:

* ``lower_grc(VARCHAR) -> VARCHAR``: Greek-aware lowercasing with ``grc_utils.lower_grc``
  (SPEC §3 lemmas, §5 forms/lemmas/text), completed for the capitals it has no mapping for:
  grc_utils 0.2 maps neither plain capital iota ``Ι`` (U+0399) nor rho ``Ρ`` (U+03A1) nor Latin
  letters, so any character still upper-case after it is lowercased one character at a time with
  ``str.lower`` (no final-sigma context rule applies: lower_grc has already turned every ``Σ`` into
  ``σ``). Seed 000 "Lowercase throughout". NULL stays NULL.
* ``nfc(VARCHAR) -> VARCHAR``: Unicode NFC (SPEC §5); a temporary SQL macro over DuckDB's own
  ``nfc_normalize``, so it costs no Python call.
* ``nfd(VARCHAR) -> VARCHAR``: Unicode NFD (Arrow's ``utf8_normalize``), so that SQL can see
  accents, breathings and iota subscripts as separate combining marks (SPEC §5.1).
* ``grave_to_acute(VARCHAR) -> VARCHAR``: every grave accent (U+0300, also inside precomposed
  letters) written as acute, result NFC: ``greek_normalisation.utils.grave_to_acute`` (SPEC §5.1
  "One accent convention"; grc_utils 0.2 has no such function). NULL stays NULL.

``lower_grc`` is an Arrow-vectorized Python UDF. ``grc_utils.lower_grc`` maps one character at a
time (two character→character tables applied in turn), so it equals ``str.translate`` with the
table ``c → lower_grc(c)``; that table is filled lazily per code point, and each DuckDB batch
(2,048 rows) is dictionary-encoded so only its distinct strings are translated. On the real
warehouse's forms it costs several times DuckDB's own ``lower``.
"""

from __future__ import annotations

import unicodedata

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from grc_utils import lower_grc as _lower_grc
from greek_normalisation.utils import grave_to_acute as _grave_to_acute

__all__ = ["register", "lower_grc", "lower_grc_array", "grave_to_acute_array", "nfd_array"]


class _LowerTable(dict):
    """``str.translate`` table: code point → lower_grc of that character, completed with
    ``str.lower`` where lower_grc leaves it upper-case; filled on first use of each code point."""

    def __missing__(self, code: int) -> str:
        out = _lower_grc(chr(code))
        if any(ch.isupper() for ch in out):
            out = "".join(ch.lower() for ch in out)
        self[code] = out
        return out


_TABLE = _LowerTable()


def lower_grc(s: str) -> str:
    """One string lowercased as the ``lower_grc`` SQL function does (see the module docstring)."""
    return s.translate(_TABLE)


def lower_grc_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``grc_utils.lower_grc`` (completed as described in the module docstring) applied to every
    non-null string of an Arrow string array.

    Args:
        values: Arrow ``string``/``large_string`` array (or chunked array); nulls allowed.

    Returns:
        An Arrow ``string`` array of the same length; null where the input was null.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if len(values) == 0:
        return pa.array([], type=pa.string())
    encoded = pc.dictionary_encode(values)
    lowered = pa.array([s.translate(_TABLE) for s in encoded.dictionary.to_pylist()], type=pa.string())
    return pc.take(lowered, encoded.indices)


def _per_distinct(values: pa.Array | pa.ChunkedArray, fn) -> pa.Array:
    """``fn`` (str -> str) applied once per distinct non-null string of an Arrow string array."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if len(values) == 0:
        return pa.array([], type=pa.string())
    encoded = pc.dictionary_encode(values)
    mapped = pa.array([fn(s) for s in encoded.dictionary.to_pylist()], type=pa.string())
    return pc.take(mapped, encoded.indices)


def grave_to_acute_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``greek_normalisation.utils.grave_to_acute`` (grave U+0300 → acute U+0301, result NFC) on
    every non-null string of an Arrow string array (SPEC §5.1 "One accent convention").

    Args:
        values: Arrow ``string`` array (or chunked array); nulls allowed.

    Returns:
        An Arrow ``string`` array of the same length; null where the input was null.

    The library's ``grave_to_acute(w)`` is the NFC of NFD(w) with U+0300 → U+0301, so a string
    with no U+0300 in its NFD comes out as its NFC: only the distinct strings that carry a grave
    (about 5 % of the forms) go through the library's per-character Python loop.
    """
    return _per_distinct(values, _grave_to_acute_one)


def _grave_to_acute_one(s: str) -> str:
    """``greek_normalisation.utils.grave_to_acute(s)``, skipping its loop when ``s`` has no grave."""
    return _grave_to_acute(s) if "\u0300" in unicodedata.normalize("NFD", s) else unicodedata.normalize("NFC", s)


def nfd_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Unicode NFD of every string of an Arrow string array (Arrow ``utf8_normalize``); nulls stay."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return pc.utf8_normalize(values.cast(pa.string()), form="NFD")


def register(con: duckdb.DuckDBPyConnection) -> None:
    """Register the project's scalar functions on ``con`` (idempotent: re-registering replaces them;
    when another connection of this process to the same database file registered them, theirs
    are used, as DuckDB shares one function catalog between them).

    Args:
        con: an open DuckDB connection.

    Raises:
        duckdb.CatalogException: a function of that name exists and cannot be used (other errors).
    """
    # DuckDB refuses to (re)define functions while an earlier execute() still has unfetched rows
    # (e.g. after ``fetchone()``); running and draining a trivial statement completes it.
    con.execute("select 1").fetchall()
    for name, fn in (("lower_grc", lower_grc_array), ("grave_to_acute", grave_to_acute_array),
                     ("nfd", nfd_array)):
        try:
            con.remove_function(name)
        except (duckdb.InvalidInputException, duckdb.CatalogException):
            pass
        try:
            con.create_function(
                name,
                fn,
                [duckdb.sqltype("VARCHAR")],
                duckdb.sqltype("VARCHAR"),
                type="arrow",
                null_handling="special",
                side_effects=False,
            )
        except duckdb.CatalogException as exc:
            # two connections of one process to the same file share one database (DuckDB's
            # instance cache) and its function catalog; a function another of them registered
            # (this module's, the only one defining these names) cannot be removed from here
            if "already exists" not in str(exc):
                raise
    con.execute("create or replace temp macro nfc(s) as nfc_normalize(s)")
