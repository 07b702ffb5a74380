"""The train-author lookup (``sql/queries/label_lookup.sql``, :mod:`sphragis.label_lookup`): how
much a metadata column gives the author away, on hand-made columns whose answer is known."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sphragis import label_lookup

AUTHORS = {"train": ["Alpha", "Alpha", "Alpha", "Beta", "Beta"], "test": ["Alpha", "Beta", "Beta"]}


def _run(values: dict[str, list], name: str = "col") -> dict[str, np.ndarray]:
    lookups = {name: {s: label_lookup.leaf_values(pa.array(v), name) for s, v in values.items()}}
    authors = {s: np.asarray(a, dtype=object) for s, a in AUTHORS.items()}
    return label_lookup.predict(lookups, authors)[name]["test"]


def test_an_opaque_id_scores_the_majority_author():
    got = _run({"train": ["a1", "a2", "a3", "b1", "b2"], "test": ["x1", "x2", "x3"]})
    assert list(got["predicted"]) == ["Alpha"] * 3 and list(got["majority"]) == ["Alpha"] * 3
    assert label_lookup.accuracy(got) == {"lookup_accuracy": 1 / 3, "majority_accuracy": 1 / 3}


def test_a_file_named_id_gives_its_file_away_by_its_prefix_cut_at_a_colon():
    train = ["gorman:a.xml:1", "gorman:a.xml:2", "gorman:a.xml:3", "agdt:b.xml:1", "agdt:b.xml:2"]
    got = _run({"train": train, "test": ["gorman:a.xml:9", "agdt:b.xml:7", "agdt:b.xml:8"]})
    assert list(got["predicted"]) == ["Alpha", "Beta", "Beta"]


def test_an_id_naming_its_author_between_dashes_gives_it_away_by_its_suffix():
    # the chunk ids of the warehouse: config-split-author-sequence; the split differs, the suffix
    # after it does not (the longest key seen in training decides, not the shorter prefix)
    train = ["s_5-train-alpha-0001", "s_5-train-alpha-0002", "s_5-train-alpha-0003", "s_5-train-beta-0001",
             "s_5-train-beta-0002"]
    got = _run({"train": train, "test": ["s_5-test-alpha-0001", "s_5-test-beta-0001", "s_5-test-beta-0002"]})
    assert list(got["predicted"]) == ["Alpha", "Beta", "Beta"]


def test_list_elements_and_struct_fields_are_values_and_the_most_named_author_wins():
    rec = pa.struct([("path", pa.string()), ("n", pa.int64())])
    train = [[{"path": "p1", "n": 1}], [{"path": "p1", "n": 2}], [{"path": "p1", "n": 3}],
             [{"path": "q1", "n": 1}], [{"path": "q1", "n": 2}]]
    test = [[{"path": "p1", "n": 9}], [{"path": "q1", "n": 1}, {"path": "q1", "n": 2}], [None]]
    lookups = {"rec": {"train": label_lookup.leaf_values(pa.array(train, pa.list_(rec)), "rec"),
                       "test": label_lookup.leaf_values(pa.array(test, pa.list_(rec)), "rec")}}
    leaves = lookups["rec"]["train"]
    assert [path for path, _, _ in leaves] == ["rec.n", "rec.path"]
    got = label_lookup.predict(lookups, {s: np.asarray(a, dtype=object) for s, a in AUTHORS.items()})["rec"]["test"]
    # row 1: rec.path=q1 names Beta, rec.n=1 and rec.n=2 name Alpha (ties: the first in sort order)
    # -> Alpha by two values to one; row 2: a null record holds no value -> the majority (Alpha)
    assert list(got["predicted"]) == ["Alpha", "Alpha", "Alpha"]


def test_column_lookups_of_a_configuration(tmp_path):
    files = {}
    for split, authors in (("train", AUTHORS["train"]), ("validation", ["Beta"]), ("test", AUTHORS["test"])):
        n = len(authors)
        pq.write_table(pa.table({"author": authors, "work_id": [f"w-{a}" for a in authors],
                                 "id": [f"{split}{i}" for i in range(n)]}), tmp_path / f"{split}.parquet")
        files[split] = tmp_path / f"{split}.parquet"
    got = label_lookup.column_lookups(files, ["id", "work_id"], "author")
    assert got["id"] == {"reveals_label": False, "lookup_accuracy": 1 / 3, "majority_accuracy": 1 / 3}
    assert got["work_id"] == {"reveals_label": True, "lookup_accuracy": 1.0, "majority_accuracy": 1 / 3}
