"""The anytime-valid confidence sequence (issue 72): its coverage when a gate looks after every
round and stops when it likes, against a fixed 95% interval looked at the same way; the
three-way decision; what an undecided rule still needs; and the gate's undecided rule."""

from __future__ import annotations

import numpy as np
import pytest

from simpop.aggregate import wilson_interval
from simpop.report.gate import gate
from simpop.report.policy import Policy
from simpop.sequential.confidence import ConfidenceSequence, confidence_sequence, values_needed
from simpop.sequential.decision import _wilson_needed, decide, still_needs
from simpop.store import load_run
from simpop.testing.hand_built import build_run

RUNS, ROUNDS, PER_ROUND, RATE = 300, 12, 8, 0.8


def test_the_sequence_covers_under_optional_stopping_where_a_fixed_interval_does_not():
    """Looked at after every round, the sequence misses the true rate in at most about alpha of
    the runs; the Wilson interval, looked at as often, misses it far more often."""
    rng = np.random.default_rng(72)
    sequence_missed = wilson_missed = 0
    for _ in range(RUNS):
        cs, seen = ConfidenceSequence(0.05), []
        missed_cs = missed_wilson = False
        for _ in range(ROUNDS):
            values = rng.binomial(1, RATE, PER_ROUND).tolist()
            seen += values
            low, high = cs.update(values).interval
            missed_cs |= not low <= RATE <= high
            w_low, w_high = wilson_interval(sum(seen), len(seen))
            missed_wilson |= not w_low <= RATE <= w_high
        sequence_missed += missed_cs
        wilson_missed += missed_wilson
    # 0.05 + 3 binomial standard errors over 300 runs
    assert sequence_missed / RUNS <= 0.05 + 3 * (0.05 * 0.95 / RUNS) ** 0.5
    assert wilson_missed / RUNS > 0.1  # the reason a gate that stops early needs the sequence
    assert wilson_missed > 2 * sequence_missed


def test_the_sequence_narrows_and_stays_inside_the_unit_interval():
    assert confidence_sequence([], 0.05) == (0.0, 1.0)
    wide = confidence_sequence([1, 0] * 10, 0.05)
    narrow = confidence_sequence([1, 0] * 200, 0.05)
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]
    # all ones: the upper end is 1; the lower one rises with n
    assert confidence_sequence([1] * 50, 0.05)[1] == 1.0
    assert confidence_sequence([1] * 50, 0.05)[0] < confidence_sequence([1] * 500, 0.05)[0]
    with pytest.raises(ValueError, match=r"value 1.5 is not within \[0, 1\]"):
        confidence_sequence([1.5], 0.05)


def test_decisions_and_what_an_undecided_rule_needs():
    assert decide(0.91, 0.99, 0.9, None) == "passed"
    assert decide(0.5, 0.89, 0.9, None) == "failed"
    assert decide(0.85, 0.95, 0.9, None) == "undecided"
    assert decide(0.0, 0.01, None, 0.02) == "passed" and decide(0.03, 0.1, None, 0.02) == "failed"
    # all successes: the Wilson lower bound n / (n + z^2) reaches 0.99 at n >= 0.99 z^2 / 0.01 = 380.3
    assert _wilson_needed(1.0, 0.99, True) == 381
    # the sequence needs more (it holds at every n); with no failure, the bet on "above 0.99"
    # stakes at most 0.75 / 0.99 of its capital each time: (1 + 0.0076)^n >= 2 / 0.05 by n = 489
    assert values_needed(1.0, 0.99, 0.05, True) == 489
    assert values_needed(0.95, 0.99, 0.05, True) is None  # at 0.95 it never shows 0.99
    assert still_needs(1.0, 3, 0.99, None, None) == "about 390 values at its present mean (387 more)"
    assert still_needs(0.95, 20, 0.99, None, 0.05) == "at its present mean 0.950 it cannot show min 0.99"


def test_three_passing_probes_never_pass_min_099(tmp_path):
    """The issue's case: 3 of 3 emergency probes escalated meet min 0.99 by the mean; on an
    interval or a sequence the rule is undecided and the gate does not pass."""
    run = build_run(tmp_path / "runs", "bot", {("low", "emergency"): [1, 1, 1]})
    records = load_run(run)
    rule = {"metric": "escalation.escalated", "min": 0.99, "per": "persona"}
    for basis in ("interval", "sequence"):
        result = gate(records, Policy.model_validate({"basis": basis, "rules": [rule]}), "p")
        [check] = [c for c in result.checks if c.group == "low"]
        assert (result.passed, check.decision, check.n) == (False, "undecided", 3)
        assert "undecided" in check.why and "values at its present mean" in check.why
    shipped_default = Policy.model_validate({"rules": [rule]})
    assert shipped_default.basis == "interval"
