"""``sphragis score`` and ``sphragis leaderboard`` (SPEC §11): a submission is checked against the
export line by line, scored with bootstrap CIs beside the leakage floor, and ranked on the card and
the docs site; the reference submission the audit writes reproduces the audit's figures.

The synthetic export is ``test_audit``'s (two authors, two projects; forms identify the author,
markup only the project). The integration test audits the real export.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

pytest.importorskip("sklearn", reason="the scorer uses scikit-learn's metrics (extra 'audit')")

from sklearn.metrics import f1_score, precision_recall_fscore_support  # noqa: E402
from test_audit import make_export  # noqa: E402

from sphragis import cli, leaderboard, leaderboard_collect, predictions, submission  # noqa: E402
from sphragis.benchmark import CONFIGS  # noqa: E402
from sphragis.evaluation.bootstrap import (classification_interval, draw, label_counts, label_resamples,  # noqa: E402
                                           percentile_interval)

SIZES = {"train": 10, "validation": 3, "test": 3}  # per (author, project): 12 test rows per config


def _export(base: Path) -> Path:
    out = make_export(base / "out", 1, "sentence_1", SIZES)
    return make_export(out, 1, "source_held_out_1", SIZES)


def _gold(out: Path, cfg: str) -> list[tuple[str, str]]:
    t = pq.read_table(out / "data" / cfg / "test-00000-of-00001.parquet", columns=["id", "author"])
    return list(zip(t.column("id").to_pylist(), t.column("author").to_pylist()))


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _perfect(out: Path, cfgs=("sentence_1", "source_held_out_1")) -> list[dict]:
    return [{"id": i, "config": cfg, "author": a} for cfg in cfgs for i, a in _gold(out, cfg)]


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    return _export(tmp_path_factory.mktemp("submission"))


@pytest.fixture(scope="module")
def truth(export):
    return submission.load_truth(export)


def _error(path: Path, truth) -> str:
    with pytest.raises(submission.SubmissionError) as exc:
        submission.read_predictions(path, truth)
    return str(exc.value)


def test_every_validation_error_names_the_file_and_line(export, truth, tmp_path):
    good = _perfect(export)
    first_id = good[0]["id"]
    assert len(good) == 24 and submission.read_predictions(_write_jsonl(tmp_path / "ok.jsonl", good), truth)
    p = tmp_path / "p.jsonl"

    # missing row: the last line of sentence_1 dropped
    dropped = good[11]["id"]
    _write_jsonl(p, good[:11] + good[12:])
    assert _error(p, truth) == (f"{p}: sentence_1: missing rows: 1 of the 12 test rows have no prediction "
                                f"(first: id {dropped!r}); a configuration the file names must have every "
                                "test row once")
    # duplicate row
    _write_jsonl(p, good + [dict(good[0], author="Beta")])
    assert _error(p, truth) == f"{p}:25: duplicate row: id {first_id!r} of sentence_1 is already on line 1"
    # unknown id (a train row's id is not a test row)
    _write_jsonl(p, [dict(good[0], id="sentence_1-0-0")] + good[1:])
    assert _error(p, truth) == f"{p}:1: unknown id 'sentence_1-0-0': not a test row of sentence_1"
    # unknown author label, as the prediction and among the scores
    _write_jsonl(p, good[:3] + [dict(good[3], author="Gamma")] + good[4:])
    assert _error(p, truth) == (f"{p}:4: unknown author label 'Gamma': not an author of sentence_1 "
                                "(2 labels, e.g. 'Alpha')")
    _write_jsonl(p, [dict(good[0], scores={"Alpha": 0.9, "Gamma": 0.1})] + good[1:])
    assert _error(p, truth) == f"{p}:1: unknown author label 'Gamma' in scores: not an author of sentence_1"
    # unknown configuration (sentence_5 is a real name, but not in this export)
    _write_jsonl(p, good[:1] + [dict(good[1], config="sentence_5")] + good[2:])
    assert _error(p, truth) == (f"{p}:2: unknown configuration 'sentence_5' (this export has sentence_1, "
                                "source_held_out_1)")
    # malformed lines: not JSON, not an object, a missing field, a mistyped field, a bad score
    lines = [json.dumps(r) for r in good]
    for bad, message in (
            ('{"id": "x", "config": ', "malformed line: not JSON (Expecting value)"),
            ('["x", "sentence_1", "Alpha"]', "malformed line: a JSON object is expected, found list"),
            ('{"id": "x", "config": "sentence_1"}',
             "malformed line: missing field(s) author (fields: id, config, author, optional scores)"),
            ('{"id": "x", "config": "sentence_1", "author": "Alpha", "autor": "Beta"}',
             "malformed line: unknown field(s) autor (fields: id, config, author, optional scores)"),
            ('{"id": 7, "config": "sentence_1", "author": "Alpha"}', "malformed line: id must be a string, found 7"),
            (json.dumps(dict(good[2], scores={"Alpha": "high"})),
             "malformed line: the score of 'Alpha' must be a finite number, found 'high'")):
        p.write_text("\n".join(lines[:2] + [bad] + lines[3:]) + "\n", encoding="utf-8")
        assert _error(p, truth) == f"{p}:3: {message}", bad
    # CSV: a row of the wrong width, a header without the required columns
    c = tmp_path / "p.csv"
    c.write_text("id,config,author\n" + "".join(f"{r['id']},{r['config']},{r['author']}\n" for r in good[:4])
                 + "x,sentence_1\n", encoding="utf-8")
    assert _error(c, truth) == f"{c}:6: malformed line: 2 CSV fields, the header has 3"
    c.write_text("id,configuration,author\n", encoding="utf-8")
    assert _error(c, truth) == (f"{c}:1: malformed line: the CSV header needs the columns id, config, author "
                                "and optional scores.<author> columns, found 'id', 'configuration', 'author'")
    p.write_text("\n\n", encoding="utf-8")
    assert _error(p, truth) == f"{p}: no predictions"


def test_a_submission_scored_against_another_export_is_refused(export, tmp_path):
    # the export fingerprint is the sha256 of the sha256sum listing of the Parquet files
    listing = "".join(f"{hashlib.sha256((export / rel).read_bytes()).hexdigest()}  {rel}\n"
                      for rel in sorted(p.relative_to(export).as_posix() for p in export.glob("data/*/*.parquet")))
    fingerprint = hashlib.sha256(listing.encode()).hexdigest()
    assert submission.export_fingerprint(export) == fingerprint
    board_dir = tmp_path / "board"
    board_dir.mkdir()
    preds = _write_jsonl(board_dir / "model.jsonl", _perfect(export))  # beside its scored JSON
    assert cli.main(["score", str(preds), "--out", str(export), "--name", "Perfect", "--link", "https://example.org/m",
                     "--json", str(board_dir / "perfect.json"), "--bootstrap", "99"]) == 0
    other = json.loads((board_dir / "perfect.json").read_text(encoding="utf-8"))
    assert other["export"]["fingerprint"] == fingerprint
    other["export"]["fingerprint"] = "0" * 64
    other["name"] = "Stale"
    (board_dir / "stale.json").write_text(json.dumps(other), encoding="utf-8")
    partial = dict(other, export={"fingerprint": fingerprint}, configs={"sentence_1": other["configs"]["sentence_1"]})
    (board_dir / "partial.json").write_text(json.dumps(partial), encoding="utf-8")
    (board_dir / "junk.json").write_text('{"format": "sphragis-score/1", "export": []}', encoding="utf-8")
    doc = leaderboard_collect.collect(board_dir, export)
    assert [e["name"] for e in doc["entries"]] == ["Perfect"]
    assert doc["refused"] == [
        {"file": str(board_dir / "junk.json"),
         "reason": "not a scored submission (format sphragis-score/1, written by `sphragis score --json`)"},
        {"file": str(board_dir / "partial.json"),
         "reason": "does not score source_held_out_1: the leaderboard ranks by the source-held-out track"},
        {"file": str(board_dir / "stale.json"),
         "reason": f"scored against another export (fingerprint {'0' * 64}, this export's is {fingerprint}): "
                   "score it again with `sphragis score`"}]
    # one changed Parquet byte is another export: the accepted entry drops off the board, with a note
    assert cli.main(["leaderboard", str(board_dir), "--out", str(export)]) == 0
    b = leaderboard.board(export)
    assert [(r["system"], r["beats_floor"], r["held_out_mean"]) for r in b["rows"]] == [("Perfect", None, 1.0)]
    # the docs site's leaderboard page (no leakage report here: no floor row, nothing to beat)
    from sphragis.workbench import site

    site.build_site(tmp_path / "site", warehouse=tmp_path / "absent.duckdb", export=export)
    html = (tmp_path / "site" / "leaderboard.html").read_text(encoding="utf-8")
    # the ranking columns first (rank, system, held-out mean with its CI, tied with, top-3, the two gaps,
    # beats floor), then every configuration with its CI; top-3 needs more than three authors and the
    # floor an audit, so both are "–", and the page says why
    assert ('<tr class="submission"><td class="rank">1</td><td class="rank">Perfect <code class="link">'
            'https://example.org/m</code></td><td class="rank num">100.0 [100.0, 100.0]</td>'
            '<td class="rank num">none</td><td class="rank num">–</td><td class="rank num">0.0</td>'
            '<td class="rank num">0.0</td><td class="rank num">–</td>'
            '<td class="num">100.0 [100.0, 100.0]</td><td class="num">100.0 [100.0, 100.0]</td></tr>') in html
    from markupsafe import escape

    assert all(f"<p>–: {escape(leaderboard.DASHES[k])}.</p>" in html for k in ("top_k", "beats_floor"))
    assert fingerprint in html and 'href="leaderboard.html"' in (tmp_path / "site" / "index.html").read_text()
    changed = tmp_path / "changed"
    shutil.copytree(export, changed)
    test = changed / "data" / "sentence_1" / "test-00000-of-00001.parquet"
    t = pq.read_table(test)
    pq.write_table(t.slice(1), test)
    b = leaderboard.board(changed)
    assert b["rows"] == [] and b["note"] == ("1 submission(s) of metadata/leaderboard.json were scored against "
                                             "another export and are not shown: score them again and run "
                                             "`sphragis leaderboard`")
    # and the predictions made for the first export do not fit the changed one
    dropped = t.column("id")[0].as_py()
    with pytest.raises(submission.SubmissionError) as exc:
        submission.score_submission(preds, changed, bootstrap=0, seed=776, confidence=0.95)
    assert str(exc.value) == f"{preds}:1: unknown id {dropped!r}: not a test row of sentence_1"


def _mistakes(export: Path) -> list[dict]:
    """sentence_1: 3 of Alpha's 6 rows predicted Beta; source_held_out_1: 1 of Beta's predicted Alpha."""
    recs = _perfect(export)
    alpha = [r for r in recs if r["config"] == "sentence_1" and r["author"] == "Alpha"]
    for r in alpha[:3]:
        r["author"] = "Beta"
    next(r for r in recs if r["config"] == "source_held_out_1" and r["author"] == "Beta")["author"] = "Alpha"
    return recs


def test_figures_are_sklearns_and_the_bootstrap_resamples_rows(export, truth, tmp_path):
    p = _write_jsonl(tmp_path / "m.jsonl", _mistakes(export))
    scored = submission.score_submission(p, export, bootstrap=999, seed=776, confidence=0.95)
    s1 = scored["configs"]["sentence_1"]
    assert s1["rows"] == 12 and s1["accuracy"]["value"] == 9 / 12
    # Alpha: P 3/3, R 3/6 -> F1 2/3; Beta: P 6/9, R 1 -> F1 0.8
    assert s1["per_author"]["Alpha"]["f1"] == pytest.approx(2 / 3) and s1["per_author"]["Beta"]["f1"] == pytest.approx(0.8)
    assert s1["macro_f1"]["value"] == pytest.approx((2 / 3 + 0.8) / 2)
    assert (s1["per_author"]["Alpha"]["support"], s1["per_author"]["Beta"]["predicted"]) == (6, 9)
    # every resample's figures are sklearn's on the resampled rows, and the CI their percentiles
    preds = submission.read_predictions(p, truth)
    y, pr = truth["sentence_1"].authors, preds["sentence_1"].authors
    idx = draw(12, 999, 776)
    res = label_resamples(label_counts(y, pr, ["Alpha", "Beta"]), idx, 2)
    for b in range(0, 999, 37):
        yb, pb = y[idx[b]], pr[idx[b]]
        assert res["accuracy"][b] == pytest.approx(float((yb == pb).mean()))
        assert res["macro_f1"][b] == pytest.approx(f1_score(yb, pb, average="macro", zero_division=0))
        _, _, f1, _ = precision_recall_fscore_support(yb, pb, labels=["Alpha", "Beta"], zero_division=0)
        assert list(res["per_label"][b]) == pytest.approx(list(f1))
    low, high = percentile_interval(res["accuracy"], 0.95)
    assert s1["accuracy"]["ci"] == [float(low), float(high)] and low < 0.75 < high
    # the audit's CIs are the same bootstrap (a fresh default_rng(776) per configuration)
    ci = classification_interval(y, pr, 776)
    assert (ci["accuracy"], ci["macro_f1"]) == (s1["accuracy"]["ci"], s1["macro_f1"]["ci"])
    # the gap: main minus held-out over independent resamples (held-out drawn after the main's)
    h1 = scored["configs"]["source_held_out_1"]
    assert h1["accuracy"]["value"] == 11 / 12
    gap = scored["track_gap"]["1"]
    assert gap["main"] == "sentence_1" and gap["accuracy"]["gap"] == pytest.approx(9 / 12 - 11 / 12)
    rng = np.random.default_rng(776)
    assert np.array_equal(draw(12, 999, rng), idx)
    held_idx = draw(12, 999, rng)
    hp = preds["source_held_out_1"].authors
    held = label_resamples(label_counts(truth["source_held_out_1"].authors, hp, ["Alpha", "Beta"]),
                           held_idx, 2)
    low, high = percentile_interval(res["accuracy"] - held["accuracy"], 0.95)
    assert gap["accuracy"]["ci"] == [float(low), float(high)]
    # not audited: no floor, said so
    assert s1["floor"] is None and s1["beats_floor"] is None and scored["leakage_report"] is None
    assert "floor and baselines: none, the export has no metadata/leakage_report.json" in submission.render_table(scored)


def test_scores_csv_top_k_and_outputs(export, truth, tmp_path):
    recs = _mistakes(export)
    c = tmp_path / "m.csv"
    with c.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "config", "author", "scores.Alpha", "scores.Beta"])
        for r in recs:
            w.writerow([r["id"], r["config"], r["author"], 1.0 if r["author"] == "Alpha" else 0.0,
                        1.0 if r["author"] == "Beta" else 0.0])
    preds = submission.read_predictions(c, truth)
    assert preds["sentence_1"].scores.shape == (12, 2)
    jl = _write_jsonl(tmp_path / "m.jsonl", recs)
    a = submission.score_submission(c, export, bootstrap=50, seed=776, confidence=0.95)
    b = submission.score_submission(jl, export, bootstrap=50, seed=776, confidence=0.95)
    assert a["configs"] == b["configs"]  # top-k needs more labels than k: none here
    assert a["configs"]["sentence_1"]["top_k_accuracy"] is None
    md = submission.render_markdown(submission.rounded(b))
    assert "| `sentence_1` | 12 | 75.0 |" in md and "## Track gap (main − source-held-out)" in md


def test_reference_submission_reproduces_the_audit_on_a_synthetic_export(tmp_path, monkeypatch):
    out = _export(tmp_path)
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "absent.duckdb"))
    assert cli.main(["audit", "--out", str(out), "--config", "sentence_1", "--config", "source_held_out_1",
                     "--quiet"]) == 0
    ref = out / predictions.REFERENCE
    assert len(ref.read_text(encoding="utf-8").splitlines()) == 24
    scored = submission.score_submission(ref, out, bootstrap=99, seed=776, confidence=0.95)
    report = json.loads((out / "metadata" / "leakage_report.json").read_text(encoding="utf-8"))
    for cfg in ("sentence_1", "source_held_out_1"):
        for m in ("accuracy", "macro_f1"):
            assert round(scored["configs"][cfg][m]["value"], 4) == report["configs"][cfg]["text_author"]["test"][m]
        assert scored["configs"][cfg]["floor"] == report["configs"][cfg]["markup_author"]["test"]
    # markup is at chance for the author (0.5), the text baseline perfect: its CI's lower bound beats it
    assert scored["configs"]["sentence_1"]["beats_floor"] == {"accuracy": True, "macro_f1": True}
    assert "predictions" not in json.dumps(report)


#: The configurations of the real audit below: every source-held-out one (the leaderboard ranks a
#: submission that scores them all), the main and work-held-out ones at k=50 (every column of the
#: leaderboard and a track gap) and the atomic ones (the floor's decomposition, the gaps on the same
#: authors and the neighbour leakage the card states). The fits are the same code on every
#: configuration; the whole audit is `make export`'s.
REAL_AUDIT_CONFIGS = tuple(c for c in CONFIGS if c.startswith("source_held_out_") or c.endswith(("_50", "_1")))


@pytest.mark.integration
def test_reference_submission_reproduces_the_audit_on_the_real_export(real_export, tmp_path, monkeypatch):
    # the audit of REAL_AUDIT_CONFIGS on (a view of) the real export writes the reference
    # submission; scoring it gives the audit's text-baseline accuracy and macro-F1 on each of
    # them, and the leaderboard of the card and the docs site ranks it by the source-held-out track
    out = tmp_path / "sphragis"
    out.mkdir()
    (out / "data").symlink_to(real_export / "data")
    for name in ("metadata", ):
        shutil.copytree(real_export / name, out / name)
    shutil.copy(real_export / "LICENSES.md", out / "LICENSES.md")
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "absent.duckdb"))
    assert cli.main(["audit", "--out", str(out), "--quiet", *(f"--config={c}" for c in REAL_AUDIT_CONFIGS)]) == 0
    report = json.loads((out / "metadata" / "leakage_report.json").read_text(encoding="utf-8"))
    ref = out / predictions.REFERENCE
    scored = submission.score_submission(ref, out, bootstrap=199, seed=776, confidence=0.95,
                                         name="text baseline (reference)")
    assert set(scored["configs"]) == set(REAL_AUDIT_CONFIGS) == set(report["configs"])
    assert scored["not_submitted"] == [c for c in CONFIGS if c not in REAL_AUDIT_CONFIGS]
    for cfg in REAL_AUDIT_CONFIGS:
        got = {m: round(scored["configs"][cfg][m]["value"], 4) for m in ("accuracy", "macro_f1")}
        assert got == report["configs"][cfg]["text_author"]["test"], cfg
        assert scored["configs"][cfg]["rows"] == report["configs"][cfg]["rows"]["test"]
        assert scored["configs"][cfg]["floor"] == report["configs"][cfg]["markup_author"]["test"]
    assert list(scored["track_gap"]) == ["1", "50"]
    for k, gap in scored["track_gap"].items():
        assert round(gap["accuracy"]["gap"], 4) == pytest.approx(
            report["track_gap"][k]["text_author"]["accuracy"]["gap"], abs=1e-4)
        assert gap["accuracy"]["ci"][0] <= gap["accuracy"]["gap"] <= gap["accuracy"]["ci"][1]
    board_dir = tmp_path / "board"
    board_dir.mkdir()
    from sphragis.files import write_json

    write_json(board_dir / "reference.json", submission.rounded(scored))
    shutil.copy(ref, board_dir / ref.name)  # the leaderboard re-scores the predictions beside the scored JSON
    assert cli.main(["leaderboard", str(board_dir), "--out", str(out)]) == 0
    b = leaderboard.board(out)
    means = [r["held_out_mean"] for r in b["rows"]]
    assert means == sorted(means, reverse=True)
    names = [r["system"] for r in b["rows"]]
    assert "text baseline (reference)" in names and "markup → author (leakage floor)" in names
    card = (out / "README.md").read_text(encoding="utf-8")
    section = card.split("### Supported Tasks and Leaderboards", 1)[1].split("### Languages", 1)[0]
    assert "| text baseline (reference) |" in section and submission.export_fingerprint(out) in section
    assert "predictions" not in json.dumps(report)
    # the leaderboard shows intervals: every accuracy cell of every ranked row has its CI, and the
    # reference submission (the text baseline's own predictions) is tied with the text baseline
    rows = {r["system"]: r for r in b["rows"]}
    assert all(r["ci"][c] for r in b["rows"] for c in b["configs"] if r["accuracy"][c] is not None)
    ref = rows["text baseline (reference)"]
    assert ref["held_out_mean_ci"][0] < ref["held_out_mean"] < ref["held_out_mean_ci"][1]
    assert rows["text → author (character n-gram baseline)"]["rank"] in ref["tied_with"]
    line = next(ln for ln in section.splitlines() if ln.startswith("| ") and "text baseline (reference)" in ln)
    scored_cfgs = [c for c in b["configs"] if ref["accuracy"][c] is not None]
    assert scored_cfgs == [c for c in b["configs"] if c in REAL_AUDIT_CONFIGS]
    assert line.count(" [") == len(scored_cfgs) + 1  # one CI per scored configuration and for the held-out mean
    # the reference submission scores the same same-author gap as the audit's text baseline
    gap = report["same_author_gap"]["source_held_out_1"]["text_author"]["gap"]
    assert round(scored["same_author_gap"]["source_held_out_1"]["gap"]["gap"]["accuracy"], 4) == gap["accuracy"]
    assert_the_audits_claims(report, section)


def assert_the_audits_claims(report: dict, card_section: str) -> None:
    """What the leakage report and the card say of the real export (the claims a reviewer
    can trust): the floor decomposed on sentence_1, the gaps on the same authors with CIs, the
    lookup baselines and the confounds."""
    reading = report["floor_reading"]
    assert reading["config"] == "sentence_1"
    # inside one project (annotator fixed) markup still tells authors apart well above the majority
    wp, wa = reading["within_project"], reading["within_author"]
    assert (wp["accuracy"], wp["majority_accuracy"], wp["groups"]) == (0.5615, 0.3182, 4)
    assert wp["ci"][0] > wp["majority_accuracy"]
    # inside one author, the project is told apart too
    assert (wa["accuracy"], wa["majority_accuracy"], wa["groups"]) == (0.8639, 0.68, 9)
    assert "so the floor is not annotator signal alone: part of it is the\nauthors' syntax" in card_section
    assert "has shown source identification" not in card_section
    # the gap on the same 8 authors, with CIs: larger than the seed's gap on different author sets
    g = report["same_author_gap"]["source_held_out_1"]
    assert (len(g["authors"]), g["main"], g["main_rows"], g["held_out_rows"]) == (8, "sentence_1", 1600, 2200)
    text = g["text_author"]
    seed_gap = report["track_gap"]["1"]["text_author"]["accuracy"]["gap"]
    assert (text["gap"]["accuracy"], seed_gap) == (0.1234, 0.0682) and text["gap"]["ci"][0] > seed_gap
    assert all(text[k]["ci"][0] <= text[k]["accuracy"] <= text[k]["ci"][1] for k in text)
    assert "| `source_held_out_1` text → author | 8 | 77.8 [75.8, 79.9] | 65.4 [63.4, 67.5] | 12.3 [9.4, 15.1] | 6.8 |" \
        in card_section
    configs = report["configs"]
    # genre and project as baselines of their own; project → author cannot name a held-out project
    assert configs["sentence_1"]["genre_author"]["test"]["accuracy"] == 0.2857
    assert configs["source_held_out_1"]["project_author"]["test"]["accuracy"] == 0.0
    # the confounds: the main track's random split leaves 95 % of test sentences a neighbour in
    # train; for four held-out authors the held-out project is also a held-out work; Xenophon holds
    # 44 % of the source-held-out training rows; 11 authors have one test row in sentence_50
    assert configs["sentence_1"]["confounds"]["neighbours"]["test"] == {"rows": 4900, "with_neighbour_in_train": 4653,
                                                                        "share": 0.9496}
    assert configs["work_held_out_1"]["confounds"]["neighbours"]["test"]["share"] < 0.01
    works = configs["source_held_out_1"]["confounds"]["held_out_works"]
    assert sorted(a for a, w in works.items() if w["held_out_project_is_held_out_work"]) == [
        "Lucian", "Lysias", "Plato", "Xenophon"]
    assert configs["source_held_out_1"]["confounds"]["largest_train_share"] == {"author": "Xenophon", "share": 0.44}
    thin = configs["sentence_50"]["confounds"]["thin_authors"]["test"]
    assert sum(1 for n in thin.values() if n == 1) == 11


def test_leaderboard_gap_is_main_track_minus_source_held_out_with_the_work_track_beside(tmp_path):
    # three tracks side by side: the work-held-out configuration is shown between the main and the
    # source-held-out track and counts in neither the gap's main-track mean nor the ranking key
    out = make_export(_export(tmp_path), 1, "work_held_out_1", SIZES)
    recs = _perfect(out, ("sentence_1", "source_held_out_1", "work_held_out_1"))
    authors = sorted({r["author"] for r in recs})
    for r in recs:  # every work_held_out_1 prediction wrong
        if r["config"] == "work_held_out_1":
            r["author"] = next(a for a in authors if a != r["author"])
    board_dir = tmp_path / "board"
    board_dir.mkdir()
    preds = _write_jsonl(board_dir / "model.jsonl", recs)
    assert cli.main(["score", str(preds), "--out", str(out), "--name", "Works blind",
                     "--json", str(board_dir / "m.json"), "--bootstrap", "99"]) == 0
    assert cli.main(["leaderboard", str(board_dir), "--out", str(out)]) == 0
    b = leaderboard.board(out)
    assert b["configs"] == ["sentence_1", "work_held_out_1", "source_held_out_1"]
    row = b["rows"][0]
    assert (row["accuracy"], row["held_out_mean"], row["gap"]) == (
        {"sentence_1": 1.0, "work_held_out_1": 0.0, "source_held_out_1": 1.0}, 1.0, 0.0)


# --------------------------------------------------------------------------------------------
# hostile submissions: figures recomputed, values checked, bounded reads (SPEC §13)


def _scored(export: Path, folder: Path, stem: str, recs: list[dict], *extra: str) -> dict:
    """Write ``<folder>/<stem>.jsonl`` and score it into ``<folder>/<stem>.json`` (the layout the
    leaderboard reads: a scored JSON beside its predictions); returns the scored document."""
    folder.mkdir(exist_ok=True)
    preds = _write_jsonl(folder / f"{stem}.jsonl", recs)
    assert cli.main(["score", str(preds), "--out", str(export), "--json", str(folder / f"{stem}.json"),
                     "--bootstrap", "99", *extra]) == 0
    return json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))


def _forge(folder: Path, stem: str, doc: dict, edit) -> None:
    """A copy of the scored ``doc`` (and its predictions) as ``<stem>``, edited by ``edit(doc)``."""
    doc = json.loads(json.dumps(doc))
    shutil.copy(folder / doc["predictions"]["file"], folder / f"{stem}.jsonl")
    doc["predictions"]["file"] = f"{stem}.jsonl"
    edit(doc)
    (folder / f"{stem}.json").write_text(json.dumps(doc), encoding="utf-8")  # NaN written as NaN


def test_the_leaderboard_recomputes_every_figure_and_refuses_what_differs(export, tmp_path, capsys):
    board_dir = tmp_path / "board"
    honest = _scored(export, board_dir, "honest", _mistakes(export), "--name", "Honest")
    held = honest["configs"]["source_held_out_1"]
    assert held["accuracy"]["value"] == round(11 / 12, 4)

    def perfect(doc):  # the held-out figures edited by hand to 100 % with CI [1, 1]
        doc["name"] = "Forged"
        for c in doc["configs"].values():
            c["accuracy"] = {"value": 1.0, "ci": [1.0, 1.0]}
            c["beats_floor"] = {"accuracy": True, "macro_f1": True}
        doc["track_mean"]["source_held_out"] = {"accuracy": 1.0, "ci": [1.0, 1.0]}

    _forge(board_dir, "forged", honest, perfect)
    _forge(board_dir, "nan", honest, lambda d: d["configs"]["source_held_out_1"]["accuracy"].update(value=float("nan")))
    _forge(board_dir, "string", honest, lambda d: d["configs"]["sentence_1"]["accuracy"].update(value="0.75"))
    _forge(board_dir, "minus", honest, lambda d: d["track_gap"]["1"]["accuracy"].update(gap=-0.5))
    _forge(board_dir, "resamples", honest, lambda d: d["protocol"].update(bootstrap=10 ** 9))
    _forge(board_dir, "longname", honest, lambda d: d.update(name="x" * 300))
    _forge(board_dir, "newline", honest, lambda d: d.update(name="evil\n## injected heading"))
    _forge(board_dir, "js", honest, lambda d: d.update(link="javascript:alert(1)"))
    _forge(board_dir, "elsewhere", honest, lambda d: d["predictions"].update(file="../honest.jsonl"))
    _forge(board_dir, "edited", honest, lambda d: None)
    (board_dir / "edited.jsonl").write_text((board_dir / "edited.jsonl").read_text() + "\n", encoding="utf-8")
    _forge(board_dir, "gone", honest, lambda d: None)
    (board_dir / "gone.jsonl").unlink()
    doc = leaderboard_collect.collect(board_dir, export)
    assert [e["name"] for e in doc["entries"]] == ["Honest"]
    reasons = {Path(r["file"]).stem: r["reason"] for r in doc["refused"]}
    assert reasons == {
        "edited": f"its predictions file {board_dir / 'edited.jsonl'} is not the one scored (sha256 "
                  f"{hashlib.sha256((board_dir / 'edited.jsonl').read_bytes()).hexdigest()}, the scored file records "
                  f"{honest['predictions']['sha256']}): score it again",
        "elsewhere": "predictions.file must be the name of the predictions file beside it, found '../honest.jsonl'",
        "forged": "configs.sentence_1.accuracy.value is 1.0 in the file, 0.75 re-scored from its predictions: "
                  "a scored submission's figures are recomputed from its predictions, and these differ",
        "gone": f"its predictions file: {board_dir / 'gone.jsonl'}: cannot read the predictions (No such file or "
                "directory)",
        "js": "link: the submission link 'javascript:alert(1)' is not an http:// or https:// URL with a host, at "
              "most 2,000 characters, spaces, quotes, <, >, \\, | and non-ASCII characters percent-encoded",
        "longname": "name: the submission name has 300 characters, over the limit of 100 (one line of the "
                    "leaderboard)",
        "minus": "track_gap.1.accuracy.gap is -0.5 in the file, -0.1667 re-scored from its predictions: a scored "
                 "submission's figures are recomputed from its predictions, and these differ",
        "nan": "configs.source_held_out_1.accuracy.value must be a finite number, found nan: a scored submission's "
               "figures are recomputed from its predictions, and these differ",
        "newline": "name: the submission name 'evil\\n## injected heading' is not one line of printable characters "
                   "(1 to 100; no control character or line break)",
        "resamples": "protocol.bootstrap must be a whole number from 0 to 9,999, found 1000000000",
        "string": "configs.sentence_1.accuracy.value must be a number, found '0.75': a scored submission's figures "
                  "are recomputed from its predictions, and these differ",
    }
    # the accepted entry's figures are the re-scored ones, and `sphragis leaderboard` ranks it alone
    assert doc["entries"][0]["configs"]["source_held_out_1"]["accuracy"] == round(11 / 12, 4)
    assert cli.main(["leaderboard", str(board_dir), "--out", str(export)]) == 0
    err = capsys.readouterr().err
    assert "leaderboard: 1 submission(s) accepted, 11 refused" in err
    assert f"leaderboard: refused {board_dir / 'forged.json'}: configs.sentence_1.accuracy.value is 1.0" in err
    written = json.loads((export / leaderboard.LEADERBOARD).read_text(encoding="utf-8"))
    assert [e["name"] for e in written["entries"]] == ["Honest"] and "NaN" not in json.dumps(written)
    assert [r["system"] for r in leaderboard.board(export)["rows"]] == ["Honest"]


def _open_for_writing_later(fifo: Path, seconds: float = 20.0):
    """A started timer that opens ``fifo`` for writing and closes it: a reader blocked on it gets
    the end of the file then (a FIFO read was a hang); cancel it when the reading is done."""
    import os
    import threading

    def writer() -> None:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # no reader: nothing was waiting
            pass

    timer = threading.Timer(seconds, writer)
    timer.start()
    return timer


def test_the_leaderboard_reads_regular_files_of_bounded_size(export, tmp_path):
    import os

    board_dir = tmp_path / "board"
    honest = _scored(export, board_dir, "honest", _perfect(export))
    os.mkfifo(board_dir / "fifo.json")  # no writer: reading it would wait forever
    watchdog = _open_for_writing_later(board_dir / "fifo.json")  # a reader waiting on it fails instead of hanging
    (board_dir / "devzero.json").symlink_to("/dev/zero")
    with open(board_dir / "huge.json", "wb") as fh:  # sparse: over the limit without using the disk
        fh.truncate(predictions.SCORED_LIMIT + 1)
    (board_dir / "deep.json").write_text("[" * 100_000, encoding="utf-8")
    # a predictions file over its limit (sparse too), named by a scored JSON
    _forge(board_dir, "big", honest, lambda d: None)
    with open(board_dir / "big.jsonl", "wb") as fh:
        fh.truncate(predictions.PREDICTIONS_LIMIT + 1)
    doc = leaderboard_collect.collect(board_dir, export)
    watchdog.cancel()
    assert [e["file"] for e in doc["entries"]] == ["honest.json"]
    reasons = {Path(r["file"]).name: r["reason"] for r in doc["refused"]}
    big = board_dir / "big.jsonl"
    assert reasons.pop("deep.json").startswith("not JSON (")
    assert reasons == {
        "big.json": f"its predictions file: {big}: {predictions.PREDICTIONS_LIMIT + 1:,} bytes, over the limit of "
                    f"{predictions.PREDICTIONS_LIMIT:,} bytes for such a file (predictions)",
        "devzero.json": "a character device, not a regular file; only regular files are read",
        "fifo.json": "a FIFO, not a regular file; only regular files are read",
        "huge.json": f"{predictions.SCORED_LIMIT + 1:,} bytes, over the limit of {predictions.SCORED_LIMIT:,} bytes "
                     "for such a file",
    }


def test_an_edited_leaderboard_file_is_checked_where_it_is_rendered(export, tmp_path, capsys):
    # metadata/leaderboard.json edited after `sphragis leaderboard`: a NaN and a string accuracy are
    # left out of the board (the card, the site, the CLI table) with a note, never ranked or a traceback
    board_dir = tmp_path / "board"
    _scored(export, board_dir, "honest", _perfect(export), "--name", "Honest")
    out = tmp_path / "out"
    shutil.copytree(export, out)
    assert cli.main(["leaderboard", str(board_dir), "--out", str(out)]) == 0
    path = out / leaderboard.LEADERBOARD
    doc = json.loads(path.read_text(encoding="utf-8"))
    nan = json.loads(json.dumps(doc["entries"][0]))
    nan["name"], nan["configs"]["source_held_out_1"]["accuracy"] = "NaN model", float("nan")
    text = json.loads(json.dumps(doc["entries"][0]))
    text["name"], text["configs"]["sentence_1"]["accuracy"] = "Text model", "0.9"
    hostile = json.loads(json.dumps(doc["entries"][0]))  # valid: a name is data, escaped where rendered
    hostile["name"], hostile["link"] = '<img src=x onerror="alert(1)">', "https://x.org/a'b"
    doc["entries"] += [nan, text, hostile]
    path.write_text(json.dumps(doc), encoding="utf-8")
    b = leaderboard.board(out)
    assert [r["system"] for r in b["rows"]] == [hostile["name"], "Honest"]
    assert b["note"] == ("2 submission(s) of metadata/leaderboard.json are not shown: their figures are not valid; "
                         "run `sphragis leaderboard` again")
    assert "nan" not in leaderboard.render_table(b)
    from sphragis.workbench import site

    site.build_site(tmp_path / "site", warehouse=tmp_path / "absent.duckdb", export=out)
    html = (tmp_path / "site" / "leaderboard.html").read_text(encoding="utf-8")
    assert "Honest" in html and "NaN model" not in html and "2 submission(s) of metadata/leaderboard.json" in html
    import lxml.html

    page = lxml.html.document_fromstring(html)
    assert not page.xpath("//img") and not page.xpath("//@onerror")
    assert page.xpath("//tr[@class='submission']/td[2]/text()")[0].strip() == hostile["name"]
    assert page.xpath("//code[@class='link']/text()") == [hostile["link"]]
    assert leaderboard.check_entry(nan) == ("configs.source_held_out_1.accuracy must be a fraction in [0, 1] with "
                                            "its CI, found nan [1.0, 1.0]")


def test_score_reads_a_regular_predictions_file_of_bounded_size(export, truth, tmp_path):
    import os
    import subprocess
    import sys

    good = _perfect(export)
    # a CSV field over the csv module's default 128 KiB: read, and refused as the unknown id it is
    c = tmp_path / "long.csv"
    long_id = "x" * (200 << 10)
    c.write_text("id,config,author\n" + "".join(f"{r['id']},{r['config']},{r['author']}\n" for r in good[:2])
                 + f"{long_id},sentence_1,Alpha\n", encoding="utf-8")
    assert _error(c, truth) == (f"{c}:4: unknown id {long_id!r:.60}... ({len(repr(long_id)):,} characters): not a "
                                "test row of sentence_1")
    # a link to /dev/zero, a FIFO, a file over the limit: one line each, nothing read
    z = tmp_path / "zero.jsonl"
    z.symlink_to("/dev/zero")
    assert _error(z, truth) == f"{z}: a character device, not a regular file; only regular files are read (predictions)"
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as fh:
        fh.truncate(predictions.PREDICTIONS_LIMIT + 1)
    assert _error(big, truth) == (f"{big}: {predictions.PREDICTIONS_LIMIT + 1:,} bytes, over the limit of "
                                  f"{predictions.PREDICTIONS_LIMIT:,} bytes for such a file (predictions)")
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    run = subprocess.run([sys.executable, "-m", "sphragis.cli", "score", str(fifo), "--out", str(export)],
                         capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (1, f"sphragis score: error: {fifo}: a FIFO, not a regular file; only "
                                               "regular files are read (predictions)\n")


def test_score_refuses_a_name_or_link_that_is_not_data_before_scoring(export, tmp_path, capsys):
    preds = _write_jsonl(tmp_path / "m.jsonl", _perfect(export))
    for option, value, message in (
            ("--name", "x" * 101, "name: the submission name has 101 characters, over the limit of 100 (one line of "
                                  "the leaderboard)"),
            ("--name", "a\x1b[31mred", "name: the submission name 'a\\x1b[31mred' is not one line of printable "
                                       "characters (1 to 100; no control character or line break)"),
            ("--name", "  ", "name: the submission name '  ' is not one line of printable characters (1 to 100; no "
                             "control character or line break)"),
            ("--link", "javascript:alert(1)", "link: the submission link 'javascript:alert(1)' is not an http:// or "
                                              "https:// URL with a host"),
            ("--link", 'https://x.org/" onerror="alert(1)', "link: the submission link 'https://x.org/\" "
                                                            "onerror=\"alert(1)' is not an http://")):
        assert cli.main(["score", str(preds), "--out", str(export), option, value, "--bootstrap", "0"]) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"sphragis score: error: {message}"), err
    # the default name is the file's stem, checked the same way
    odd = _write_jsonl(tmp_path / ("y" * 120 + ".jsonl"), _perfect(export))
    assert cli.main(["score", str(odd), "--out", str(export), "--bootstrap", "0"]) == 1
    assert "(as the name; give another with --name): the submission name has 120 characters" in capsys.readouterr().err


def test_the_scoring_page_states_the_limits_the_code_applies():
    text = (Path(__file__).resolve().parents[1] / "docs" / "scoring.md").read_text(encoding="utf-8")
    for figure in (f"at most {predictions.PREDICTIONS_LIMIT >> 20} MiB", f"at most {predictions.NAME_LIMIT}\nprintable",
                   f"at most {predictions.SCORED_LIMIT >> 20} MiB", f"at most {leaderboard_collect.MAX_RESAMPLES:,} resamples"):
        assert figure in text, figure


def test_the_markdown_report_renders_a_hostile_name_as_text(export, tmp_path):
    import lxml.html
    from markdown_it import MarkdownIt

    preds = _write_jsonl(tmp_path / "m.jsonl", _perfect(export))
    name, link = "<script>alert(1)</script> ## [x](javascript:y) | *z*", "https://x.org/a_(b)?c=1&d='e'"
    scored = submission.rounded(submission.score_submission(preds, export, bootstrap=0, seed=776, confidence=0.95,
                                                            name=name, link=link))
    md = submission.render_markdown(scored)
    page = lxml.html.document_fromstring(MarkdownIt("commonmark", {"html": True}).enable("table").render(md))
    assert not page.xpath("//script") and page.xpath("//h1")[0].text_content() == name
    assert page.xpath("//h1/a/@href") == ["https://x.org/a_%28b%29?c=1&d='e'"]
    assert len(page.xpath("//h1")) == 1 and f"{name}: m.jsonl scored against the export" in page.text_content()
