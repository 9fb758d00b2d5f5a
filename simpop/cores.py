"""The CPU cores this process may use (its affinity mask and its cgroup's quota), and how the
embedded llama.cpp server and torch share them."""

from __future__ import annotations

import math
import os
import threading
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


def _cpu_times() -> tuple[int, int] | None:
    """(idle, total) jiffies of all cores since boot, from /proc/stat; None elsewhere."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return idle, sum(fields[:8])


def idle_cores(interval: float = 0.3, cores: int | None = None) -> int:
    """Cores of ours that other programs leave idle right now (measured over ``interval``
    seconds; all of them where it cannot be measured); at least 1."""
    cores = cores or available_cores()
    before = _cpu_times()
    if before is None:
        return cores
    time.sleep(interval)
    after = _cpu_times()
    if after is None or after[1] <= before[1]:
        return cores
    share = (after[0] - before[0]) / (after[1] - before[1])
    machine = os.cpu_count() or cores
    return max(1, min(cores, round(share * machine)))


_claimed = 0
_lock = threading.Lock()


def claim(threads: int) -> None:
    """Record that ``threads`` of this process's cores are taken (the embedded LLM server)."""
    global _claimed
    with _lock:
        _claimed += threads


def release(threads: int) -> None:
    global _claimed
    with _lock:
        _claimed = max(0, _claimed - threads)


def llm_threads(configured: int | None) -> int:
    """Threads for the embedded llama.cpp server: as configured, else the cores idle now (a
    thread on a core another program keeps busy slows every step of the others)."""
    return configured or idle_cores()


def torch_threads() -> int:
    """Threads for torch: the cores the embedded server has not taken, at least 1."""
    with _lock:
        return max(1, available_cores() - _claimed)
