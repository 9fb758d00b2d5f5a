"""Lookup tables built once and kept in the cache folder (``simpop.lookup_cache``)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from simpop import lookup_cache
from simpop.lookup_cache import cached_table, table_path


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIMPOP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(lookup_cache, "_LOADED", {})
    return tmp_path


def test_a_table_is_built_once_then_read_from_disk(fresh: Path):
    built = []

    def build() -> dict[str, tuple[str, ...]]:
        built.append(1)
        return {"eye": ("AY",), "iris": ("AY", "R", "IH", "S")}

    table = cached_table("phones", "1", build)
    assert cached_table("phones", "1", build) is table and built == [1]  # from memory
    lookup_cache._LOADED.clear()  # a new process
    assert cached_table("phones", "1", build) == table and built == [1]  # from disk
    table_path("phones", "1").write_bytes(b"\x00torn")
    lookup_cache._LOADED.clear()
    assert cached_table("phones", "1", build) == table and built == [1, 1]  # unreadable: rebuilt
    assert cached_table("phones", "2", build) == table and built == [1, 1, 1]  # another version


def test_a_table_is_loaded_without_the_garbage_collector_and_frozen_out_of_its_reach(fresh: Path):
    """The English ASR lexicon is about a million tuples and lists: collected as they were made
    and walked at every full collection after, it cost 0.5 s instead of 0.2 s to load."""
    during = []

    def build() -> list[tuple[int, int]]:
        during.append(gc.isenabled())
        return [(i, i + 1) for i in range(1000)]

    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    table = cached_table("pairs", "1", build)
    assert during == [False] and gc.isenabled()  # off while it was made, on again after
    assert gc.get_freeze_count() >= frozen + len(table)
    gc.disable()  # a caller that had it off keeps it off
    try:
        cached_table("more-pairs", "1", build)
        assert not gc.isenabled()
    finally:
        gc.enable()
