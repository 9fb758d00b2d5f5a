"""Progress of long work: rich bars in a terminal; elsewhere (CI logs, a pipe, ``nohup``) one
plain line for every stage at work, when one has gone another ``STEP`` of its way (at most every
``LINE_EVERY_S`` seconds) or every ``QUIET_S`` seconds, and a line when a stage ends. Rates are
averaged since the stage started in this process (rich's 30-second window read 17,000/s when a
burst of cached cells landed at once). Times left: where the plan gave its stages' LLM seconds,
from the stages sharing the one LLM (``shared_llm``); else at the stage's own rate over the last
third of its time."""

from __future__ import annotations

import bisect
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

from simpop.cli.shared_llm import RECENT, StageState, own_time_left, times_left

LINE_EVERY_S = 10.0
QUIET_S = 60.0
STEPS = 10  # a line when a stage has gone another 10 % of its way


def pace(speed: float | None) -> str:
    """``2.5/s``, or ``3.0/min`` where fewer than one a second (never ``0.0/s``)."""
    if not speed:
        return "–/s"
    return f"{speed:.1f}/s" if speed >= 0.95 else f"{60 * speed:.1f}/min"


def rate(task: Task) -> float | None:
    """Items a second since the stage started (items done before it, on resume, left out)."""
    done = task.completed - task.fields.get("resumed", 0)
    return done / task.elapsed if task.elapsed and done > 0 else None


class Samples:
    """Each task's completed count at most once a second, for its rate over the latest
    ``RECENT`` of its time."""

    def __init__(self) -> None:
        self._seen: dict[TaskID, list[tuple[float, float]]] = {}  # (elapsed, completed)

    def add(self, task: Task) -> None:
        seen = self._seen.setdefault(task.id, [(0.0, float(task.fields.get("resumed", 0)))])
        at = task.elapsed or 0.0
        if at - seen[-1][0] >= 1.0 or task.finished:
            seen.append((at, task.completed))

    def recent(self, task: Task, since: float | None = None) -> tuple[float, int] | None:
        """The items done since the sample nearest before the latest ``RECENT`` of the task's
        time began, and the seconds since that sample: items that end together (a burst of the
        server's slots) took the time since the sample before them. With ``since`` (seconds
        into the task), the items done since the sample nearest before it and the seconds
        since ``since`` itself, so that every stage's window is the same stretch of time (a
        stage samples when it advances: between that sample and ``since`` it did nothing)."""
        at = task.elapsed
        if not at:
            return None
        seen = self._seen.get(task.id) or [(0.0, float(task.fields.get("resumed", 0)))]
        begin = at * (1 - RECENT) if since is None else since
        then, done = seen[max(0, bisect.bisect_right(seen, begin, key=lambda s: s[0]) - 1)]
        return at - (then if since is None else max(then, min(since, at))), int(task.completed - done)


def stage_state(
    task: Task, cost: float | None = None, samples: Samples | None = None, since: float | None = None
) -> StageState:
    resumed = task.fields.get("resumed", 0)
    recent = samples.recent(task, since) if samples is not None else None
    return StageState(int(task.total or 0), int(task.completed), resumed, task.elapsed or 0.0, cost, recent)


def window_start(tasks: list[Task]) -> float | None:
    """When the latest ``RECENT`` of the stages' time together began (the clock of ``tasks``):
    the stages' rates are then taken over the same seconds, so that a stage with nothing done
    yet (the judges, early on) does not stretch the window of one with work done."""
    started = [(t.start_time, t.start_time + (t.elapsed or 0.0)) for t in tasks if t.start_time is not None]
    if not started:
        return None
    first, now = min(s for s, _ in started), max(e for _, e in started)
    return now - RECENT * (now - first)


def modelled_times_left(
    tasks: list[Task], plan: dict[str, float | None], samples: Samples | None = None
) -> dict[TaskID, float | None]:
    """Each task's time left: the tasks that name a stage of ``plan`` (its LLM seconds per
    stage) modelled together in the plan's order, the others at their own recent rate."""
    order = list(plan)
    chain = sorted(
        (t for t in tasks if t.fields.get("stage") in plan), key=lambda t: order.index(t.fields["stage"])
    )
    begin = window_start(chain)
    states = []
    for task in chain:
        seconds = plan[task.fields["stage"]]
        left_to_do = max(1, int(task.total or 0) - task.fields.get("resumed", 0))
        since = None if begin is None or task.start_time is None else begin - task.start_time
        states.append(stage_state(task, None if seconds is None else seconds / left_to_do, samples, since))
    found = dict(zip((t.id for t in chain), times_left(states), strict=True))
    return {
        t.id: found[t.id] if t.id in found else own_time_left(stage_state(t, None, samples)) for t in tasks
    }


class SampledProgress(Progress):
    """Progress that keeps each task's recent rate and the run's plan, for the times left."""

    def __init__(self, *args: Any, plan: dict[str, float | None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plan = plan or {}
        self.samples = Samples()
        self._modelled: tuple[float, tuple[float, ...], dict[TaskID, float | None]] = (0.0, (), {})

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        with self._lock:
            self.samples.add(self._tasks[task_id])

    def times_left(self) -> dict[TaskID, float | None]:
        """Each task's time left, modelled again when a task has advanced or a second has
        passed (bars redraw ten times a second; a burst of items shown with the time left from
        before it read 4 minutes where 13 seconds were left)."""
        when, counts, found = self._modelled
        tasks = self.tasks
        now = tuple(t.completed for t in tasks)
        if now != counts or time.monotonic() - when >= 1.0:  # a new task changes the counts too
            found = modelled_times_left(tasks, self.plan, self.samples)
            self._modelled = (time.monotonic(), now, found)
        return found


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
        return Text(pace(rate(task)), style="progress.data.speed")


class TimeLeftColumn(ProgressColumn):
    def __init__(self) -> None:
        super().__init__()
        self.progress: SampledProgress | None = None

    def render(self, task: Task) -> Text:
        left: float | None = 0.0
        if not task.finished and self.progress is not None:
            left = self.progress.times_left().get(task.id)
        return Text(f"eta {duration(left)}", style="progress.remaining")


class LineProgress(SampledProgress):
    """Progress outside a terminal: plain lines on stderr, no bars; one line tells every stage."""

    def __init__(self, console: Console, plan: dict[str, float | None] | None = None, **kwargs: Any) -> None:
        super().__init__(console=console, disable=True, plan=plan, **kwargs)
        self._shown_at = self.get_time()
        self._steps: dict[TaskID, int] = {}  # each stage's step at the last line
        self._ticker: threading.Thread | None = None
        self._stopped = threading.Event()

    def add_task(self, description: str, *args: Any, **kwargs: Any) -> TaskID:
        task_id = super().add_task(description, *args, **kwargs)
        self._steps[task_id] = self._step(self._tasks[task_id])
        return task_id

    @staticmethod
    def _step(task: Task) -> int:
        return int(task.completed * STEPS // task.total) if task.total else 0

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        task = self._tasks[task_id]
        if task.finished:
            print(
                f"{task.description}: {int(task.completed)}/{int(task.total or 0)} done in "
                f"{duration(task.elapsed)}",
                file=sys.stderr,
                flush=True,
            )
        elif self._step(task) > self._steps[task_id] and self.get_time() - self._shown_at >= LINE_EVERY_S:
            self._line()

    def _line(self) -> None:
        """Every unfinished stage that has begun: how far, how fast, how long left."""
        self._shown_at = self.get_time()
        at_work = [t for t in self.tasks if not t.finished and (t.completed or t.elapsed)]
        left = self.times_left()
        parts = []
        for task in at_work:
            self._steps[task.id] = self._step(task)
            total = int(task.total or 0)
            share = f" ({task.completed / total:.0%})" if total else ""
            parts.append(
                f"{task.description}: {int(task.completed)}/{total}{share}, {pace(rate(task))}, "
                f"{duration(left.get(task.id))} left"
            )
        if parts:
            print(" · ".join(parts), file=sys.stderr, flush=True)

    def _tick(self) -> None:
        """A line every ``QUIET_S`` seconds at least: a slow stage is not silent."""
        while not self._stopped.wait(1.0):
            if self.get_time() - self._shown_at >= QUIET_S:
                with self._lock:
                    due = any(not t.finished for t in self._tasks.values())
                if due:
                    self._line()

    def start(self) -> None:
        self._stopped.clear()
        self._ticker = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
        self._ticker.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None


def progress_display(console: Console, plan: dict[str, float | None] | None = None) -> Progress:
    """Bars on ``console`` when it is a terminal, plain lines otherwise. ``plan``: the LLM
    seconds the run's plan gave each of its stages (None: not known)."""
    if not console.is_terminal:
        return LineProgress(console, plan)
    left = TimeLeftColumn()
    bars = SampledProgress(
        TextColumn("{task.description:<22}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        left,
        console=console,
        plan=plan,
    )
    left.progress = bars
    return bars
