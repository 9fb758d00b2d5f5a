"""The cores simpop may use (affinity and cgroup quota) and how llama.cpp and torch share them."""

from __future__ import annotations

import os

from simpop.cores import available_cores, claim, idle_cores, release, torch_threads

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


def test_torch_gets_the_cores_the_llm_server_left():
    cores = available_cores()
    assert torch_threads() == cores
    claim(cores)
    try:
        assert torch_threads() == 1  # never none
    finally:
        release(cores)
    assert torch_threads() == cores


def test_idle_cores_are_between_one_and_ours():
    assert 1 <= idle_cores(interval=0.05) <= available_cores()
