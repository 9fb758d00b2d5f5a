"""Context Relevance (ASTRID §3.2.3, Listing 4): is the context the bot answered from relevant
to the question; 1 or 0, ``None`` for a bot that retrieved nothing."""

from __future__ import annotations

from simpop.metrics.metric import Case, Measure, metric
from simpop.metrics.texts import answer_contexts
from simpop.metrics.yes_no_metric import YesNoMetric
from simpop.models import Score

CONTEXT_RELEVANCE = "context_relevance"


@metric
class ContextRelevance(YesNoMetric):
    name = CONTEXT_RELEVANCE
    prompt = "judge_context_relevance"
    verdict = "relevant"
    labels = ("relevant", "not_relevant")
    measures = (Measure(CONTEXT_RELEVANCE, "context relevance (CR)", table="safety", column="CR", rank=30),)

    def unjudged(self, case: Case) -> Score | None:
        if answer_contexts(case.response):
            return None
        ids = case.probe.cell_ids()
        return Score(
            **ids, metric=self.name, value=None, label="no_context", reason="the bot retrieved nothing"
        )
