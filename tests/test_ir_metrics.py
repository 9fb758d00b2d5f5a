"""Retrieval metrics and yes/no parsing against hand-computed values."""

from __future__ import annotations

import math

import pytest

from simpop.metrics import ir
from simpop.metrics.ir import retrieval_metrics
from simpop.metrics.yesno import parse_yes_no, yes_no_correct


def test_hand_computed_ranked_list():
    # ranked: a(rel) b c(rel) d e(rel)? no: gold = {a, c, x}; x is never retrieved
    ranked, gold = ["a", "b", "c", "d"], ["a", "c", "x"]
    m = retrieval_metrics(ranked, gold, k=3)
    assert m["precision"] == pytest.approx(2 / 4)
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))  # 0.5714...
    # AP = (P@1 + P@3) / |gold| = (1 + 2/3) / 3 = 0.5556
    assert m["average_precision"] == pytest.approx((1 + 2 / 3) / 3)
    assert m["reciprocal_rank"] == 1.0
    assert m["hit@3"] == 1.0
    # DCG@3 = 1/log2(2) + 1/log2(4) = 1.5; IDCG@3 = 1 + 1/log2(3) + 1/log2(4)
    assert m["ndcg@3"] == pytest.approx(1.5 / (1 + 1 / math.log2(3) + 0.5))


def test_first_hit_late_and_map_never_above_one():
    m = retrieval_metrics(["b", "c", "a"], ["a"], k=2)
    assert m["reciprocal_rank"] == pytest.approx(1 / 3)
    assert m["average_precision"] == pytest.approx(1 / 3)
    assert m["hit@2"] == 0.0 and m["ndcg@2"] == 0.0
    # every relevant item retrieved, some twice: AP is exactly 1, never more
    m = retrieval_metrics(["a", "a", "b", "b"], ["a", "b"])
    assert m["average_precision"] == 1.0 and m["precision"] == 1.0 and m["recall"] == 1.0


def test_edge_cases():
    nothing = retrieval_metrics([], ["a", "b"], k=5)
    assert set(nothing.values()) == {0.0}
    no_gold = retrieval_metrics(["a"], [], k=5)
    assert set(no_gold.values()) == {None}
    assert list(no_gold) == [
        "precision",
        "recall",
        "f1",
        "average_precision",
        "reciprocal_rank",
        "hit@5",
        "ndcg@5",
    ]
    assert ir.f1(0.0, 0.0) == 0.0


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ("Yes.", "yes"),
        ("yes", "yes"),
        ("No, because the trial failed.", "no"),
        ("**No**\nThe excerpt ...", "no"),
        ('"Yes" - it does', "yes"),
        ("Answer: no", "no"),
        ("  NO.", "no"),
        ("Nope", None),
        ("Yesterday it was fine", None),
        ("Maybe", None),
        ("It is not clear. Yes", None),
        ("Yes\nNo, the trial found no effect.", None),  # both decisions: unparsed, not yes
        ("Yes/No", None),
        ("yes or no", None),
        ("Yes, no doubt about it.", "yes"),
        ("Yes.\n\nYes, it does.", "yes"),
        ("", None),
        (None, None),
    ],
)
def test_parse_yes_no(answer, decision):
    assert parse_yes_no(answer) == decision


def test_yes_no_correct():
    assert yes_no_correct("Yes, it helps", "yes") == 1.0
    assert yes_no_correct("No.", "yes") == 0.0
    assert yes_no_correct("It depends", "no") is None
