"""``make bench`` (sphragis/bench.py): what users wait for is measured per step and summed for
``make export`` (issue 33). The children are replaced by recorded results: the real bench runs
minutes of both cores."""

from __future__ import annotations

from pathlib import Path

from sphragis import bench


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
    assert w["audit"] == {"ok": True, "wall_seconds": 20.0, "cpu_seconds": 30.0, "peak_rss_bytes": 900, "error": None}
    assert w["treebank"]["wall_seconds"] == 100.0 and w["treebank"]["peak_rss_bytes"] == 700
    assert w["make export"] == {"ok": True, "wall_seconds": 95.0, "cpu_seconds": 150.0, "peak_rss_bytes": 1500,
                                "error": None}


def test_waits_skips_the_children_after_a_failed_build(monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "run_child", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    w = bench.waits({"ok": False, "build": _child(5.0, 5.0, 10, ok=False), "export": {"ok": False}}, {}, Path(tmp_path))
    assert not w["audit"]["ok"] and not w["treebank"]["ok"] and not w["make export"]["ok"]
