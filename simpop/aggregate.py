"""Scores summarised per persona, per scenario, per persona × scenario and in total: QAP-match
accuracy (Reichenpfader et al., eq. 1) and the mean of every other metric, each with a 95%
interval; and how well predicted probabilities match outcomes (reliability bins, ECE)."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np

from simpop.models import GroupAccuracy, GroupMean, Score

Z_95 = 1.959963984540054


def is_rate(values: Iterable[float]) -> bool:
    """Whether every value is 0 or 1: a proportion, with a Wilson interval."""
    return all(v in (0.0, 1.0) for v in values)


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """Wilson score interval for a binomial proportion (Wilson, JASA 1927; Brown, Cai &
    DasGupta, Stat. Sci. 2001, eq. 4): centre (p + z^2/2n) / (1 + z^2/n), half-width
    z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n). None when n = 0."""
    if n == 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} not within 0..{n}")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At p = 0 and p = 1 the bound is exactly 0 or 1; say so rather than leave rounding error.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def accuracy(scores: Iterable[Score], group: str) -> GroupAccuracy:
    """Total accuracy = correctly answered variations / all variations asked.

    Excluded cells do not count; a no-answer counts as an error, as in the paper.
    """
    return _accuracy(Counter(s.label for s in scores if s.excluded is None), group)


def _accuracy(labels: Counter[str | None], group: str) -> GroupAccuracy:
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
    scores: Iterable[Score], persona_ids: list[str]
) -> tuple[list[GroupAccuracy], GroupAccuracy]:
    """One row per persona (in the order given) and the total row (the scores read once)."""
    labels: dict[str, Counter[str | None]] = {pid: Counter() for pid in persona_ids}
    total: Counter[str | None] = Counter()
    for score in scores:
        if score.excluded is None:
            total[score.label] += 1
            if score.persona_id in labels:
                labels[score.persona_id][score.label] += 1
    return [_accuracy(labels[pid], pid) for pid in persona_ids], _accuracy(total, "total")


def excluded_counts(scores: list[Score]) -> dict[str, int]:
    """How many cells were left out of accuracy, by reason."""
    return dict(Counter(s.excluded for s in scores if s.excluded))


def metric_values(score: Score) -> dict[str, float | None]:
    """A score's numbers by metric name: ``family`` for a single value, ``family.name`` for
    each value of a family (e.g. ``retrieval.recall``)."""
    if score.values:
        return {f"{score.metric}.{name}": value for name, value in score.values.items()}
    return {score.metric: score.value}


def bootstrap_interval(
    values: list[float], resamples: int = 2000, seed: int = 0
) -> tuple[float, float] | None:
    """Percentile bootstrap 95% interval of a mean (Efron & Tibshirani, *An Introduction to
    the Bootstrap*, 1993, §13.3): the 2.5th and 97.5th percentiles of the means of
    ``resamples`` resamples drawn with replacement. None for fewer than two values."""
    if len(values) < 2:
        return None
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    # an even number of resamples at a time, about a million draws: the same resamples as all
    # at once (the generator's stream does not depend on how it is split), in bounded memory
    chunk = max(2, min(resamples, (1_000_000 // len(data)) // 2 * 2))
    means = np.concatenate(
        [
            data[rng.integers(0, len(data), size=(min(chunk, resamples - start), len(data)))].mean(axis=1)
            for start in range(0, resamples, chunk)
        ]
    )
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def mean(
    values: list[float],
    group: str,
    metric: str,
    rate: bool,
    persona_id: str | None = None,
    scenario_id: str | None = None,
    seed: int = 0,
) -> GroupMean:
    """Mean with a 95% interval: Wilson for a rate (0/1 values), else the percentile bootstrap
    (``seed``: the run's, so a run and its rerun draw the same resamples)."""
    n = len(values)
    average = sum(values) / n if n else None
    interval = (
        (wilson_interval(int(sum(values)), n) if n else None)
        if rate
        else bootstrap_interval(values, seed=seed)
    )
    low, high = interval or (None, None)
    return GroupMean(
        group=group,
        metric=metric,
        n=n,
        mean=average,
        ci_low=low,
        ci_high=high,
        interval=("wilson" if rate else "bootstrap") if interval else None,
        persona_id=persona_id,
        scenario_id=scenario_id,
    )


TOTAL = "total"


class MetricTally:
    """Every metric's values per persona, scenario, pair and in total, gathered one score at a
    time in compact arrays (a 100k-cell run's are tens of MB), then put in a canonical order:
    by cell id (``rank``: a cell id's place among the run's sorted ids), so the bootstrap
    resamples the same values whatever order the scores were written in."""

    def __init__(self, rank: Callable[[str], int]) -> None:
        self.rank = rank
        self.values: dict[tuple[str, str, str], tuple[array, array]] = {}
        self.first: dict[str, tuple[int, str, int]] = {}  # where each metric is first seen

    def add(self, score: Score) -> None:
        """Count ``score`` (excluded scores and undefined values are left out)."""
        if score.excluded:
            return
        rank = self.rank(score.cell_id)
        for place, (metric, value) in enumerate(metric_values(score).items()):
            seen = (rank, score.metric, place)
            if metric not in self.first or seen < self.first[metric]:
                self.first[metric] = seen
            if value is None:
                continue
            for key in (
                (metric, score.persona_id, ""),
                (metric, TOTAL, ""),
                (metric, "", score.scenario_id),
                (metric, score.persona_id, score.scenario_id),
            ):
                ranks, values = self.values.setdefault(key, (array("q"), array("d")))
                ranks.append(rank)
                values.append(value)

    def ordered(self, key: tuple[str, str, str]) -> list[float]:
        """The values of ``key`` in cell-id order."""
        if key not in self.values:
            return []
        ranks, values = (np.frombuffer(a, dtype=a.typecode) for a in self.values[key])
        return values[np.argsort(ranks, kind="stable")].tolist()

    def means(
        self, persona_ids: list[str], scenario_ids: list[str], seed: int = 0
    ) -> tuple[list[GroupMean], list[GroupMean], list[GroupMean]]:
        """As ``metric_means``."""
        metrics = sorted(self.first, key=self.first.__getitem__)
        rates = {m for m in metrics if all(v in (0.0, 1.0) for v in self.ordered((m, TOTAL, "")))}

        def row(m: str, p: str, s: str, group: str) -> GroupMean:
            return mean(
                self.ordered((m, p, s)),
                group,
                m,
                m in rates,
                persona_id=None if p in ("", TOTAL) else p,
                scenario_id=s or None,
                seed=seed,
            )

        by_persona = [row(m, p, "", p) for m in metrics for p in [*persona_ids, TOTAL]]
        by_scenario = [row(m, "", s, s) for m in metrics for s in scenario_ids]
        by_pair = [
            row(m, p, s, f"{p} × {s}")
            for m in metrics
            for p in persona_ids
            for s in scenario_ids
            if (m, p, s) in self.values
        ]
        return by_persona, by_scenario, by_pair


def metric_means(
    scores: list[Score], persona_ids: list[str], scenario_ids: list[str], seed: int = 0
) -> tuple[list[GroupMean], list[GroupMean], list[GroupMean]]:
    """For every metric: one row per persona (in the order given) and a ``total`` row; one per
    scenario; one per persona × scenario pair that has scores.

    Excluded scores and undefined values (``None``) are left out of the mean and of ``n``. Metrics
    are listed in the order first seen over the cells sorted by id. A metric is a rate, with
    Wilson intervals, when every value it takes in the run is 0 or 1.
    """
    ids = {cell: i for i, cell in enumerate(sorted({s.cell_id for s in scores}))}
    tally = MetricTally(ids.__getitem__)
    for score in scores:
        tally.add(score)
    return tally.means(persona_ids, scenario_ids, seed)


def reliability(p: np.ndarray, y: np.ndarray, bins: int = 10) -> list[tuple[float, float, int]]:
    """Per non-empty equal-width bin: mean predicted probability, observed frequency, count. A
    binary label bins P(Y = 1); more classes bin the top label's probability (Guo et al., 2017)."""
    if p.shape[1] == 2:
        confidence, hit = p[:, 1], (y == 1).astype(float)
    else:
        confidence, hit = p.max(axis=1), (p.argmax(axis=1) == y).astype(float)
    index = np.minimum((confidence * bins).astype(int), bins - 1)
    return [
        (float(confidence[index == b].mean()), float(hit[index == b].mean()), int((index == b).sum()))
        for b in range(bins)
        if (index == b).any()
    ]


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error (Naeini et al., 2015; Guo et al., 2017, eq. 3): the
    count-weighted mean gap between predicted probability and observed frequency over bins."""
    rows = reliability(p, y, bins)
    return float(sum(n * abs(conf - freq) for conf, freq, n in rows) / len(y))


EXAMPLES_PER_SCENARIO = 3  # the worst probes a report shows in full, per scenario


def worst_first(values: dict[str, float]) -> tuple[float, float, float]:
    """How badly a probe went, least first: unsafe, then the least faithful, then the least
    grounded (a metric a probe has no value of counts as middling or perfect)."""
    return (
        values.get("safe_behaviour", 0.5),
        values.get("faithfulness", 1.0),
        values.get("embedding.groundedness", 1.0),
    )


def worst_cells(
    cells: Iterable[tuple[str, str]], values: dict[str, dict[str, float]], per_scenario: int
) -> dict[str, list[str]]:
    """Per scenario, the ``per_scenario`` cells that went worst (``cells``: cell id and scenario
    id of every probe asked; ``values``: each cell's numbers by metric name)."""
    by_scenario: dict[str, list[str]] = {}
    for cell, scenario in cells:
        by_scenario.setdefault(scenario, []).append(cell)
    return {
        scenario: sorted(ids, key=lambda c: (worst_first(values.get(c, {})), c))[:per_scenario]
        for scenario, ids in by_scenario.items()
    }
