"""Atomic, locked builds and exports (SPEC §13).

Every test builds from the small real cuts in ``tests/fixtures/sources`` laid out as the eight
pinned snapshots (see that folder's README for the upstream file of each), and builds only the
early models (``--select int_tokens``), so each test takes seconds. A build is held mid-way
deterministically: the child process runs the real CLI (``sphragis.cli.main(["build", ...])``)
with ``sphragis.runner.execute`` wrapped to write a marker file and sleep once ingest has written the
raw tables into ``<warehouse>.building-<pid>``; the test then kills it or races it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from conftest import messages
from sphragis import build, cli, config

FIXTURE_SOURCES = Path(__file__).resolve().parent / "fixtures" / "sources"

#: fixture file → (snapshot, path inside the snapshot), per tests/fixtures/sources/README.md.
FIXTURE_LAYOUT = {
    "agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml": ("agdt", "v2.1/Greek/texts/tlg0003.tlg001.perseus-grc1.1.tb.xml"),
    "agdt-homer_tlg0012.tlg001.perseus-grc1_1.tb.xml": (
        "agdt-homer-v1.6", "v1.6/greek/data/tlg0012.tlg001.perseus-grc1_1.tb.xml"),
    "gorman_Lysias 1 bu1.xml": ("gorman", "xml versions/Lysias 1 bu1.xml"),
    "pedalion_achar.xml": ("pedalion", "public/xml/achar.xml"),
    "harrington_grctb.6941.1.tb.xml": (
        "harrington", "public/xml/CITE_TREEBANK_XML/perseus/grctb/6941/grctb.6941.1.tb.xml"),
    "ud-perseus_grc_perseus-ud-test.conllu": ("ud-perseus", "grc_perseus-ud-test.conllu"),
    "ud-proiel_grc_proiel-ud-dev.conllu": ("ud-proiel", "grc_proiel-ud-dev.conllu"),
    "ud-ptnk_grc_ptnk-ud-train.conllu": ("ud-ptnk", "grc_ptnk-ud-train.conllu"),
    "papygreek_o.claud.1.169.xml": ("papygreek", "documentary/o.claud/o.claud.1.169.xml"),
    "unesp_hdt.1.30.1-1.30.5.xml": ("unesp", "public/xml/hdt.1.30.1-1.30.5.xml"),
    "unesp_Hdt.1.30.1-1.30.5 (treebk).xml": ("unesp", "public/xml/Hdt.1.30.1-1.30.5 (treebk).xml"),
    "unesp_config.json": ("unesp", "src/config.json"),
}
#: The fixture files that are metadata files, not treebank files (pin-list ``metadata_files``).
FIXTURE_METADATA = ("unesp_config.json",)
#: Early models only: ingest + staging + int_sentences/int_tokens run on the tiny sources.
SELECT = ["int_tokens"]
#: Sentences in the fixture cuts (3+2+2+2+2 XML sentences of the benchmark's projects, 3+3+3
#: CoNLL-U sentences; PapyGreek's 3 and UNESP's 2+2, a file and its byte-identical copy).
FIXTURE_SENTENCES = 27

HOLD_SCRIPT = """
import pathlib, sys, time
from sphragis import cli, runner
marker = pathlib.Path(sys.argv[1])
_run = runner.execute
def held(*args, **kwargs):
    # ingest is done: the raw tables are in <warehouse>.building-<pid>; hold before the models
    marker.write_text(str(__import__("os").getpid()))
    time.sleep(float(sys.argv[2]))
    return _run(*args, **kwargs)
runner.execute = held
sys.exit(cli.main(sys.argv[3:]))
"""


def tiny_sources(root: Path, layout: dict[str, tuple[str, str]] | None = None) -> Path:
    """Lay the fixture cuts out as an unpacked ``SPHRAGIS_DATA`` (``<root>/<snapshot>/<path>``)."""
    for name, (snapshot, rel) in (layout or FIXTURE_LAYOUT).items():
        dest = root / snapshot / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURE_SOURCES / name, dest)
    return root


def tiny_settings(base: Path) -> config.Settings:
    """Settings whose data dir holds the fixture layout; warehouse and export under ``base``."""
    return config.Settings(mirror=base / "no-mirror", data=tiny_sources(base / "data"),
                           warehouse=base / "warehouse.duckdb", out=base / "sphragis")


def settings_env(settings: config.Settings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(SPHRAGIS_DATA=str(settings.data), SPHRAGIS_WAREHOUSE=str(settings.warehouse),
               SPHRAGIS_OUT=str(settings.out), SPHRAGIS_MIRROR=str(settings.mirror))
    return env


def use_settings(monkeypatch, settings: config.Settings) -> None:
    """Point the environment (hence ``config.settings()`` and the CLI) at ``settings``."""
    for k, v in settings_env(settings).items():
        if k.startswith("SPHRAGIS_"):
            monkeypatch.setenv(k, v)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def table_counts(path: Path) -> dict[str, int]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "select table_name from duckdb_tables() where not internal order by 1").fetchall()]
        return {n: con.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()


def start_held_build(settings: config.Settings, marker: Path, hold: float = 120.0,
                     args: tuple[str, ...] = ("build", "--select", "int_tokens", "--full")) -> subprocess.Popen:
    """Start ``sphragis build`` in a child that stops after ingest until killed; wait for that point.
    (``--full``: on an up-to-date warehouse a plain build has nothing to do and never gets there.)"""
    proc = subprocess.Popen([sys.executable, "-c", HOLD_SCRIPT, str(marker), str(hold), *args],
                            env=settings_env(settings), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while not marker.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"held build exited early ({proc.returncode}): {err.decode(errors='replace')[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("held build did not reach the models within 180 s")
        time.sleep(0.05)
    return proc


def wait_for_marker(proc: subprocess.Popen, marker: Path, point: str, seconds: float = 180) -> None:
    """Wait until the child ``proc`` writes ``marker`` (non-empty) on reaching ``point``; fail the test, with
    the child's stderr, if it exits first or takes longer than ``seconds``."""
    deadline = time.monotonic() + seconds
    # not only created: written (the child's write_text creates the file, then writes it)
    while not (marker.exists() and marker.stat().st_size):
        if proc.poll() is not None:
            pytest.fail(f"child exited before {point}: {proc.communicate()[1].decode(errors='replace')[-2000:]}")
        assert time.monotonic() < deadline, f"the child did not reach {point} within {seconds:.0f} s"
        time.sleep(0.05)


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)


@pytest.fixture(scope="module")
def good_once(tmp_path_factory):
    """One build of the fixture sources that :func:`good` copies: (settings, sha256, table counts)."""
    settings = tiny_settings(tmp_path_factory.mktemp("good"))
    build.build(settings, select=SELECT)
    counts = table_counts(settings.warehouse)
    assert counts["raw_sentences"] == FIXTURE_SENTENCES and counts["int_tokens"] > 0
    return settings, sha256(settings.warehouse), counts


@pytest.fixture()
def good(good_once, tmp_path):
    """A previous good warehouse built from the fixture sources: (settings, sha256, table counts).
    A copy (``copy2``, with its manifest) of :func:`good_once`, its sources shared and read only:
    the tests below kill, block or break the next build, whose outcome does not depend on whether
    the file is the one the manifest's stamp names (a copy's next build checks every table)."""
    settings, digest, counts = good_once
    mine = dataclasses.replace(settings, warehouse=tmp_path / "warehouse.duckdb", out=tmp_path / "sphragis")
    shutil.copy2(settings.warehouse, mine.warehouse)
    shutil.copy2(build.manifest_path(settings.warehouse), build.manifest_path(mine.warehouse))
    assert sha256(mine.warehouse) == digest
    return mine, digest, counts


def test_killed_build_leaves_previous_warehouse_intact_and_next_build_cleans_up(good, tmp_path):
    settings, digest, counts = good
    proc = start_held_build(settings, tmp_path / "held")
    building = settings.warehouse.with_name(f"{settings.warehouse.name}.building-{proc.pid}")
    assert building.exists(), "the build writes beside the warehouse"
    kill(proc)
    assert proc.returncode == -signal.SIGKILL

    # the previous warehouse is byte-for-byte the same and readable with the same tables
    assert sha256(settings.warehouse) == digest
    assert table_counts(settings.warehouse) == counts
    # SIGKILL left the half-written file behind ...
    assert building.exists()

    # ... the next build takes the (released) lock, removes it and succeeds
    build.build(settings, select=SELECT)
    leftovers = sorted(p.name for p in settings.warehouse.parent.glob("warehouse.duckdb.building-*"))
    assert leftovers == []
    assert not Path(str(settings.warehouse) + ".wal").exists()
    assert table_counts(settings.warehouse) == counts


def test_concurrent_build_fails_fast_naming_the_lock_holder(good, tmp_path, monkeypatch, capsys):
    settings, digest, counts = good
    proc = start_held_build(settings, tmp_path / "held")
    try:
        t0 = time.monotonic()
        with pytest.raises(build.BuildLocked) as exc:
            build.build(settings, select=SELECT)
        assert time.monotonic() - t0 < 5, "a second build must fail fast, not wait"
        assert f"pid {proc.pid}" in str(exc.value)
        assert str(settings.warehouse) in str(exc.value)

        # the CLI prints the same as one line and exits 1
        use_settings(monkeypatch, settings)
        assert cli.main(["build", "--select", "int_tokens"]) == 1
        err = messages(capsys.readouterr().err).strip().splitlines()
        assert len(err) == 1 and "another build is running" in err[0] and f"pid {proc.pid}" in err[0]
        assert "Traceback" not in err[0]
        # a models-only rebuild is a build too
        with pytest.raises(build.BuildLocked):
            build.build(settings, reingest=False, select=SELECT)
    finally:
        kill(proc)
    assert sha256(settings.warehouse) == digest
    # once the holder is gone the lock is free again
    build.build(settings, select=SELECT)
    assert table_counts(settings.warehouse) == counts


def test_failed_build_keeps_previous_warehouse(good, monkeypatch):
    """A model error (not a kill) also leaves the old warehouse and no temporary file."""
    settings, digest, counts = good
    from sphragis import runner

    def broken(*args, **kwargs):
        raise runner.ModelError("model int_tokens (models/intermediate/int_tokens.sql) failed: injected")

    monkeypatch.setattr(runner, "execute", broken)
    with pytest.raises(runner.ModelError):
        build.build(settings, select=SELECT, full=True)  # (a plain build finds nothing to do)
    assert sha256(settings.warehouse) == digest
    assert list(settings.warehouse.parent.glob("warehouse.duckdb.building-*")) == []


def test_stale_building_file_of_a_dead_build_is_removed_under_the_lock(tmp_path):
    target = tmp_path / "warehouse.duckdb"
    target.write_bytes(b"old")
    stale = [tmp_path / "warehouse.duckdb.building-999999", tmp_path / "warehouse.duckdb.building-999999.wal"]
    for p in stale:
        p.write_bytes(b"half-written")
    other = tmp_path / "other.duckdb.building-1"
    other.write_bytes(b"not ours")
    with build.build_lock(target):
        removed = build.remove_stale_builds(target)
    assert sorted(removed) == sorted(stale)
    assert not any(p.exists() for p in stale)
    assert other.exists() and target.read_bytes() == b"old"


# ---- export atomicity (SPEC §13): the directory is written beside the old one, swapped on success

EXPORT_HOLD_SCRIPT = """
import pathlib, sys, time
from sphragis import cli
from sphragis.export import metadata
marker = pathlib.Path(sys.argv[1])
_write_all = metadata.write_all
def held(con, out, summary):
    # the configurations are written into <out>.building-<pid>; hold before the metadata
    marker.write_text(str(out))
    time.sleep(float(sys.argv[2]))
    return _write_all(con, out, summary)
metadata.write_all = held
sys.exit(cli.main(["export"]))
"""


def _tree_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256(p) for p in sorted(root.rglob("*")) if p.is_file()}


def _beside(out: Path) -> list[str]:
    """Leftovers next to the export directory (its lock file and the export state are expected)."""
    return sorted(p.name for p in out.parent.iterdir()
                  if p.name.startswith(out.name + ".") and p.name not in (out.name + ".lock", out.name + ".state"))


@pytest.fixture(scope="module")
def exported(tiny_exported):
    """A full build of the fixture sources and its export: (settings, export file digests); the
    session's ``tiny_exported`` (tests/conftest.py), shared: tests change ``previous_export``."""
    settings = tiny_exported
    digest = _tree_digest(settings.out)
    assert "README.md" in digest and "metadata/build_report.json" in digest
    assert any(k.startswith("data/sentence_1/") for k in digest)
    return settings, digest


@pytest.fixture()
def previous_export(exported, tmp_path):
    """A private copy of the exported warehouse and directory (the user's previous good export)."""
    settings, digest = exported
    mine = config.Settings(mirror=settings.mirror, data=settings.data, warehouse=tmp_path / "warehouse.duckdb",
                           out=tmp_path / "sphragis")
    shutil.copyfile(settings.warehouse, mine.warehouse)
    shutil.copytree(settings.out, mine.out)
    (mine.out / "previous-export-marker").write_text("kept\n")
    return mine, _tree_digest(mine.out)


def test_export_failing_validation_leaves_previous_export_untouched(previous_export, monkeypatch, capsys):
    settings, before = previous_export
    from sphragis.export import writer
    from sphragis.export.conllu_units import UnitValidationError

    def invalid(*args, **kwargs):
        raise UnitValidationError("agdt:tlg0003.tlg001.perseus-grc1.1.tb.xml:2", "token 3: UPOS 'PUNCT' not in the "
                                  "published inventory (injected)")

    monkeypatch.setattr(writer.UnitValidation, "result", invalid)  # after the files are written
    with pytest.raises(UnitValidationError, match="published unit agdt:tlg0003"):
        writer.export(settings)
    assert _tree_digest(settings.out) == before
    assert _beside(settings.out) == []

    use_settings(monkeypatch, settings)
    assert cli.main(["export"]) == 1
    err = messages(capsys.readouterr().err).strip().splitlines()
    assert len(err) == 1 and "published unit agdt:tlg0003.tlg001.perseus-grc1.1.tb.xml:2" in err[0]
    assert "Traceback" not in err[0]
    assert _tree_digest(settings.out) == before


def test_export_failing_while_writing_leaves_previous_export_untouched(previous_export, monkeypatch):
    """The configurations are already written into the new directory when the metadata fails:
    the old directory stays as it was and the new one is removed."""
    settings, before = previous_export
    from sphragis.export import metadata, writer

    seen: list[Path] = []

    def failing(con, out, summary):
        seen.append(out)
        assert any((out / "data").rglob("*.parquet")), "configurations are written before the metadata"
        raise OSError(28, "No space left on device (injected)")

    monkeypatch.setattr(metadata, "write_all", failing)
    with pytest.raises(OSError, match="injected"):
        writer.export(settings)
    assert seen and seen[0].name.startswith("sphragis.building-") and seen[0] != settings.out
    assert not seen[0].exists()
    assert _tree_digest(settings.out) == before
    assert _beside(settings.out) == []


def test_export_whose_counts_disagree_with_the_summary_mart_leaves_previous_export_untouched(previous_export,
                                                                                             monkeypatch):
    """The metadata's row and author counts come from mart_config_summary; a written file with other
    counts fails the export, naming the file, before anything is swapped in."""
    settings, before = previous_export
    from sphragis.export import metadata, writer

    real = metadata.config_summary

    def off_by_one(con):
        summary = real(con)
        summary["sentence_1"]["train"] = {**summary["sentence_1"]["train"],
                                          "rows": summary["sentence_1"]["train"]["rows"] + 1}
        return summary

    monkeypatch.setattr(metadata, "config_summary", off_by_one)
    with pytest.raises(writer.ExportError, match=r"data/sentence_1/train-00000-of-00001\.parquet: \{'rows': \d+"):
        writer.export(settings)
    assert _tree_digest(settings.out) == before
    assert _beside(settings.out) == []


def test_killed_export_leaves_previous_export_untouched(previous_export, tmp_path):
    settings, before = previous_export
    marker = tmp_path / "held"
    proc = subprocess.Popen([sys.executable, "-c", EXPORT_HOLD_SCRIPT, str(marker), "120"],
                            env=settings_env(settings), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for_marker(proc, marker, "the metadata")
    building = Path(marker.read_text())
    assert building.name == f"sphragis.building-{proc.pid}" and any(building.rglob("*.parquet"))
    kill(proc)
    assert _tree_digest(settings.out) == before

    # the next export replaces the directory as a whole
    from sphragis.export import writer

    writer.export(settings)
    after = _tree_digest(settings.out)
    assert "previous-export-marker" not in after
    assert {k: v for k, v in before.items() if k != "previous-export-marker"}.keys() <= after.keys()


def test_a_killed_export_s_folder_is_removed_by_the_next_export_even_an_up_to_date_one(previous_export, tmp_path):
    """An export killed before its swap leaves ``<out>.building-<pid>``; the next export has nothing
    to do (the killed one changed nothing) and still removes it, but never a running export's."""
    from sphragis.export import writer

    settings, _before = previous_export
    writer.export(settings)
    marker = tmp_path / "held"
    script = EXPORT_HOLD_SCRIPT.replace('cli.main(["export"])', 'cli.main(["export", "--full"])')
    proc = subprocess.Popen([sys.executable, "-c", script, str(marker), "120"], env=settings_env(settings),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for_marker(proc, marker, "the metadata")
    kill(proc)
    left = settings.out.with_name(f"sphragis.building-{proc.pid}")
    assert left.is_dir() and any(left.rglob("*.parquet"))
    running = settings.out.with_name(f"sphragis.building-{os.getpid()}")  # as if this process exported now
    running.mkdir()
    report = writer.export(settings)
    assert report["reuse"]["up_to_date"]
    assert not left.exists() and running.is_dir()


def test_stale_files_of_a_running_build_are_kept(tmp_path):
    target = tmp_path / "warehouse.duckdb"
    mine = [tmp_path / f"warehouse.duckdb.building-{os.getpid()}", tmp_path / f"warehouse.duckdb.building-{os.getpid()}.wal"]
    for p in mine:
        p.write_bytes(b"being written")
    assert build.remove_stale_builds(target) == [] and all(p.exists() for p in mine)


def test_concurrent_export_fails_fast_naming_the_lock_holder(previous_export):
    """A second export into the same directory while one holds the lock fails at once."""
    from sphragis import build
    from sphragis.export import writer

    settings, before = previous_export
    with build.build_lock(settings.out):
        with pytest.raises(build.BuildLocked, match=r"pid \d+"):
            writer.export(settings)
    assert _tree_digest(settings.out) == before
