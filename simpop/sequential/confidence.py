"""Anytime-valid confidence sequences for the mean of values in [0, 1] (issue 72): the betting
confidence sequence of Waudby-Smith and Ramdas ("Estimating means of bounded random variables
by betting", JRSS-B 2024): the hedged capital process (their Theorem 3, θ = 1/2) with the
predictable plug-in bets of their eq. (26), truncated at c / m and c / (1 - m) with c = 3/4,
and the running intersection (their Proposition 2 notes it stays valid).

With probability at least 1 - α the true mean lies in every interval of the sequence at once,
so a gate may look after every round and stop when it likes: stopping when the data say so
keeps the stated error rate, where a fixed-n interval looked at repeatedly does not.

The sequence is computed on a grid of candidate means; its bounds are widened by half the grid
step, so they never claim more than the grid shows."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

GRID = 4000  # candidate means in (0, 1): bounds to within 1/8000
TRUNCATION = 0.75  # c of the bets' truncation
THETA = 0.5  # the hedge between betting on a mean above m and below it


class ConfidenceSequence:
    """A confidence sequence at error ``alpha``, updated one value (or one round) at a time; the
    order of the values matters (each bet sees only the values before it).

    ``horizon``: the most values it will see (a sequential run's full grid), known in advance.
    Its bets are then sized for that n, sqrt(2 log(2/α) / (σ̂² n)) (Waudby-Smith and Ramdas,
    Section 3.3: the bets of a confidence interval at a fixed n), so it is nearly as narrow there
    as a fixed interval, and still valid at every n before it: any predictable bet is."""

    def __init__(self, alpha: float, grid: int = GRID, horizon: int | None = None) -> None:
        if not 0 < alpha < 1:
            raise ValueError(f"alpha {alpha} is not within (0, 1)")
        self.alpha = alpha
        self.horizon = horizon
        self.m = (np.arange(grid) + 0.5) / grid
        self.half_step = 0.5 / grid
        self.log_up = np.zeros(grid)  # log capital of the bet that the mean is above m
        self.log_down = np.zeros(grid)
        self.alive = np.ones(grid, dtype=bool)  # candidates not yet rejected (running intersection)
        self.n = 0
        self.total = 0.0
        self.squares = 0.25  # the variance estimate's prior: 1/4 + sum (x_i - mean_i)^2

    def update(self, values: Iterable[float]) -> ConfidenceSequence:
        threshold = math.log(1 / self.alpha)
        for x in values:
            if not 0.0 <= x <= 1.0:
                raise ValueError(f"value {x} is not within [0, 1]: no anytime-valid bound for it")
            variance = self.squares / (self.n + 1)  # of the values before this one
            t = self.n + 1
            bet = _bet(self.alpha, variance, t, self.horizon)
            up = np.minimum(bet, TRUNCATION / self.m)
            down = np.minimum(bet, TRUNCATION / (1 - self.m))
            self.log_up += np.log1p(up * (x - self.m))
            self.log_down += np.log1p(-down * (x - self.m))
            hedged = np.logaddexp(self.log_up + math.log(THETA), self.log_down + math.log(1 - THETA))
            self.alive &= hedged < threshold  # capital under 1/alpha: m not rejected
            self.n = t
            self.total += x
            mean = (0.5 + self.total) / (t + 1)  # the plug-in mean after this value
            self.squares += (x - mean) ** 2
        return self

    @property
    def interval(self) -> tuple[float, float]:
        """The sequence's interval now: (0, 1) before any value."""
        kept = np.flatnonzero(self.alive)
        if kept.size == 0:  # rejected everywhere (possible only with probability alpha)
            centre = self.total / self.n if self.n else 0.5
            return centre, centre
        low = max(0.0, float(self.m[kept[0]]) - self.half_step)
        high = min(1.0, float(self.m[kept[-1]]) + self.half_step)
        return (0.0 if kept[0] == 0 else low), (1.0 if kept[-1] == self.m.size - 1 else high)


def _bet(alpha: float, variance: float, t: int, horizon: int | None) -> float:
    """The predictable plug-in bet of value ``t`` (their eq. 26), or one sized for ``horizon``."""
    scale = horizon if horizon is not None else t * math.log(1 + t)
    return math.sqrt(2 * math.log(2 / alpha) / (variance * scale))


def confidence_sequence(
    values: Iterable[float], alpha: float, horizon: int | None = None
) -> tuple[float, float]:
    """The interval, after ``values`` in order, of the confidence sequence at error ``alpha``."""
    return ConfidenceSequence(alpha, horizon=horizon).update(values).interval


def values_needed(
    rate: float, threshold: float, alpha: float, above: bool, cap: int = 100_000, horizon: int | None = None
) -> int | None:
    """About how many values at ``rate`` a fresh sequence needs before it shows the mean is
    above ``threshold`` (``above``) or below it: the first n at which a sequence of 0s and 1s
    at that rate (the largest variance a mean of ``rate`` can have) rejects the threshold.
    None when the rate is on the wrong side of the threshold, or more than ``cap`` are needed."""
    if (above and rate <= threshold) or (not above and rate >= threshold):
        return None
    m, limit = threshold, math.log(1 / alpha)
    log_up = log_down = 0.0
    total, squares = 0.0, 0.25
    for t in range(1, cap + 1):
        x = float(math.floor(t * rate) - math.floor((t - 1) * rate))
        bet = _bet(alpha, squares / t, t, horizon)
        log_up += math.log1p(min(bet, TRUNCATION / m) * (x - m)) if m > 0 else 0.0
        log_down += math.log1p(-min(bet, TRUNCATION / (1 - m)) * (x - m)) if m < 1 else 0.0
        capital = math.log(THETA) + (log_up if above else log_down)
        if capital >= limit:
            return t
        total += x
        squares += (x - (0.5 + total) / (t + 1)) ** 2
    return None
