"""``sphragis bench-audit`` (sphragis.bench_audit): the audit's stopping rule re-measured with the
audit's own fits, on a small export written like the real one (tests/test_audit.py)."""

from __future__ import annotations

import json

from sphragis import audit_fits, bench_audit

from test_audit import make_export


def test_the_measured_figures_are_the_audits_and_the_changes_are_against_the_reference(tmp_path, capsys):
    out = make_export(tmp_path / "out", 1, "sentence_1")
    done = bench_audit.fit_all(out, (bench_audit.REFERENCE_TOL, audit_fits.SVC_TOL, 10.0), ("sentence_1",))
    audited = audit_fits.run_audit(out, ("sentence_1",), jobs=1)["sentence_1"]
    # at the audit's tolerance, bench-audit's figures are the audit's own, for every task and split
    for fs, tg in audit_fits.TASKS:
        for split in ("validation", "test"):
            assert done[audit_fits.SVC_TOL]["scores"][f"sentence_1/{fs}_{tg}"][split] == audited[f"{fs}_{tg}"][split]
    assert all(d["cpu_seconds"] > 0 for d in done.values())

    assert list(done) == [bench_audit.REFERENCE_TOL, audit_fits.SVC_TOL, 10.0]


def test_compare_gives_the_largest_and_mean_change_per_task_in_points():
    # on the small export every tolerance gives the same figures, so the arithmetic is checked on
    # figures that differ: two configurations, the reference and one other tolerance
    def fits(a1, a2):
        return {"cpu_seconds": 10.0 if a1 == 0.5 else 8.0,
                "scores": {f"{cfg}/text_author": {s: {"accuracy": acc, "macro_f1": acc / 2}
                                                   for s in ("validation", "test")}
                           for cfg, acc in (("sentence_1", a1), ("work_held_out_1", a2))}}

    doc = bench_audit.compare({1e-4: fits(0.5, 0.8), 1e-2: fits(0.49, 0.83)})
    assert doc["reference_tol"] == 1e-4
    ref, other = doc["tols"]
    assert ref["cpu_change_percent"] == 0.0 and other["cpu_change_percent"] == -20.0
    assert ref["tasks"]["text_author"]["test"]["accuracy"] == {"max_points": 0.0, "max_config": "sentence_1",
                                                               "mean_points": 0.0}
    assert other["tasks"]["text_author"]["test"]["accuracy"] == {"max_points": 3.0, "max_config": "work_held_out_1",
                                                                 "mean_points": 2.0}
    assert other["tasks"]["text_author"]["validation"]["macro_f1"] == {
        "max_points": 1.5, "max_config": "work_held_out_1", "mean_points": 1.0}


def test_the_command_writes_the_figures_and_prints_one_line_per_task(tmp_path, capsys):
    out = make_export(tmp_path / "out", 1, "sentence_1")
    path = tmp_path / "bench_audit.json"
    assert bench_audit.main(["--out", str(out), "--config", "sentence_1", "--json", str(path)]) == 0
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert [r["tol"] for r in doc["tols"]] == [1e-4, audit_fits.SVC_TOL] and doc["export"] == str(out)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"reference tol=0.0001: fits {doc['tols'][0]['cpu_seconds']:.1f} CPU-s;")
    assert [line.split()[:2] for line in printed[1:]] == [
        ["tol=0.01:", "fits"], *([task, split] for task in ("markup_author", "markup_project", "text_author")
                                 for split in ("validation", "test"))]
    test = doc["tols"][1]["tasks"]["text_author"]["test"]["accuracy"]
    assert printed[-1].startswith(f"  text_author     test       accuracy max {test['max_points']:.2f}")
