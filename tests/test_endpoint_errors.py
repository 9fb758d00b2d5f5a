"""Issue 44: an endpoint that cannot be used (an unreachable bot or LLM, an unset ``${VAR}``) is
found before the run's plan is printed, so bad input is the one error line and nothing else."""

from __future__ import annotations

import subprocess

import pytest
from helpers import closed_port, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply

RUN = (
    "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\nlimit: 1\n"
    "scenarios: []\n"
)


def assert_only_the_error(result: subprocess.CompletedProcess, expected: str) -> None:
    """Exit status 2 and, on stdout and stderr together, the one line ``Error: <expected>``."""
    output = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 2, output
    assert output == [f"Error: {expected}"]


def bot_config(target: str, llm_url: str) -> str:
    """A run that asks an ``http`` bot, its questions written by the LLM at ``llm_url``."""
    run = RUN.replace("{kind: qap, qaps: data/qaps.jsonl}", target).replace("limit: 1\n", "")
    return run + f"seeds: data/qaps.jsonl\nllm: {{base_url: '{llm_url}'}}\n"


def test_an_unreachable_llm_is_the_only_line(project):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    write_config(project, RUN + f"llm: {{base_url: '{url}', max_retries: 0}}\n")
    result = simpop("run", "run.yaml", cwd=project)
    assert_only_the_error(result, f"cannot reach LLM endpoint {url} (ConnectError)")
    assert not (project / "runs").exists()


def test_an_unreachable_bot_is_the_only_line(project):
    url = f"http://127.0.0.1:{closed_port()}/ask"
    with FakeOpenAIServer(default=Reply("{}")) as llm:
        write_config(project, bot_config(f"{{kind: http, url: '{url}'}}", llm.base_url))
        result = simpop("run", "run.yaml", cwd=project)
        assert llm.requests == []
    assert_only_the_error(result, f"cannot reach bot endpoint {url} (ConnectError)")
    assert not (project / "runs").exists()


@pytest.mark.parametrize("field", ["url", "headers.X-Key"])
def test_an_unset_variable_of_the_bot_is_the_only_line(project, field):
    url = f"http://127.0.0.1:{closed_port()}/ask"
    if field == "url":
        target = "{kind: http, url: 'http://${SIMPOP_TEST_UNSET_HOST}/ask'}"
    else:
        target = f"{{kind: http, url: '{url}', headers: {{X-Key: '${{SIMPOP_TEST_UNSET_KEY}}'}}}}"
    with FakeOpenAIServer(default=Reply("{}")) as llm:
        write_config(project, bot_config(target, llm.base_url))
        result = simpop("run", "run.yaml", cwd=project)
        assert llm.requests == []
    name = "SIMPOP_TEST_UNSET_HOST" if field == "url" else "SIMPOP_TEST_UNSET_KEY"
    assert_only_the_error(result, f"target.{field}: environment variable {name} is not set")
    assert not (project / "runs").exists()
