"""Running a stage's jobs together, with a progress bar per stage."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from typing import Any

from rich.progress import Progress

# the plan's stages (``estimate``), in the order an item passes them; a progress bar names its
# stage so the display can share the LLM's time between the stages (``cli.shared_llm``)
WRITE_QUESTIONS, PATIENT_TURNS = "write questions", "patient turns"
BOT_ANSWERS, JUDGES, REASONS = "bot answers", "judges", "reasons"


def stage_progress(
    progress: Progress | None, label: str, total: int, done: int, stage: str | None = None
) -> Callable[[], None]:
    """A progress bar for one stage (``stage``: the plan's stage whose LLM calls it makes);
    returns the function that advances it by one."""
    if progress is None:
        return lambda: None
    task = progress.add_task(label, total=total, completed=done, resumed=done, stage=stage)
    return lambda: progress.advance(task)


@asynccontextmanager
async def first_failure() -> AsyncIterator[asyncio.TaskGroup]:
    """A task group whose first failure cancels the rest and is raised as it is (not inside an
    exception group, so callers catch the error they know)."""
    try:
        async with asyncio.TaskGroup() as group:
            yield group
    except BaseExceptionGroup as errors:
        first: BaseException = errors
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


async def gather_all(jobs: Iterable[Coroutine[Any, Any, None]], limit: int | None = None) -> None:
    """Run jobs together, at most ``limit`` at once (taking the next from ``jobs`` as one
    ends, so a lazy iterable is never held whole); the first unexpected failure cancels the
    rest and is raised."""
    room = asyncio.Semaphore(limit) if limit is not None else None
    pending = iter(jobs)
    try:
        async with first_failure() as group:
            while True:
                if room is not None:
                    await room.acquire()  # before the next job is made
                job = next(pending, None)
                if job is None:
                    break
                task = group.create_task(job)
                if room is not None:
                    task.add_done_callback(lambda _: room.release())
    finally:
        for job in pending:  # never started: close, so Python does not warn it was never awaited
            job.close()
