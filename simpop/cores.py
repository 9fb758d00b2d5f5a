"""The CPU cores this process may use (its affinity mask and its cgroup's quota), the cores
other programs keep busy, and the embedded llama.cpp server's threads.

Torch embeds with ``embedding.threads`` (default 1), not a count that follows the load: the
number of threads changes a vector's last bits, and a run's figures must not depend on how busy
the machine was."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def _quota(cgroup: Path) -> float | None:
    """Cores the cgroup's CPU quota allows (v2 ``cpu.max``, v1 ``cfs_quota_us``); None: no limit."""
    try:
        quota, period = (cgroup / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota = int((cgroup / "cpu" / "cpu.cfs_quota_us").read_text())
        period = int((cgroup / "cpu" / "cpu.cfs_period_us").read_text())
        return quota / period if quota > 0 and period > 0 else None
    except (OSError, ValueError):
        return None


def available_cores(cgroup: Path = CGROUP) -> int:
    """Cores this process may run on: its affinity mask, capped by its cgroup's quota (rounded
    up: a quota of 1.5 cores lets two threads make progress); at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    quota = _quota(cgroup)
    if quota is not None:
        cores = min(cores, math.ceil(quota))
    return max(1, cores)


def _busy_seconds() -> float | None:
    """CPU seconds all cores of the machine have been busy since boot (/proc/stat); None
    where it cannot be read."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class OtherLoad:
    """Cores that other programs keep busy: the machine's busy CPU time less this process's
    own, over the time since the previous reading (so our own threads never count)."""

    def __init__(self) -> None:
        self._last: tuple[float, float, float] | None = None
        self._busy = 0.0

    def _reading(self) -> tuple[float, float, float] | None:
        busy = _busy_seconds()
        return None if busy is None else (time.monotonic(), busy, time.process_time())

    def cores(self, interval: float = 1.0) -> float:
        """Cores busy with other programs, averaged since the previous reading once at least
        ``interval`` seconds have passed (until then, the previous figure; 0 at first)."""
        now = self._reading()
        if now is None:
            return 0.0
        if self._last is None:
            self._last = now
        elif now[0] - self._last[0] >= interval:
            wall, busy, own = (new - old for new, old in zip(now, self._last, strict=True))
            # /proc/stat counts in clock ticks: over a short interval the ratio can overshoot
            self._busy = min(float(os.cpu_count() or 1), max(0.0, (busy - own) / wall))
            self._last = now
        return self._busy

    def measure(self, interval: float = 0.3) -> float:
        """Cores busy with other programs over the next ``interval`` seconds (it sleeps)."""
        self._last = None
        self.cores()
        time.sleep(interval)
        return self.cores(interval=0)


def steady_load(readings: list[float]) -> float:
    """The load other programs keep up through all ``readings``: the least of them (a moment's
    burst, a program starting, is not a load that lasts a run)."""
    return min(readings, default=0.0)


def idle_cores(interval: float = 0.25, cores: int | None = None, samples: int = 4) -> int:
    """Cores of ours that other programs leave idle now, over ``samples`` readings of
    ``interval`` seconds (all of them where it cannot be measured); at least 1."""
    cores = cores or available_cores()
    load = OtherLoad()
    busy = steady_load([load.measure(interval) for _ in range(samples)])
    return max(1, min(cores, round(cores - busy)))


def llm_threads(configured: int | None) -> int:
    """Threads for the embedded llama.cpp server: as configured, else the cores idle now (a
    thread on a core another program keeps busy slows every step of the others). They are set
    once for the server's life: one reading of 0.3 s at a moment's burst once started a quiet
    machine's server on one thread of two, at half the speed for the whole run."""
    return configured or idle_cores()
