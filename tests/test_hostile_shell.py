"""Hostile use of the analyst shell and faults of the build (SPEC §13).

* ``sphragis sql`` (one query, ``-f FILE``, the interactive shell's connection) cannot attach,
  detach, copy or export to files, read files, install or load extensions, or change its settings;
  the analyst's own file is read only through ``--table NAME=FILE``. Each known attack is
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

from conftest import messages
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
    """An attack: attach another file read-write, use it, detach the warehouse, attach the
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
    ("install httpfs", "file system operations are disabled by configuration"),
    ("load httpfs", "Loading external extensions is disabled through configuration"),
    ("select * from read_text('/etc/passwd')", 'Cannot access file "/etc/passwd" - file system operations are disabled'),
    ("select * from read_csv('/etc/passwd')", 'Cannot access file "/etc/passwd" - file system operations are disabled'),
    ("select * from read_blob('/etc/hostname')", 'Cannot access file "/etc/hostname" - file system operations are disabled'),
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


def test_a_second_connection_in_one_process_is_locked_too(wh, tmp_path):
    # DuckDB shares one instance per file and process: the second connect() finds the lock set by
    # the first (the docs site opens the warehouse twice) and must neither fail nor be unlocked
    first = sqlmod.connect(wh)
    second = sqlmod.connect(wh)
    assert second.execute("select current_setting('enable_external_access')").fetchone() == (False,)
    with pytest.raises(duckdb.PermissionException):
        second.execute(f"copy (select 1) to '{tmp_path / 'x.csv'}'")
    assert not (tmp_path / "x.csv").exists()
    first.close()
    second.close()


def test_the_refusal_says_how_to_write_and_read_files(wh, capsys):
    assert _sql(wh, "copy raw_sentences to 'x.csv'") == 1
    assert ("(sphragis sql cannot read or write files, load extensions or change settings: write a result "
            "with --output FILE, offer your own file with --table NAME=FILE)") in capsys.readouterr().err


def test_f_does_not_echo_a_file_that_is_not_sql(wh, tmp_path, capsys):
    """``-f /etc/shadow`` is refused: running it would print its first line in the parser error."""
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$TOPSECRETHASH:19000:0:99999:7:::\n", encoding="utf-8")
    assert _sql(wh, "-f", str(secret)) == 1
    err = capsys.readouterr().err
    assert err == (f"sphragis sql: error: -f reads only regular .sql files or analyses; {secret} is not one "
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


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    """One build of the fixture cuts (``--select int_tokens``) that :func:`built_copy` copies."""
    from test_atomic import SELECT, tiny_settings

    from sphragis import build

    settings = tiny_settings(tmp_path_factory.mktemp("built_once"))
    build.build(settings, select=SELECT)
    return settings


@pytest.fixture()
def built_copy(built_once, tmp_path, monkeypatch):
    """As :func:`built`, for the tests whose build is ``--full`` or does not start: a copy
    (``copy2``) of the warehouse and manifest of :func:`built_once` (its sources shared, read
    only), the CLI pointed at it. A copy is another file: its stamp is not the manifest's, so a
    plain build would check every table first (the tests of ``built`` rely on a current stamp)."""
    import dataclasses
    import shutil

    from test_atomic import use_settings

    from sphragis import build

    settings = dataclasses.replace(built_once, warehouse=tmp_path / "warehouse.duckdb", out=tmp_path / "sphragis")
    shutil.copy2(built_once.warehouse, settings.warehouse)
    shutil.copy2(build.manifest_path(built_once.warehouse), build.manifest_path(settings.warehouse))
    use_settings(monkeypatch, settings)
    return settings


def _build(capsys, *extra: str) -> tuple[int, str]:
    code = cli.main(["build", "--select", "int_tokens", *extra])
    return code, messages(capsys.readouterr().err)


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
    assert "built, changed outside a build (content changed): int_tokens" in err
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


# --------------------------------------------------------------------------------------------
# item 5: faults end cleanly (one line naming the file and what to do, non-zero exit, no traceback)


@pytest.fixture()
def tmpfs(tmp_path):
    """Mount a tmpfs of the size asked for at ``tmp_path/<name>`` (root only; skipped elsewhere)."""
    import subprocess

    mounted = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / name
        where.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_disk_full_at_the_checkpoint_is_one_line_and_keeps_the_warehouse(built_copy, tmpfs, monkeypatch, capsys):
    """A full disk ends in one line, not a ``_duckdb.FatalException`` traceback: a disk 3 MiB larger than the
    warehouse of the fixture build (10 MB) holds it but not a second one beside it."""
    import shutil

    from test_atomic import settings_env

    disk = tmpfs("disk", f"size={built_copy.warehouse.stat().st_size // 1024 + 3 * 1024}k")
    for f in built_copy.warehouse.parent.glob("warehouse.duckdb*"):
        if f.is_file():
            shutil.copy2(f, disk / f.name)
    wh = disk / "warehouse.duckdb"
    before = _sha(wh)
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(wh))
    assert settings_env(built_copy)["SPHRAGIS_DATA"]
    code, err = _build(capsys, "--full")
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith("sphragis build: error: no space left on the device: FATAL Error: ")
    assert f'Could not write file "{wh}.building-' in lines[0] and ": No space left on device" in lines[0]
    assert lines[0].endswith(": No space left on device; free some space and run again")
    assert _sha(wh) == before
    assert not [p.name for p in disk.iterdir() if ".building-" in p.name]  # the partial file was removed


def test_disk_full_writing_the_manifest_leaves_the_old_warehouse_and_manifest(built_copy, monkeypatch, capsys):
    """The manifest is written before the swap: failing there swaps nothing."""
    import errno

    from sphragis import build

    wh, mpath = built_copy.warehouse, build.manifest_path(built_copy.warehouse)
    before, manifest_before = _sha(wh), mpath.read_bytes()

    def full(path, *_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(build, "write_manifest", full)
    code, err = _build(capsys, "--full")
    assert code == 1
    assert err == (f"sphragis build: error: no space left on the device of {wh}.building-"
                   f"{__import__('os').getpid()}.manifest.json; free some space and run again\n")
    assert _sha(wh) == before and mpath.read_bytes() == manifest_before
    assert not list(wh.parent.glob("warehouse.duckdb.building-*"))


def test_read_only_folder_is_one_line(built_copy, tmpfs, monkeypatch, capsys):
    folder = tmpfs("ro", "ro,size=1M")
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(folder / "warehouse.duckdb"))
    code, err = _build(capsys)
    assert code == 1
    assert err == (f"sphragis build: error: cannot write or read {folder / 'warehouse.duckdb.lock'}: Read-only "
                   "file system; check the folder's permissions or choose another path\n")


@pytest.mark.parametrize("command", [["export"], ["sql", "select count(*) from raw_sentences"]])
def test_truncated_warehouse_is_one_line_naming_it(built_copy, monkeypatch, capsys, command):
    wh = built_copy.warehouse
    with open(wh, "r+b") as fh:
        fh.truncate(100_000)  # cut inside the first blocks DuckDB reads
    before = _sha(wh)
    code = cli.main(command)
    err = messages(capsys.readouterr().err)
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f'Could not read enough bytes from file "{wh}"' in err
    assert err.endswith("; the file is not a complete warehouse: rebuild it with `sphragis build --full`\n")
    assert _sha(wh) == before


def test_not_a_database_given_to_sql_is_one_line(tmp_path, capsys):
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"PK\x03\x04 not a warehouse" * 400)
    assert cli.main(["sql", "--warehouse", str(junk), "select 1"]) == 1
    err = capsys.readouterr().err
    assert err == (f"sphragis sql: error: cannot open the warehouse {junk} read-only: IO Error: The file "
                   f"\"{junk}\" exists, but it is not a valid DuckDB database file!; the file is not a complete "
                   "warehouse: rebuild it with `sphragis build --full`\n")


def test_missing_optional_extra_names_it(wh, tmp_path, monkeypatch, capsys):
    """``sphragis docs`` without the workbench extra's plotly: one line naming the extra."""
    import sys

    for mod in [m for m in sys.modules if m == "plotly" or m.startswith("plotly.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.offline", None)
    code = cli.main(["docs", "--out", str(tmp_path / "site"), "--warehouse", str(wh)])
    assert code == 1
    assert capsys.readouterr().err == (
        "sphragis docs: error: the Python package 'plotly' is not installed; it comes with the 'workbench' "
        "extra: `.venv/bin/pip install -e '.[workbench]'` in a checkout, else "
        "`pip install 'sphragis-warehouse[workbench]'`\n")


SLOW_MODEL_SCRIPT = """
import pathlib, sys, time
from sphragis import cli
from sphragis.runner import cutoff
marker, delay = pathlib.Path(sys.argv[1]), float(sys.argv[2])
_one = cutoff.build_one
def slow(con, m, sql, rels, **kw):
    if m.name == "int_tokens":  # a model query that would run for minutes
        marker.write_text("running")
        time.sleep(delay)  # > 0: the query starts after the Ctrl-C (a job's next query)
        con.execute("select count(*) from range(200000000000) t where hash(t.range) % 7 = 3").fetchall()
    return _one(con, m, sql, rels, **kw)
cutoff.build_one = slow
sys.exit(cli.main(sys.argv[3:]))
"""


@pytest.mark.parametrize("delay", [0.0, 2.0])
def test_ctrl_c_during_a_long_model_stops_within_seconds(built_copy, tmp_path, delay):
    import os
    import signal
    import subprocess
    import sys
    import time

    from test_atomic import settings_env

    before = _sha(built_copy.warehouse)
    marker = tmp_path / "running"
    # a terminal's Ctrl-C: SIGINT at its default in the child (a pytest-xdist worker ignores it, the
    # child would inherit that, and Python installs no KeyboardInterrupt handler for an ignored SIGINT)
    proc = subprocess.Popen([sys.executable, "-c", SLOW_MODEL_SCRIPT, str(marker), str(delay), "build", "--select",
                             "int_tokens", "--full"], env=settings_env(built_copy), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # generous: on a loaded machine the build takes minutes to reach int_tokens (only the
        # interrupt's latency below is timed)
        deadline = time.monotonic() + 900
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not marker.exists():
            proc.kill()
            raise AssertionError(f"the build never reached int_tokens: {proc.communicate()}")
        time.sleep(0.5)  # the slow query is running on a runner worker
        t0 = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert stopped < 5, f"took {stopped:.1f} s"
    assert err.strip().splitlines()[-1] == "sphragis: interrupted; previous outputs are untouched"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert _sha(built_copy.warehouse) == before
    assert not list(built_copy.warehouse.parent.glob("warehouse.duckdb.building-*"))


def _interrupt_myself() -> str:
    import os
    import signal
    import time

    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
    return "survived"


def test_parse_workers_leave_ctrl_c_to_the_parent():
    """Ctrl-C reaches the whole process group; a pool worker must not die with its own traceback."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from sphragis.workers import exit_with_parent

    with ProcessPoolExecutor(max_workers=1, initializer=exit_with_parent, initargs=(os.getpid(),)) as pool:
        assert pool.submit(_interrupt_myself).result(timeout=30) == "survived"


def test_symlinked_warehouse_updates_the_links_target(tmp_path, monkeypatch, capsys):
    from test_atomic import FIXTURE_SENTENCES, tiny_settings, use_settings

    settings = tiny_settings(tmp_path)
    real = tmp_path / "store" / "warehouse.duckdb"
    real.parent.mkdir()
    link = tmp_path / "warehouse.duckdb"
    link.symlink_to(real)
    use_settings(monkeypatch, settings)  # SPHRAGIS_WAREHOUSE is the link
    code, _err = _build(capsys)
    assert code == 0
    assert link.is_symlink() and link.resolve() == real
    assert _count(real, "raw_sentences") == FIXTURE_SENTENCES
    first = _sha(real)
    con = duckdb.connect(str(real))
    con.execute("delete from raw_sentences where rowid < 1")
    con.close()
    code, err = _build(capsys)
    assert code == 0 and "raw_sentences (content changed)" in err
    assert link.is_symlink() and link.resolve() == real
    assert _count(link, "raw_sentences") == FIXTURE_SENTENCES and _sha(real) != first
    assert (real.parent / "warehouse.duckdb.manifest.json").exists()
    assert sorted(p.name for p in tmp_path.glob("warehouse.duckdb*")) == ["warehouse.duckdb"]


KILL_AFTER_SWAP_SCRIPT = """
import os, signal, sys
from pathlib import Path
from sphragis import cli
target = Path(os.environ["SPHRAGIS_WAREHOUSE"])
_replace = os.replace
def replace(src, dst, *a, **k):
    _replace(src, dst, *a, **k)
    if Path(dst) == target:  # the new warehouse is in place: die before anything else happens
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
sys.exit(cli.main(sys.argv[1:]))
"""


def test_kill_9_right_after_the_warehouse_swap_leaves_no_trusted_stale_manifest(built, capsys):
    """A real SIGKILL between the warehouse's rename and the manifest's: the manifest file on disk
    is then the previous build's; the next build notices (its stamp) and writes the right one."""
    import subprocess
    import sys

    from test_atomic import settings_env

    from sphragis import build, runner

    wh, mpath = built.warehouse, build.manifest_path(built.warehouse)
    old = json.loads(mpath.read_text(encoding="utf-8"))
    r = subprocess.run([sys.executable, "-c", KILL_AFTER_SWAP_SCRIPT, "build", "--select", "int_tokens", "--full"],
                       env=settings_env(built), capture_output=True, text=True, timeout=300)
    assert r.returncode == -9
    assert json.loads(mpath.read_text(encoding="utf-8")) == old  # stale: the kill came first
    assert old["warehouse_stamp"] != build.warehouse_stamp(wh)
    code, err = _build(capsys)
    assert code == 0 and "up to date: nothing to build" in err
    con = duckdb.connect(str(wh), read_only=True)
    try:
        inside = runner.read_manifest(con)
    finally:
        con.close()
    assert json.loads(mpath.read_text(encoding="utf-8")) == {**inside, "warehouse_stamp": build.warehouse_stamp(wh)}
