"""A rule's decision on one group from an interval for its figure (issue 72): passed when the
whole interval meets the threshold, failed when none of it does, undecided in between, with
about how many more values at the present rate would decide it."""

from __future__ import annotations

import math
from typing import Literal

from simpop.aggregate import wilson_interval
from simpop.sequential.confidence import values_needed

Decision = Literal["passed", "failed", "undecided"]
CAP = 100_000


def decide(low: float, high: float, minimum: float | None, maximum: float | None) -> Decision:
    """passed: every value of [low, high] meets the rule; failed: none does; else undecided."""
    fails = (minimum is not None and high < minimum) or (maximum is not None and low > maximum)
    passes = (minimum is None or low >= minimum) and (maximum is None or high <= maximum)
    return "failed" if fails else "passed" if passes else "undecided"


def rule_decision(groups: list[Decision]) -> Decision:
    """A rule's decision from its groups': failed once one group failed, passed when all passed."""
    if "failed" in groups:
        return "failed"
    return "passed" if groups and all(d == "passed" for d in groups) else "undecided"


def _wilson_needed(rate: float, threshold: float, above: bool) -> int | None:
    """The fewest n at which a Wilson 95% interval at ``rate`` lies on one side of ``threshold``."""
    if (above and rate <= threshold) or (not above and rate >= threshold):
        return None

    def shows(n: int) -> bool:
        interval = wilson_interval(round(rate * n), n)
        assert interval is not None
        return interval[0] >= threshold if above else interval[1] <= threshold

    high = 1
    while not shows(high):
        high *= 2
        if high > CAP:
            return None
    low = high // 2
    while low + 1 < high:  # shows(high), not shows(low)
        middle = (low + high) // 2
        low, high = (low, middle) if shows(middle) else (middle, high)
    return high


def still_needs(
    mean: float, n: int, minimum: float | None, maximum: float | None, alpha: float | None
) -> str:
    """What an undecided rule would still need, as a clause: about how many values in all at the
    present rate (a fixed 95% interval when ``alpha`` is None, else a confidence sequence at
    ``alpha``), or that the present rate cannot pass."""
    wanted = []
    for threshold, above in ((minimum, True), (maximum, False)):
        if threshold is None:
            continue
        total = (
            _wilson_needed(mean, threshold, above)
            if alpha is None
            else values_needed(mean, threshold, alpha, above, CAP)
        )
        side = "min" if above else "max"
        if threshold == (1.0 if above else 0.0):
            nearest = "0.99" if above else "0.01"
            return (
                f"no sample can show {side} {threshold:g} (a rate just short of it is always possible): "
                f"try {nearest}"
            )
        if total is None:
            fails = (
                _wilson_needed(mean, threshold, not above)
                if alpha is None
                else values_needed(mean, threshold, alpha, not above, CAP)
            )
            will = f"; about {_round(fails)} values at that mean would fail it" if fails and fails > n else ""
            return f"at its present mean {mean:.3f} it cannot show {side} {threshold:g}{will}"
        wanted.append(total)
    total = max(wanted)
    if total <= n:  # at the present rate it would be decided: the data's spread holds it back
        return "it needs a few more values"
    rounded = _round(total)
    return f"it needs about {rounded} values at its present mean ({rounded - n} more)"


def _round(total: int) -> int:
    return int(math.ceil(total / 10) * 10) if total > 30 else total
