"""What the leakage report says beyond the fits (sphragis/audit_claims.py): neighbour leakage,
thin cells, held-out works and the like-for-like gaps, on hand-made rows whose answers are known."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sphragis import audit_claims
from sphragis.audit_features import SplitRows

RECORD = pa.struct([("path", pa.string()), ("sentence_uid", pa.int64())])


def _file(path, split, records):
    pq.write_table(pa.table({"id": [f"{split}{i}" for i in range(len(records))], "split": [split] * len(records),
                             "source_records": pa.array(records, pa.list_(RECORD))}), path)
    return path


def test_a_neighbour_is_the_sentence_before_or_after_in_the_same_file(tmp_path):
    files = {
        "train": _file(tmp_path / "train.parquet", "train", [[{"path": "p.xml", "sentence_uid": 10}],
                                                             [{"path": "p.xml", "sentence_uid": 20}]]),
        # 11 follows 10; 15 has no neighbour; 21 is in another file than 20
        "test": _file(tmp_path / "test.parquet", "test", [[{"path": "p.xml", "sentence_uid": 11}],
                                                          [{"path": "p.xml", "sentence_uid": 15}],
                                                          [{"path": "q.xml", "sentence_uid": 21}]]),
        # a row merged from two records: its second record precedes train's 20
        "validation": _file(tmp_path / "validation.parquet", "validation",
                            [[{"path": "q.xml", "sentence_uid": 1}, {"path": "p.xml", "sentence_uid": 19}]]),
    }
    assert audit_claims.neighbours(files) == {
        "test": {"rows": 3, "with_neighbour_in_train": 1, "share": 1 / 3},
        "validation": {"rows": 1, "with_neighbour_in_train": 1, "share": 1.0}}


def _rows(authors, works):
    a = np.array(authors, dtype=object)
    return SplitRows(incidence=None, authors=a, projects=a, ids=a, genres=a, work_ids=np.array(works, dtype=object))


def test_thin_authors_train_share_and_held_out_works():
    rows = {"train": _rows(["A"] * 6 + ["B"] * 2, ["a1"] * 6 + ["b1", "b2"]),
            "validation": _rows(["A"] * 5 + ["B"], ["a2"] * 5 + ["b1"]),
            "test": _rows(["A"] * 5, ["a2"] * 5)}
    got = audit_claims.confounds(rows, "source_held_out_1")
    # B has one validation row and none in test (a training author absent from a split counts 0)
    assert got["thin_authors"] == {"validation": {"B": 1}, "test": {"B": 0}}
    assert got["largest_train_share"] == {"author": "A", "share": 0.75}
    # A's held-out rows are all of a work (a2) that training does not have; B's one is of b1
    assert got["held_out_works"] == {
        "A": {"held_out_project_is_held_out_work": True, "evaluation_works": ["a2"],
              "evaluation_rows_of_a_training_work": 0},
        "B": {"held_out_project_is_held_out_work": False, "evaluation_works": ["b1"],
              "evaluation_rows_of_a_training_work": 1}}
    assert "held_out_works" not in audit_claims.confounds(rows, "sentence_1")


def _result(test_authors, train_authors, predictions):
    systems = {s: {"predictions": {"test": predictions}} for s, _ in audit_claims.SYSTEMS}
    systems["markup_author"]["majority_label"] = sorted(train_authors)[0]
    return {"test_authors": test_authors, "train_authors": train_authors, **systems}


def test_the_gap_on_the_same_authors_scores_the_main_track_on_the_held_out_authors_only():
    # main track: 4 authors; A and B right, C and D wrong. Held-out track (A, B): half right.
    main = _result(["A", "A", "B", "B", "C", "D"], ["A", "B", "C", "D"], ["A", "A", "B", "B", "A", "A"])
    held = _result(["A", "A", "B", "B"], ["A", "B"], ["A", "B", "B", "A"])
    claims = audit_claims.report_claims({"sentence_1": main, "source_held_out_1": held})
    gap = claims["same_author_gap"]["source_held_out_1"]
    assert (gap["main"], gap["authors"], gap["main_rows"], gap["held_out_rows"]) == ("sentence_1", ["A", "B"], 4, 4)
    text = gap["text_author"]
    # the seed's gap would compare 4/6 with 2/4; on the same authors it is 4/4 against 2/4
    assert text["main_same_authors"]["accuracy"] == 1.0 and text["held_out"]["accuracy"] == 0.5
    assert text["gap"]["accuracy"] == 0.5
    low, high = text["gap"]["ci"]
    assert low <= 0.5 <= high and 0 <= low and high <= 1.0
    means = claims["track_means"]["text_author"]
    assert means["main"]["accuracy"] == pytest.approx(4 / 6) and means["source_held_out"]["accuracy"] == 0.5
    assert claims["track_means"]["majority"]["source_held_out"]["accuracy"] == 0.5
