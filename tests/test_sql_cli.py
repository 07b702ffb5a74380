"""``sphragis sql``: read-only queries, the four output formats, named analyses,
one clear error for a bad query, writes refused, and a concurrent build undisturbed.

Runs on the hand-made variation warehouse of ``test_variation`` (the real model SQL on a corpus
whose verdicts are worked out by hand there: pre-merge ``vocative`` is a convention with annotator
variation 5.0 pp and authorial 0.0 pp) and, for the README query, on the real build.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from test_variation import build_tiny

from sphragis import cli
from sphragis.workbench import sql as sqlmod

CONVENTION = "from mart_variation where verdict = 'convention'"


@pytest.fixture(scope="module")
def wh(tmp_path_factory) -> Path:
    """The hand-made warehouse with the four variation models (``min_cell_tokens`` 10)."""
    path = tmp_path_factory.mktemp("sqlcli") / "tiny.duckdb"
    build_tiny(path).close()
    return path


def _expected_conventions(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(f"select kind, scheme, category, annotator_variation_pp {CONVENTION} "
                           "order by all").fetchall()
    finally:
        con.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_query_prints_a_table(wh, capsys):
    assert cli.main(["sql", CONVENTION, "--warehouse", str(wh)]) == 0
    out = capsys.readouterr().out
    expected = _expected_conventions(wh)
    assert ("deprel", "pre_merge", "vocative", 5.0) in expected
    head = out.splitlines()[:3]
    assert "verdict" in head[1] and "annotator_variation_pp" in head[1]  # header row
    assert "varchar" in head[2] and "double" in head[2]  # DuckDB's types row
    body = [line for line in out.splitlines() if "│" in line][2:]
    assert sum("convention" in line for line in body) == len(expected)
    assert any("vocative" in line for line in body)
    assert "style" not in out


def test_csv_json_markdown(wh, tmp_path, capsys):
    expected = _expected_conventions(wh)
    target = tmp_path / "conv.csv"
    assert cli.main(["sql", CONVENTION, "--warehouse", str(wh), "--format", "csv", "--output", str(target)]) == 0
    assert f"wrote {len(expected)} row(s)" in capsys.readouterr().err
    rows = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    assert len(rows) == len(expected)
    voc = [r for r in rows if r["category"] == "vocative" and r["scheme"] == "pre_merge"]
    assert voc and float(voc[0]["annotator_variation_pp"]) == 5.0 and float(voc[0]["authorial_variation_pp"]) == 0.0
    assert voc[0]["feature"] == ""  # NULL is an empty CSV field

    assert cli.main(["sql", CONVENTION + " and category = 'vocative'", "--warehouse", str(wh),
                     "--format", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert [(r["kind"], r["scheme"], r["verdict"], r["annotator_variation_pp"]) for r in recs] == \
        [("deprel", "pre_merge", "convention", 5.0)]

    assert cli.main(["sql", "select category, verdict from mart_variation where category = 'vocative' "
                     "and scheme = 'pre_merge'", "--warehouse", str(wh), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == "| category | verdict |\n|---|---|\n| vocative | convention |\n"


def test_named_analysis_and_file(wh, tmp_path, capsys):
    assert cli.main(["sql", "-f", "author_project_cells", "--warehouse", str(wh), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    # five qualifying cells: Alpha and Beta in agdt and ud_perseus, Gamma in agdt (Gamma/ud_perseus < 10 tokens)
    assert sorted((r["author"], r["project"]) for r in rows) == [
        ("Alpha", "agdt"), ("Alpha", "ud_perseus"), ("Beta", "agdt"), ("Beta", "ud_perseus"), ("Gamma", "agdt")]
    f = tmp_path / "q.sql"
    f.write_text("-- a comment\nselect count(*) as n\nfrom mart_rates where author = 'Gamma';\n", encoding="utf-8")
    assert cli.main(["sql", "-f", str(f), "--warehouse", str(wh), "--format", "csv"]) == 0
    n = duckdb.connect(str(wh), read_only=True).execute(
        "select count(*) from mart_rates where author = 'Gamma'").fetchone()[0]
    assert capsys.readouterr().out == f"n\n{n}\n" and n > 0
    assert cli.main(["sql", "-f", "no_such_analysis", "--warehouse", str(wh)]) == 1
    err = capsys.readouterr().err
    assert "no_such_analysis" in err and "top_annotator_gaps" in err


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphragis.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


def test_invalid_query_is_one_clear_error(wh):
    r = _run("sql", "select annotator_variation_pp, verdikt\nfrom mart_variation", "--warehouse", str(wh))
    assert r.returncode == 1 and r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("sphragis sql: error: Binder Error: Referenced column \"verdikt\" not found")
    # DuckDB's position: the line and a caret under the column
    lines = r.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("LINE 1:"))
    assert lines[at] == "LINE 1: select annotator_variation_pp, verdikt"
    assert lines[at + 1].index("^") == lines[at].index("verdikt")
    r = _run("sql", "selec 1", "--warehouse", str(wh))
    assert r.returncode == 1 and "Parser Error: syntax error at or near \"selec\"" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("statement", [
    "create table scratch as select 1 as x",
    "drop table mart_variation",
    "insert into mart_variation (kind) values ('x')",
    "update mart_rates set rate_pct = 0",
    "delete from mart_rates",
])
def test_writes_are_refused(wh, statement):
    before = _sha(wh)
    r = _run("sql", statement, "--warehouse", str(wh))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "read-only" in r.stderr
    assert _sha(wh) == before
    assert not Path(str(wh) + ".wal").exists()
    con = duckdb.connect(str(wh), read_only=True)
    assert con.execute("select count(*) from mart_variation where category = 'vocative'").fetchone()[0] > 0
    con.close()


def test_missing_warehouse(tmp_path, capsys):
    assert cli.main(["sql", "select 1", "--warehouse", str(tmp_path / "none.duckdb")]) == 1
    assert "no warehouse at" in capsys.readouterr().err


def test_a_running_build_is_not_disturbed(wh, tmp_path):
    """An open analyst session (a read-only connection in another process) does not block a
    build's copy / write / rename of the warehouse (sphragis.build), and keeps answering."""
    target = tmp_path / "warehouse.duckdb"
    shutil.copyfile(wh, target)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from sphragis.workbench import sql
        con = sql.connect(Path({str(target)!r}))
        print(con.execute("select count(*) from mart_variation").fetchone()[0], flush=True)
        sys.stdin.readline()  # hold the session open until the build below is done
        print(con.execute("select count(*) from mart_variation").fetchone()[0], flush=True)
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        n_before = int(holder.stdout.readline())
        # what `sphragis build --models-only` does: copy, write the copy, rename it over the target
        building = tmp_path / "warehouse.duckdb.building-1"
        shutil.copyfile(target, building)
        con = duckdb.connect(str(building))
        con.execute("create table build_marker as select 42 as answer")
        con.execute("checkpoint")
        con.close()
        os.replace(building, target)
        # a second analyst opens the new warehouse while the first session is still open
        r = _run("sql", "select answer from build_marker", "--warehouse", str(target), "--format", "csv")
        assert r.returncode == 0, r.stderr
        assert r.stdout == "answer\n42\n"
        out, _ = holder.communicate("\n", timeout=60)
        assert holder.returncode == 0
        assert int(out.strip()) == n_before > 0
    finally:
        if holder.poll() is None:
            holder.kill()


def test_shell_is_read_only(wh, monkeypatch, tmp_path):
    """The interactive shell is harlequin (``--read-only``, locked: tests/test_hostile_shell.py)."""
    try:
        cmd = sqlmod.shell_command(wh, tmp_path)
    except sqlmod.QueryError as exc:
        pytest.skip(str(exc))  # the message names what to install
    assert cmd[-1] == str(wh)
    assert "--read-only" in cmd
    if Path(cmd[0]).name == "harlequin":
        r = subprocess.run([cmd[0], "--version"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0


@pytest.mark.integration
def test_readme_query_on_the_real_build(real_settings, real_build, capsys):
    assert cli.main(["sql", CONVENTION, "--warehouse", str(real_settings.warehouse), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    con = duckdb.connect(str(real_settings.warehouse), read_only=True)
    n = con.execute(f"select count(*) {CONVENTION}").fetchone()[0]
    con.close()
    assert len(rows) == n > 0 and {r["verdict"] for r in rows} == {"convention"}
