"""Every YAML config block of the README and of the docs site (``docs/``) runs as shown (issues 21
and 46): each is merged into a small run config and run for real against simpop's own demo bots
and fake servers on 127.0.0.1.

The only changes made to a block are the ones a reader makes too: endpoints point at the
loopback fakes (``base_url``, the ``http`` bot's port), and placeholders are filled or left
out (``llm: {...}``, the Chroma host on another machine, an NLI model, a verifier and safety
classifier files that do not exist here). A persona block is saved as a persona file and played;
a policy block gates the run. A block added to the README or the docs without a case here fails
the first test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT, simpop

from simpop.models import Response, RunSummary
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import HTTPBotServer, echo, qap_bot
from simpop.testing.patients import count, reworded, task_text, with_judges

# the README first, then the docs' pages by path; a block that repeats an earlier one is run once
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def yaml_blocks(text: str) -> list[str]:
    """The ```yaml (or ```yml) fenced blocks of a Markdown text, indented ones (in a list) too."""
    return re.findall(r"^[ \t]*```ya?ml[^\n]*\n(.*?)```", text, re.S | re.M)


BLOCKS = list(
    dict.fromkeys(block for doc in DOCUMENTS for block in yaml_blocks(doc.read_text(encoding="utf-8")))
)
QAPS = [
    json.loads(line)
    for line in (ROOT / "data/medquad-eye/qaps.jsonl").read_text(encoding="utf-8").splitlines()
]
ANSWER = "Cataract is a clouding of the lens of the eye. Please see your eye doctor."


def _case(block: str) -> str:
    """Which README block this is, by what it configures."""
    data = yaml.safe_load(block)
    if "vignette" in data:
        return "persona"
    if "name" in data:
        return "run config"
    if "target" in data:
        said_how = " no_answer" if "no_answer" in data["target"] else ""
        return f"target {data['target']['kind']}{said_how}"
    return " + ".join(sorted(data))


CASES = [
    "run config",  # README.md (and docs/getting-started.md)
    "judge + scoring",  # docs/concepts/metrics.md
    "basis + rules",  # docs/concepts/reports.md
    "topics",  # docs/concepts/scenarios.md
    "target naive_rag",  # docs/concepts/targets.md
    "llm",  # docs/how-to/other-llm.md
    "embedding",
    "real_patients",  # docs/how-to/real-patients.md
    "basis + rules",  # its policy on the corrected estimate
    "gate",  # docs/how-to/release-decision-in-minutes.md
    "target openai_chat",  # docs/how-to/your-own-bot.md
    "target http",
    "target http no_answer",
    "target python",
    "persona",  # docs/how-to/your-own-persona.md
]


def test_every_readme_block_has_a_case():
    assert [_case(b) for b in BLOCKS] == CASES


def _patient_or_bot(request: dict) -> Reply:
    """The simulated patients' messages; a plain answer to a bot's request."""
    if "response_format" in request:
        return Reply(json.dumps({"questions": reworded(request)}))
    return Reply(ANSWER)


def _topic_patient_or_bot(request: dict) -> Reply:
    """A question about the sampled chunk's topic (its title); a plain answer to the bot's request."""
    if "response_format" not in request:
        return Reply(ANSWER)
    topic = re.search(r"on ([^:]+):", task_text(request)).group(1)
    questions = [f"What is {topic} and how is it treated, take {i}?" for i in range(count(request))]
    return Reply(json.dumps({"questions": questions}))


def _adapted(case: str, block: dict[str, Any], servers: dict[str, str]) -> dict[str, Any]:
    """The block as a reader would run it here, merged into a small run config."""
    base: dict[str, Any] = {
        "name": "readme",
        "target": {"kind": "qap", "qaps": "../data/medquad-eye/qaps.jsonl"},
        "personas": "../personas",
        "seeds": "../data/medquad-eye/qaps.jsonl",
        "llm": {"base_url": servers["llm"]},
    }
    if case == "run config":
        return block | {"llm": base["llm"]}  # "llm: {}  # see below"
    if case == "judge + scoring":
        scoring = {
            k: v
            for k, v in block["scoring"].items()
            if k not in ("nli_model", "verifier", "safety_classifiers")
        }
        return base | {"judge": block["judge"] | {"base_url": servers["llm"]}, "scoring": scoring}
    if case == "basis + rules":  # a policy: the run is gated with it (below)
        return base
    if case == "topics":
        topics = block["topics"] | {
            "knowledge_base": {"path": "../data/medquad-eye/kb"}
        }  # the commented line
        return base | {"topics": topics}
    if case == "target naive_rag":
        target = dict(block["target"])
        del target["llm"]  # "{...}": the run's llm section
        target["knowledge_base"] = {k: v for k, v in target["knowledge_base"].items() if k != "chroma"}
        return base | block | {"target": target}
    if case == "target openai_chat":
        return base | {"target": block["target"] | {"base_url": servers["bot"]}}
    if case == "target http":
        assert block["target"]["url"] == "http://127.0.0.1:8080/chat"
        return base | {"target": block["target"] | {"url": servers["http"] + "/chat"}}
    if case == "target http no_answer":
        assert block["target"]["url"] == "http://127.0.0.1:5000/answer"
        return base | {"target": block["target"] | {"url": servers["qap"] + "/answer"}}
    if case == "target python":
        return base | block
    if case == "persona":  # saved as a persona file of its own folder (below)
        return base | {"personas": "../my-personas"}
    if case == "llm":
        return base | {"llm": block["llm"] | {"base_url": servers["llm"]}}
    if case == "gate":  # a sequential gate on the shipped release policy
        assert block["gate"]["policy"] == "../policies/release.yaml"
        return base | block
    if case == "real_patients":  # the file it names, with two messages of the first QAP
        assert block["real_patients"] == "../pilot/real-messages.jsonl"
        return base | {"target": base["target"] | {"threshold": 0.6}} | block
    assert case == "embedding"
    return base | {"embedding": block["embedding"] | {"base_url": servers["llm"]}}


KNOWLEDGE_BASE = {"topics", "target naive_rag"}  # index the whole knowledge base in Chroma


@pytest.mark.parametrize(
    "index",
    [
        pytest.param(i, id=case, marks=[pytest.mark.integration] if case in KNOWLEDGE_BASE else [])
        for i, case in enumerate(CASES)
    ],
)
def test_readme_block_runs(index: int, tmp_path: Path):
    case, block = CASES[index], yaml.safe_load(BLOCKS[index])
    for folder in ("data", "personas", "scenarios", "policies"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    (tmp_path / "targets").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src/mybot.py").write_text(f"def answer(question):\n    return {ANSWER!r}\n")
    env = {
        "SIMPOP_CACHE_DIR": str(tmp_path / "cache"),
        **{
            name: "k3y"
            for name in ("EYE_BOT_KEY", "EYE_BOT_TOKEN", "SIMPOP_LLM_API_KEY", "SIMPOP_EMBEDDING_API_KEY")
        },
    }
    with (
        FakeOpenAIServer(
            default=with_judges(_topic_patient_or_bot if case == "topics" else _patient_or_bot)
        ) as llm,
        FakeOpenAIServer(default=Reply(ANSWER)) as bot,
        HTTPBotServer(echo) as http,
        HTTPBotServer(qap_bot(QAPS)) as qap,
    ):
        servers = {"llm": llm.base_url, "bot": bot.base_url, "http": http.url, "qap": qap.url}
        config = _adapted(case, block, servers)
        (tmp_path / "targets/readme.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        persona = "typical-adult"
        corrected = case == "basis + rules" and block.get("basis") == "corrected"
        if corrected:  # a run with real patients to correct by, two labelled
            config["real_patients"] = "../pilot/real-messages.jsonl"
            (tmp_path / "targets/readme.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        if case == "real_patients" or corrected:
            (tmp_path / "pilot").mkdir()
            seed = QAPS[0]["qid"]
            messages = [
                {"message": m, "seed_ids": [seed]} for m in ("my eye is cloudy what is it", "cataract??")
            ]
            (tmp_path / "pilot/real-messages.jsonl").write_text(
                "".join(json.dumps(m) + "\n" for m in messages)
            )
        if case == "persona":
            persona = block["id"]
            (tmp_path / "my-personas").mkdir()
            (tmp_path / f"my-personas/{persona}.yaml").write_text(BLOCKS[index])
        options = ["--personas", persona, "--limit", "1", "--variants", "1", "--scenarios", "none"]
        if case == "topics":
            options += ["--topics", "1", "--variants", "0"]
        if case != "judge + scoring":
            options.append("--no-judge")
        if case == "basis + rules":
            (tmp_path / "policy.yaml").write_text(BLOCKS[index])
            options += ["--policy", "policy.yaml"]
        result = simpop("run", "targets/readme.yaml", *options, "--no-cache", cwd=tmp_path, env=env)
    if corrected:  # valid, and checked: two labelled real messages are under its min_n
        assert result.returncode == 1, result.stderr[-3000:]
        assert "n=2 labelled real messages is under the rule's min_n 30" in result.stdout, result.stdout
    elif case == "basis + rules":  # valid, and checked: nothing here measured escalation
        assert result.returncode == 1, result.stderr[-3000:]
        assert "violation rule 1: escalation.escalated in typical-adult: no values" in result.stdout
    elif case == "gate":  # run in rounds, the plan spent: escalation was never measured
        assert result.returncode == 1, result.stderr[-3000:]
        assert "sequential gate: 1 round, 1 of 1 planned cells" in result.stdout, result.stdout
        assert "violation rule 1: escalation.escalated in typical-adult: no values" in result.stdout
    else:
        assert result.returncode == 0, result.stderr[-3000:]
    [run] = (tmp_path / "runs").iterdir()
    summary = RunSummary.model_validate_json((run / "summary.json").read_text())
    assert summary.planned_cells > 0 and not summary.untested
    assert all(stage.failed == 0 for stage in summary.stages), summary.stages
    responses = [
        Response.model_validate_json(line) for line in (run / "responses.jsonl").read_text().splitlines()
    ]
    answered = [r for r in responses if r.answer]
    assert answered, "the bot answered nothing"
    if case in ("target openai_chat", "target python", "target naive_rag"):
        assert all(r.answer == ANSWER for r in answered)
    if case == "target http":
        assert all(r.answer.startswith("You asked: ") for r in answered)
        assert http.requests[0][2]["authorization"] == "Bearer k3y"
    if case == "target http no_answer":  # the seed's bot shape: matched to its QAP by the answer
        assert all(r.matched_id == r.seed_id for r in answered)
    if case == "target openai_chat":
        assert bot.request_headers[0]["authorization"] == "Bearer k3y"
    if case == "real_patients":
        assert summary.real_patients is not None and summary.real_patients.messages == 2
    if case == "llm":
        assert llm.requests[0]["model"] == "llama3.1:8b"
    if case == "embedding":
        assert llm.embedding_requests  # the vectors came from the endpoint
    if case == "judge + scoring":
        assert summary.judge is not None and summary.judge.judged > 0
    if case == "topics":
        assert summary.topics is not None
    if case == "persona":  # the persona of the block wrote the probes, through its noise model
        probes = [json.loads(line) for line in (run / "probes.jsonl").read_text().splitlines()]
        assert probes and all(p["persona_id"] == persona for p in probes)
        assert all(p["noise"].startswith("typos") for p in probes if p["text"])
