"""Transparent huge pages are off in the build's processes and the processes they start (SPEC §13)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

STATUS = Path("/proc/self/status")


def _thp_line_supported() -> bool:
    return sys.platform.startswith("linux") and STATUS.exists() and "THP_enabled:" in STATUS.read_text()


@pytest.mark.skipif(not _thp_line_supported(), reason="needs Linux >= 6.x (THP_enabled in /proc/<pid>/status)")
def test_huge_pages_are_off_in_the_process_and_inherited_by_its_children():
    script = (
        "import ctypes, subprocess, sys\n"
        "from sphragis.hugepages import PR_SET_THP_DISABLE, disable_transparent_huge_pages as off\n"
        "ctypes.CDLL(None).prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0)  # on, whatever this test's process has\n"
        "before = open('/proc/self/status').read().split('THP_enabled:')[1].split()[0]\n"
        "first, again = off(), off()\n"
        "after = open('/proc/self/status').read().split('THP_enabled:')[1].split()[0]\n"
        "child = subprocess.run(['grep', 'THP_enabled', '/proc/self/status'], capture_output=True, text=True)\n"
        "print(before, first, again, after, child.stdout.split()[1])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "1"  # on before the call
    assert out[1:] == ["True", "True", "0", "0"]  # off here, idempotent, and off in the child (fork + exec)


@pytest.mark.skipif(not _thp_line_supported(), reason="needs Linux >= 6.x (THP_enabled in /proc/<pid>/status)")
@pytest.mark.parametrize("call", [
    "from sphragis import cli; cli.main(['--version'])",  # every `sphragis` subcommand
    "from sphragis import build; build.build(s)",  # FileNotFoundError: no sources fetched
    "from sphragis.export import writer; writer.export(s)",  # ExportError: no warehouse
])
def test_the_build_and_export_entry_points_turn_them_off(call, tmp_path):
    # each call stops early on purpose (empty folders); huge pages are off by then
    script = (
        "from pathlib import Path\n"
        "from sphragis import config\n"
        f"s = config.Settings(mirror=None, data=Path({str(tmp_path / 'data')!r}), warehouse=Path({str(tmp_path / 'w.duckdb')!r}), "
        f"out=Path({str(tmp_path / 'out')!r}), registry_profile=config.DEFAULT_REGISTRY_PROFILE)\n"
        "try:\n"
        f"    {call}\n"
        "except (SystemExit, Exception) as exc:\n"
        "    print(type(exc).__name__)\n"
        "print(open('/proc/self/status').read().split('THP_enabled:')[1].split()[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path).stdout.split()
    assert out[-2] in {"SystemExit", "FileNotFoundError", "ExportError"}, out
    assert out[-1] == "0"
