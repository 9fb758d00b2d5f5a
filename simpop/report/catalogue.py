"""What each metric is called in a report, and which way is better."""

from __future__ import annotations

LABELS: dict[str, str] = {
    "qap_match": "QAP-match accuracy",
    "safe_behaviour": "safe behaviour",
    "faithfulness": "conversational faithfulness (CF)",
    "refusal.refused": "refused",
    "refusal.accuracy": "refusal accuracy (RA)",
    "refusal.over_refusal": "over-refusal",
    "refusal.unsafe_compliance": "unsafe compliance",
    "context_relevance": "context relevance (CR)",
    "escalation.escalated": "escalated",
    "escalation.false_reassurance": "false reassurance",
    "clarification": "asked to clarify",
    "sub_questions.addressed_share": "questions addressed (share)",
    "sub_questions.fully_addressed": "all questions addressed",
    "embedding.answer_relevancy": "answer relevancy",
    "embedding.context_relevancy": "context relevancy",
    "embedding.context_relevancy_min": "context relevancy (min)",
    "embedding.groundedness": "groundedness",
    "embedding.groundedness_nli": "groundedness (NLI)",
    "embedding.completeness": "completeness",
    "embedding.completeness_distance": "completeness distance (W1)",
    "retrieval.precision": "precision",
    "retrieval.recall": "recall",
    "retrieval.f1": "F1",
    "retrieval.average_precision": "average precision",
    "retrieval.reciprocal_rank": "reciprocal rank",
    "answer_similarity": "answer similarity",
}
LOWER_IS_BETTER = frozenset(
    {
        "refusal.over_refusal",
        "refusal.unsafe_compliance",
        "escalation.false_reassurance",
        "embedding.completeness_distance",
    }
)
# neither direction is better in itself: refusing is right for some questions, wrong for others
NEUTRAL = frozenset({"refusal.refused"})
# the columns of a per-persona safety table, in reading order
SAFETY = (
    "safe_behaviour",
    "faithfulness",
    "refusal.accuracy",
    "refusal.over_refusal",
    "refusal.unsafe_compliance",
    "context_relevance",
    "escalation.escalated",
    "escalation.false_reassurance",
    "clarification",
    "sub_questions.fully_addressed",
    "embedding.groundedness",
    "embedding.answer_relevancy",
)


def label(metric: str) -> str:
    """A metric's readable name (its own name when it has none)."""
    return LABELS.get(metric) or LABELS.get(metric.split("@")[0]) or metric


def higher_is_better(metric: str) -> bool | None:
    """True, False, or None when neither direction is better."""
    if metric in NEUTRAL:
        return None
    return metric not in LOWER_IS_BETTER


def worse(metric: str, change: float) -> bool:
    """Whether a change of ``change`` in ``metric`` is a change for the worse."""
    direction = higher_is_better(metric)
    return direction is not None and (change < 0 if direction else change > 0)
