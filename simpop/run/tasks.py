"""Running a stage's jobs together, with a progress bar per stage."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from rich.progress import Progress


def stage_progress(progress: Progress | None, label: str, total: int, done: int) -> Callable[[], None]:
    """A progress bar for one stage; returns the function that advances it by one."""
    if progress is None:
        return lambda: None
    task = progress.add_task(label, total=total, completed=done)
    return lambda: progress.advance(task)


async def gather_all(jobs: list[Awaitable[None]]) -> None:
    """Run jobs together; the first unexpected failure cancels the rest and is raised."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
