"""Worker processes that end with their parent (SPEC §13: a killed build leaves nothing running).

Used as the ``initializer`` of the ingest pool (:mod:`ingest.load`) and of the export's CoNLL 2018
loader pool (:mod:`export.writer`).
"""

from __future__ import annotations

import os
import signal
import threading
import time

POLL_SECONDS = 0.2  # how often a worker checks that its parent is alive


def exit_with_parent(parent: int) -> None:
    """Process-pool initializer: end this worker as soon as process ``parent`` is gone.

    A parent killed outright (SIGKILL) cannot shut its pool down, and an orphaned worker would wait
    for work forever; a daemon thread polls ``os.getppid()`` every :data:`POLL_SECONDS` seconds and
    calls ``os._exit(1)`` once the worker has been re-parented. The worker ignores SIGINT (Ctrl-C
    is handled once, by the parent). Raises nothing.

    Args:
        parent: the pid of the process that made the pool (``os.getpid()`` there, passed through
            ``initargs``).
    """
    # Ctrl-C reaches every process of the terminal's process group: the parent stops the build and
    # reports it once; a worker ignores it (no KeyboardInterrupt traceback of its own; issue #27)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
