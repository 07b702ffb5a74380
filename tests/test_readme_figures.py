"""The passage-overlap figures of docs/overlap.md ("On the real build (default)") are this build's: a
change to the overlap rules or the registry that moves them fails here until the page says the new
ones."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

OVERLAP_PAGE = Path(__file__).resolve().parents[1] / "docs" / "overlap.md"


@pytest.mark.integration
def test_the_overlap_page_states_the_real_builds_passage_overlap(real_export):
    report = json.loads((real_export / "metadata" / "build_report.json").read_text(encoding="utf-8"))
    overlap = report["passage_overlap"]
    text = OVERLAP_PAGE.read_text(encoding="utf-8")
    m = re.search(r"On the real build \(default\):\n(\d[\d,]*) pairs \((\d+) segmentation, (\d+) edition, (\d+) formula, "
                  r"(\d+) quotation\) in (\d+) groups \(largest (\d+)\)", text)
    assert m, "docs/overlap.md: the 'On the real build (default):' sentence is gone"
    s = overlap["summary"]
    assert [int(g.replace(",", "")) for g in m.groups()] == [
        s["pairs"], s["segmentation_pairs"], s["edition_pairs"], s["formula_pairs"], s["quotation_pairs"],
        s["groups"], s["largest_group_rows"]]
    any_class = {(r["config"], r["split"]): r for r in overlap["leaks"] if r["overlap_class"] == "any"}
    row = re.search(r"^\| `sentence_1` \| (\d+) / (\d+) \| (\d+) / (\d+) \|", text, re.M)
    assert row, "docs/overlap.md: the sentence_1 row of the near-twin table is gone"
    v, t = any_class[("sentence_1", "validation")], any_class[("sentence_1", "test")]
    assert [int(g) for g in row.groups()] == [v["rows_with_twin_before"], t["rows_with_twin_before"],
                                              v["rows_with_twin_after"], t["rows_with_twin_after"]]
    held = any_class[("source_held_out_1", "validation")], any_class[("source_held_out_1", "test")]
    assert f"| `source_held_out_1` | {held[0]['rows_with_twin_before']} / {held[1]['rows_with_twin_before']} | 0 / 0 " \
        f"({s['held_out_train_twins_dropped']} training rows dropped, {s['held_out_conflict_rows_omitted']} conflict " \
        "rows omitted)" in text
