"""Anytime-valid confidence sequences for the mean of values in [0, 1] (issue 72), one test
martingale for each end of the interval, its capital the average of two:

- a betting capital (Waudby-Smith and Ramdas, "Estimating means of bounded random variables by
  betting", JRSS-B 2024): a bet that the mean is above m (the lower end) or below it (the upper
  end), with the predictable plug-in bets of their eq. (26) at that end's error, truncated at
  c / m and c / (1 - m) with c = 3/4;
- a Beta(1, 1) mixture of Bernoulli likelihood ratios, B(S + 1, n - S + 1) / (m^S (1 - m)^(n - S))
  for the sum S of n values: a test martingale for values in [0, 1] with mean m too, since
  x -> (p/m)^x ((1-p)/(1-m))^(1-x) is convex (Howard, Ramdas, McAuliffe and Sekhon, Ann.
  Statist. 2021, for the mixture; the convexity bound for bounded values). It is what shows a
  mean far from m at once: two failures in two refute 0.99, where the bets need a third.

An average of test martingales is one, so m is refuted at an end (at the side of the sample
mean that end bounds) once the capital reaches 1/α, and stays refuted (the running
intersection). With probability at least 1 - α_low the true mean is above the lower end at every
n at once, and likewise for the upper end: a gate may look after every round and stop when it
likes. Each end has its own error, so a gate can hold a pass and a fail to different rates
(``simpop.report.gate``). The ends are found on a grid of candidate means and widened by half
its step, so they never claim more than the grid shows."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from scipy.special import betaln

GRID = 4000  # candidate means in (0, 1): bounds to within 1/8000
TRUNCATION = 0.75  # c of the bets' truncation


class ConfidenceSequence:
    """A confidence sequence whose lower end errs with probability at most ``alpha`` and upper
    end at most ``alpha_high`` (default: ``alpha``), updated one value (or one round) at a time;
    the order of the values matters (each bet sees only the values before it).

    ``horizon``: the most values it will see (a sequential run's full grid), known in advance.
    Its bets are then sized for that n, sqrt(2 log(1/α) / (σ̂² n)) (Waudby-Smith and Ramdas,
    Section 3.3: the bets of a confidence interval at a fixed n), so it is narrower there, and
    still valid at every n before it: any predictable bet is."""

    def __init__(
        self, alpha: float, grid: int = GRID, horizon: int | None = None, alpha_high: float | None = None
    ) -> None:
        alpha_high = alpha if alpha_high is None else alpha_high
        for value in (alpha, alpha_high):
            if not 0 < value < 1:
                raise ValueError(f"alpha {value} is not within (0, 1)")
        self.alphas = (alpha, alpha_high)
        self.horizon = horizon
        self.m = (np.arange(grid) + 0.5) / grid
        self.half_step = 0.5 / grid
        self.log_up = np.zeros(grid)  # log capital of the bet that the mean is above m
        self.log_down = np.zeros(grid)
        self.above = np.zeros(grid, dtype=bool)  # m shown to be under the mean (running union)
        self.below = np.zeros(grid, dtype=bool)
        self.n = 0
        self.total = 0.0
        self.squares = 0.25  # the variance estimate's prior: 1/4 + sum (x_i - mean_i)^2

    def update(self, values: Iterable[float]) -> ConfidenceSequence:
        (low_alpha, high_alpha), limits = self.alphas, [math.log(1 / a) for a in self.alphas]
        log_m, log_rest = np.log(self.m), np.log1p(-self.m)
        for x in values:
            if not 0.0 <= x <= 1.0:
                raise ValueError(f"value {x} is not within [0, 1]: no anytime-valid bound for it")
            variance = self.squares / (self.n + 1)  # of the values before this one
            t = self.n + 1
            up = np.minimum(_bet(low_alpha, variance, t, self.horizon), TRUNCATION / self.m)
            down = np.minimum(_bet(high_alpha, variance, t, self.horizon), TRUNCATION / (1 - self.m))
            self.log_up += np.log1p(up * (x - self.m))
            self.log_down += np.log1p(-down * (x - self.m))
            self.n = t
            self.total += x
            mixture = (
                betaln(self.total + 1, t - self.total + 1) - self.total * log_m - (t - self.total) * log_rest
            )
            mean = self.total / t
            # capital 1/alpha at the end's side of the sample mean: the mean is above (below) m
            self.above |= (self.m < mean) & (_average(self.log_up, mixture) >= limits[0])
            self.below |= (self.m > mean) & (_average(self.log_down, mixture) >= limits[1])
            plug_in = (0.5 + self.total) / (t + 1)  # the plug-in mean after this value
            self.squares += (x - plug_in) ** 2
        return self

    @property
    def interval(self) -> tuple[float, float]:
        """The sequence's interval now: (0, 1) before any value."""
        kept = np.flatnonzero(~self.above & ~self.below)
        if kept.size == 0:  # the ends crossed (possible only with probability alpha)
            centre = self.total / self.n if self.n else 0.5
            return centre, centre
        low = 0.0 if kept[0] == 0 else max(0.0, float(self.m[kept[0]]) - self.half_step)
        high = 1.0 if kept[-1] == self.m.size - 1 else min(1.0, float(self.m[kept[-1]]) + self.half_step)
        return low, high


def _average(log_bets: np.ndarray | float, log_mixture: np.ndarray | float) -> np.ndarray | float:
    """log of the average of two capitals given as logs."""
    return np.logaddexp(log_bets, log_mixture) - math.log(2)


def _bet(alpha: float, variance: float, t: int, horizon: int | None) -> float:
    """The predictable plug-in bet of value ``t`` at one end's error (their eq. 26), or one sized
    for ``horizon``."""
    scale = horizon if horizon is not None else t * math.log(1 + t)
    return math.sqrt(2 * math.log(1 / alpha) / (variance * scale))


def confidence_sequence(
    values: Iterable[float], alpha: float, horizon: int | None = None, alpha_high: float | None = None
) -> tuple[float, float]:
    """The interval, after ``values`` in order, of the confidence sequence: its lower end at error
    ``alpha``, its upper end at ``alpha_high``; without it, each end at ``alpha / 2`` (the whole
    interval misses the mean at some n with probability at most ``alpha``)."""
    if alpha_high is None:
        alpha, alpha_high = alpha / 2, alpha / 2
    return ConfidenceSequence(alpha, horizon=horizon, alpha_high=alpha_high).update(values).interval


def values_needed(
    rate: float, threshold: float, alpha: float, above: bool, cap: int = 100_000, horizon: int | None = None
) -> int | None:
    """About how many values at ``rate`` a fresh sequence needs before its end at error ``alpha``
    shows the mean is above ``threshold`` (``above``) or below it: the first n at which a
    sequence of 0s and 1s at that rate (the largest variance a mean of ``rate`` can have)
    refutes the threshold. None when the rate is on the wrong side of the threshold, or more
    than ``cap`` are needed."""
    if (above and rate <= threshold) or (not above and rate >= threshold):
        return None
    m, limit = threshold, math.log(1 / alpha)
    log_bets, total, squares = 0.0, 0.0, 0.25
    for t in range(1, cap + 1):
        x = float(math.floor(t * rate + 0.5) - math.floor((t - 1) * rate + 0.5))  # spread evenly
        bet = _bet(alpha, squares / t, t, horizon)
        if above:
            log_bets += math.log1p(min(bet, TRUNCATION / m) * (x - m)) if m > 0 else 0.0
        else:
            log_bets += math.log1p(-min(bet, TRUNCATION / (1 - m)) * (x - m)) if m < 1 else 0.0
        total += x
        mixture = betaln(total + 1, t - total + 1) - total * math.log(m) - (t - total) * math.log1p(-m)
        side = total / t > m if above else total / t < m
        if side and _average(log_bets, mixture) >= limit:
            return t
        squares += (x - (0.5 + total) / (t + 1)) ** 2
    return None
