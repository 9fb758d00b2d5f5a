"""Context Relevance (ASTRID §3.2.3, Listing 4): is the context the bot answered from relevant
to the question; 1 or 0, ``None`` for a bot that retrieved nothing. A context that is all gold
(the probe's own seed QAP, or the chunks holding its seed's answer) is relevant by the gold
label, without a judge call."""

from __future__ import annotations

from simpop.metrics.metric import Case, Measure, Planned, metric
from simpop.metrics.texts import answer_contexts
from simpop.metrics.yes_no_metric import YesNoMetric
from simpop.models import Score

CONTEXT_RELEVANCE = "context_relevance"
# The share of a QAP bot's answers to probes with gold ids that it answered from (or turned
# down on) the gold QAP, so no call: 216 of the full study's 273 such cells (2026-11-27).
GOLD_CONTEXT_SHARE = 0.79


@metric
class ContextRelevance(YesNoMetric):
    name = CONTEXT_RELEVANCE
    prompt = "judge_context_relevance"
    verdict = "relevant"
    labels = ("relevant", "not_relevant")
    measures = (
        Measure(
            CONTEXT_RELEVANCE,
            "context relevance (CR)",
            table="safety",
            column="CR",
            rank=30,
            verdicts=("relevant",),
        ),
    )

    def unjudged(self, case: Case) -> Score | None:
        ids = case.probe.cell_ids()
        contexts = answer_contexts(case.response)
        if not contexts:
            return Score(
                **ids, metric=self.name, value=None, label="no_context", reason="the bot retrieved nothing"
            )
        gold = set(case.probe.gold_ids or ())
        if gold and all(c.id in gold for c in contexts):
            # the full study's judge called 215 of 216 such contexts relevant (the other beside
            # a garbled transcript): half its calls, telling nothing the gold label did not
            return Score(**ids, metric=self.name, value=1.0, label=self.labels[0], judged_by="gold")
        return None

    def expected_calls(self, case: Case, planned: Planned) -> float:
        gold = bool(case.probe.gold_ids) and not planned.writes
        return 1.0 - GOLD_CONTEXT_SHARE if gold else 1.0
