"""QAP-match accuracy per persona and in total (Reichenpfader et al., eq. 1)."""

from __future__ import annotations

from collections import Counter

from simpop.models import GroupAccuracy, Score
from simpop.report.stats import wilson_interval


def accuracy(scores: list[Score], group: str) -> GroupAccuracy:
    """Total accuracy = correctly answered variations / all variations asked.

    Excluded cells do not count; a no-answer counts as an error, as in the paper.
    """
    labels = Counter(s.label for s in scores if s.excluded is None)
    n = sum(labels.values())
    correct = labels["correct"]
    interval = wilson_interval(correct, n)
    return GroupAccuracy(
        group=group,
        n=n,
        correct=correct,
        wrong=labels["wrong"],
        no_answer=labels["no_answer"],
        accuracy=correct / n if n else None,
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
    )


def accuracy_by_persona(
    scores: list[Score], persona_ids: list[str]
) -> tuple[list[GroupAccuracy], GroupAccuracy]:
    """One row per persona (in the order given) and the total row."""
    rows = [accuracy([s for s in scores if s.persona_id == pid], pid) for pid in persona_ids]
    return rows, accuracy(scores, "total")


def excluded_counts(scores: list[Score]) -> dict[str, int]:
    """How many cells were left out of accuracy, by reason."""
    return dict(Counter(s.excluded for s in scores if s.excluded))
