"""``--resume`` with the config given now (issue 44): a bot that moved port is followed and said
so; a change that would alter the results (a model, a seed file) is a one-line error."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import HANG, assert_one_line_error, simpop, write_config

from simpop.errors import ConfigError
from simpop.run.components import load_run_config
from simpop.run.resume_config import resumed_config
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import reworded

CONFIG = (
    "name: moved\ntarget: {{kind: http, url: '{bot}/chat', retries: 0}}\nseeds: data/qaps.jsonl\n"
    "personas: personas\npersona_ids: [typical-adult, high-literacy]\nvariants: 2\nlimit: 4\nscenarios: []\n"
    "llm: {{base_url: '{llm}', model: {model}}}\n"
)


def patient(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def lines(path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def interrupted_run(project, config) -> str:
    """Start a run and kill it once a few answers are in; the run id."""
    process = subprocess.Popen(
        [sys.executable, "-m", "simpop", "run", str(config), "--no-judge"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    deadline = time.time() + HANG
    answers = []
    while not answers and process.poll() is None and time.time() < deadline:
        found = list((project / "runs").glob("*/responses.jsonl")) if (project / "runs").exists() else []
        answers = [f for f in found if lines(f) >= 3]
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert answers, "the run never answered"
    assert not (answers[0].parent / "summary.json").exists(), "the kill did not land mid-way"
    return answers[0].parent.name


def slow(body: dict) -> BotReply:
    return BotReply({"answer": "Ask your eye doctor."}, delay=0.3)


def test_a_resume_follows_a_bot_that_moved_port(project):
    with FakeOpenAIServer(default=patient) as llm:
        with HTTPBotServer(slow) as old:
            path = write_config(project, CONFIG.format(bot=old.url, llm=llm.base_url, model="m"))
            run_id = interrupted_run(project, path)
        with HTTPBotServer(slow) as new:  # the old port is closed now
            write_config(project, CONFIG.format(bot=new.url, llm=llm.base_url, model="m"))
            result = simpop("run", str(path), "--resume", run_id, "--no-judge", cwd=project)
    assert result.returncode == 0, result.stderr
    assert f"target.url: '{old.url}/chat' → '{new.url}/chat'" in " ".join(result.stderr.split())
    assert new.requests  # the rest was asked of the bot where it is now
    responses = [
        json.loads(r) for r in (project / "runs" / run_id / "responses.jsonl").read_text().splitlines()
    ]
    assert len(responses) == 2 * 4 * 2 and all(r["answer"] for r in responses)


def test_a_resume_with_a_change_that_alters_results_is_a_one_line_error(project):
    with FakeOpenAIServer(default=patient) as llm, HTTPBotServer(slow) as bot:
        path = write_config(project, CONFIG.format(bot=bot.url, llm=llm.base_url, model="m"))
        run_id = interrupted_run(project, path)
        write_config(project, CONFIG.format(bot=bot.url, llm=llm.base_url, model="another-model"))
        result = simpop("run", str(path), "--resume", run_id, cwd=project)
    assert_one_line_error(result, "run.yaml", "field 'llm.model'", "'another-model'", "changes results")


def test_a_run_from_before_the_cases_moved_beside_the_scenarios_still_resumes(tmp_path):
    """The conversation cases' default folder is the config's scenario_dir's now (the working
    directory's before): a recorded run without conversations resumes; with conversations, only
    from the same folder."""
    (tmp_path / "hazards" / "conversations").mkdir(parents=True)
    path = tmp_path / "run.yaml"
    path.write_text("name: t\ntarget: {kind: qap, qaps: q.jsonl}\nscenario_dir: hazards\n")
    loaded = load_run_config(path)
    assert loaded.conversation_dir == tmp_path / "hazards" / "conversations"
    recorded = loaded.model_copy(update={"conversation_dir": Path("scenarios/conversations")})
    merged, notes = resumed_config(recorded, loaded, path, {})
    assert merged.conversation_dir == Path("scenarios/conversations") and notes == []
    talking = recorded.model_copy(update={"conversations": "all"})
    with pytest.raises(ConfigError, match="field 'conversation_dir'"):
        resumed_config(talking, loaded, path, {})
    same = talking.model_copy(
        update={"conversation_dir": tmp_path / "hazards" / ".." / "hazards" / "conversations"}
    )
    assert resumed_config(same, loaded, path, {})[0].conversation_dir == same.conversation_dir
