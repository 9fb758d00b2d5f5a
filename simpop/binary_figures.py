"""ROC AUC and Cohen's kappa of yes/no labels, in NumPy: a bootstrap computes them a thousand
times, where scikit-learn's input checks cost about a millisecond a call (two thirds of
``simpop judge-eval``'s time)."""

from __future__ import annotations

import numpy as np


def roc_auc(y: np.ndarray, p: np.ndarray) -> float:
    """The probability that a random yes item scores above a random no item, ties counting
    half: the Mann-Whitney U over the product of the class sizes (Hanley & McNeil, Radiology
    1982, eq. 2), from mid-ranks. As scikit-learn's ``roc_auc_score``; ``y`` must hold both."""
    yes = np.asarray(y).astype(bool)
    n_yes = int(yes.sum())
    n_no = len(yes) - n_yes
    if n_yes == 0 or n_no == 0:
        raise ValueError("ROC AUC needs both labels")
    _, inverse, counts = np.unique(np.asarray(p, dtype=float), return_inverse=True, return_counts=True)
    mid_rank = np.cumsum(counts) - (counts - 1) / 2  # 1-based mean rank of each distinct score
    u = mid_rank[inverse][yes].sum() - n_yes * (n_yes + 1) / 2
    return float(u / (n_yes * n_no))


def cohen_kappa(y: np.ndarray, v: np.ndarray) -> float:
    """Cohen's kappa of two yes/no raters (Cohen, Educ. Psychol. Meas. 1960): (p_o - p_e) /
    (1 - p_e), p_o their share of agreement, p_e the agreement their yes rates give by chance.
    0 where both give one and the same answer throughout (p_e = 1)."""
    a = np.asarray(y).astype(bool)
    b = np.asarray(v).astype(bool)
    observed = float(np.mean(a == b))
    rate_a, rate_b = float(a.mean()), float(b.mean())
    chance = rate_a * rate_b + (1 - rate_a) * (1 - rate_b)
    return 0.0 if chance == 1 else (observed - chance) / (1 - chance)
