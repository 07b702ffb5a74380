"""``make bench`` (sphragis/bench.py): what users wait for is measured per step and summed for
``make export``. The children are replaced by recorded results: the real bench runs
minutes of both cores."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphragis import bench
from sphragis.benchmark import CONFIGS


def _child(wall: float, cpu: float, rss: int, ok: bool = True) -> dict:
    return {"ok": ok, "wall_seconds": wall, "cpu_seconds": cpu, "peak_rss_by_step": {"start": 1, "x": rss}}


def test_waits_measures_audit_and_treebank_and_sums_make_export(monkeypatch, tmp_path):
    calls = []

    def fake_run_child(mode, env, work, name, *flags):
        calls.append((mode, flags))
        return {"audit": _child(20.0, 30.0, 900), "treebank": _child(100.0, 180.0, 700)}[mode]

    monkeypatch.setattr(bench, "run_child", fake_run_child)
    full = {"ok": True, "build": _child(60.0, 100.0, 1500), "export": _child(15.0, 20.0, 1200)}
    w = bench.waits(full, {}, Path(tmp_path))
    assert calls == [("audit", ("--full",)), ("treebank", ("--full",))]
    assert w["audit"] == {"ok": True, "wall_seconds": 20.0, "cpu_seconds": 30.0, "peak_rss_bytes": 900, "error": None,
                          "cpu_by_step": {}, "peak_rss_by_step": {"start": 1, "x": 900}}
    assert w["treebank"]["wall_seconds"] == 100.0 and w["treebank"]["peak_rss_bytes"] == 700
    assert w["make export"] == {"ok": True, "wall_seconds": 95.0, "cpu_seconds": 150.0, "peak_rss_bytes": 1500,
                                "error": None}


def test_waits_skips_the_children_after_a_failed_build(monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "run_child", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    w = bench.waits({"ok": False, "build": _child(5.0, 5.0, 10, ok=False), "export": {"ok": False}}, {}, Path(tmp_path))
    assert not w["audit"]["ok"] and not w["treebank"]["ok"] and not w["make export"]["ok"]


def test_budget_of_a_real_audit_child_has_its_steps_cpu(tmp_path):
    """A real ``--child audit`` on a tiny export of every configuration: its CPU per step (start,
    state check, load, fits, outputs) adds up to the child's CPU, and the budget names each step."""
    import os

    pytest.importorskip("sklearn")
    from test_audit import make_export

    out = tmp_path / "out"
    for cfg in CONFIGS:
        make_export(out, 1, cfg, {"train": 4, "validation": 2, "test": 2})
    env = {**os.environ, "SPHRAGIS_OUT": str(out), "SPHRAGIS_WAREHOUSE": str(tmp_path / "none.duckdb")}
    r = bench.run_child("audit", env, tmp_path, "tiny", "--full")
    assert r["ok"], r.get("error")
    assert list(r["cpu_by_step"]) == ["start", "audit", "audit: load", "audit: fits", "audit: outputs"]
    assert r["cpu_by_step"]["audit: fits"] > 0 and r["cpu_by_step"]["audit: load"] > 0
    assert 0.5 * r["cpu_seconds"] <= sum(r["cpu_by_step"].values()) <= r["cpu_seconds"] + 0.1
    assert (out / "metadata" / "leakage_report.json").is_file()
    waits = {"build": bench._figure(_child(1.0, 6.0, 10)), "export": bench._figure(_child(1.0, 2.0, 10)),
             "audit": bench._figure(r)}
    waits["make export"] = {"ok": True, "wall_seconds": 3.0, "cpu_seconds": 8.0 + r["cpu_seconds"], "peak_rss_bytes": 10}
    rows = bench.budget(waits)
    assert [(b["part"], b["step"]) for b in rows] == [
        ("build", "build"), ("export", "export"), ("audit", "start"), ("audit", "audit"), ("audit", "audit: load"),
        ("audit", "audit: fits"), ("audit", "audit: outputs")]
    assert rows[0]["cpu_seconds"] == 6.0 and rows[0]["share_of_make_export"] == 6.0 / (8.0 + r["cpu_seconds"])
    fits = next(b for b in rows if b["step"] == "audit: fits")
    assert fits["buys"] == bench.BUYS["audit: fits"]
    assert fits["share_of_make_export"] == r["cpu_by_step"]["audit: fits"] / (8.0 + r["cpu_seconds"])


def test_the_longer_sentence_is_measured_against_the_long_one(monkeypatch, tmp_path):
    # three builds of the small tree: alone, with the 20,000-token flat sentence, with it 100,000
    # tokens long; what each long build adds to the small one is compared, and a model whose time
    # grew more than the sentence (x5) is named
    from sphragis import bench_inputs

    built = []

    def fake_scenario(name, env, work, full=False, seeds=None):
        text = (Path(env["SPHRAGIS_DATA"]) / "ud-perseus" / bench_inputs.LONG_FILE)
        flat = len(text.read_text(encoding="utf-8").split("\n\n")[0].splitlines()) - 3 if text.is_file() else 0
        built.append(flat)
        seconds = {0: 10.0, 20_000: 14.0, 100_000: 30.0}[flat]
        models = {0: {}, 20_000: {"int_overlap_texts": 1.0, "int_tree_tokens": 2.0},
                  100_000: {"int_overlap_texts": 40.0, "int_tree_tokens": 9.0}}[flat]
        return {"ok": True, "wall_seconds": seconds, "cpu_seconds": 2 * seconds, "peak_rss_bytes": int(seconds * 1e8),
                "build": {"model_seconds": models}}

    monkeypatch.setattr(bench, "scenario", fake_scenario)
    monkeypatch.setattr(bench, "subset_tree", lambda files, frac, dest: dest.mkdir(parents=True))
    monkeypatch.setattr(bench, "_env", lambda data, work, tag: {"SPHRAGIS_DATA": str(data)})
    runs = bench.long_sentence_runs([], tmp_path)
    assert built == [0, 20_000, 100_000]
    grow = runs["longer_vs_long"]
    assert grow["length_ratio"] == 5 and grow["ok"]
    assert grow["wall_seconds"] == {"long_added": 4.0, "longer_added": 20.0, "ratio": 5.0}
    assert grow["models_growing_faster"] == {"int_overlap_texts": [1.0, 40.0]}
