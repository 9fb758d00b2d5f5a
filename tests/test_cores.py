"""The cores simpop may use (affinity and cgroup quota) and the load other programs put on them."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from simpop.cores import OtherLoad, _busy_seconds, available_cores, idle_cores, steady_load

AFFINITY = len(os.sched_getaffinity(0))


def test_a_cgroup_quota_caps_the_cores_rounded_up(tmp_path):
    (tmp_path / "cpu.max").write_text("50000 100000\n")  # half a core: still one thread
    assert available_cores(tmp_path) == 1
    (tmp_path / "cpu.max").write_text(f"{AFFINITY * 100000 + 50000} 100000\n")  # more than we have
    assert available_cores(tmp_path) == AFFINITY
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert available_cores(tmp_path) == AFFINITY


def test_a_cgroup_v1_quota_is_read_too(tmp_path):
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert available_cores(tmp_path) == 1
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")  # no limit
    assert available_cores(tmp_path) == AFFINITY


def test_our_own_busy_threads_do_not_count_as_other_load():
    """Whatever else the machine is doing: the other load is the machine's busy time less this
    process's own, read over the same window."""
    if _busy_seconds() is None:
        pytest.skip("no /proc/stat")
    load = OtherLoad()
    load.cores()
    busy, own, start = _busy_seconds(), time.process_time(), time.monotonic()
    # this process keeps a core busy for half a second of its own CPU time (longer in wall
    # time where other programs share the core)
    while time.process_time() < own + 0.5 and time.monotonic() < start + 60:
        sum(range(1000))
    other = load.cores(interval=0.3)
    wall = time.monotonic() - start
    machine = (_busy_seconds() - busy) / wall
    ours = (time.process_time() - own) / wall
    assert time.process_time() - own >= 0.5  # the spin ran
    assert other == pytest.approx(max(0.0, machine - ours), abs=0.15)  # ours left out, not counted
    assert 0 <= load.measure(0.05) <= (os.cpu_count() or 1)


def test_idle_cores_are_between_one_and_ours():
    assert 1 <= idle_cores(interval=0.05) <= available_cores()


def test_a_moments_burst_is_not_a_steady_load():
    assert steady_load([1.02, 0.0, 0.97, 1.0]) == 0.0  # idle for one reading of four
    assert steady_load([1.02, 0.98, 0.97, 1.0]) == 0.97
    assert steady_load([]) == 0.0


@pytest.mark.skipif(AFFINITY < 2 or _busy_seconds() is None, reason="needs two cores and /proc/stat")
def test_a_program_busy_throughout_takes_a_core_from_the_llm():
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)  # the interpreter has started and spins
        assert idle_cores(interval=0.1, cores=AFFINITY) <= AFFINITY - 1
    finally:
        spin.kill()
        spin.wait()
