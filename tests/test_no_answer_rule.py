"""A bot's own "no answer" (issue 43): the seed's German QAP bot answers a question under four
words with 400 and one it has no QAP for with 501 "No answer found"; declared, these are the
bot's deliberate no answer, never a failed call, and count against QAP accuracy."""

from __future__ import annotations

import json

import pytest
from helpers import ask, assert_one_line_error, simpop, write_config

from simpop.targets import TargetError
from simpop.targets.http import HTTPBot, HTTPTargetConfig
from simpop.targets.python_function import PythonFunctionBot, PythonTargetConfig
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import count, quoted, with_judges

QAPS = [
    {"id": "m1", "question": "Wie oft sollte ich zur Mammographie?", "answer": "Alle zwei Jahre ab 50."},
    {
        "id": "m2",
        "question": "Tut eine Mammographie weh?",
        "answer": "Die Kompression kann kurz unangenehm sein.",
    },
]


def seed_bot(body: dict) -> BotReply:
    """The seed's bot: POST /answer {"text": ...} → {"result": ...}; 400 under four words; 501
    when no QAP is similar enough (here: anything not about how often)."""
    text = body["text"]
    if len(text.split()) < 4:
        return BotReply({"detail": "Question too short"}, status=400)
    if "oft" not in text:
        return BotReply({"detail": "No answer found"}, status=501)
    return BotReply({"result": QAPS[0]["answer"]})


def http_bot(server, **fields) -> HTTPBot:
    config = {"kind": "http", "url": f"{server.url}/answer", "body": {"text": "{{ question }}"}}
    return HTTPBot(HTTPTargetConfig(**config, answer_path="result", retries=0, **fields))


def test_declared_statuses_are_the_bot_s_no_answer_and_others_stay_failures():
    with HTTPBotServer(seed_bot) as server:
        rule = {"no_answer": {"status": [400, 501]}}
        short = ask(http_bot(server, **rule), "Tut es weh?")
        unknown = ask(http_bot(server, **rule), "Was kostet eine Mammographie bei Ihnen?")
        with pytest.raises(
            TargetError, match="answered 501.*declare it: target.no_answer.status"
        ):  # as before
            ask(http_bot(server), "Was kostet eine Mammographie bei Ihnen?")
        with pytest.raises(TargetError, match="answered 400"):
            ask(http_bot(server, no_answer={"status": [501]}), "Tut es weh?")
    assert short.text is None and "status 400" in short.no_answer_reason
    assert unknown.text is None and "status 501" in unknown.no_answer_reason
    assert "No answer found" in unknown.no_answer_reason


def test_a_field_s_value_or_an_answer_text_can_say_no_answer_too(tmp_path):
    reply = {"result": "Dazu habe ich keine Antwort.", "status": "no_match"}
    with HTTPBotServer(lambda body: BotReply(reply)) as server:
        by_field = ask(
            http_bot(server, no_answer={"path": "status", "equals": "no_match"}), "Frage mit vier Worten"
        )
        by_text = ask(http_bot(server, no_answer={"patterns": [r"keine antwort"]}), "Frage mit vier Worten")
        kept = ask(http_bot(server, no_answer={"patterns": [r"\bnie\b"]}), "Frage mit vier Worten")
    assert by_field.text is None and "'status' is 'no_match'" in by_field.no_answer_reason
    assert by_text.text is None and "keine antwort" in by_text.no_answer_reason
    assert kept.text == reply["result"]
    (tmp_path / "bot.py").write_text("def answer(question):\n    return 'Sorry, no answer found.'\n")
    config = PythonTargetConfig(
        kind="python", function="bot:answer", path=tmp_path, no_answer={"patterns": ["no answer found"]}
    )
    said = ask(PythonFunctionBot(config), "anything")
    assert said.text is None and said.no_answer_reason.startswith("the bot said it has no answer")


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("{status: [401]}", "401 means refused credentials"),
        ("{status: [200]}", "200 is not an error status"),
        ("{path: status}", "`path` and `equals` go together"),
        ("{patterns: ['(']}", "is not a regular expression"),
        ("{statuses: [501]}", "field 'target.no_answer.statuses': unknown"),
    ],
)
def test_a_bad_rule_is_a_one_line_error(project, rule, message):
    config = f"""
name: seedbot
target: {{kind: http, url: 'http://127.0.0.1:9/answer', no_answer: {rule}}}
seeds: seeds.jsonl
personas: personas
scenarios: []
"""
    (project / "seeds.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QAPS))
    result = simpop("run", str(write_config(project, config)), "--dry-run", cwd=project)
    assert_one_line_error(result, message)


def variants_reply(request: dict) -> Reply:
    topic = quoted(request)[0].rstrip("?")
    return Reply(json.dumps({"questions": [f"Bitte sagen Sie mir: {topic}?"] * count(request)}))


def test_a_run_counts_the_bot_s_no_answer_as_a_qap_error_and_a_refusal(project):
    (project / "seeds.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QAPS))
    with FakeOpenAIServer(default=with_judges(variants_reply)) as llm, HTTPBotServer(seed_bot) as server:
        config = f"""
name: seedbot
target:
  kind: http
  url: {server.url}/answer
  body: {{text: "{{{{ question }}}}"}}
  answer_path: result
  qaps: seeds.jsonl
  no_answer: {{status: [400, 501]}}
seeds: seeds.jsonl
personas: personas
variants: 1
scenarios: []
llm: {{base_url: '{llm.base_url}'}}
"""
        result = simpop("run", str(write_config(project, config)), "--personas", "high-literacy", cwd=project)
    assert result.returncode == 0, result.stderr
    [run_dir] = (project / "runs").iterdir()
    responses = [json.loads(x) for x in (run_dir / "responses.jsonl").read_text().splitlines()]
    assert not any(r["error"] for r in responses)
    by_seed = {r["seed_id"]: r for r in responses}
    assert by_seed["m1"]["matched_id"] == "m1"  # its answer is QAP m1's answer
    assert by_seed["m2"]["answer"] is None and "status 501" in by_seed["m2"]["no_answer_reason"]
    scores = [json.loads(x) for x in (run_dir / "scores.jsonl").read_text().splitlines()]
    match = {s["seed_id"]: s for s in scores if s["metric"] == "qap_match"}
    assert (match["m1"]["value"], match["m2"]["value"], match["m2"]["label"]) == (1.0, 0.0, "no_answer")
    refusal = {s["seed_id"]: s for s in scores if s["metric"] == "refusal"}
    assert refusal["m2"]["values"]["refused"] == 1.0 and refusal["m1"]["values"]["refused"] == 0.0
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["excluded"] == {}  # nothing dropped: the no answer is scored
