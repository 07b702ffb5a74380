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

``lower_grc`` is an Arrow-vectorized Python UDF: each batch (DuckDB vectors of up to 2,048 rows)
is dictionary-encoded, ``grc_utils.lower_grc`` runs once per *distinct* string of the batch (and
results are memoized across batches in a bounded cache), and the result is gathered back by index.
On the 1.6M tokens of the real warehouse the per-row cost is therefore dominated by the number of
distinct values, not the number of rows.
"""

from __future__ import annotations

from functools import lru_cache

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from grc_utils import lower_grc as _lower_grc

__all__ = ["register", "lower_grc_array"]

_CACHE_SIZE = 1 << 20


@lru_cache(maxsize=_CACHE_SIZE)
def _lower_one(s: str) -> str:
    out = _lower_grc(s)
    if any(ch.isupper() for ch in out):
        out = "".join(ch.lower() for ch in out)
    return out


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
    dictionary = encoded.dictionary.to_pylist()
    lowered = pa.array([_lower_one(s) for s in dictionary], type=pa.string())
    return pc.take(lowered, encoded.indices)


def register(con: duckdb.DuckDBPyConnection) -> None:
    """Register the project's scalar functions on ``con`` (idempotent: re-registering replaces them).

    Args:
        con: an open DuckDB connection.
    """
    try:
        con.remove_function("lower_grc")
    except (duckdb.InvalidInputException, duckdb.CatalogException):
        pass
    con.create_function(
        "lower_grc",
        lower_grc_array,
        [duckdb.sqltype("VARCHAR")],
        duckdb.sqltype("VARCHAR"),
        type="arrow",
        null_handling="special",
        side_effects=False,
    )
    con.execute("create or replace temp macro nfc(s) as nfc_normalize(s)")
