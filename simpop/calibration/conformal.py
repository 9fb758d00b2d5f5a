"""Stage 2 of HCAT's calibration (§5.2): split conformal prediction (Vovk et al., 2005; Angelopoulos
& Bates, 2021, §1). On a calibration split held apart from stage 1, the non-conformity of an
item is 1 − P(Y = y | x) for its true label y; the threshold q̂ is their empirical quantile at
level ⌈(n + 1)(1 − α)⌉ / n; a new item's prediction set holds every label whose non-conformity is
at most q̂, which contains the true label with probability at least 1 − α."""

from __future__ import annotations

import math

import numpy as np

TOLERANCE = 1e-9  # a calibration item's own label must stay in its set despite rounding


def nonconformity(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """1 − P(Y = y | x) of each item's true label ``y``."""
    return 1.0 - p[np.arange(len(y)), y]


def conformal_quantile(scores: np.ndarray, alpha: float) -> float:
    """The ⌈(n + 1)(1 − α)⌉-th smallest non-conformity score; 1.0 (every label in every set)
    when that rank exceeds n, i.e. when the calibration split is too small for 1 − α."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), not {alpha}")
    n = len(scores)
    rank = math.ceil((n + 1) * (1 - alpha))
    if n == 0 or rank > n:
        return 1.0
    return float(np.sort(scores)[rank - 1])


def prediction_sets(p: np.ndarray, quantile: float) -> list[list[int]]:
    """For each row of ``p``, the label indices whose non-conformity 1 − p is at most q̂."""
    return [np.flatnonzero(1.0 - row <= quantile + TOLERANCE).tolist() for row in p]


def coverage(sets: list[list[int]], y: np.ndarray) -> float:
    """The share of items whose true label lies in their prediction set."""
    return float(np.mean([label in s for s, label in zip(sets, y.tolist(), strict=True)]))


def needs_review(prediction_set: list[int]) -> bool:
    """Ambiguous (several labels) or empty (no label fits): a human should look."""
    return len(prediction_set) != 1


def set_text(prediction_set: list[int], levels: list[str]) -> str:
    """A prediction set as text: its levels joined by ``|``, or ``(empty)``."""
    return "|".join(levels[k] for k in prediction_set) or "(empty)"
