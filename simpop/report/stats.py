"""Interval estimates."""

from __future__ import annotations

import math

Z_95 = 1.959963984540054


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
