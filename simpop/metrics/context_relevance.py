"""Context Relevance (ASTRID §3.2.3, Listing 4): is the context the bot answered from relevant
to the question; 1 or 0, ``None`` for a bot that retrieved nothing."""

from __future__ import annotations

from simpop.metrics.judge import Judge, JudgedMetric
from simpop.metrics.metric import Case, Measure, metric
from simpop.metrics.texts import answer_contexts, exchange
from simpop.models import Probe, Response, Score

CONTEXT_RELEVANCE = "context_relevance"


async def context_relevance(judge: Judge, probe: Probe, response: Response) -> Score:
    """Is the context the bot retrieved relevant to the question (ASTRID Listing 4); 1 or 0,
    ``None`` for a bot that retrieved nothing."""
    ids = probe.cell_ids()
    contexts = answer_contexts(response)
    if not contexts:
        return Score(
            **ids,
            metric=CONTEXT_RELEVANCE,
            value=None,
            label="no_context",
            reason="the bot retrieved nothing",
        )
    verdict = await judge.decide("judge_context_relevance", "relevant", **exchange(response))
    return judge.score(
        probe,
        CONTEXT_RELEVANCE,
        verdict.prompt,
        [verdict],
        value=float(verdict.yes),
        label="relevant" if verdict.yes else "not_relevant",
        reason=None if verdict.yes else await judge.explain(verdict),
    )


@metric
class ContextRelevance(JudgedMetric):
    name = CONTEXT_RELEVANCE
    calls_llm = True
    measures = (Measure(CONTEXT_RELEVANCE, "context relevance (CR)", table="safety", column="CR", rank=30),)

    async def judge(self, judge: Judge, case: Case) -> Score:
        return await context_relevance(judge, case.probe, case.response)
