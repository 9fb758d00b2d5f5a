"""The QAP matcher's threshold sweep, re-deciding recorded answers, by hand."""

from __future__ import annotations

import pytest

from simpop.models import Context, Probe, Response
from simpop.report.threshold import sweep_threshold


def _pair(cell: str, behaviour: str, best: str | None, similarity: float | None, gold=("q1",), **probe):
    ids = dict(run_id="r", cell_id=cell, persona_id="p", scenario_id="s", seed_id="q1", variant=0)
    contexts = [Context(id=best, text="t", score=similarity)] if best else []
    return (
        Probe(
            **ids, text="x", expected_behaviour=behaviour, gold_ids=list(gold) if gold else None,
            sampling_seed=0, prompt="p", llm_model="m", **probe,
        ),
        Response(**ids, target="bot", question="x", similarity=similarity, contexts=contexts),
    )  # fmt: skip


def test_each_threshold_re_decides_the_recorded_matches():
    pairs = [
        _pair("a", "answer", "q1", 0.82),  # right QAP, very similar
        _pair("b", "answer", "q1", 0.55),  # right QAP, weakly
        _pair("c", "answer", "q2", 0.65),  # wrong QAP
        _pair("d", "answer", None, None),  # too short: never answered
        _pair("e", "decline", "q3", 0.72, gold=None),  # must not answer
        _pair("f", "escalate", "q1", 0.45, gold=None),
        _pair("g", "answer", "q1", 0.9, gold=("q1",), sub_questions=["a", "b"]),  # multi-question: left out
    ]
    probes = [p for p, _ in pairs]
    responses = {r.cell_id: r for _, r in pairs}
    result = sweep_threshold(probes, responses, current=0.5, thresholds=(0.4, 0.5, 0.6, 0.7, 0.8, 0.9))
    assert (result.answerable, result.unanswerable, result.current) == (4, 2, 0.5)
    by = {r.threshold: r for r in result.rows}
    # 0.4: a, b right, c wrong; e and f answered
    assert (by[0.4].correct, by[0.4].wrong, by[0.4].answered_unanswerable) == (0.5, 0.25, 1.0)
    # 0.6: a right, c wrong, b not answered; e answered
    assert (by[0.6].correct, by[0.6].wrong, by[0.6].answered_unanswerable) == (0.25, 0.25, 0.5)
    # 0.8: a right; nothing unanswerable answered -> J = 0.25, the best (0.5 - 0.5 = 0 at 0.5)
    assert (by[0.8].correct, by[0.8].answered_unanswerable) == (0.25, 0.0)
    assert by[0.9].correct == 0.0
    assert result.suggested.threshold == 0.8
    assert result.suggested.youden == pytest.approx(0.25)


def test_no_suggestion_without_both_kinds_of_question():
    probe, response = _pair("a", "answer", "q1", 0.8)
    assert sweep_threshold([probe], {"a": response}).suggested is None
