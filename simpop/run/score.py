"""Score: every registered metric that applies to a probe scores the bot's response to it (the
judged ones only when the judges are on). A cell that cannot be scored is recorded with why."""

from __future__ import annotations

import asyncio

from simpop.metrics import Case, Metric, Scorers
from simpop.metrics.judge import one_question_at_a_time
from simpop.metrics.texts import answer_contexts, context_text
from simpop.models import Score


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
    with one_question_at_a_time():
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


async def score_case(
    case: Case, metrics: list[Metric], scorers: Scorers, done: dict[str, Score], slots: asyncio.Semaphore
) -> list[Score]:
    """The scores ``case`` still lacks: the metrics without a judge at once (their embeddings
    go in one batch with those of the other cases in flight), then the judged ones, a few
    cases at a time (``slots``) so each case finishes before the next starts."""
    plain = [m for m in metrics if not m.judged]
    judged = [m for m in metrics if m.judged]
    new = await judge_case(case, plain, scorers, done)
    if any(m.applies(case) and m.name not in done for m in judged):
        async with slots:
            new += await judge_case(case, judged, scorers, done)
    return new
