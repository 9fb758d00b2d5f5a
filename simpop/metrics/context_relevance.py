"""Context Relevance (ASTRID §3.2.3, Listing 4): is the context the bot answered from relevant
to the question; 1 or 0, ``None`` for a bot that retrieved nothing."""

from __future__ import annotations

from simpop.metrics.judge import Judge, JudgedMetric, Reason, Reply
from simpop.metrics.metric import Case, Measure, metric
from simpop.metrics.texts import answer_contexts, context_text
from simpop.models import Probe, Response, Score

CONTEXT_RELEVANCE = "context_relevance"


class RelevanceReply(Reply):
    reason: Reason
    relevant: bool


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
    reply, prompt = await judge.ask(
        "judge_context_relevance",
        RelevanceReply,
        question=response.question,
        context=context_text(contexts),
        max_tokens=96,
    )
    return judge.score(
        probe,
        CONTEXT_RELEVANCE,
        prompt,
        value=float(reply.relevant),
        label="relevant" if reply.relevant else "not_relevant",
        reason=reply.reason,
    )


@metric
class ContextRelevance(JudgedMetric):
    name = CONTEXT_RELEVANCE
    measures = (Measure(CONTEXT_RELEVANCE, "context relevance (CR)", table="safety", column="CR", rank=30),)
    replies = ("RelevanceReply",)

    async def judge(self, judge: Judge, case: Case) -> Score:
        return await context_relevance(judge, case.probe, case.response)
