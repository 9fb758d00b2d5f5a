"""Secrets an endpoint echoes back (issue 44): a bot error page showing the ``Authorization``
header it got, an LLM whose 400 body repeats the API key. simpop read both values itself, so
neither may land in the run directory, the cache, stdout or stderr."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import reworded, with_judges

BOT_TOKEN = "tok-3f9a7c1e55d04b2a"
LLM_KEY = "sk-llm-9b8e7d6c5a4f3e21"


def every_file_text(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file())


def test_an_echoing_bot_and_llm_leave_no_secret_anywhere(project, tmp_path):
    asked = []

    def bot(body: dict) -> BotReply:
        asked.append(body)
        header = server.requests[-1][2].get("authorization", "")
        if len(asked) % 2:  # an error page that shows what it was sent
            return BotReply(raw=f"<h1>Internal error</h1> request had Authorization: {header}", status=422)
        return BotReply({"answer": f"I read your header {header}; see a doctor."})

    failed_once = []

    def llm(request: dict) -> Reply:
        if not failed_once and not request.get("logprobs"):
            failed_once.append(True)
            return Reply(status=400, raw=json.dumps({"error": {"message": f"bad request for key {LLM_KEY}"}}))
        return Reply(json.dumps({"questions": reworded(request)}))

    cache = tmp_path / "cache"
    with HTTPBotServer(bot) as server, FakeOpenAIServer(default=with_judges(llm)) as fake:
        config = (
            "name: echoes\n"
            f"target: {{kind: http, url: '{server.url}/chat', retries: 0,\n"
            "  headers: {Authorization: 'Bearer ${BOT_TOKEN}'}}\n"
            "seeds: data/qaps.jsonl\npersonas: personas\npersona_ids: [typical-adult, high-literacy]\n"
            f"variants: 2\nlimit: 3\nscenarios: []\nllm: {{base_url: '{fake.base_url}', max_retries: 0}}\n"
        )
        result = simpop(
            "run",
            str(write_config(project, config)),
            "--no-judge",
            cwd=project,
            env={"BOT_TOKEN": BOT_TOKEN, "SIMPOP_LLM_API_KEY": LLM_KEY, "SIMPOP_CACHE_DIR": str(cache)},
        )
    assert asked and failed_once, result.stderr  # both endpoints really echoed
    written = every_file_text(project / "runs") + every_file_text(cache)
    shown = result.stdout + result.stderr
    for secret in (BOT_TOKEN, LLM_KEY):
        assert secret not in written and secret not in shown, secret
    assert "Authorization: Bearer ***" in written  # the bot's echo, kept with the secret masked
    assert "key ***" in written + shown  # the LLM's echo


def test_every_way_out_masks_a_remembered_secret(capsys):
    import io

    from simpop.cli.common import UserError, console
    from simpop.redact import MASK, RedactedStream, redact, remember

    secret = remember('tok-"quoted"-5e6f7a8b')
    escaped = json.dumps(secret)[1:-1]  # as it stands inside a JSON record
    assert redact(f"a {secret} b {escaped}") == f"a {MASK} b {MASK}"
    assert secret not in UserError(f"bot said {secret}").format_message()
    console.print(f"echo {secret}")
    assert secret not in capsys.readouterr().out
    sink = io.StringIO()
    RedactedStream(lambda: sink).write(f"x{secret}y")
    assert sink.getvalue() == f"x{MASK}y"
    assert remember("8080") == "8080" and redact("port 8080") == "port 8080"  # too plain to mask
