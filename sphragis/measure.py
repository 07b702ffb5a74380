"""What ``make bench`` (:mod:`sphragis.bench`) measures of a running build: the peak memory of a
process tree (summed proportional set size, so pages a forked worker shares with its parent count
once), sampled with psutil, and the wall and CPU time of a child process with its workers.
"""

from __future__ import annotations

import subprocess
import threading
import time

import psutil


def process_cpu() -> float:
    """CPU seconds (user + system) of this process and of the children it has waited for."""
    import resource  # Unix only: imported here, so that the CLI still loads elsewhere

    return sum(ru.ru_utime + ru.ru_stime for ru in (resource.getrusage(resource.RUSAGE_SELF),
                                                    resource.getrusage(resource.RUSAGE_CHILDREN)))


class Sampler:
    """Samples the memory of this process and its descendants every ``interval`` seconds in a
    thread: the sum of their PSS (proportional set size, psutil ``memory_full_info().pss``; RSS
    where the system has no PSS). RSS would count a page shared by a parent and its forked workers
    (the audit's fits, the ingest's parsers) once per process: a tree of three processes reading
    the same 1 GiB of matrices is 1 GiB of PSS, 3 GiB summed RSS. The peak is kept per step
    (``step`` sets the current one); ``cpu`` holds each step's CPU seconds (:func:`process_cpu`
    between its start and the next step's)."""

    def __init__(self, interval: float = 0.1):
        self.proc, self.interval, self.current = psutil.Process(), interval, "start"
        self.peaks: dict[str, int] = {}
        self.cpu: dict[str, float] = {}
        self._cpu_at = process_cpu()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def sample(self) -> None:
        held = 0
        for p in [self.proc, *self.proc.children(recursive=True)]:
            try:
                info = p.memory_full_info()
            except psutil.Error:
                continue
            held += getattr(info, "pss", info.rss)
        self.peaks[self.current] = max(self.peaks.get(self.current, 0), held)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def step(self, name: str) -> None:
        self.sample()
        self._close_cpu()
        self.current = name
        self.sample()

    def _close_cpu(self) -> None:
        now = process_cpu()
        self.cpu[self.current] = self.cpu.get(self.current, 0.0) + now - self._cpu_at
        self._cpu_at = now

    def stop(self) -> dict[str, int]:
        self._stop.set()
        self._thread.join()
        self.sample()
        self._close_cpu()
        return self.peaks


def timed_call(argv: list[str], **kwargs) -> tuple[int, float, float]:
    """Run ``argv`` to its end (``subprocess.call`` with ``kwargs``).

    Returns:
        (exit status, wall seconds, CPU seconds): the CPU is user + system time of the process and
        of every descendant it waited for (its worker pools), from ``getrusage(RUSAGE_CHILDREN)``
        before and after; so this process must not reap other children meanwhile.
    """
    import resource  # Unix only: imported here, so that the CLI still loads elsewhere

    def children_cpu() -> float:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    c0, t0 = children_cpu(), time.perf_counter()
    rc = subprocess.call(argv, **kwargs)
    return rc, time.perf_counter() - t0, children_cpu() - c0
