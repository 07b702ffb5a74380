"""Transparent huge pages off for the build's process tree (SPEC §13).

DuckDB frees and re-allocates its query memory constantly (hash tables, sort runs, string buffers,
256 KiB storage blocks). Where the kernel backs such memory with transparent huge pages (mode
``always``, or ``madvise`` for memory an allocator asks them for: a ``perf`` profile found DuckDB's
own buffers among it on this machine), each first touch faults in and zeroes a whole 2 MiB page,
and each release splits or drops it again. On the real sources a build with huge pages spends a
notable share of its CPU in the kernel's ``clear_page_erms`` (a ``perf`` profile) and takes more
system CPU and wall time than without them (``make bench`` measures the full build). Databases
commonly ask for this setting (MongoDB,
Redis); here it is set per process with ``prctl(PR_SET_THP_DISABLE)``,
which the kernel keeps across ``fork`` and ``exec``, so the ingest and export worker processes
inherit it, and nothing outside the build changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

PR_SET_THP_DISABLE = 41  # <linux/prctl.h>, Linux 3.15+
PR_GET_THP_DISABLE = 42

_done = False


def disable_transparent_huge_pages() -> bool:
    """Turn transparent huge pages off for this process and the processes it starts.

    Idempotent and harmless where unsupported: on a non-Linux system, or when ``prctl`` refuses
    (an old kernel), nothing changes.

    Returns:
        True when huge pages are off for this process after the call, else False.
    """
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
            return False
        _done = libc.prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1
    except (OSError, AttributeError):
        return False
    return _done
