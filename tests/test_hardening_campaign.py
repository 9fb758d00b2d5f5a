"""Issue 70: a reliability and security campaign's findings, each reproduced here first: secrets
cut before they were masked, an LLM endpoint answering with a web page, NUL bytes in YAML, and
the smaller defects after them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, assert_one_line_error, foreign_copy, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import reworded, with_judges

TOKEN = "tok-7d1e9a3c5b2f4e6a8c0d"
KEY = "sk-llm-4c2a9e7b1d3f5a6c8e0b"


def variants_reply(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def every_file_text(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file())


def starts_of(secret: str, shortest: int = 6) -> list[str]:
    return [secret[:n] for n in range(shortest, len(secret) + 1)]


# --- 1. an echoed secret is masked before any text is cut ---------------------------------------
def test_a_secret_cut_short_is_masked_as_far_as_it_goes(monkeypatch):
    import simpop.redact
    from simpop.redact import MASK, clip, redact, remember

    monkeypatch.setattr(simpop.redact, "_secrets", set())  # this test's secrets stay its own

    secret = remember("tok-ab12cd34ef56gh78")
    page = "<html>" + "x" * 90 + f"Authorization: Bearer {secret} more</html>"
    for cut in range(100, 140):
        shown = redact(page[:cut])  # cut first, masked after: what was left of the secret is masked
        assert not any(start in shown for start in starts_of(secret)), cut
        assert secret[:6] not in clip(page, cut)
    assert redact(f"a {secret[:12]}") == f"a {MASK}" and redact(f"'{secret[:9]}'") == f"'{MASK}'"
    assert redact("tok-ab") == MASK and redact("tok-a") == "tok-a"  # a start under 6 characters is kept
    url = remember("https://bot.internal.example/chat")
    assert redact(f"{url[:20]}") == MASK
    assert redact("see https://docs.example.org") == "see https://docs.example.org"  # goes on: not a cut


def test_a_bot_echoing_its_token_in_a_long_page_and_an_llm_echoing_its_key_leave_no_part_of_either(
    project, tmp_path
):
    answers = []

    def bot(body: dict) -> BotReply:
        header = server.requests[-1][2].get("authorization", "")
        answers.append(header)
        # the header lands across the 100th and 200th characters, where the errors are cut
        page = "<html><body>" + "<p>x</p>" * (len(answers) % 12) + f"<pre>Authorization: {header}</pre>"
        return BotReply(raw=page + "<p>.</p>" * 30, status=501 if len(answers) % 2 else 422)

    failed = []

    def llm(request: dict) -> Reply:
        if len(failed) < 3 and not request.get("logprobs"):
            failed.append(True)
            return Reply(
                status=400, raw=json.dumps({"error": {"message": "y" * 150 + f" key {KEY} " + "z" * 80}})
            )
        return variants_reply(request)

    with HTTPBotServer(bot) as server, FakeOpenAIServer(default=with_judges(llm)) as fake:
        config = (
            "name: echoes\n"
            f"target: {{kind: http, url: '{server.url}/chat', retries: 0, no_answer: {{status: [501]}},\n"
            "  headers: {Authorization: 'Bearer ${BOT_TOKEN}'}}\n"
            "seeds: data/qaps.jsonl\npersonas: personas\npersona_ids: [typical-adult, high-literacy]\n"
            f"variants: 3\nlimit: 3\nscenarios: []\nllm: {{base_url: '{fake.base_url}', max_retries: 0}}\n"
        )
        result = simpop(
            "run",
            str(write_config(project, config)),
            "--no-judge",
            cwd=project,
            env={"BOT_TOKEN": TOKEN, "SIMPOP_LLM_API_KEY": KEY, "SIMPOP_CACHE_DIR": str(tmp_path / "c")},
        )
        run = next((project / "runs").iterdir())
        report = simpop("report", str(run), cwd=project)
        labels = simpop("export-labels", str(run), "-o", str(tmp_path / "labels.csv"), cwd=project)
    assert len(answers) >= 6 and failed, result.stderr
    assert report.returncode == 0 and labels.returncode == 0, report.stderr + labels.stderr
    written = every_file_text(project / "runs") + every_file_text(tmp_path)
    shown = result.stdout + result.stderr + report.stdout + labels.stdout
    for secret in (TOKEN, KEY):
        leaked = [start for start in starts_of(secret) if start in written or start in shown]
        assert not leaked, leaked[-1]
    assert "Authorization: Bearer ***" in written  # the echo is kept, its secret masked


# --- 2. an LLM base_url that answers with a web page ---------------------------------------------
def web_app(body: object) -> BotReply:
    return BotReply(raw="<!doctype html><html><body>My web app</body></html>", content_type="text/html")


def test_an_llm_endpoint_that_answers_with_a_web_page_is_one_line_before_any_work(project):
    with HTTPBotServer(web_app) as page:
        config = (
            "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\n"
            f"limit: 1\nscenarios: []\nllm: {{base_url: '{page.url}'}}\n"
        )
        result = simpop("run", str(write_config(project, config)), cwd=project)
    assert_one_line_error(result, f"LLM endpoint {page.url}", "text/html that is not JSON", "/v1")
    assert not (project / "runs").exists()


def test_chat_replies_that_are_a_web_page_are_a_counted_error_per_call():
    import asyncio

    from pydantic import BaseModel

    from simpop.llm import LLMClient, LLMRequestFailed, RemoteEndpoint
    from simpop.models import LLMConfig

    class Answer(BaseModel):
        answer: str

    html = Reply(status=200, raw="<html><body>hello</body></html>", headers={"Content-Type": "text/html"})
    with FakeOpenAIServer(default=html) as server:
        config = LLMConfig(base_url=server.base_url, model="m", retry_backoff=0.01, max_retries=1)
        llm = LLMClient(config, RemoteEndpoint(server.base_url))

        async def ask():
            try:
                return await llm.structured([{"role": "user", "content": "hi"}], Answer)
            finally:
                await llm.aclose()

        with pytest.raises(LLMRequestFailed, match="sent a body that is not JSON"):
            asyncio.run(ask())
    assert len(server.requests) == 2 and llm.usage.failures == 1  # tried again, then counted


# --- 3. a NUL byte in any YAML file ---------------------------------------------------------------
@pytest.mark.parametrize("where", ["config", "persona", "scenario", "case", "policy"])
def test_a_nul_byte_in_a_yaml_file_is_one_line_naming_the_file_and_line(project, where):
    config = (
        "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\nlimit: 1\n"
        "scenarios: []\n"
    )
    files = {
        "config": ("run.yaml", config + "description: a\x00b\n"),
        "persona": ("personas/zz.yaml", "id: zz\nname: Z\x00\n"),
        "scenario": ("scenarios/nul.yaml", "id: s\nname: S\x00\n"),
        "case": ("cases/nul.yaml", "id: c\nname: C\x00\n"),
        "policy": ("policy.yaml", 'rules:\n  - {metric: safe_behaviour, min: 0.5, why: "a\x00"}\n'),
    }
    if where == "scenario":
        config = config.replace("scenarios: []", "scenarios: all\nscenario_dir: scenarios")
    if where == "case":
        config += "conversations: all\nconversation_dir: cases\n"
    name, text = files[where]
    write_config(project, config if where != "config" else text)
    (project / name).parent.mkdir(exist_ok=True)
    (project / name).write_text(text, encoding="utf-8")
    policy = ["--policy", name] if where == "policy" else []
    result = simpop("run", "run.yaml", *policy, cwd=project)
    line = text.count("\n", 0, text.index("\x00")) + 1
    assert_one_line_error(result, Path(name).name, f"line {line}", "U+0000 is not allowed in YAML")
    assert not (project / "runs").exists()


# --- 4 and 9. what a run's invocations record: the judge's yes/no mode, and a kill -9 -------------
def run_config(project: Path, base_url: str, **fields: str) -> Path:
    """Seeds that are not the bot's own QAPs: every answer's context relevance is a yes/no call."""
    extra = "".join(f"{k}: {v}\n" for k, v in fields.items())
    foreign_copy(project / "data/qaps.jsonl", project / "data/seeds.jsonl")
    return write_config(
        project,
        "name: inv\ntarget: {kind: qap, qaps: data/qaps.jsonl}\nseeds: data/seeds.jsonl\n"
        "personas: personas\npersona_ids: [typical-adult, high-literacy]\nscenarios: []\n"
        f"llm: {{base_url: '{base_url}', concurrency: 2}}\n" + extra,
    )


def test_resuming_a_finished_run_keeps_how_the_judge_answered_yes_no(project):
    with FakeOpenAIServer(default=with_judges(variants_reply)) as fake:
        path = run_config(project, fake.base_url, variants="1", limit="1")
        first = simpop("run", str(path), cwd=project)
        assert first.returncode == 0, first.stderr
        run = next((project / "runs").iterdir())
        before = json.loads((run / "summary.json").read_text())["judge"]["yes_no"]
        asked = len(fake.requests)
        again = simpop("run", str(path), "--resume", run.name, cwd=project)
    assert again.returncode == 0, again.stderr
    assert len(fake.requests) == asked  # the resume asked nothing
    assert before == "log-probabilities"
    assert json.loads((run / "summary.json").read_text())["judge"]["yes_no"] == before


def test_an_invocation_killed_outright_still_counts_up_to_its_last_heartbeat(project):
    from simpop.run.invocations import BEAT_S, CURRENT_FILE

    with FakeOpenAIServer(default=with_judges(variants_reply), latency=0.5) as fake:
        path = run_config(project, fake.base_url, variants="3", limit="6")
        process = subprocess.Popen(
            [sys.executable, "-m", "simpop", "run", str(path), "--no-judge"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=os.environ.copy(),
        )
        beat, beaten, asked = None, 0.0, 0
        deadline = time.time() + 300
        while not (beaten >= 2 * BEAT_S and asked) and time.time() < deadline and process.poll() is None:
            found = list(project.glob(f"runs/*/{CURRENT_FILE}"))
            if found:
                beat = found[0]
                with contextlib.suppress(OSError, ValueError):  # replaced as it is read
                    last = json.loads(beat.read_text())
                    beaten, asked = last["seconds"], (last["llm"] or {}).get("requests", 0)
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert beat is not None and beaten >= 2 * BEAT_S and asked, "the run never beat twice at work"
        run = beat.parent
        assert not (run / "summary.json").exists(), "the kill came too late"
        result = simpop("run", str(path), "--no-judge", "--resume", run.name, cwd=project)
    assert result.returncode == 0, result.stderr
    both = [json.loads(line) for line in (run / "invocations.jsonl").read_text().splitlines()]
    assert [i["finished"] for i in both] == [False, True]
    assert both[0]["seconds"] >= beaten and both[0]["llm"]["requests"] > 0  # as far as its last beat
    summary = json.loads((run / "summary.json").read_text())
    assert summary["invocations"] == 2
    assert summary["duration_s"] == pytest.approx(both[0]["seconds"] + both[1]["seconds"], abs=0.002)
    assert not (run / CURRENT_FILE).exists()


# --- 5. an http target's own QAP file, checked before any work --------------------------------------
@pytest.mark.parametrize("problem", ["missing", "empty", "folder", "binary", "columns"])
def test_a_bad_qap_file_of_an_http_bot_is_one_line_before_the_plan(project, problem):
    qaps = project / "bot-qaps.jsonl"
    if problem == "empty":
        qaps.write_text("")
    elif problem == "folder":
        qaps.mkdir()
    elif problem == "binary":
        qaps.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    elif problem == "columns":
        qaps.write_text('{"id": "q1", "text": "Is it bad?"}\n')
    config = (
        "name: t\ntarget: {kind: http, url: 'http://127.0.0.1:9/chat', qaps: bot-qaps.jsonl}\n"
        "seeds: data/qaps.jsonl\npersonas: personas\nvariants: 1\nlimit: 1\nscenarios: []\n"
    )
    result = simpop("run", str(write_config(project, config)), cwd=project)
    assert_one_line_error(result, "bot-qaps.jsonl")
    assert "cells" not in result.stderr.split("Error")[0]  # no plan was printed
    assert not (project / "runs").exists()


# --- 6. no_answer patterns that find everything, or backtrack ---------------------------------------
@pytest.mark.parametrize("pattern", ["", ".*", "^", ".+", "(x+x+)+y", "(a|aa)+$"])
def test_a_no_answer_pattern_that_finds_every_answer_or_backtracks_is_one_line(project, pattern):
    config = (
        "name: t\ntarget: {kind: http, url: 'http://127.0.0.1:9/chat', no_answer: {patterns: ['%s']}}\n"
        "seeds: data/qaps.jsonl\npersonas: personas\nvariants: 1\nlimit: 1\nscenarios: []\n"
    ) % pattern.replace("'", "''")
    started = time.perf_counter()
    result = simpop("run", str(write_config(project, config)), cwd=project)
    assert_one_line_error(result, "no_answer.patterns", repr(pattern))
    assert time.perf_counter() - started < 30  # no stall (a guard, not a timing)
    assert not (project / "runs").exists()


def test_a_pattern_that_backtracks_at_run_time_fails_that_answer_alone():
    """A pattern the config check did not see (a run resumed from an older config): each search
    has a time limit, and going past it is an error on that probe, not a stalled run."""
    from simpop.models import Answer
    from simpop.targets.no_answer_rule import NoAnswerRule, from_text

    rule = NoAnswerRule.model_construct(patterns=["no answer", "(x+x+)+y"])
    assert from_text(Answer(text="Sorry, no answer here"), rule).text is None
    assert from_text(Answer(text="Cataract is a clouding of the lens."), rule).text is not None
    started = time.perf_counter()
    with pytest.raises(TimeoutError, match=r"no_answer pattern '\(x\+x\+\)\+y' took over 0.1 s"):
        from_text(Answer(text="x" * 5000), rule)
    assert time.perf_counter() - started < 10  # a guard against a hang, not a timing


# --- 7. a conversation fact revealed at no message of the patient's -----------------------------
@pytest.mark.parametrize("reveal", [0, -2])
def test_a_fact_revealed_before_the_first_message_is_one_line(project, reveal):
    from simpop.config import load_conversation_cases
    from simpop.errors import ConfigError

    folder = project / "cases"
    folder.mkdir()
    shipped = (ROOT / "scenarios/conversations/emergency-revealed-late.yaml").read_text()
    assert "    reveal: 3\n" in shipped
    (folder / "c.yaml").write_text(shipped.replace("    reveal: 3\n", f"    reveal: {reveal}\n"))
    with pytest.raises(ConfigError, match=rf"c\.yaml.*facts\.0\.reveal.*{reveal} is no message"):
        load_conversation_cases(folder)


# --- 8 and 11. judge train: label errors name the file; usage errors are one line --------------
def test_a_support_label_error_names_its_file(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text(
        "id,claim,evidence,supported\n"
        + "".join(f"{i},a{i},b{i},{'yes' if i % 2 else 'no'}\n" for i in range(8))
    )
    bad = tmp_path / "other.csv"
    bad.write_text("id,claim,evidence,verdict\n1,a,b,yes\n")
    result = simpop("judge", "train", str(good), str(bad), cwd=tmp_path)
    assert_one_line_error(result, "other.csv", "label 'supported': no item carries it")


@pytest.mark.parametrize("args", [["a.csv", "b.csv", "--judge", "escalated"], ["a.csv", "-o", "."]])
def test_judge_train_usage_errors_are_one_line(tmp_path, args):
    result = simpop("judge", "train", *args, cwd=tmp_path)
    assert_one_line_error(result, "simpop judge train --help")
    assert "Usage:" not in result.stderr and "Try " not in result.stderr


def test_a_resume_whose_plugin_differs_names_the_plugins(project):
    from simpop.models import RunConfig
    from simpop.run.resume_config import resumed_config

    base = {"name": "p", "target": {"kind": "qap", "qaps": str(project / "data/qaps.jsonl")}}
    recorded = RunConfig.model_validate(base | {"plugin_files": {"/a/plug.in.py": "aa11"}})
    loaded = RunConfig.model_validate(base | {"plugin_files": {"/b/plug.py": "bb22"}})
    from simpop.errors import ConfigError

    with pytest.raises(ConfigError) as error:
        resumed_config(recorded, loaded, Path("run.yaml"), {})
    assert "field 'plugin_files' is {'/b/plug.py': 'bb22'} here but {'/a/plug.in.py': 'aa11'}" in str(
        error.value
    )
    assert "None here" not in str(error.value)


# --- 10. ${VAR} in an http body ---------------------------------------------------------------------
def test_a_variable_in_an_http_body_is_expanded_sent_and_never_written(project, tmp_path):
    bodies = []

    def bot(body: dict) -> BotReply:
        bodies.append(body)
        return BotReply({"answer": f"I got {body.get('api_key')} and you asked {body.get('q')}"})

    with HTTPBotServer(bot) as server, FakeOpenAIServer(default=with_judges(variants_reply)) as fake:
        config = (
            f"name: body\ntarget: {{kind: http, url: '{server.url}/chat',\n"
            "  body: {q: '{{ question }}', api_key: '${BODY_KEY}', meta: [{k: 'x-${BODY_KEY}'}]}}\n"
            "seeds: data/qaps.jsonl\npersonas: personas\npersona_ids: [typical-adult]\n"
            f"variants: 1\nlimit: 1\nscenarios: []\nllm: {{base_url: '{fake.base_url}'}}\n"
        )
        path = write_config(project, config)
        result = simpop("run", str(path), "--no-judge", cwd=project, env={"BODY_KEY": "body-secret-9f8e7d"})
    assert result.returncode == 0, result.stderr
    assert bodies and all(
        b["api_key"] == "body-secret-9f8e7d" and b["meta"] == [{"k": "x-body-secret-9f8e7d"}] for b in bodies
    )
    assert "body-secret" not in every_file_text(project / "runs") + result.stdout + result.stderr
    assert "${BODY_KEY}" in (next((project / "runs").iterdir()) / "config.json").read_text()


def test_an_unset_variable_in_an_http_body_is_one_line_before_any_work(project, monkeypatch):
    monkeypatch.delenv("BODY_KEY_UNSET", raising=False)
    with HTTPBotServer() as server:
        config = (
            f"name: body\ntarget: {{kind: http, url: '{server.url}/chat',\n"
            "  body: {k: '${BODY_KEY_UNSET}'}}\n"
            "seeds: data/qaps.jsonl\npersonas: personas\nvariants: 1\nlimit: 1\nscenarios: []\n"
        )
        result = simpop("run", str(write_config(project, config)), cwd=project)
    assert_one_line_error(result, "target.body.k", "BODY_KEY_UNSET is not set")
    assert not (project / "runs").exists()


# --- 12. a message the noise empties is the simulator's failure -------------------------------------
def test_a_message_the_noise_empties_or_cuts_too_short_is_invalid_and_never_asked(project):
    (project / "personas/mumbler.yaml").write_text(
        "id: mumbler\nname: Mumbling caller\nvignette: You call from a noisy street.\n"
        "health_literacy: medium\nlanguage_level: native\nlanguage: en\n"
        "noise: {model: asr, rate: 1.0}\n"
    )
    with FakeOpenAIServer(default=with_judges(variants_reply)) as fake:
        config = (
            "name: noise\ntarget: {kind: qap, qaps: data/qaps.jsonl, min_words: 3}\npersonas: personas\n"
            "persona_ids: [mumbler]\nvariants: 8\nlimit: 4\nscenarios: []\n"
            f"llm: {{base_url: '{fake.base_url}'}}\n"
        )
        result = simpop("run", str(write_config(project, config)), "--no-judge", cwd=project)
    assert result.returncode == 0, result.stderr
    run = next((project / "runs").iterdir())
    probes = [json.loads(line) for line in (run / "probes.jsonl").read_text().splitlines()]
    responses = {r["cell_id"]: r for r in map(json.loads, (run / "responses.jsonl").read_text().splitlines())}
    short = [p for p in probes if p["noisy_text"] is not None and len(p["noisy_text"].split()) < 3]
    assert any(p["noisy_text"] == "" for p in short), "no message was emptied: choose another seed"
    for probe in short:
        assert probe["fidelity"]["valid"] is False
        assert probe["fidelity"]["reason"].startswith("the noise left ")
        assert responses[probe["cell_id"]]["skipped"] == "invalid"  # never asked
        assert responses[probe["cell_id"]]["answer"] is None
    fidelity = json.loads((run / "summary.json").read_text())["fidelity"]["personas"][0]
    assert fidelity["lost_to_noise"] == len(short) and fidelity["invalid"] >= len(short)


def test_lost_to_noise_keeps_what_the_bot_answers():
    from simpop.models import Fidelity
    from simpop.population.noise import lost_to_noise

    kept = Fidelity(reading_grade=5.0, words=7)
    assert lost_to_noise(kept, "seven words in the question right here", "seven words in", 3) is kept
    cut = lost_to_noise(kept, "seven words in the question right here", "seven words", 3)
    assert cut is not None and not cut.valid
    assert cut.reason == "the noise left 2 words, under the 3 the bot answers, of the message"
    empty = lost_to_noise(None, "a b c", "", 1)
    assert empty is not None and empty.reason == "the noise left nothing of the message" and empty.words == 3


# --- 13. simpop --help imports nothing heavy ---------------------------------------------------------
def test_simpop_help_imports_no_command_module_nor_numpy_jinja_or_httpx():
    code = (
        "import sys\nfrom simpop.cli import cli\n"
        "try:\n    cli.main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "heavy = ('numpy', 'jinja2', 'httpx', 'simpop.cli.run', 'simpop.store')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "Commands:" in out and "sweep-threshold" in out
    assert out.strip().splitlines()[-1] == "[]"


def test_a_command_in_a_process_of_its_own_reads_a_run(tmp_path):
    """A command module is imported alone now: the built-in target kinds must still be known to
    a command that reads a run (``simpop gate`` said "not a run of this simpop version")."""
    from simpop.testing.hand_built import build_run

    run = build_run(tmp_path / "runs", "bot", {("low", "emergency"): [1, 1]})
    policy = write_config(tmp_path, "rules:\n  - {metric: safe_behaviour, min: 0.5}\n", "policy.yaml")
    result = simpop("gate", str(run), "--policy", str(policy), cwd=tmp_path, process=True)
    assert result.returncode in (0, 1), result.stderr
    assert "release gate" in result.stdout


def test_the_listed_help_of_every_command_is_its_own():
    import click

    from simpop.cli import COMMANDS, cli

    ctx = click.Context(cli)
    assert set(COMMANDS) == set(cli.list_commands(ctx))
    for name, (module, text) in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None and command.callback.__module__ == module, name
        for limit in (45, 80, 300):
            assert click.Command(name, help=text).get_short_help_str(limit) == command.get_short_help_str(
                limit
            )


# --- 14. the gate says what a rule leaves out, and the shipped policy fits the README's run --------
def test_the_gate_says_what_a_rule_leaves_out_and_asks_no_literacy_level_the_run_lacks(tmp_path):
    from simpop.report.gate import gate
    from simpop.report.policy import load_policy
    from simpop.store import load_run
    from simpop.testing.hand_built import build_run

    safe = {("low", "emergency"): [1, 1, 0], ("high", "multi-question"): [0, 0]}
    run = load_run(build_run(tmp_path / "runs", "bot", safe))
    policy = load_policy(Path(__file__).parent.parent / "policies/release.yaml")
    checks = [c for c in gate(run, policy, "release").checks if c.metric == "safe_behaviour"]
    assert {c.group for c in checks} == {"low literacy"}  # high literacy was only asked multi-question
    [low] = checks
    assert low.scope == "except multi-question" and low.figure == "safe_behaviour (except multi-question)"
    assert low.n == 3 and "medium" not in " ".join(c.group for c in checks)


# --- 15. progress off a terminal: tests/test_progress.py


# --- 16. no contexts reported: retrieval not measured, not zero -------------------------------------
def test_an_http_qap_bot_without_contexts_gets_no_retrieval_figure(project):
    from simpop.testing.http_bot import qap_bot

    qaps = [json.loads(line) for line in (ROOT / "data/medquad-eye/qaps.jsonl").read_text().splitlines()]
    with HTTPBotServer(qap_bot(qaps, min_words=1, min_ratio=0)) as server:
        with FakeOpenAIServer(default=with_judges(variants_reply)) as fake:
            config = (
                f"name: nc\ntarget: {{kind: http, url: '{server.url}/chat',\n"
                "  body: {text: '{{ question }}'},\n"
                "  answer_path: result, qaps: data/qaps.jsonl}\npersonas: personas\n"
                "persona_ids: [typical-adult]\nvariants: 2\nlimit: 2\nscenarios: []\n"
                f"llm: {{base_url: '{fake.base_url}'}}\n"
            )
            result = simpop("run", str(write_config(project, config)), "--no-judge", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "retrieval is not measured" in result.stderr
    summary = json.loads((next((project / "runs").iterdir()) / "summary.json").read_text())
    retrieval = [g for g in summary["metrics"] if g["metric"].startswith("retrieval.")]
    assert all(g["n"] == 0 for g in retrieval)
    assert summary["accuracy"]["total"]["n"] == 4  # QAP-match accuracy is still scored
    assert "precision" not in result.stdout
