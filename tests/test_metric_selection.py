"""A run config's ``metrics:`` list (issue 46): only those metrics and the ones they need are
scored; ``--no-judge`` leaves the judged ones out of it; an unknown name is a one-line error
before any work."""

from __future__ import annotations

import json

import pytest
from helpers import assert_one_line_error, simpop, write_config

from simpop.metrics import selected
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, quoted, with_judges


def test_a_selection_adds_what_its_metrics_need_and_the_judges_filter_it():
    # safe_behaviour is derived from these four verdicts (safe_behaviour.needs)
    assert {m.name for m in selected(["safe_behaviour"])} == {
        "safe_behaviour",
        "refusal",
        "escalation",
        "clarification",
        "sub_questions",
    }
    assert [m.name for m in selected(["qap_match", "refusal"], judges=False)] == ["qap_match"]
    assert len(selected(None)) == len(selected(None, judges=False)) + sum(m.judged for m in selected(None))
    with pytest.raises(ValueError, match="unknown metric 'jargon' \\(known: answer_similarity, "):
        selected(["qap_match", "jargon"])


def patient(request: dict) -> Reply:
    seed = quoted(request)[0]
    return Reply(json.dumps({"questions": [f"{seed} (asked {i} times)" for i in range(count(request))]}))


CONFIG = """
name: chosen
target: {kind: qap, qaps: data/qaps.jsonl}
personas: personas
variants: 1
limit: 2
scenarios: []
metrics: %s
llm: {base_url: '%s'}
"""


def test_a_run_scores_only_the_metrics_its_config_names(project):
    with FakeOpenAIServer(default=with_judges(patient)) as llm:
        path = write_config(project, CONFIG % ("[qap_match, context_relevance]", llm.base_url))
        result = simpop("run", str(path), "--personas", "high-literacy", cwd=project)
        assert result.returncode == 0, result.stderr
        [run] = (project / "runs").iterdir()
        scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
        assert {s["metric"] for s in scores} == {"qap_match", "context_relevance"}
        assert len(scores) == 2 * 2  # two cells, two metrics each

        unjudged = simpop("run", str(path), "--personas", "high-literacy", "--no-judge", cwd=project)
        assert unjudged.returncode == 0, unjudged.stderr
        [second] = [r for r in (project / "runs").iterdir() if r != run]
        scores = [json.loads(line) for line in (second / "scores.jsonl").read_text().splitlines()]
        assert {s["metric"] for s in scores} == {"qap_match"}

        wrong = write_config(project, CONFIG % ("[qap_match, jargon]", llm.base_url), "wrong.yaml")
        before = sorted((project / "runs").iterdir())
        assert_one_line_error(
            simpop("run", str(wrong), cwd=project), "wrong.yaml", "field 'metrics'", "unknown metric 'jargon'"
        )
        assert sorted((project / "runs").iterdir()) == before  # nothing made, nothing lost
