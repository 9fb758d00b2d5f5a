"""Bring-your-own-bot adapters against real servers on 127.0.0.1: what they record, and how
they fail."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers import ask, closed_port

from simpop.errors import ConfigError
from simpop.models import Exchange
from simpop.targets import TargetError, TargetUnavailable
from simpop.targets.http import HTTPBot, HTTPTargetConfig, fill, json_path
from simpop.targets.openai_chat import OpenAIChatBot, OpenAIChatTargetConfig
from simpop.targets.python_function import PythonFunctionBot, PythonTargetConfig
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer


def test_fill_and_json_path():
    body = {"input": {"text": "Q: {{question}}", "tags": ["{{ question }}", 3]}, "n": 1}
    assert fill(body, 'say "hi"') == {"input": {"text": 'Q: say "hi"', "tags": ['say "hi"', 3]}, "n": 1}
    data = {"data": {"items": [{"a": 1}, {"a": {"b": "x"}}]}}
    assert json_path(data, "data.items[1].a.b") == "x"
    assert json_path(data, "data.items.0.a") == 1
    assert json_path(data, "data.missing", None) is None
    with pytest.raises(KeyError):
        json_path(data, "data.items.5")


RAG_REPLY = {
    "result": {
        "text": "Cataract surgery is safe.",
        "sources": [
            {"doc": "cataract#2", "content": "Surgery replaces the lens.", "relevance": 0.81},
            {"doc": "cataract#0", "content": "A cataract clouds the lens.", "relevance": 0.64},
        ],
        "faq": {"id": "0000158-3"},
    }
}


def http_config(url: str, **extra) -> HTTPTargetConfig:
    fields = dict(
        kind="http",
        url=url,
        body={"messages": [{"role": "user", "content": "{{ question }}"}], "stream": False},
        answer_path="result.text",
        contexts_path="result.sources",
        context_fields={"id": "doc", "text": "content", "score": "relevance"},
        matched_id_path="result.faq.id",
        timeout=2,
        retries=2,
    )
    return HTTPTargetConfig(**(fields | extra))


def test_http_bot_records_answer_contexts_and_matched_id(monkeypatch):
    monkeypatch.setenv("BOT_TOKEN", "s3cret")
    with HTTPBotServer(lambda body: BotReply(RAG_REPLY)) as server:
        config = http_config(server.url + "/chat", headers={"Authorization": "Bearer ${BOT_TOKEN}"})
        answer = ask(HTTPBot(config), 'Is "surgery" safe?')
    assert answer.text == "Cataract surgery is safe."
    assert [(c.id, c.text, c.score) for c in answer.contexts] == [
        ("cataract#2", "Surgery replaces the lens.", 0.81),
        ("cataract#0", "A cataract clouds the lens.", 0.64),
    ]
    assert answer.matched_id == "0000158-3"
    [(method, path, headers, body)] = server.requests
    assert (method, path) == ("POST", "/chat")
    assert headers["authorization"] == "Bearer s3cret"
    assert body == {"messages": [{"role": "user", "content": 'Is "surgery" safe?'}], "stream": False}
    assert "s3cret" not in config.model_dump_json()  # the stored config keeps ${BOT_TOKEN}


def test_http_bot_get_with_query_parameters():
    with HTTPBotServer(lambda body: BotReply({"answer": f"got {body['q']}"})) as server:
        config = HTTPTargetConfig(
            kind="http", url=server.url + "/ask", method="GET", body={"q": "{{question}}"}
        )
        answer = ask(HTTPBot(config), "dry eyes")
    assert answer.text == "got dry eyes"
    assert server.requests[0][:2] == ("GET", "/ask")


def test_http_bot_retries_server_errors_then_succeeds():
    replies = iter([BotReply({"error": "busy"}, status=503), BotReply({"error": "x"}, status=500)])
    with HTTPBotServer(lambda body: next(replies, BotReply(RAG_REPLY))) as server:
        answer = ask(HTTPBot(http_config(server.url)), "q")
    assert answer.text == "Cataract surgery is safe."
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("reply", "config", "message"),
    [
        (BotReply({"e": 1}, status=500), {}, r"answered 500 \(3 tries\)"),
        (BotReply({"e": 1}, status=400), {}, r"answered 400: \{\"e\": 1\}"),
        (BotReply(raw="<html>oops</html>"), {}, "reply that is not JSON"),
        (BotReply({"result": {}}), {}, "reply has no 'result.text'"),
        (BotReply({"result": {"text": 42}}), {}, "'answer' is int, not a string"),
        (BotReply(RAG_REPLY, delay=1.0), {"timeout": 0.3, "retries": 1}, r"no reply within 0.3s \(2 tries\)"),
    ],
)
def test_http_bot_failures_are_target_errors(reply, config, message):
    with HTTPBotServer(lambda body: reply) as server:
        with pytest.raises(TargetError, match=message):
            ask(HTTPBot(http_config(server.url, **config)), "q")
    expected_tries = 3 if reply.status == 500 else (2 if reply.delay else 1)
    assert len(server.requests) == expected_tries


def test_http_bot_null_answer_is_no_answer():
    with HTTPBotServer(lambda body: BotReply({"result": {"text": None, "sources": []}})) as server:
        answer = ask(HTTPBot(http_config(server.url)), "q")
    assert answer.text is None and answer.no_answer_reason == "the bot gave no answer"


def test_http_bot_unreachable_or_refusing_stops_the_run(monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}/chat"
    with pytest.raises(TargetUnavailable, match=rf"cannot reach bot endpoint {url} \(2 tries\)"):
        ask(HTTPBot(http_config(url, retries=1)), "q")
    with HTTPBotServer(lambda body: BotReply({"detail": "no"}, status=401)) as server:
        with pytest.raises(TargetUnavailable, match=r"refused the request \(401\)"):
            ask(HTTPBot(http_config(server.url)), "q")
    monkeypatch.delenv("NOT_SET_TOKEN", raising=False)
    with pytest.raises(
        ConfigError, match="target.headers.X-Key: environment variable NOT_SET_TOKEN is not set"
    ):
        HTTPBot(http_config(url, headers={"X-Key": "${NOT_SET_TOKEN}"}))


def chat_config(url: str, **extra) -> OpenAIChatTargetConfig:
    fields = dict(kind="openai_chat", base_url=url, model="clinic-bot", timeout=2, retries=1)
    return OpenAIChatTargetConfig(**(fields | extra))


def test_openai_chat_bot_sends_system_prompt_headers_and_key(monkeypatch):
    monkeypatch.setenv("CLINIC_BOT_KEY", "sk-test-123")
    with FakeOpenAIServer(default=Reply("  Please call the clinic.  ")) as server:
        config = chat_config(
            server.base_url,
            system_prompt="You are the eye clinic's assistant.",
            headers={"X-Tenant": "eye"},
            api_key_env="CLINIC_BOT_KEY",
            temperature=0.0,
        )
        answer = ask(OpenAIChatBot(config), "My eye hurts")
    assert answer.text == "Please call the clinic."
    [request] = server.requests
    assert request["model"] == "clinic-bot" and request["temperature"] == 0.0
    assert request["messages"] == [
        {"role": "system", "content": "You are the eye clinic's assistant."},
        {"role": "user", "content": "My eye hurts"},
    ]
    assert server.request_headers[0]["x-tenant"] == "eye"
    assert server.request_headers[0]["authorization"] == "Bearer sk-test-123"


def test_openai_chat_bot_failures():
    with FakeOpenAIServer(default=Reply(status=500)) as server:
        with pytest.raises(TargetError, match=r"answered 500 \(2 tries\)"):
            ask(OpenAIChatBot(chat_config(server.base_url)), "q")
        assert len(server.requests) == 2
    with FakeOpenAIServer(script=[Reply(status=429), Reply("fine")]) as server:
        assert ask(OpenAIChatBot(chat_config(server.base_url)), "q").text == "fine"
    with FakeOpenAIServer(default=Reply("late", delay=1.0)) as server:
        with pytest.raises(TargetError, match=r"no reply within 0.3s \(1 tries\)"):
            ask(OpenAIChatBot(chat_config(server.base_url, timeout=0.3, retries=0)), "q")
    with FakeOpenAIServer(default=Reply(status=401)) as server:
        with pytest.raises(TargetUnavailable, match=r"rejected the API key \(401\); check BOT_KEY"):
            ask(OpenAIChatBot(chat_config(server.base_url, api_key_env="BOT_KEY")), "q")
    with FakeOpenAIServer(default=Reply(raw="not json at all")) as server:
        with pytest.raises(TargetError, match="not JSON"):
            ask(OpenAIChatBot(chat_config(server.base_url, retries=0)), "q")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(TargetUnavailable, match=f"cannot reach bot endpoint {url}"):
        ask(OpenAIChatBot(chat_config(url, retries=0)), "q")


BOT_MODULE = """
import asyncio, json
calls = []

def answer(question):
    calls.append(question)
    if "crash" in question:
        raise RuntimeError("index not loaded")
    if "slow" in question:
        import time; time.sleep(1.0)
    if "plain" in question:
        return "Just text."
    contexts = ["Use drops.", {"id": "kb#1", "text": "Rest.", "score": 0.5}]
    return {"answer": "Drops help.", "contexts": contexts, "matched_id": 7}

async def answer_async(question):
    await asyncio.sleep(0)
    return {"answer": None, "no_answer_reason": "out of scope"}

async def answer_chat(question, messages):
    return " | ".join(f"{m['role']}: {m['content']}" for m in messages)
"""


def python_config(tmp_path, function: str = "mybot:answer", **extra) -> PythonTargetConfig:
    (tmp_path / "mybot.py").write_text(BOT_MODULE)
    return PythonTargetConfig(kind="python", function=function, path=tmp_path, **({"retries": 1} | extra))


def test_python_bot_returns_mapping_string_or_async(tmp_path):
    answer = ask(PythonFunctionBot(python_config(tmp_path)), "dry eye?")
    assert answer.text == "Drops help." and answer.matched_id == "7"
    assert [(c.id, c.text, c.score) for c in answer.contexts] == [
        ("0", "Use drops.", None),
        ("kb#1", "Rest.", 0.5),
    ]
    assert ask(PythonFunctionBot(python_config(tmp_path)), "plain please").text == "Just text."
    answer = ask(PythonFunctionBot(python_config(tmp_path, "mybot:answer_async")), "q")
    assert answer.text is None and answer.no_answer_reason == "out of scope"


def test_in_a_conversation_each_adapter_sends_the_history_in_order(tmp_path):
    history = [
        Exchange(asked="my eye is red", answer="Since when?"),
        Exchange(asked="today", answer="Any pain?"),
    ]
    expected = [
        {"role": "user", "content": "my eye is red"},
        {"role": "assistant", "content": "Since when?"},
        {"role": "user", "content": "today"},
        {"role": "assistant", "content": "Any pain?"},
        {"role": "user", "content": "yes, a lot"},
    ]

    def chat(bot, question):
        async def go():
            try:
                return await bot.ask(question, history, session="conv-7")
            finally:
                await bot.aclose()

        return asyncio.run(go())

    config = python_config(tmp_path, "mybot:answer_chat")
    assert config.conversation_problem() is None
    said = chat(PythonFunctionBot(config), "yes, a lot").text
    assert said == " | ".join(f"{m['role']}: {m['content']}" for m in expected)
    problem = python_config(tmp_path).conversation_problem()
    assert problem is not None and "has no 'messages' parameter" in problem
    with HTTPBotServer(lambda body: BotReply({"answer": "Go to the ER."})) as server:
        body = {"messages": "{{ messages }}", "id": "s-{{ session_id }}", "q": "{{ question }}"}
        config = http_config(
            server.url, body=body, answer_path="answer", contexts_path=None, matched_id_path=None
        )
        assert chat(HTTPBot(config), "yes, a lot").text == "Go to the ER."
        [(_, _, _, sent)] = server.requests
    assert sent == {"messages": expected, "id": "s-conv-7", "q": "yes, a lot"}
    assert http_config(server.url).conversation_problem() is not None
    with FakeOpenAIServer(default=Reply("Go to the ER.")) as server:
        chat(OpenAIChatBot(chat_config(server.base_url, system_prompt="Be brief.")), "yes, a lot")
        [request] = server.requests
    assert request["messages"] == [{"role": "system", "content": "Be brief."}, *expected]


def test_python_bot_failures(tmp_path):
    bot = PythonFunctionBot(python_config(tmp_path))
    with pytest.raises(TargetError, match=r"mybot:answer raised RuntimeError: index not loaded \(2 tries\)"):
        ask(bot, "crash now")
    import mybot  # the module the adapter imported

    assert mybot.calls.count("crash now") == 2
    with pytest.raises(TargetError, match=r"no reply within 0.2s \(1 tries\)"):
        ask(PythonFunctionBot(python_config(tmp_path, timeout=0.2, retries=0)), "slow one")
    with pytest.raises(ConfigError, match="target.function: 'mybot' has no function 'nope'"):
        PythonFunctionBot(python_config(tmp_path, "mybot:nope"))
    with pytest.raises(ConfigError, match="target.function: cannot import 'no_such_bot'"):
        PythonFunctionBot(python_config(tmp_path, "no_such_bot:answer"))


def test_adapter_reply_shapes_are_validated():
    from simpop.targets.target import answer_from_reply

    with pytest.raises(TargetError, match="returned list"):
        answer_from_reply(["a"], "bot")
    assert json.loads(answer_from_reply({"answer": "  ok "}, "bot").model_dump_json())["text"] == "ok"


def test_the_readme_http_example_runs_against_the_bundled_echo_bot(monkeypatch):
    import re
    from pathlib import Path

    import yaml

    from simpop.testing.http_bot import echo

    root = Path(__file__).parent.parent  # the example is in the README or the docs (how-to/your-own-bot.md)
    documents = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    [block] = {
        b
        for doc in documents
        for b in re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
        if "kind: http\n  url: http://127.0.0.1:8080" in b
    }
    target = yaml.safe_load(block)["target"]
    assert target["url"] == "http://127.0.0.1:8080/chat"  # the echo bot's default port
    monkeypatch.setenv("EYE_BOT_TOKEN", "t0ken")
    with HTTPBotServer(echo) as server:
        config = HTTPTargetConfig(**(target | {"url": server.url + "/chat"}))
        answer = ask(HTTPBot(config), "Is glaucoma painful?")
    assert answer.text == "You asked: Is glaucoma painful?"
    assert [(c.id, c.text, c.score) for c in answer.contexts] == [("echo", "Is glaucoma painful?", 1.0)]
    assert answer.matched_id == "echo"
    assert server.requests[0][2]["authorization"] == "Bearer t0ken"


def test_the_echo_bot_takes_a_plain_question_too():
    from simpop.testing.http_bot import echo

    assert echo({"question": "dry eyes?"}).payload["answer"] == "You asked: dry eyes?"
