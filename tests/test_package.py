"""The package works installed, away from its checkout (README "Set-up").

Builds the wheel (``pip wheel . --no-deps``, with build isolation as a user's pip would: needs
pip's cache or PyPI for setuptools) from a copy of the checkout's files (tracked and untracked, not
ignored: what a clone holds, without a stale setuptools ``build/``), installs it into a fresh virtual environment and runs
``sphragis build`` and ``sphragis export`` from a temporary directory on the fixture cuts
(``tests/fixtures/sources`` laid out as the pinned snapshots, :func:`test_atomic.tiny_sources`).
The heavy runtime dependencies (DuckDB, Arrow, ...) are borrowed from the test's own environment
through a ``.pth`` path entry (not a site directory, so the checkout's editable-install hook is
not loaded); ``sphragis`` itself comes only from the wheel, which the test asserts.
Deselect with ``-m "not package"`` on a machine without PyPI or a warm pip cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import duckdb
import pytest
from test_atomic import FIXTURE_SENTENCES, tiny_sources

pytestmark = pytest.mark.package

REPO = Path(__file__).resolve().parents[1]


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """(wheel, venv python, clean environment) with the freshly built wheel installed."""
    base = tmp_path_factory.mktemp("package")
    source = base / "source"
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO, dict(os.environ))
    for rel in filter(None, listed.stdout.split("\0")):
        if (REPO / rel).is_file():
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, source / rel)
    run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(base / "dist")], base,
        dict(os.environ))
    (wheel,) = (base / "dist").glob("sphragis_warehouse-*.whl")
    run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")], base, dict(os.environ))
    python = base / "venv" / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], base,
                    dict(os.environ)).stdout.strip())
    borrowed = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "_borrowed_dependencies.pth").write_text("\n".join(sorted(borrowed)) + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)], base,
        dict(os.environ))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPHRAGIS_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return wheel, python, env


def test_wheel_carries_every_model_seed_macro_and_template(venv):
    wheel, _, _ = venv
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"sphragis/{p.relative_to(REPO).as_posix()}"
                for pattern in ("models/**/*.sql", "models/**/*.yml", "sql/**/*.sql", "sql/**/*.csv",
                                "sphragis/templates/*.j2")
                for p in REPO.glob(pattern)}
    expected = {n.replace("sphragis/sphragis/", "sphragis/") for n in expected}
    assert len([n for n in expected if n.startswith("sphragis/models/")]) >= 50
    assert "sphragis/sql/seeds/works_registry.csv" in expected and "sphragis/sql/ddl/raw.sql" in expected
    assert expected - names == set()
    assert "sphragis/sources.json" in names


def test_installed_build_and_export_from_a_temporary_directory(venv, tiny_exported, tmp_path):
    wheel, python, env = venv
    work = tmp_path / "elsewhere"
    tiny_sources(work / "data" / "sources")  # the default SPHRAGIS_DATA, relative to the cwd
    bin_dir = python.parent

    where = json.loads(run([str(python), "-c", "import json, sphragis, sphragis.config as c; print(json.dumps("
                            "[sphragis.__file__, str(c.MODELS_DIR), str(c.SEEDS_DIR), str(c.TEMPLATES_DIR)]))"],
                           work, env).stdout)
    site = str(python.parents[1])
    assert all(p.startswith(site) for p in where), where  # the wheel's copy, not the checkout's
    assert run([str(bin_dir / "sphragis"), "--version"], work, env).stdout.strip() == (
        f"sphragis {wheel.name.split('-')[1]}")
    listing = run([str(bin_dir / "sphragis"), "fetch", "--list"], work, env).stdout.splitlines()
    assert listing[1].split()[-2:] == ["upstream", "https://github.com/PerseusDL/treebank_data"]  # no mirror here

    run([str(bin_dir / "sphragis"), "build"], work, env)
    run([str(bin_dir / "sphragis"), "export"], work, env)

    con = duckdb.connect(str(work / "warehouse.duckdb"), read_only=True)
    try:
        assert con.execute("select count(*) from int_sentences").fetchone()[0] == FIXTURE_SENTENCES
    finally:
        con.close()
    out = work / "dist" / "sphragis"
    assert (out / "README.md").is_file() and (out / "metadata" / "build_report.json").is_file()

    # The installed package exports exactly what the checkout exports from the same sources (the
    # session's build and export of the fixture cuts by the checkout, tests/conftest.py).
    assert digests(out) == digests(tiny_exported.out)
