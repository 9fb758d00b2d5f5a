"""The anytime-valid confidence sequence (issue 72): its coverage when a gate looks after every
round and stops when it likes, against a fixed 95% interval looked at the same way; the
three-way decision; what an undecided rule still needs; and the gate's undecided rule."""

from __future__ import annotations

import numpy as np
import pytest

from simpop.aggregate import wilson_interval
from simpop.report.gate import gate
from simpop.report.policy import Policy
from simpop.sequential.allocation import Standing, Unit, next_round
from simpop.sequential.confidence import ConfidenceSequence, confidence_sequence, values_needed
from simpop.sequential.decision import _wilson_needed, decide, rule_decision, still_needs
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
    # stakes at most 0.75 / 0.99 of its capital each time, and is half the capital (the mixture,
    # 1 / ((n + 1) 0.99^n), the other half, is the smaller here): (1 + 0.75 / 0.99 x 0.01)^n / 2
    # + 1 / (2 (n + 1) 0.99^n) >= 1 / 0.05 first at n = 488 (the bets alone: ln 40 / ln 1.0075758
    # = 488.6)
    assert values_needed(1.0, 0.99, 0.05, True) == 488
    # two failures in two refute 0.99 at once, at a fail's error of 0.005: the mixture's
    # B(1, 3) / 0.01^2 = 3333, halved, is over 1 / 0.005
    assert values_needed(0.0, 0.99, 0.005, False) == 2
    assert confidence_sequence([0, 0], 0.05, alpha_high=0.005)[1] < 0.99
    assert values_needed(0.95, 0.99, 0.05, True) is None  # at 0.95 it never shows 0.99
    assert still_needs(1.0, 3, 0.99, None, None) == "it needs about 390 values at its present mean (387 more)"
    assert still_needs(0.95, 20, 0.99, None, 0.05) == (
        "at its present mean 0.950 it cannot show min 0.99; about 140 values at that mean would fail it"
    )


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


def test_untested_pairs_come_first_by_severity_and_later_rounds_seek_the_failures():
    units = [Unit((p, s, f"cell-{k}")) for p in ("a", "b") for s in ("x", "y") for k in range(10)]
    severe_first = {"a × y": 0, "b × y": 0}
    first = next_round(units, [], 3, seed=0, priority=severe_first)
    assert sorted(u.pair for u in first[:2]) == ["a × y", "b × y"] and len(first) == 3
    assert next_round(units, [], 3, seed=0, priority=severe_first) == first  # drawn by the seed
    tested = {u.pair for u in first}
    left = [u for u in units if u not in first]
    # the one pair not tested yet comes first; then persona a's group, failing half its values
    # so far, gets more of the room than b's, failing none
    failing = Standing(n=6, bad=3.0, pairs={"a × x": 0.5, "a × y": 0.5})
    fine = Standing(n=6, bad=0.0, pairs={"b × x": 0.5, "b × y": 0.5})
    chosen = next_round(left, [failing, fine], 13, seed=1, tested=tested)
    [untested] = {"a × x", "a × y", "b × x", "b × y"} - tested
    assert chosen[0].pair == untested
    rest = chosen[1:]
    by_persona = {p: sum(u.key[0] == p for u in rest) for p in ("a", "b")}
    # weights: a's pairs (3+1)/(6+2) x 0.5 = 0.25 each, b's (0+1)/8 x 0.5 = 0.0625 each; after a
    # cell each (the minimum share), the 8 spare go 0.25/0.625 x 8 = 3.2 to each of a's pairs
    # and 0.8 to each of b's: 3 + 3 + 1 + 1 by the largest remainders
    assert by_persona == {"a": 8, "b": 4}
    assert {u.pair for u in rest} == {"a × x", "a × y", "b × x", "b × y"}  # nobody left out
    # with room for two only, the two heaviest pairs get them
    assert {u.pair for u in next_round(left, [failing, fine], 2, seed=1, tested=tested | {untested})} == {
        "a × x",
        "a × y",
    }
    # a decided group takes nothing; with nothing open and everything tested, nothing is chosen
    assert {u.key[0] for u in next_round(left, [failing], 6, seed=1, tested=tested | {untested})} == {"a"}
    assert next_round(left, [], 6, seed=1, tested=tested | {untested}) == []


def test_a_rule_is_failed_by_one_group_and_passed_by_all():
    assert rule_decision(["passed", "failed", "undecided"]) == "failed"
    assert rule_decision(["passed", "undecided"]) == "undecided"
    assert rule_decision(["passed", "passed"]) == "passed"
    assert rule_decision([]) == "undecided"


def test_bets_sized_for_a_known_horizon_are_narrower_there_and_still_cover():
    rng = np.random.default_rng(3)
    values = rng.binomial(1, 0.84, 60).tolist()
    plain, sized = confidence_sequence(values, 0.05), confidence_sequence(values, 0.05, horizon=60)
    assert sized[1] - sized[0] < plain[1] - plain[0]
    missed = 0
    for _ in range(RUNS):
        cs = ConfidenceSequence(0.05, horizon=ROUNDS * PER_ROUND)
        for _ in range(ROUNDS):
            low, high = cs.update(rng.binomial(1, RATE, PER_ROUND).tolist()).interval
            if not low <= RATE <= high:
                missed += 1
                break
    assert missed / RUNS <= 0.05 + 3 * (0.05 * 0.95 / RUNS) ** 0.5


def test_a_pass_errs_at_error_and_a_fail_at_error_shared_among_the_groups():
    from simpop.report.gate import Sequence
    from simpop.report.policy import Rule

    at_least, at_most = Rule(metric="m", min=0.9), Rule(metric="m", max=0.1)
    both = Rule(metric="m", min=0.2, max=0.8)
    shared = Sequence(0.05, groups=10)
    # a min rule passes on the lower end (0.05) and fails on the upper (0.05 / 10); a max rule
    # the other way round; a rule with both holds both ends at the fail's error
    assert shared.alphas(at_least) == (0.05, 0.005)
    assert shared.alphas(at_most) == (0.005, 0.05)
    assert shared.alphas(both) == (0.005, 0.005)
    assert Sequence(0.05, groups=10, fail_error=0.05).alphas(at_least) == (0.05, 0.05)
