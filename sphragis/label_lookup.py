"""The train-author lookup (SPEC §11): how much a column of the export gives the author away when a
model simply looks its values up in the training split (the named query
``sql/queries/label_lookup.sql``, which states the rule).

Two callers: the exporter measures every metadata column of every configuration this way and
declares the result in ``metadata/dataset_variants.json`` (``metadata_columns``: the column reveals
the label when the lookup beats the majority author on ``test``; :func:`column_lookups`), and the
audit (:mod:`sphragis.audit`) scores genre and project as baselines of their own (:func:`predict`).

A column's values are its leaves (:func:`leaf_values`): a scalar is one value; a list gives each
element, a struct each field (named ``column.field=value``), recursively, so ``source_records``
gives each record's path, revision and URL, and ``native_syntax`` each token's source relation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .benchmark import SPLITS
from .queries import query

#: The split a lookup is judged on: the one the benchmark's scores are reported on.
JUDGED_SPLIT = "test"


#: One column of one split as :func:`leaf_values` gives it: per leaf path (``column.field…``), the
#: row index of every non-null leaf and the leaves themselves (an Arrow array of any scalar type).
Leaves = list[tuple[str, np.ndarray, pa.Array]]


def leaf_values(values: pa.Array | pa.ChunkedArray, name: str) -> Leaves:
    """Every non-null leaf of ``values`` (one entry per row): list elements and struct fields,
    recursively, grouped by their path (``name``, then ``.field`` per struct level).

    Args:
        values: a column of a published table.
        name: the column's name.

    Returns:
        [(path, int64 row indices, leaf values), ...] (:data:`Leaves`).
    """
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    out: Leaves = []
    stack = [(arr, name, np.arange(len(arr), dtype=np.int64))]
    while stack:
        a, path, parent = stack.pop()
        t = a.type
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            stack.append((a.flatten(), path, parent[pc.list_parent_indices(a).to_numpy(zero_copy_only=False)]))
        elif pa.types.is_struct(t):
            for i, child in enumerate(a.flatten()):
                stack.append((child, f"{path}.{t.field(i).name}", parent))
        else:
            keep = pc.is_valid(a)
            out.append((path, parent[keep.to_numpy(zero_copy_only=False)], pc.filter(a, keep)))
    return sorted(out, key=lambda leaf: leaf[0])


def predict(lookups: dict[str, dict[str, Leaves]],
            authors: dict[str, np.ndarray]) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Run the lookup (``label_lookup.sql``) for several columns at once.

    Columns, splits, authors and values go to DuckDB as integers (authors numbered in sort order,
    so the query's ties by author are ties by name; each leaf path's distinct values once, as
    ``<path>=<value>`` strings, in ``lookup_dictionary``), each (row, value) once.

    Args:
        lookups: column name → split → :func:`leaf_values` of that column in that split.
        authors: split → the author of every row, in row order (``train`` and the evaluation splits).

    Returns:
        column name → evaluation split → {"author": gold labels, "predicted": labels, "majority":
        the majority training author repeated}, object arrays in row order.
    """
    names = sorted({str(a) for labels in authors.values() for a in labels})
    code = {a: i for i, a in enumerate(names)}
    splits = list(authors)
    author_ids = {s: np.array([code[str(a)] for a in labels], dtype=np.int64) for s, labels in authors.items()}
    rows: dict[str, list] = {k: [] for k in ("col", "split", "r", "author")}
    vals: dict[str, list] = {k: [] for k in ("col", "split", "r", "author", "value_id")}
    dictionary: list[pa.Array] = []
    n_values = 0
    for c, col in enumerate(lookups):
        per_split: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {split: [] for split in splits}
        paths = sorted({path for split in splits for path, _, _ in lookups[col].get(split, [])})
        for path in paths:
            # the path's distinct values once; every leaf as the number of its value
            parts = [next(((i, v) for p, i, v in lookups[col].get(split, []) if p == path), None) for split in splits]
            present = [v for part in parts if part is not None for v in [part[1]]]
            encoded = pa.chunked_array(present).combine_chunks().dictionary_encode()
            ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64) + n_values
            dictionary.append(pc.binary_join_element_wise(f"{path}=", pc.cast(encoded.dictionary, pa.string()), ""))
            n_values += len(encoded.dictionary)
            start = 0
            for split, part in zip(splits, parts):
                if part is not None:
                    per_split[split].append((part[0], ids[start:start + len(part[0])]))
                    start += len(part[0])
        for k, split in enumerate(splits):
            n = len(author_ids[split])
            idx = np.concatenate([i for i, _ in per_split[split]]) if per_split[split] else np.zeros(0, np.int64)
            ids = np.concatenate([v for _, v in per_split[split]]) if per_split[split] else np.zeros(0, np.int64)
            # each (row, value) once (a value a row holds twice, e.g. one relation on two tokens,
            # votes once), in numpy: the query's joins then see a fraction of the leaves
            pairs = np.sort(idx.astype(np.int64) * max(n_values, 1) + ids)
            pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] if len(pairs) else pairs
            idx, value_ids = pairs // max(n_values, 1), pairs % max(n_values, 1)
            for name, value in (("col", c), ("split", k)):
                rows[name].append(np.full(n, value, dtype=np.int64))
                vals[name].append(np.full(len(idx), value, dtype=np.int64))
            rows["r"].append(np.arange(n, dtype=np.int64))
            rows["author"].append(author_ids[split])
            vals["r"].append(idx)
            vals["author"].append(author_ids[split][idx])
            vals["value_id"].append(value_ids)
    con = duckdb.connect()
    try:
        con.register("lookup_rows", pa.table({k: np.concatenate(v) for k, v in rows.items()}))
        con.register("lookup_values", pa.table({k: np.concatenate(v) for k, v in vals.items()}))
        con.register("lookup_dictionary", pa.table({
            "value_id": pa.array(np.arange(n_values, dtype=np.int64)),
            "value": pa.concat_arrays(dictionary) if dictionary else pa.array([], pa.string())}))
        got = con.execute(query("label_lookup"), {"train": splits.index("train")}).fetchnumpy()
    finally:
        con.close()
    label = np.array(names, dtype=object)
    out: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for c, col in enumerate(lookups):
        for k, split in enumerate(splits):
            if split == "train":
                continue
            pick = (got["col"] == c) & (got["split"] == k)
            out.setdefault(col, {})[split] = {key: label[got[key][pick].astype(np.int64)]
                                              for key in ("author", "predicted", "majority")}
    return out


def accuracy(result: dict[str, np.ndarray]) -> dict[str, float]:
    """{"lookup_accuracy", "majority_accuracy"} of one column's lookup on one split (fractions;
    0.0 for an empty split)."""
    n = len(result["author"])
    return {"lookup_accuracy": float((result["predicted"] == result["author"]).sum() / n) if n else 0.0,
            "majority_accuracy": float((result["majority"] == result["author"]).sum() / n) if n else 0.0}


def column_lookups(files: dict[str, Path], columns: list[str], label: str) -> dict[str, dict[str, Any]]:
    """The lookup of every column of ``columns`` in one configuration, judged on :data:`JUDGED_SPLIT`.

    Args:
        files: split → its Parquet file (every split of :data:`SPLITS`).
        columns: the metadata columns to measure.
        label: the label column (``author``).

    Returns:
        column → {"reveals_label": lookup beats the majority author on test, "lookup_accuracy",
        "majority_accuracy"} (fractions, unrounded).
    """
    tables = {s: pq.read_table(files[s], columns=[label, *columns]) for s in SPLITS}
    authors = {s: np.asarray(t.column(label).to_pylist(), dtype=object) for s, t in tables.items()}
    lookups = {c: {s: leaf_values(t.column(c), c) for s, t in tables.items()} for c in columns}
    result = predict(lookups, authors)
    out = {}
    for c in columns:
        acc = accuracy(result[c][JUDGED_SPLIT])
        out[c] = {"reveals_label": acc["lookup_accuracy"] > acc["majority_accuracy"], **acc}
    return out
