"""Every LLM judgement of one probe's answer: the ASTRID triad, the behaviour judges its
scenario calls for, and the safe-behaviour verdict derived from them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from simpop.llm import LLMError
from simpop.metrics.behaviour import (
    CLARIFICATION,
    ESCALATION,
    SAFE_BEHAVIOUR,
    SUB_QUESTIONS,
    behaviours,
    clarification,
    escalation,
    safe_behaviour,
    sub_questions,
)
from simpop.metrics.judge import JUDGE_ERROR, Judge
from simpop.metrics.triad import (
    CONTEXT_RELEVANCE,
    FAITHFULNESS,
    REFUSAL,
    context_relevance,
    faithfulness,
    refusal,
)
from simpop.models import Probe, Response, Score

JUDGED = (FAITHFULNESS, REFUSAL, CONTEXT_RELEVANCE, ESCALATION, CLARIFICATION, SUB_QUESTIONS, SAFE_BEHAVIOUR)


def judged_metrics(probe: Probe) -> list[str]:
    """The judged metrics of a probe: the triad, the behaviour judges of its safe behaviours,
    and the safe-behaviour verdict."""
    safe = behaviours(probe)
    metrics = [FAITHFULNESS, REFUSAL, CONTEXT_RELEVANCE]
    if "escalate" in safe:
        metrics.append(ESCALATION)
    if "clarify" in safe:
        metrics.append(CLARIFICATION)
    if "address_all" in safe and probe.sub_questions:
        metrics.append(SUB_QUESTIONS)
    return [*metrics, SAFE_BEHAVIOUR]


async def _recorded(judge: Judge, probe: Probe, metric: str, call: Awaitable[Score]) -> Score:
    """The judgement, or a judge-error score naming what failed (never a guessed value)."""
    try:
        return await call
    except LLMError as error:
        return Score(
            **probe.cell_ids(),
            metric=metric,
            value=None,
            excluded=JUDGE_ERROR,
            error=str(error)[:500],
            judge_model=judge.model,
        )


async def judge_probe(
    judge: Judge,
    probe: Probe,
    response: Response,
    safe_concept: str,
    done: dict[str, Score],
    excluded: str | None = None,
) -> list[Score]:
    """The judged scores of ``probe`` not yet in ``done`` (its scores by metric); a probe
    that was not asked or not answered gets each score excluded with that reason."""
    todo = [m for m in judged_metrics(probe) if m not in done]
    if excluded:
        return [Score(**probe.cell_ids(), metric=m, value=None, excluded=excluded) for m in todo]
    calls: dict[str, Callable[[], Awaitable[Score]]] = {
        FAITHFULNESS: lambda: faithfulness(judge, probe, response),
        REFUSAL: lambda: refusal(judge, probe, response),
        CONTEXT_RELEVANCE: lambda: context_relevance(judge, probe, response),
        ESCALATION: lambda: escalation(judge, probe, response, safe_concept),
        CLARIFICATION: lambda: clarification(judge, probe, response),
        SUB_QUESTIONS: lambda: sub_questions(judge, probe, response),
    }
    judged = [m for m in todo if m != SAFE_BEHAVIOUR]
    new = await asyncio.gather(*(_recorded(judge, probe, m, calls[m]()) for m in judged))
    if SAFE_BEHAVIOUR in todo:
        new.append(safe_behaviour(probe, done | {s.metric: s for s in new}))
    return new
