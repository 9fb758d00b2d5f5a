"""A golden run: the same small config, fake LLM on 127.0.0.1 and fixed seed must give the same
records and summary as the ones kept in ``tests/golden/`` (apart from run ids and timings).

The records were written before the package was restructured; the restructuring changed no
behaviour. After a deliberate change of behaviour, rewrite them with
``SIMPOP_UPDATE_GOLDEN=1 pytest tests/test_golden_run.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, judge_reason, judge_schema, quoted, yes_no

GOLDEN = Path(__file__).parent / "golden" / "qap"
FILES = ("probes.jsonl", "responses.jsonl", "scores.jsonl", "explained.jsonl", "summary.json")
SCENARIOS = "in-scope-in-kb,emergency-in-pathway,multi-question,off-topic,mistranscribed"
CONFIG = """
name: golden
target: {kind: qap, qaps: data/qaps.jsonl}
personas: personas
scenario_dir: scenarios
domain: domain.yaml
variants: 2
limit: 3
probes: 1
seed: 7
llm: {base_url: '%s', concurrency: 4}
"""
# what differs between two identical runs: ids, timings and where the run was written
VOLATILE = {"run_id", "latency_s", "duration_s"}


def pick(text: str, salt: str, n: int) -> int:
    """One of ``n`` choices that depends only on the text judged, never on timing."""
    return hashlib.sha256(f"{salt}\x00{text}".encode()).digest()[0] % n


def flip(text: str, salt: str) -> bool:
    return pick(text, salt, 2) == 0


def judge_value(schema: dict, definitions: dict, text: str, path: str = "") -> object:
    """A valid reply to a judge's schema whose booleans and labels vary with the prompt."""
    if "$ref" in schema:
        return judge_value(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions, text, path)
    if "enum" in schema:
        return schema["enum"][pick(text, path, len(schema["enum"]))]
    kind = schema.get("type")
    if kind == "object":
        return {k: judge_value(s, definitions, text, f"{path}.{k}") for k, s in schema["properties"].items()}
    if kind == "array":
        n = schema.get("minItems", 1)
        return [judge_value(schema["items"], definitions, text, f"{path}[{i}]") for i in range(n)]
    if kind == "boolean":
        return flip(text, path)
    return f"reason {hashlib.sha256((path + text).encode()).hexdigest()[:6]}"


def reply(request: dict) -> Reply:
    prompt = request["messages"][-1]["content"]
    if request.get("logprobs"):
        return yes_no(0.8 if flip(prompt, "yes") else 0.2)
    if judge_reason(request):
        return Reply(f"reason {hashlib.sha256(request['messages'][0]['content'].encode()).hexdigest()[:6]}")
    if judge_schema(request):
        schema = request["response_format"]["json_schema"]["schema"]
        return Reply(json.dumps(judge_value(schema, schema.get("$defs", {}), prompt)))
    seeds = quoted(request)
    words = " ".join(seeds[0].split()[:7]) if seeds else "My eye hurts and I feel sick"
    asides = ["sorry to ask", "my son wants to know", "I am worried", "quick question", "thank you"]
    messages = [f"{asides[i % 5]}: {words} ({'again ' * (i // 5)}{i % 5})?" for i in range(count(request))]
    return Reply(json.dumps({"questions": messages}))


def normalised(value: object) -> object:
    """``value`` without the fields that differ between two identical runs."""
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def close(got: object, want: object) -> bool:
    """Equal, numbers within 1e-5: an embedding's last bits differ between CPUs (AVX2 or AVX-512)."""
    if isinstance(want, float) and isinstance(got, float | int):
        return math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6)
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(close(got[k], want[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(close(g, w) for g, w in zip(got, want, strict=True))
    return got == want


def keyed(path: Path) -> dict[str, object]:
    """A JSONL file's records by cell (and metric), so the order they finished in does not matter."""
    records = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        records[f"{record['cell_id']}/{record.get('metric', '')}"] = normalised(record)
    return records


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "stage-by-stage"])
def test_a_run_gives_the_golden_records(project, tmp_path, stream):
    """Streamed (each cell on to the bot and the scores as soon as its probe is written) or
    stage by stage, a run writes the same records and summary: the golden ones."""
    shutil.copytree(ROOT / "scenarios", project / "scenarios")
    shutil.copy(ROOT / "targets/eye-domain.yaml", project / "domain.yaml")
    with FakeOpenAIServer(default=reply) as llm:
        path = write_config(project, CONFIG % llm.base_url + f"stream: {str(stream).lower()}\n")
        env = {"SIMPOP_CACHE_DIR": str(tmp_path / "cache")}
        result = simpop(
            "run",
            str(path),
            "--scenarios",
            SCENARIOS,
            "--personas",
            "low-literacy,older-phone",
            cwd=project,
            env=env,
        )
    assert result.returncode == 0, result.stderr
    [run] = (project / "runs").iterdir()
    if os.environ.get("SIMPOP_UPDATE_GOLDEN") and stream:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            shutil.copy(run / name, GOLDEN / name)
    for name in FILES[:4]:
        got, want = keyed(run / name), keyed(GOLDEN / name)
        assert got.keys() == want.keys(), name
        for key in want:
            assert close(got[key], want[key]), f"{name} {key}: {got[key]} != {want[key]}"
    summary = normalised(json.loads((run / "summary.json").read_text()))
    golden = normalised(json.loads((GOLDEN / "summary.json").read_text()))
    for usage in (summary["llm"], golden["llm"]):  # two identical requests in flight: a hit or not
        calls = usage["requests"] + usage.pop("cache_hits")
        usage.update(requests=calls, prompt_tokens=None, completion_tokens=None)
    for field in golden:
        assert close(summary[field], golden[field]), field
    assert summary.keys() == golden.keys()
    # the golden run exercises what the restructuring moved: every metric family, judged or not
    metrics = {k.split("/")[1] for k in keyed(GOLDEN / "scores.jsonl")}
    assert {"qap_match", "retrieval", "answer_similarity", "embedding", "faithfulness", "refusal"} <= metrics
    assert {"context_relevance", "escalation", "clarification", "sub_questions", "safe_behaviour"} <= metrics
