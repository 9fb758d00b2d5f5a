"""The one backoff formula the bots and the LLM client both retry with."""

from __future__ import annotations

from simpop.backoff import MAX_WAIT_S, backoff_delay


def test_the_wait_doubles_per_try_with_jitter_and_is_capped():
    for attempt, (low, high) in enumerate([(0.25, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 4.0)]):
        waits = [backoff_delay(0.5, attempt) for _ in range(200)]
        assert all(low <= w <= high for w in waits)
        assert max(waits) - min(waits) > 0.1 * (high - low)  # jittered, not in step
    assert backoff_delay(0.5, 20) == MAX_WAIT_S == 60.0  # 0.5 × 2^20 s would be six days
