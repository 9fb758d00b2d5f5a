"""Real patients' figure from many simulated cells and a few labelled real messages: a
prediction-powered estimate (Angelopoulos et al., "Prediction-powered inference", Science 2023;
the power-tuned form of Angelopoulos, Duchi and Zrnic, "PPI++", 2023).

Each labelled real message ``i`` has its real outcome ``y_i`` (the bot answered it right, say)
and a prediction ``f_i`` made from the simulation alone (the simulated figure of its stratum:
its seed, its persona). The simulation's predictions of the whole real population are ``f~_j``
(the strata of unlabelled real messages, or of the simulated cells standing for them). Then

    theta = lambda * mean(f~) + mean(y - lambda * f)

is unbiased for the real mean whatever the predictions' quality; ``lambda`` >= 0 is chosen to
make its variance smallest (0 is the labelled messages alone, 1 classic PPI, more where the
predictions are compressed), and its 95 % interval is the normal one with

    var = lambda^2 * var(f~) / N + var(y - lambda * f) / n.

The predictions only narrow the interval as far as they track the real outcomes; they cannot
move its centre off the truth. ``labelled_only`` is the real messages alone, for comparison."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simpop.aggregate import Z_95, wilson_interval


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval, from ``n`` labelled and ``n_predicted`` predicted items."""

    mean: float
    ci_low: float
    ci_high: float
    n: int
    n_predicted: int = 0
    tuning: float = 0.0  # lambda: the weight given to the predictions

    @property
    def width(self) -> float:
        return self.ci_high - self.ci_low


def labelled_only(y: np.ndarray) -> Estimate:
    """The labelled real messages alone: their mean, with a Wilson interval for 0/1 outcomes
    and a normal one otherwise."""
    y = np.asarray(y, dtype=float)
    n = len(y)
    if n == 0:
        raise ValueError("no labelled real message")
    if np.isin(y, (0.0, 1.0)).all():
        low, high = wilson_interval(int(y.sum()), n) or (0.0, 1.0)
        return Estimate(float(y.mean()), low, high, n)
    half = Z_95 * (float(y.std(ddof=1)) if n > 1 else 1.0) / math.sqrt(n)
    return Estimate(float(y.mean()), float(y.mean()) - half, float(y.mean()) + half, n)


def corrected(
    y: np.ndarray, f: np.ndarray, f_all: np.ndarray, bounds: tuple[float, float] = (0.0, 1.0)
) -> Estimate:
    """The prediction-powered estimate of the real mean (see the module's docstring), clipped to
    ``bounds``. ``y`` and ``f``: each labelled real message's outcome and prediction; ``f_all``:
    the predictions of the population the figure is for (at least as many, drawn the same way)."""
    y, f, f_all = (np.asarray(a, dtype=float) for a in (y, f, f_all))
    n, big_n = len(y), len(f_all)
    if n < 2 or len(f) != n:
        raise ValueError(
            "a corrected estimate needs two or more labelled real messages, each with a prediction"
        )
    if big_n == 0:
        raise ValueError("no prediction of the population: nothing to correct")
    var_f = float(np.var(np.concatenate([f, f_all]), ddof=1))
    cov = float(np.cov(y, f, ddof=1)[0, 1])
    tuning = 0.0 if var_f == 0 else max(0.0, cov / ((1 + n / big_n) * var_f))
    rectified = y - tuning * f
    mean = tuning * float(f_all.mean()) + float(rectified.mean())
    variance = (
        tuning**2 * float(np.var(f_all, ddof=1) if big_n > 1 else 0.0) / big_n
        + float(np.var(rectified, ddof=1)) / n
    )
    half = Z_95 * math.sqrt(variance)
    low, high = bounds
    found = Estimate(
        min(high, max(low, mean)), max(low, mean - half), min(high, mean + half), n, big_n, round(tuning, 3)
    )
    if np.ptp(y) == 0:  # every label alike: the normal interval has no spread to go on
        alone = labelled_only(y)
        found = Estimate(
            found.mean,
            min(found.ci_low, alone.ci_low),
            max(found.ci_high, alone.ci_high),
            n,
            big_n,
            found.tuning,
        )
    return found
