"""Processes spinning on the CPU beside a measurement, for the bench scripts' loaded figures."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from contextlib import contextmanager


def spin(stop: multiprocessing.Event) -> None:  # type: ignore[valid-type]
    while not stop.is_set():  # type: ignore[attr-defined]
        sum(i * i for i in range(10_000))


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` spinning processes while the block runs."""
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=spin, args=(stop,)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        stop.set()
        for worker in workers:
            worker.join()
