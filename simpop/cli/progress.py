"""Progress of long work: rich bars in a terminal; elsewhere (CI logs, a pipe, ``nohup``) a
plain line per stage every ``LINE_EVERY_S`` seconds or 5 % of it, and when it ends. Rates and
times left are averaged since the stage started in this process (rich's 30-second window read
17,000/s when a burst of cached cells landed at once)."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

LINE_EVERY_S = 10.0
STEPS = 20  # a line every 5 % of a stage


def rate(task: Task) -> float | None:
    """Items a second since the stage started (items done before it, on resume, left out)."""
    done = task.completed - task.fields.get("resumed", 0)
    return done / task.elapsed if task.elapsed and done > 0 else None


def time_left(task: Task) -> float | None:
    speed = rate(task)
    return (task.total - task.completed) / speed if speed and task.total is not None else None


def duration(seconds: float | None) -> str:
    """``1h 02m``, ``9m 40s``, ``12s``; ``–`` when unknown."""
    if seconds is None:
        return "–"
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = rate(task)
        return Text(f"{speed:.1f}/s" if speed else "–/s", style="progress.data.speed")


class TimeLeftColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        left = 0.0 if task.finished else time_left(task)
        return Text(f"eta {duration(left)}", style="progress.remaining")


class LineProgress(Progress):
    """Progress outside a terminal: plain lines on stderr, no bars."""

    def __init__(self, console: Console) -> None:
        super().__init__(console=console, disable=True)
        self._shown: dict[TaskID, tuple[float, int]] = {}  # when, and at which step of the share
        self._ticker: threading.Thread | None = None
        self._stopped = threading.Event()

    def add_task(self, description: str, *args: Any, **kwargs: Any) -> TaskID:
        task_id = super().add_task(description, *args, **kwargs)
        self._shown[task_id] = (time.monotonic(), self._step(self._tasks[task_id]))
        return task_id

    @staticmethod
    def _step(task: Task) -> int:
        return int(task.completed * STEPS // task.total) if task.total else 0

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        task = self._tasks[task_id]
        when, step = self._shown[task_id]
        if task.finished or self._step(task) > step or time.monotonic() - when >= LINE_EVERY_S:
            self._line(task)

    def _line(self, task: Task) -> None:
        self._shown[task.id] = (time.monotonic(), self._step(task))
        total = int(task.total or 0)
        head = f"{task.description}: {int(task.completed)}/{total}"
        if task.finished:
            text = f"{head} done in {duration(task.elapsed)}"
        else:
            share = f" ({task.completed / total:.0%})" if total else ""
            speed = rate(task)
            text = f"{head}{share}, {f'{speed:.1f}/s' if speed else '–/s'}, {duration(time_left(task))} left"
        print(text, file=sys.stderr, flush=True)

    def _tick(self) -> None:
        """A line for every unfinished stage quiet for ``LINE_EVERY_S``: a slow stage is not
        silent."""
        while not self._stopped.wait(1.0):
            with self._lock:
                due = [
                    t
                    for t in self._tasks.values()
                    if not t.finished and time.monotonic() - self._shown[t.id][0] >= LINE_EVERY_S
                ]
            for task in due:
                self._line(task)

    def start(self) -> None:
        self._stopped.clear()
        self._ticker = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
        self._ticker.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None


def progress_display(console: Console) -> Progress:
    """Bars on ``console`` when it is a terminal, plain lines otherwise."""
    if not console.is_terminal:
        return LineProgress(console)
    return Progress(
        TextColumn("{task.description:<22}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TimeLeftColumn(),
        console=console,
    )
