"""Hostile use of the analyst shell and faults of the build (issue #27, items 4 and 5; SPEC §13).

* ``sphragis sql`` (one query, ``-f FILE``, the interactive shell's connection) cannot attach,
  detach, copy or export to files, read files, install or load extensions, or change its settings;
  the analyst's own file is read only through ``--table NAME=FILE``. Each attack of the issue is
  run through the real CLI on a small warehouse and must end in exit status 1 with DuckDB's
  refusal, the warehouse's bytes unchanged and no file written.
* A build notices a warehouse changed behind its back (rows deleted, a table dropped by another
  DuckDB connection) and rebuilds what was touched, instead of "up to date".
* Faults end in one line naming the file and what to do, non-zero exit, no traceback.

The build tests use the small real fixture cuts of ``tests/fixtures/sources`` and build only the
early models (``--select int_tokens``, as ``test_atomic`` does), a few seconds each.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest

from sphragis import cli
from sphragis.workbench import sql as sqlmod


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def wh(tmp_path) -> Path:
    """A small warehouse: ``raw_sentences`` with three rows."""
    path = tmp_path / "wh" / "warehouse.duckdb"
    path.parent.mkdir()
    con = duckdb.connect(str(path))
    con.execute("create table raw_sentences as select range as sentence_id, 'λόγος ' || range as text "
                "from range(3)")
    con.close()
    return path


def _sql(wh: Path, *args: str) -> int:
    return cli.main(["sql", "--warehouse", str(wh), *args])


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --------------------------------------------------------------------------------------------
# item 4: the shell cannot write


def test_attach_detach_and_drop_through_a_second_attach_is_refused(wh, tmp_path, capsys, monkeypatch):
    """The issue's attack: attach another file read-write, use it, detach the warehouse, attach the
    warehouse file again read-write and drop a raw table. Refused at the first attach."""
    monkeypatch.chdir(tmp_path)
    before, listing = _sha(wh), _files(tmp_path)
    attack = (f"attach '{tmp_path / 'y.duckdb'}' as y (read_write); use y; detach warehouse; "
              f"attach '{wh}' as w (read_write); drop table w.raw_sentences cascade; select 1")
    assert _sql(wh, attack) == 1
    err = capsys.readouterr().err
    assert f'Permission Error: Cannot access file "{tmp_path / "y.duckdb"}" - file system operations are ' \
           "disabled by configuration" in err
    assert err.startswith("sphragis sql: error: ")
    assert "Traceback" not in err
    assert _sha(wh) == before and _files(tmp_path) == listing


@pytest.mark.parametrize("statement, refusal", [
    ("copy (select * from raw_sentences) to 'x.csv'", 'Cannot access file "x.csv" - file system operations are disabled'),
    ("export database 'exp'", 'Cannot access file "exp/raw_sentences.csv" - file system operations are disabled'),
    ("attach ':memory:' as m", "Cannot launch in-memory database in read-only mode"),
    ("detach warehouse", 'Cannot detach database "warehouse" because it is the default database'),
    ("install httpfs", "file system operations are disabled by configuration"),
    ("load httpfs", "Loading external extensions is disabled through configuration"),
    ("select * from read_text('/etc/passwd')", 'Cannot access file "/etc/passwd" - file system operations are disabled'),
    ("select * from read_csv('/etc/passwd')", 'Cannot access file "/etc/passwd" - file system operations are disabled'),
    ("select * from glob('/etc/*')", 'Cannot access file "/etc/*" - file system operations are disabled'),
    ("set enable_external_access = true", 'Cannot change configuration option "enable_external_access" - the '
                                          "configuration has been locked"),
    ("reset lock_configuration", 'Cannot change configuration option "lock_configuration"'),
    ("set allow_persistent_secrets = true", 'Cannot change configuration option "allow_persistent_secrets"'),
    ("set temp_directory = '/tmp'", 'Cannot change configuration option "temp_directory"'),
    ("pragma enable_profiling", 'Cannot change configuration option "enable_profiling"'),
])
def test_file_extension_and_setting_statements_are_refused(wh, tmp_path, capsys, monkeypatch, statement, refusal):
    monkeypatch.chdir(tmp_path)
    before, listing = _sha(wh), _files(tmp_path)
    assert _sql(wh, f"{statement}; select 1") == 1
    err = capsys.readouterr().err
    assert refusal in err and "Traceback" not in err
    assert _sha(wh) == before and _files(tmp_path) == listing


def test_the_refusal_says_how_to_write_and_read_files(wh, capsys):
    assert _sql(wh, "copy raw_sentences to 'x.csv'") == 1
    assert ("(sphragis sql cannot read or write files, load extensions or change settings: write a result "
            "with --output FILE, offer your own file with --table NAME=FILE)") in capsys.readouterr().err


def test_f_does_not_echo_a_file_that_is_not_sql(wh, tmp_path, capsys):
    """``-f /etc/shadow`` used to run the file and print its first line in the parser error."""
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$TOPSECRETHASH:19000:0:99999:7:::\n", encoding="utf-8")
    assert _sql(wh, "-f", str(secret)) == 1
    err = capsys.readouterr().err
    assert err == (f"sphragis sql: error: -f reads only .sql files or analyses; {secret} is not a .sql file "
                   "(to query your own data file, name it with --table NAME=FILE)\n")
    binary = tmp_path / "blob.sql"
    binary.write_bytes(b"\xff\xfeTOPSECRET")
    assert _sql(wh, "-f", str(binary)) == 1
    assert capsys.readouterr().err == f"sphragis sql: error: {binary} is not UTF-8 text; -f reads .sql files\n"


def test_own_csv_only_with_table_opt_in(wh, tmp_path, capsys):
    mine = tmp_path / "mine.csv"
    mine.write_text("sentence_id,label\n0,a\n2,b\n", encoding="utf-8")
    joined = "select s.text, m.label from raw_sentences s join mine m using (sentence_id) order by all"
    assert _sql(wh, f"select * from read_csv('{mine}')") == 1
    assert f'Cannot access file "{mine}"' in capsys.readouterr().err
    out = tmp_path / "out.csv"
    assert _sql(wh, "--table", f"mine={mine}", "--format", "csv", "--output", str(out), joined) == 0
    assert out.read_text(encoding="utf-8") == "text,label\nλόγος 0,a\nλόγος 2,b\n"
    # the opt-in gives the query no file access of its own
    assert _sql(wh, "--table", f"mine={mine}", f"copy mine to '{tmp_path / 'leak.csv'}'") == 1
    assert not (tmp_path / "leak.csv").exists()
    assert _sql(wh, "--table", "1bad=x.csv", "select 1") == 1
    assert "--table takes NAME=FILE (NAME a plain identifier), not '1bad=x.csv'" in capsys.readouterr().err


def test_interactive_shell_connection_is_locked(wh, tmp_path):
    """The harlequin command runs :func:`lockdown_sql` as its init script; harlequin's own DuckDB
    adapter, given that command's options, opens a connection that refuses to write a file."""
    adapter_mod = pytest.importorskip("harlequin_duckdb.adapter")
    cmd = sqlmod.shell_command(wh, tmp_path)
    assert cmd[-1] == str(wh) and "--read-only" in cmd
    init = Path(cmd[cmd.index("--init-path") + 1])
    assert init.read_text(encoding="utf-8") == sqlmod.lockdown_sql()
    conn = adapter_mod.DuckDbAdapter(conn_str=(str(wh),), init_path=str(init), read_only=True).connect()
    try:
        with pytest.raises(duckdb.PermissionException, match="file system operations are disabled"):
            conn.conn.execute(f"copy raw_sentences to '{tmp_path / 'x.csv'}'")
        with pytest.raises(duckdb.InvalidInputException, match="the configuration has been locked"):
            conn.conn.execute("set enable_external_access = true")
    finally:
        conn.conn.close()
    assert not (tmp_path / "x.csv").exists()
    assert json.dumps(str(init)) in Path(cmd[cmd.index("--config-path") + 1]).read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# item 4: a warehouse changed behind the build's back is rebuilt where it was touched


@pytest.fixture()
def built(tmp_path, monkeypatch):
    """A warehouse built from the fixture cuts (``--select int_tokens``), the CLI pointed at it."""
    from test_atomic import SELECT, tiny_settings, use_settings

    from sphragis import build

    settings = tiny_settings(tmp_path)
    use_settings(monkeypatch, settings)
    build.build(settings, select=SELECT)
    return settings


def _build(capsys, *extra: str) -> tuple[int, str]:
    code = cli.main(["build", "--select", "int_tokens", *extra])
    return code, capsys.readouterr().err


def _count(path: Path, table: str) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(f"select count(*) from {table}").fetchone()[0]
    finally:
        con.close()


def test_rows_deleted_behind_the_builds_back_are_reingested(built, capsys):
    from test_atomic import FIXTURE_SENTENCES

    wh = built.warehouse
    code, err = _build(capsys)
    assert code == 0 and "up to date: nothing to build" in err
    con = duckdb.connect(str(wh))
    con.execute("delete from raw_sentences where rowid < 2")
    con.close()
    assert _count(wh, "raw_sentences") == FIXTURE_SENTENCES - 2
    code, err = _build(capsys)
    assert code == 0
    assert "up to date" not in err
    assert "changed outside a build (rebuilt): raw_sentences (content changed)" in err
    assert "raw layer: re-ingested" in err
    assert _count(wh, "raw_sentences") == FIXTURE_SENTENCES
    code, err = _build(capsys)  # and the stamp is current again: the next build is a no-op
    assert code == 0 and "up to date: nothing to build" in err and "changed outside" not in err


def test_a_model_table_dropped_or_changed_behind_the_builds_back_is_rebuilt(built, capsys):
    wh = built.warehouse
    n = _count(wh, "int_tokens")
    con = duckdb.connect(str(wh))
    con.execute("delete from int_tokens where rowid < 3")
    con.close()
    code, err = _build(capsys)
    assert code == 0 and "up to date" not in err
    assert "changed outside a build (rebuilt): int_tokens (content changed)" in err
    assert "built (changed outside a build (content changed)): int_tokens" in err
    assert "raw layer: reused (sources unchanged)" in err
    assert _count(wh, "int_tokens") == n
    con = duckdb.connect(str(wh))
    con.execute("drop table raw_tokens")
    con.close()
    code, err = _build(capsys)
    assert code == 0 and "changed outside a build (rebuilt): raw_tokens (dropped)" in err
    assert _count(wh, "raw_tokens") > 0


def test_models_only_refuses_when_raw_tables_changed(built, capsys):
    con = duckdb.connect(str(built.warehouse))
    con.execute("delete from raw_tokens where rowid < 2")
    con.close()
    code, err = _build(capsys, "--models-only")
    assert code == 1
    assert err == (f"sphragis build: error: raw table(s) raw_tokens of {built.warehouse} changed outside a build; "
                   "run `sphragis build` without --models-only to re-ingest them\n")


def test_a_stale_manifest_left_by_a_kill_between_the_renames_is_not_trusted(built, capsys, tmp_path):
    """kill -9 after the warehouse rename and before the manifest's: the manifest file is the old
    build's. Its stamp does not match the warehouse, so the next build checks and rewrites it."""
    from sphragis import build

    mpath = build.manifest_path(built.warehouse)
    old = json.loads(mpath.read_text(encoding="utf-8"))
    code, err = _build(capsys, "--full")  # a new warehouse file (new inode and mtime)
    assert code == 0
    mpath.write_text(json.dumps(old), encoding="utf-8")  # as if the process died before its rename
    code, err = _build(capsys)
    assert code == 0 and "up to date: nothing to build" in err
    now = json.loads(mpath.read_text(encoding="utf-8"))
    assert now["warehouse_stamp"] == build.warehouse_stamp(built.warehouse) != old["warehouse_stamp"]
