"""Arrow list helpers shared by the exporter's assembly and the CoNLL-U renderer and validator
(:mod:`.assembly`, :mod:`.conllu_units`): lists built from offsets with DuckDB's child naming,
offsets of sliced lists, and one-array views of chunked columns without a copy.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc


def list_of(offsets: pa.Array, values: pa.Array) -> pa.ListArray:
    """``list<l: values.type>`` of ``values`` cut at ``offsets`` (int32, from 0): the child name
    DuckDB gives its lists, so every list column has the same naming."""
    return pa.ListArray.from_arrays(offsets, values, type=pa.list_(pa.field("l", values.type)))


def offsets_of(lists: pa.ListArray) -> pa.Array:
    """int32 offsets of ``lists`` starting at 0 (a sliced array's offsets do not)."""
    offsets = lists.offsets
    return pc.subtract(offsets, offsets[0]) if len(offsets) and offsets[0].as_py() else offsets


def one_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``values`` as one array; a single chunk is returned as it is (``combine_chunks`` would copy it)."""
    if isinstance(values, pa.ChunkedArray):
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    return values


def column(table: pa.Table, name: str) -> pa.Array:
    """Column ``name`` of ``table`` as one array (:func:`one_array`)."""
    return one_array(table.column(name))


def struct_fields(values: pa.Array) -> dict[str, pa.Array]:
    """The child arrays of a struct array, by field name (e.g. the token fields of flattened
    ``tokens`` lists)."""
    return {values.type.field(i).name: child for i, child in enumerate(values.flatten())}
