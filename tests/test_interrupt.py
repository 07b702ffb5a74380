"""Ctrl-C at any moment of a build (SPEC §13): one line, exit status 130, no traceback, and nothing
left behind; the first half second included, when the command line is still importing its modules.

The child is started the way the ``sphragis`` console script starts it (``sphragis.entry:main``,
checked against the installed entry point), after a line that says the interpreter is up: Python's
own start (``site`` and its ``.pth`` files) runs before any code of the package can.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from importlib.metadata import entry_points

import pytest

from sphragis import interrupts
from test_atomic import settings_env, tiny_settings

#: The console script's body (pip writes the same three statements), after a line on stdout.
CHILD = """
import sys
from sphragis.entry import main
print("started", flush=True)
sys.exit(main(sys.argv[1:]))
"""


def test_the_console_script_is_the_entry_that_handles_ctrl_c():
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "sphragis"]
    assert script.value == "sphragis.entry:main"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_settings(tmp_path_factory.mktemp("interrupt"))


@pytest.mark.parametrize("delay", [0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75])
def test_ctrl_c_in_the_first_second_of_a_build_is_one_line_and_status_130(tiny, delay):
    # a terminal's Ctrl-C: SIGINT to the whole process group (ingest workers too), at its default
    # disposition in the child (a pytest-xdist worker ignores SIGINT, and the child would inherit that)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, "build", "--select", "int_tokens", "--full"],
                            env=settings_env(tiny), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline() == "started\n"
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == interrupts.INTERRUPTED_STATUS == 130, err
    assert err.strip().splitlines()[-1] == interrupts.INTERRUPTED == "sphragis: interrupted; previous outputs are untouched"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert not tiny.warehouse.exists()  # interrupted before the swap: nothing written
    assert not list(tiny.warehouse.parent.glob("warehouse.duckdb.building-*"))
