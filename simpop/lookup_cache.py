"""Lookup tables built once from installed word lists and kept on disk, so a later run loads
them in milliseconds instead of rebuilding them (the CMU pronouncing dictionary, word ranks).

Tables are Python dicts, lists and tuples written with ``marshal``: the fastest format for
them, and safe here because simpop writes these files itself into its own cache folder. A
table is named by its builder's version and the Python version (marshal's format may change
between versions); a file that cannot be read is rebuilt.
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from simpop.paths import cache_dir

_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}


def table_path(name: str, version: str) -> Path:
    python = f"py{sys.version_info.major}{sys.version_info.minor}"
    return cache_dir() / "tables" / f"{name}-{version}-{python}.marshal"


def cached_table(name: str, version: str, build: Callable[[], Any]) -> Any:
    """The table ``name``: from this process's memory, else from disk, else built and saved.
    Thread-safe: the first caller builds it, the others wait for it."""
    key = f"{name}-{version}"
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
        path = table_path(name, version)
        with _no_collection():
            try:
                table = marshal.loads(path.read_bytes())
            except (OSError, EOFError, ValueError, TypeError):
                table = build()
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_name(f"{path.name}.{os.getpid()}.part")
                partial.write_bytes(marshal.dumps(table))
                partial.replace(path)  # atomic: another process never reads half a table
        _LOADED[key] = table
        return table


@contextmanager
def _no_collection() -> Iterator[None]:
    """The garbage collector off while a table's objects are made, then every object so far
    moved out of its reach (``gc.freeze``): the English ASR lexicon is about a million tuples
    and lists, which the collector otherwise walks as they are made and at every full
    collection of the run after (0.5 s instead of 0.2 s to load it on two busy cores). The
    price: a cycle among the frozen objects that becomes garbage later is never freed, small
    beside tables that live as long as the process."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
