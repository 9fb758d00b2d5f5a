from __future__ import annotations

import pytest

from simpop.aggregate import accuracy, accuracy_by_persona, excluded_counts, wilson_interval
from simpop.metrics.qap_match import qap_match
from simpop.models import Fidelity, Probe, Response, Score

IDS = dict(run_id="r", cell_id="c", persona_id="p", scenario_id="x", seed_id="q1", variant=0)


def test_wilson_hand_computed():
    # 8/10: centre (0.8 + 1.9208/10) / 1.38415 = 0.71674, half 1.96*sqrt(0.016 + 0.00960)/1.38415 = 0.22658
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    # 0/10: centre = half = 0.13876, so the interval is [0, 0.2775]
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    # 10/10 mirrors 0/10
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def _probe(**kw):
    fields = dict(
        text="What is glaucoma?", expected_behaviour="answer", sampling_seed=1, prompt="x", llm_model="m"
    )
    return Probe(**IDS, **(fields | kw))


def _response(**kw):
    return Response(**IDS, target="t", question="What is glaucoma?", **kw)


def test_qap_match_labels():
    assert qap_match(_probe(), _response(matched_id="q1")).label == "correct"
    wrong = qap_match(_probe(), _response(matched_id="q2"))
    assert (wrong.label, wrong.value) == ("wrong", 0.0)
    none = qap_match(_probe(), _response(matched_id=None, no_answer_reason="under threshold"))
    assert (none.label, none.value) == ("no_answer", 0.0)
    skipped = qap_match(
        _probe(fidelity=Fidelity(reading_grade=1.0, words=3, duplicate_of=0)), _response(skipped="duplicate")
    )
    assert (skipped.excluded, skipped.value) == ("duplicate", None)
    failed = qap_match(_probe(), _response(error="TimeoutError: slow"))
    assert failed.excluded == "target_error"


def _score(persona: str, label: str | None, excluded: str | None = None) -> Score:
    value = None if excluded else float(label == "correct")
    return Score(
        **(IDS | {"persona_id": persona}), metric="qap_match", value=value, label=label, excluded=excluded
    )


def test_accuracy_counts_no_answer_as_error_and_leaves_out_excluded():
    scores = [_score("a", "correct")] * 3 + [
        _score("a", "no_answer"),
        _score("a", "wrong"),
        _score("a", None, "duplicate"),
    ]
    row = accuracy(scores, "a")
    assert (row.n, row.correct, row.wrong, row.no_answer) == (5, 3, 1, 1)
    assert row.accuracy == pytest.approx(0.6)
    assert (row.ci_low, row.ci_high) == pytest.approx(wilson_interval(3, 5))
    assert excluded_counts(scores) == {"duplicate": 1}


def test_accuracy_by_persona_and_total():
    scores = [_score("a", "correct"), _score("a", "wrong"), _score("b", "correct"), _score("b", "correct")]
    rows, total = accuracy_by_persona(scores, ["b", "a", "c"])
    assert [r.group for r in rows] == ["b", "a", "c"]
    assert [r.accuracy for r in rows] == [1.0, 0.5, None]
    assert (total.n, total.correct, total.accuracy) == (4, 3, 0.75)


def test_untested_names_scenarios_and_personas_without_a_scored_cell():
    from collections import Counter

    from simpop.models import GroupMean, Untested
    from simpop.run.completeness import tested_groups, untested

    def row(persona, scenario, n):
        return GroupMean(
            group="g",
            metric="m",
            n=n,
            mean=None,
            ci_low=None,
            ci_high=None,
            persona_id=persona,
            scenario_id=scenario,
        )

    tested = tested_groups(
        [row("a", None, 3), row("b", None, 0)], [row(None, "emergency", 0), row(None, "off-topic", 3)], None
    )
    assert tested == {("persona", "a"), ("scenario", "off-topic")}
    planned = {
        ("scenario", "emergency"): 4,
        ("scenario", "off-topic"): 4,
        ("scenario", "none-planned"): 0,
        ("persona", "a"): 5,
        ("persona", "b"): 3,
    }
    reasons = {("scenario", "emergency"): Counter(invalid=3, target_error=1), ("persona", "b"): Counter()}
    found = untested(planned, tested, reasons)
    assert found == [
        Untested(kind="scenario", id="emergency", planned=4, not_scored={"invalid": 3, "target_error": 1}),
        Untested(kind="persona", id="b", planned=3, not_scored={}),
    ]
    assert found[0].why == "none of its 4 cells was scored (invalid 3, target_error 1)"
    assert found[1].why == "none of its 3 cells was scored"
