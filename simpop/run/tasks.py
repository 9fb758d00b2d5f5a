"""Running a stage's jobs together, with a progress bar per stage."""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Awaitable, Callable, Iterable

from rich.progress import Progress


def stage_progress(progress: Progress | None, label: str, total: int, done: int) -> Callable[[], None]:
    """A progress bar for one stage; returns the function that advances it by one."""
    if progress is None:
        return lambda: None
    task = progress.add_task(label, total=total, completed=done, resumed=done)
    return lambda: progress.advance(task)


async def gather_all(jobs: Iterable[Awaitable[None]], limit: int | None = None) -> None:
    """Run jobs together, at most ``limit`` at once (taking the next from ``jobs`` as one
    ends, so a lazy iterable is never held whole); the first unexpected failure cancels the
    rest and is raised."""
    pending = iter(jobs)
    tasks: set[asyncio.Future[None]] = set()
    try:
        while True:
            for job in itertools.islice(pending, None if limit is None else limit - len(tasks)):
                tasks.add(asyncio.ensure_future(job))
            if not tasks:
                return
            done, tasks = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for job in pending:  # never started: close, so Python does not warn it was never awaited
            if inspect.iscoroutine(job):
                job.close()
