"""Shared fixtures.

``real_settings`` / ``real_warehouse`` / ``real_export`` build from the pinned mirror
(:data:`SHARED_SOURCES`: ``SPHRAGIS_MIRROR`` when set, as ``make export`` reads it, else
``../shared/sources`` beside the checkout) once per test session (into a temporary directory) and
skip, with the reason, when the mirror is absent. The suite runs in two pytest-xdist worker processes
(``addopts`` in pyproject.toml): the fetch, the build and the export are done once, by the first
worker that needs them, into a directory both workers share; the other waits on a file lock and
uses them (the xdist documentation's pattern for session fixtures that must run once).
"""

from __future__ import annotations

import fcntl
import os
import pickle
import re
import tarfile
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from sphragis import config, runner
from sphragis.fetch import NO_MIRROR_VALUES

REPO = Path(__file__).resolve().parents[1]


def _pinned_mirror() -> Path:
    """The folder of pinned snapshot archives the integration tests read: the one ``SPHRAGIS_MIRROR``
    names (relative to the current directory, as ``sphragis fetch`` takes it), else the default
    :data:`sphragis.config.DEFAULT_MIRROR` taken from the checkout (``make test`` runs there)."""
    env = os.environ.get("SPHRAGIS_MIRROR", "").strip()
    if env and env.lower() not in NO_MIRROR_VALUES:
        return Path(os.path.abspath(Path(env).expanduser()))
    return Path(os.path.abspath(REPO / config.DEFAULT_MIRROR))


SHARED_SOURCES = _pinned_mirror()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


#: Test modules started first, slowest first (``--durations``, 2-core machine): with ``--dist
#: loadscope --no-loadscope-reorder`` (pyproject.toml) the workers take whole modules in this order,
#: so the long ones overlap instead of running alone at the end (xdist's own reordering, by number
#: of tests, left the one-test modules test_incremental, test_dbt and test_package for last). Real
#: and fixture-only modules alternate, so one worker runs without the real build while the other
#: makes it. Every other module follows in collection order. Their tests are marked ``slow``:
#: ``make test-fast`` (``-m "not integration and not package and not slow"``) leaves them out.
SLOW_MODULES_FIRST = (
    "test_incremental.py", "test_dbt.py", "test_submission.py", "test_package.py", "test_docs_site.py",
    "test_long_sentence.py", "test_treebank.py", "test_folds.py", "test_state.py", "test_hostile_shell.py", "test_export.py",
    "test_atomic.py", "test_hostile_ingest.py", "test_homes.py", "test_eval_annotations.py", "test_runner.py",
    "test_card.py", "test_splits.py", "test_sql_cli.py", "test_hostile.py", "test_render_property.py",
    "test_eval_cli.py", "test_hostile_xml.py", "test_interrupt.py", "test_registry.py", "test_papygreek.py",
    "test_unesp.py", "test_progress.py",
)


def pytest_collection_modifyitems(config, items) -> None:
    """Order the modules as :data:`SLOW_MODULES_FIRST` says (a stable sort: tests keep their order
    within a module; every worker collects the same order, as xdist requires), and mark their tests
    ``slow``."""
    rank = {name: i for i, name in enumerate(SLOW_MODULES_FIRST)}
    for item in items:
        if item.path.name in rank:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


#: A progress line the build, the export and the audit print when stderr is not a terminal
#: (sphragis.progress: ``[0:01:05] build: models``).
PROGRESS_LINE = re.compile(r"^\[\d+:\d\d:\d\d\] .*\n?", re.M)


def messages(err: str) -> str:
    """``err`` (a command's stderr) without its progress lines: what it says about the outcome."""
    return PROGRESS_LINE.sub("", err)


def require_sources() -> None:
    """Skip the calling test, naming the folder looked in, when :data:`SHARED_SOURCES` has no mirror."""
    if not (SHARED_SOURCES / "MANIFEST.json").is_file():
        pytest.skip(f"pinned mirror absent ({SHARED_SOURCES}: no MANIFEST.json): integration tests need it "
                    "(../shared/sources beside the checkout, or SPHRAGIS_MIRROR=<folder>)")


def pinned_source_file(snapshot: str, name_end: str) -> bytes:
    """The bytes of the file whose name ends with ``name_end`` in the pinned archive of
    ``snapshot`` (``<snapshot>@<commit>.tar.xz`` in :data:`SHARED_SOURCES`, e.g. ``ud-perseus``);
    skips the test when the archive is absent."""
    archives = sorted(SHARED_SOURCES.glob(f"{snapshot}@*.tar.xz"))
    if not archives:
        pytest.skip(f"real sources absent: no {snapshot}@*.tar.xz in {SHARED_SOURCES}")
    with tarfile.open(archives[0]) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(name_end))
        return tar.extractfile(member).read()


def _shared_dir(tmp_path_factory) -> Path:
    """The session's temporary directory, shared by the xdist workers of one run (each worker's
    own base directory is a sub-folder of it); the base directory itself without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _once(marker: Path, make: Callable[[], object]) -> object:
    """Call ``make`` once per test run across the xdist workers and return its result: the first
    worker holding ``<marker>.lock`` calls it and pickles the result to ``marker``; the others wait
    for the lock and unpickle it. An exception is not recorded, so every worker sees its own."""
    with open(marker.with_name(marker.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if marker.is_file():
                return pickle.loads(marker.read_bytes())
            result = make()
            marker.write_bytes(pickle.dumps(result))
            return result
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def real_settings(tmp_path_factory) -> config.Settings:
    """Settings for a build from the real mirror, with the snapshots already fetched.

    ``SPHRAGIS_TEST_DATA`` may name an existing unpacked data directory to reuse (development aid).
    """
    require_sources()
    from sphragis import fetch

    base = _shared_dir(tmp_path_factory) / "real"
    base.mkdir(exist_ok=True)
    data = Path(os.environ["SPHRAGIS_TEST_DATA"]) if os.environ.get("SPHRAGIS_TEST_DATA") else base / "sources"
    settings = config.Settings(mirror=SHARED_SOURCES, data=data, warehouse=base / "warehouse.duckdb",
                               out=base / "sphragis")
    if not os.environ.get("SPHRAGIS_TEST_DATA"):
        _once(base / "fetched.pickle", lambda: sorted(fetch.fetch_all(settings, progress=False)))
    return settings


@pytest.fixture(scope="session")
def real_build(real_settings):
    """Build the full warehouse from the real sources once; returns the BuildSummary."""
    from sphragis import build

    return _once(real_settings.warehouse.with_name("built.pickle"), lambda: build.build(real_settings))


@pytest.fixture(scope="session")
def real_warehouse(real_settings, real_build):
    """A read-only connection to the warehouse built from the real sources."""
    con = duckdb.connect(str(real_settings.warehouse), read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="session")
def real_export(real_settings, real_build) -> Path:
    """Export the real warehouse once; returns the export directory."""
    from sphragis.export import writer

    _once(real_settings.warehouse.with_name("exported.pickle"), lambda: writer.export(real_settings))
    return real_settings.out


@pytest.fixture(scope="session")
def tiny_exported(tmp_path_factory) -> config.Settings:
    """Settings of one full build of the fixture cuts (``tests/fixtures/sources`` laid out by
    ``test_atomic.tiny_settings``) and its export, made once per test run across the xdist workers
    (as the real build is). Shared: read it, or copy what you change (warehouse, export and its
    state: ``test_state.mine``, ``test_atomic.previous_export``)."""

    def make() -> config.Settings:
        from test_atomic import tiny_settings

        from sphragis import build
        from sphragis.export import writer

        settings = tiny_settings(base)
        build.build(settings)
        writer.export(settings)
        return settings

    base = _shared_dir(tmp_path_factory) / "tiny"
    base.mkdir(exist_ok=True)
    return _once(base / "exported.pickle", make)


def dev_warehouse_path() -> Path | None:
    """The already built warehouse that ``SPHRAGIS_TEST_WAREHOUSE`` names (a development aid: the
    real-data tests read it instead of building the session's ``real_warehouse``), or None when the
    variable is unset. Skips the test when it names no file."""
    given = os.environ.get("SPHRAGIS_TEST_WAREHOUSE")
    if not given:
        return None
    if not Path(given).is_file():
        pytest.skip(f"SPHRAGIS_TEST_WAREHOUSE={given} does not exist")
    return Path(given)


def dev_warehouse_tables(*tables: str) -> duckdb.DuckDBPyConnection | None:
    """An in-memory connection holding copies of ``tables`` of the warehouse named by
    ``SPHRAGIS_TEST_WAREHOUSE`` (:func:`dev_warehouse_path`), or None when that variable is unset.
    Copied, not viewed: the runner drops any same-named table it finds, in any attached database.
    Skips the test when the file cannot be opened."""
    path = dev_warehouse_path()
    if path is None:
        return None
    con = duckdb.connect()
    try:
        con.execute(f"attach '{path}' as src (read_only)")
    except duckdb.Error as exc:
        pytest.skip(f"cannot open {path}: {exc}")
    for table in tables:
        con.execute(f"create table {table} as select * from src.{table}")
    con.execute("detach src")
    return con


@pytest.fixture(scope="module")
def built_warehouse(request):
    """A read-only connection to the built warehouse that ``SPHRAGIS_TEST_WAREHOUSE`` names
    (development aid), else the session's ``real_warehouse``."""
    given = dev_warehouse_path()
    if given is None:
        yield request.getfixturevalue("real_warehouse")
        return
    con = duckdb.connect(str(given), read_only=True)
    yield con
    con.close()


@pytest.fixture
def edit_registry(monkeypatch, tmp_path) -> Callable[..., runner.Project]:
    """``edit(project, column, value, folder="seeds")``: a copy of the seeds (in ``tmp_path / folder``)
    whose project registry gives ``project`` the ``column`` ``value``, read by config (the runner's
    ``var('projects')``, the ingest's snapshots) and by the runner project returned. The seeds
    folder the ingest reads (``config.SEEDS_DIR``) stays; at teardown the registry is read again."""
    import csv
    import io
    import shutil

    def edit(project: str, column: str, value: str, folder: str = "seeds") -> runner.Project:
        seeds = tmp_path / folder
        shutil.copytree(config.SEEDS_DIR, seeds)
        rows = list(csv.DictReader((seeds / "projects.csv").open(encoding="utf-8")))
        assert any(r["project"] == project for r in rows) and column in rows[0]
        for row in rows:
            if row["project"] == project:
                row[column] = value
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        (seeds / "projects.csv").write_text(buf.getvalue(), encoding="utf-8")
        monkeypatch.setattr(config.read_seed, "__defaults__", (seeds,))
        _forget_registry()
        return runner.load_project(seeds_dir=seeds)

    yield edit
    monkeypatch.undo()  # then forget what the edited registry cached
    _forget_registry()


def _forget_registry() -> None:
    for cached in (config.projects, config.snapshots):
        cached.cache_clear()
