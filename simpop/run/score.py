"""Score: every registered metric that applies to a probe scores the bot's response to it (the
judged ones only when the judges are on). A cell that cannot be scored is recorded with why."""

from __future__ import annotations

import asyncio

from rich.progress import Progress

from simpop.metrics import Case, Metric, Scorers, registered
from simpop.metrics.texts import answer_contexts, context_text
from simpop.models import Score
from simpop.run.tasks import gather_all, stage_progress
from simpop.store import JsonlLog


def excluded_score(case: Case, metric: Metric) -> Score:
    return Score(**case.probe.cell_ids(), metric=metric.name, value=None, excluded=case.excluded)


async def judge_case(
    case: Case, metrics: list[Metric], scorers: Scorers, done: dict[str, Score]
) -> list[Score]:
    """The scores of ``metrics`` that apply to ``case`` and are not in ``done`` (its scores by
    metric): together, except that a metric waits for the ones it needs."""
    todo = [m for m in metrics if m.applies(case) and m.name not in done]
    if case.excluded:
        return [excluded_score(case, m) for m in todo]
    new: list[Score] = []
    while todo:
        waiting = {m.name for m in todo}
        ready = [m for m in todo if not waiting.intersection(m.needs)]
        results = await asyncio.gather(*(m.score([case], scorers, [done]) for m in ready))
        for [score] in results:
            new.append(score)
            done = done | {score.metric: score}
        todo = [m for m in todo if m not in ready]
    return new


def shared_prefix(case: Case) -> tuple[str, str]:
    """What a case's judge prompts begin with: the context it was answered from, the answer."""
    return context_text(answer_contexts(case.response)), case.response.answer or ""


async def score_cases(
    cases: list[Case],
    scores: JsonlLog[Score],
    scorers: Scorers,
    *,
    judges: bool,
    concurrency: int,
    progress: Progress | None = None,
) -> None:
    """Score every case with every metric that has no score for it yet."""
    metrics = [m for m in registered() if judges or not m.judged]

    def done(case: Case) -> dict[str, Score]:
        cell = case.probe.cell_id
        return {m.name: s for m in metrics if (s := scores.records.get(f"{cell}/{m.name}")) is not None}

    # metrics without a judge: each over all of its cases at once (one embedding batch)
    for metric in (m for m in metrics if not m.judged):
        todo = [
            c for c in cases if metric.applies(c) and f"{c.probe.cell_id}/{metric.name}" not in scores.records
        ]
        ready = [c for c in todo if not c.excluded]
        new = [excluded_score(c, metric) for c in todo if c.excluded]
        new += await metric.score(ready, scorers, [done(c) for c in ready])
        for score in new:
            scores.append(score)
    judged = [m for m in metrics if m.judged]
    if not judged:
        return

    def pending(case: Case) -> bool:
        recorded = done(case)
        return any(m.applies(case) and m.name not in recorded for m in judged)

    # answers with the same context and answer one after another: their judge prompts share a
    # prefix the server has just read (a QAP bot gives one answer to all variants of a question)
    todo = sorted((c for c in cases if pending(c)), key=shared_prefix)
    advance = stage_progress(progress, "judge answers", len(cases), len(cases) - len(todo))
    # a few probes at a time, so each finishes (and is written) before the next starts
    semaphore = asyncio.Semaphore(concurrency)

    async def one(case: Case) -> None:
        async with semaphore:
            new = await judge_case(case, judged, scorers, done(case))
        for score in new:
            scores.append(score)
        advance()

    await gather_all([one(case) for case in todo])
