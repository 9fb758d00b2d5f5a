"""How a run's yes/no verdicts were read is announced (issue 44): an endpoint that sends no
log-probabilities is judged by structured replies with a warning line and ``judge.yes_no`` in
summary.json; one reply without them from an endpoint that sends them changes nothing."""

from __future__ import annotations

import json

import pytest
from helpers import foreign_copy, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import reworded, with_judges

# seeds from a copy of the bot's QAPs under other ids: no gold QAP, so every context is put to the judge
CONFIG = (
    "name: mode\ntarget: {{kind: qap, qaps: data/qaps.jsonl}}\nseeds: data/seeds.jsonl\npersonas: personas\n"
    "persona_ids: [typical-adult]\nvariants: 1\nlimit: 2\nscenarios: []\nllm: {{base_url: '{llm}'}}\n"
)


def patient(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


@pytest.mark.parametrize("without", [1, None], ids=["one-reply-without", "never-any"])
def test_the_yes_no_mode_is_decided_on_the_endpoint_and_announced(project, without):
    answered = with_judges(patient)
    lacking: list[dict] = []

    def llm(request: dict) -> Reply:
        if request.get("logprobs") and (without is None or len(lacking) < without):
            lacking.append(request)
            return Reply("Yes")  # no log-probabilities
        return answered(request)

    foreign_copy(project / "data/qaps.jsonl", project / "data/seeds.jsonl")
    with FakeOpenAIServer(default=llm) as server:
        path = write_config(project, CONFIG.format(llm=server.base_url))
        result = simpop("run", str(path), cwd=project, env={"COLUMNS": "300"})
    assert result.returncode == 0, result.stderr
    [run] = (project / "runs").iterdir()
    judge = json.loads((run / "summary.json").read_text())["judge"]
    warned = "sent no log-probabilities on its first 3" in " ".join(result.stdout.split())
    if without is None:
        assert judge["yes_no"] == "structured" and warned and len(lacking) == 3
        assert set(judge["judged_by"]) - {"classifier", "verifier"} == {"structured"}
    else:
        assert judge["yes_no"] == "log-probabilities" and not warned
        assert "structured" not in judge["judged_by"]
