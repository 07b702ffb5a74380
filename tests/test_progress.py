"""Progress that reaches a log (GUIDE: "a line per step in logs"): when the output is not a
terminal, the build, the export and the audit print one line per step, and the ingest and the
models a line per tenth, each stamped with the time since the command started; on a terminal,
rich's bars and no step lines."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys

from rich.console import Console
from test_atomic import settings_env

from sphragis import config, progress, state

STAMP = r"\[\d+:\d\d:\d\d\]"


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=terminal, width=200), buf


def test_a_task_prints_its_start_every_tenth_and_its_end_to_a_log():
    con, buf = _console(terminal=False)
    with progress.progress(con) as prog:
        task = prog.add_task("parse files", total=20)
        for _ in range(20):
            prog.advance(task)
        short = prog.add_task("build models", total=10)
        prog.update(short, advance=3, description="build models (tokens)")
    lines = buf.getvalue().splitlines()
    counts = [re.fullmatch(rf"{STAMP} (.*): (\d+)/(\d+)", ln).groups() for ln in lines]
    # 0, then 2, 4, ... 20 of 20: the start and ten tenths; a task short of its total ends with its state
    assert [int(d) for name, d, _t in counts if name == "parse files"] == list(range(0, 21, 2))
    assert [(name, d) for name, d, _t in counts if name.startswith("build models")] == [
        ("build models", "0"), ("build models (tokens)", "3")]


def test_steps_are_stamped_lines_in_a_log_and_silent_on_a_terminal():
    seen = []
    con, buf = _console(terminal=False)
    log = progress.StepLog(con, "build: ", then=seen.append)
    log("check sources")
    log("models")
    assert re.fullmatch(rf"{STAMP} build: check sources\n{STAMP} build: models\n", buf.getvalue())
    assert seen == ["check sources", "models"]  # the other hook (a benchmark's sampler) still sees each step
    term, tbuf = _console(terminal=True)
    progress.StepLog(term, "build: ")("models")
    assert tbuf.getvalue() == ""
    assert not isinstance(progress.progress(term), progress.LogProgress)


def test_make_export_to_a_log_shows_each_step(tiny_exported, tmp_path):
    # a copy of the fixture build, its export and the export's state; then what `make export >
    # log` runs after the fetch, with stderr to a file: the build's steps and the models'
    # progress, the export's steps, each a stamped line
    settings = config.Settings(mirror=tiny_exported.mirror, data=tiny_exported.data,
                               warehouse=tmp_path / "warehouse.duckdb", out=tmp_path / "sphragis")
    shutil.copyfile(tiny_exported.warehouse, settings.warehouse)
    shutil.copytree(tiny_exported.out, settings.out)
    shutil.copytree(state.state_dir(tiny_exported.out), state.state_dir(settings.out))
    run = [sys.executable, "-c", "from sphragis import cli; raise SystemExit(cli.main())"]
    log = tmp_path / "log"
    with log.open("w") as fh:
        for args in (("build", "--full"), ("export", "--full")):
            done = subprocess.run([*run, *args], env=settings_env(settings), stderr=fh, stdout=fh, timeout=600)
            assert done.returncode == 0, log.read_text(encoding="utf-8")
    text = log.read_text(encoding="utf-8")
    for step in ("build: check sources", "build: models", "build models: 0/", "build: swap", "export: check state",
                 "export: read units", "export: validate"):
        assert re.search(rf"^{STAMP} {re.escape(step)}", text, re.M), step
