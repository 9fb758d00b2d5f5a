"""How long to wait before trying a request again: exponential backoff with jitter."""

from __future__ import annotations

import random

MAX_WAIT_S = 60.0


def backoff_delay(base: float, attempt: int) -> float:
    """Seconds before try ``attempt + 1``: ``base`` doubled per try, times a random 0.5–1 (so
    concurrent clients do not retry in step), at most ``MAX_WAIT_S``."""
    return min(base * (2**attempt) * random.uniform(0.5, 1.0), MAX_WAIT_S)
