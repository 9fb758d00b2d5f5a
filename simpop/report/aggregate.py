"""Scores summarised per persona and in total: QAP-match accuracy (Reichenpfader et al.,
eq. 1) and the mean of every other metric, each with a 95% interval."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict

from simpop.models import GroupAccuracy, GroupMean, Score
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


def metric_values(score: Score) -> dict[str, float | None]:
    """A score's numbers by metric name: ``family`` for a single value, ``family.name`` for
    each value of a family (e.g. ``retrieval.recall``)."""
    if score.values:
        return {f"{score.metric}.{name}": value for name, value in score.values.items()}
    return {score.metric: score.value}


def mean(values: list[float], group: str, metric: str) -> GroupMean:
    """Mean with a 95% interval: Wilson for 0/1 values, else the normal approximation."""
    n = len(values)
    if n == 0:
        return GroupMean(group=group, metric=metric, n=0, mean=None, ci_low=None, ci_high=None)
    average = sum(values) / n
    if all(v in (0.0, 1.0) for v in values):
        low, high = wilson_interval(int(sum(values)), n) or (None, None)
    elif n > 1:
        sd = statistics.stdev(values)
        low, high = average - 1.96 * sd / math.sqrt(n), average + 1.96 * sd / math.sqrt(n)
    else:
        low = high = None
    return GroupMean(group=group, metric=metric, n=n, mean=average, ci_low=low, ci_high=high)


def means_by_persona(scores: list[Score], persona_ids: list[str]) -> list[GroupMean]:
    """For every metric, one row per persona (in the order given) and a ``total`` row.

    Excluded scores and undefined values (``None``) are left out of the mean and of ``n``.
    """
    collected: dict[tuple[str, str], list[float]] = defaultdict(list)
    metrics: list[str] = []
    for score in scores:
        if score.excluded:
            continue
        for metric, value in metric_values(score).items():
            if metric not in metrics:
                metrics.append(metric)
            if value is not None:
                collected[(metric, score.persona_id)].append(value)
                collected[(metric, "total")].append(value)
    return [mean(collected[(m, group)], group, m) for m in metrics for group in [*persona_ids, "total"]]
