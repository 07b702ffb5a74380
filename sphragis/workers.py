"""Worker processes that end with their parent (SPEC §13: a killed build leaves nothing running).

Used as the ``initializer`` of the ingest pool (:mod:`sphragis.ingest.load`) and of the export's CoNLL 2018
loader pool (:mod:`sphragis.export.writer`).
"""

from __future__ import annotations

import contextlib
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
    # reports it once; a worker ignores it (no KeyboardInterrupt traceback of its own).
    # It was forked with SIGINT blocked (sigint_held): one pending since is dropped here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


@contextlib.contextmanager
def sigint_held():
    """Block SIGINT in the calling (main) thread while a process pool forks its workers.

    A forked worker inherits the parent's handler until :func:`exit_with_parent` ignores SIGINT; a
    Ctrl-C in between would end that worker in a traceback. Forked with SIGINT blocked, the worker
    ignores it before unblocking it, and a Ctrl-C meanwhile reaches the parent when the block ends.
    Does nothing outside the main thread (signals are the main thread's).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
