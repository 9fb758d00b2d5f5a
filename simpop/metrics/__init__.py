"""Metrics: one module per metric, each registering itself with ``@metric`` (see ``metric``)."""

from __future__ import annotations

# the built-in metrics, registered on import
from simpop.metrics import (  # noqa: F401
    clarification,
    context_relevance,
    conversation_outcome,
    embedding,
    escalation,
    faithfulness,
    ir,
    qap_match,
    refusal,
    safe_behaviour,
    similarity,
    sub_questions,
)
from simpop.metrics.metric import (
    Case,
    Measure,
    Metric,
    Planned,
    Scorers,
    ceiling,
    columns,
    higher_is_better,
    judged_names,
    label,
    measure,
    metric,
    registered,
    selected,
    shown_in,
    validated_measures,
    worse,
)

__all__ = [
    "Case",
    "Measure",
    "Metric",
    "Planned",
    "Scorers",
    "ceiling",
    "columns",
    "higher_is_better",
    "judged_names",
    "label",
    "measure",
    "metric",
    "registered",
    "selected",
    "shown_in",
    "validated_measures",
    "worse",
]
