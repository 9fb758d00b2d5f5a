"""When each running stage will finish, given that the stages share one LLM (issue 45).

A stage's own average rate misleads where stages share the LLM: question writing runs alone
at first, then slows to half its pace once the judges have answers to judge, and its last
groups take several times what its average said. So the stages are modelled together:

- each stage's items cost the plan's LLM seconds per item (``cost``; 0 for a stage that calls
  no LLM, such as a QAP bot);
- the LLM's pace here is measured as the wall seconds the run has taken per planned LLM second
  of the work done in the last third of its time, the same seconds for every stage (the plan's
  own error and a busy machine both land in it; a run slowed at its start by other work, or by
  loading, does not weigh on the rest), with the plan's own pace counted as ``PRIOR_ITEMS`` more
  items done: the items of a stage end in bursts of the server's slots, so a short window (the
  main command's first minutes) holds one burst or none;
- the LLM's time is shared between the stages that have work waiting (an equal share each, a
  stage needing less leaving the rest to the others), and a stage's items reach it only as the
  stage before it finishes them; a stage that calls no LLM passes them on at once, but where
  items wait for it, never faster than its own recent rate says (where none wait, its rate is
  the stage before it's).

Stepping this forward from now gives each stage's finish time."""

from __future__ import annotations

from dataclasses import dataclass

STEPS = 600  # steps of the simulated remainder: a 2-hour remainder in 18-second steps
RECENT = 1 / 3  # the share of a stage's time, the latest, whose rate counts
PRIOR_ITEMS = 8  # two bursts of the embedded server's four slots


@dataclass(frozen=True)
class StageState:
    """One stage as the progress display knows it, in pipeline order."""

    total: int
    done: int
    resumed: int  # done before this process started
    elapsed: float  # seconds since the stage started
    cost: float | None  # planned LLM seconds per item; None: not known
    recent: tuple[float, int] | None = None  # the last RECENT of ``elapsed``, and the items done in it

    @property
    def window(self) -> tuple[float, int]:
        """Seconds and the items done in them: the recent ones where known, else all since the start."""
        return self.recent if self.recent is not None else (self.elapsed, self.done - self.resumed)


def own_time_left(stage: StageState) -> float | None:
    """The stage's remainder at its recent rate (at its rate since the start if it did nothing
    recently)."""
    seconds, done = stage.window
    if done <= 0:
        seconds, done = stage.elapsed, stage.done - stage.resumed
    if done <= 0 or seconds <= 0:
        return None
    return (stage.total - stage.done) * seconds / done


def pace(stages: list[StageState]) -> float | None:
    """Wall seconds per planned LLM second: the run's recent time over the LLM work done in it,
    both with ``PRIOR_ITEMS`` of the costliest stage's items added at the plan's pace (1)."""
    llm = [s for s in stages if s.cost]
    if not llm:
        return None
    work = sum(s.window[1] * s.cost for s in llm)  # type: ignore[operator]
    wall = max(s.window[0] for s in llm)
    prior = PRIOR_ITEMS * max(s.cost for s in llm)  # type: ignore[type-var]
    return (wall + prior) / (work + prior)


def _shares(demands: list[float], capacity: float) -> list[float]:
    """Max-min fair shares of ``capacity`` for ``demands`` (water-filling)."""
    given = [0.0] * len(demands)
    left = capacity
    order = sorted((i for i, d in enumerate(demands) if d > 0), key=demands.__getitem__)
    for n, i in enumerate(order):
        given[i] = min(demands[i], left / (len(order) - n))
        left -= given[i]
    return given


def times_left(stages: list[StageState]) -> list[float | None]:
    """Seconds until each stage finishes; a stage's own recent rate where the model cannot say
    (no plan cost, no LLM work done yet)."""
    own = [own_time_left(s) for s in stages]
    k = pace(stages)
    if k is None or any(s.cost is None for s in stages):
        return own
    done = [float(s.done) for s in stages]
    totals = [float(s.total) for s in stages]
    # LLM seconds still to spend, in wall seconds, sets the step
    work = sum((t - d) * s.cost for s, t, d in zip(stages, totals, done, strict=True) if s.cost) * k
    if work <= 0:
        return own
    step = max(work * 1.5 / STEPS, 1e-3)
    finished: list[float | None] = [0.0 if d >= t else None for d, t in zip(done, totals, strict=True)]
    llm = [i for i, s in enumerate(stages) if s.cost]
    now = 0.0
    while any(f is None for f in finished) and now < step * STEPS * 4:
        now += step
        waiting = [
            (totals[0] - done[0]) if i == 0 else max(0.0, min(done[i - 1], totals[i]) - done[i])
            for i in range(len(stages))
        ]
        # upstream stages that have finished release everything they will ever pass on
        for i in range(1, len(stages)):
            if finished[i - 1] is not None:
                waiting[i] = totals[i] - done[i]
        given = _shares([waiting[i] * stages[i].cost * k for i in llm], step)  # type: ignore[operator]
        for i, seconds in zip(llm, given, strict=True):
            done[i] += seconds / (stages[i].cost * k)  # type: ignore[operator]
        for i, s in enumerate(stages):
            if not s.cost:
                done[i] += waiting[i]
            if finished[i] is None and done[i] >= totals[i] - 1e-6:
                finished[i] = now
    backlog = [i > 0 and stages[i - 1].done > s.done for i, s in enumerate(stages)]
    return [
        None if f is None else max(f, o) if not s.cost and o is not None and waits else f
        for s, f, o, waits in zip(stages, finished, own, backlog, strict=True)
    ]
