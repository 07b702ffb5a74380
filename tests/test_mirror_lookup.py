"""The integration tests read the pinned mirror ``make export`` reads (README "Set-up"):
``SPHRAGIS_MIRROR`` when it names a folder, else ``../shared/sources`` beside the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _mirror_seen(env_value: str | None, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "SPHRAGIS_MIRROR"}
    if env_value is not None:
        env["SPHRAGIS_MIRROR"] = env_value
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", "import conftest; print(conftest.SHARED_SOURCES)"],
                         cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.parametrize("value", [None, "", "none", "NONE"])
def test_without_a_named_mirror_the_tests_look_beside_the_checkout(value, tmp_path):
    assert _mirror_seen(value, tmp_path) == str(TESTS.parents[1] / "shared" / "sources")


def test_sphragis_mirror_names_the_folder_relative_to_the_current_directory(tmp_path):
    assert _mirror_seen(str(tmp_path / "elsewhere"), TESTS) == str(tmp_path / "elsewhere")
    assert _mirror_seen("mirror", tmp_path) == str(tmp_path / "mirror")
