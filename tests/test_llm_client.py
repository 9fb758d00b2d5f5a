"""The LLM layer against a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import math

import pytest
from helpers import closed_port
from pydantic import BaseModel, ConfigDict

from simpop.llm import (
    LLMClient,
    LLMInvalidReply,
    LLMRequestFailed,
    LLMUnavailable,
    RemoteEndpoint,
    ResponseCache,
)
from simpop.llm.cache import cache_key
from simpop.models import LLMConfig
from simpop.testing.fake_openai import FakeOpenAIServer, Reply

MESSAGES = [{"role": "user", "content": "Is glaucoma hereditary?"}]
VALID = '{"answer": "yes", "confidence": 0.7}'


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: str
    confidence: float


def client(server: FakeOpenAIServer, cache: ResponseCache | None = None, **overrides) -> LLMClient:
    config = LLMConfig(base_url=server.base_url, model="fake-model", retry_backoff=0.01, **overrides)
    return LLMClient(config, RemoteEndpoint(server.base_url), cache)


def closing(llm: LLMClient, call):
    """The result of the coroutine ``call``, the client closed after it."""

    async def go():
        try:
            return await call
        finally:
            await llm.aclose()

    return asyncio.run(go())


def ask(llm: LLMClient, messages=MESSAGES):
    return closing(llm, llm.structured(messages, Verdict))


def test_429_then_success_is_retried():
    with FakeOpenAIServer([Reply(status=429, headers={"retry-after": "0"}), Reply(VALID)]) as server:
        llm = client(server)
        assert ask(llm) == Verdict(answer="yes", confidence=0.7)
    assert len(server.requests) == 2
    assert (llm.usage.requests, llm.usage.retries, llm.usage.failures) == (1, 1, 0)


def test_request_carries_schema_and_sampling():
    with FakeOpenAIServer([Reply(VALID)]) as server:
        ask(client(server, temperature=0.0, max_tokens=77))
    request = server.requests[0]
    assert request["model"] == "fake-model" and request["temperature"] == 0.0 and request["max_tokens"] == 77
    schema = request["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["answer", "confidence"] and schema["additionalProperties"] is False


def test_persistent_5xx_fails_after_the_last_retry():
    with FakeOpenAIServer(default=Reply(status=500)) as server:
        llm = client(server, max_retries=2)
        with pytest.raises(LLMRequestFailed, match="answered 500 after 3 tries"):
            ask(llm)
    assert len(server.requests) == 3 and llm.usage.failures == 1


def test_timeout_is_retried_then_succeeds():
    with FakeOpenAIServer([Reply(VALID, delay=1.5), Reply(VALID)]) as server:
        llm = client(server, timeout=0.3, max_retries=1)
        assert ask(llm).answer == "yes"
    assert llm.usage.retries == 1


def test_timeouts_until_the_end_raise_a_typed_error():
    with FakeOpenAIServer(default=Reply(VALID, delay=1.0)) as server:
        with pytest.raises(LLMRequestFailed, match="timed out after 0.2s"):
            ask(client(server, timeout=0.2, max_retries=1))


def test_malformed_body_is_retried():
    with FakeOpenAIServer([Reply(raw="{not json"), Reply(VALID)]) as server:
        llm = client(server)
        assert ask(llm).answer == "yes"
    assert llm.usage.retries == 1


def test_schema_breaking_reply_is_retried_with_the_error_shown():
    broken = '{"answer": "yes"}'  # confidence missing
    with FakeOpenAIServer([Reply(broken), Reply(VALID)]) as server:
        llm = client(server)
        assert ask(llm).confidence == 0.7
    retry_messages = server.requests[1]["messages"]
    assert retry_messages[:1] == MESSAGES
    assert retry_messages[1] == {"role": "assistant", "content": broken}
    assert "confidence" in retry_messages[2]["content"]


def test_invalid_replies_until_the_end_raise_invalid_reply():
    with FakeOpenAIServer(default=Reply("I think yes")) as server:
        llm = client(server, validation_retries=2)
        with pytest.raises(LLMInvalidReply, match="did not match Verdict after 3 tries"):
            ask(llm)
    assert len(server.requests) == 3


def test_cache_serves_identical_calls_and_keys_on_everything(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with FakeOpenAIServer(default=Reply(VALID)) as server:
        first = client(server, cache)
        ask(first)
        second = client(server, ResponseCache(tmp_path / "c.sqlite"))  # reopened from disk
        assert ask(second).answer == "yes"
        assert (second.usage.requests, second.usage.cache_hits) == (0, 1)
        fresh = client(server, cache)
        fresh.read_cache = False
        ask(fresh)
        assert fresh.usage.requests == 1
    assert len(server.requests) == 2
    base = {"model": "m", "messages": MESSAGES, "temperature": 0.0, "schema": {"a": 1}}
    keys = {cache_key(base)} | {
        cache_key(base | change)
        for change in (
            {"model": "n"},
            {"temperature": 0.5},
            {"schema": {"a": 2}},
            {"messages": []},
            {"seed": 3},
        )
    }
    assert len(keys) == 6 and cache_key(dict(reversed(list(base.items())))) == cache_key(base)


def test_a_call_that_never_validated_is_asked_again_and_one_that_did_is_not(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with FakeOpenAIServer(default=Reply("I think yes")) as broken:
        with pytest.raises(LLMInvalidReply):
            ask(client(broken, cache, validation_retries=1))
    assert len(cache) == 0  # a broken endpoint, once fixed, is asked again
    port = closed_port()
    with FakeOpenAIServer([Reply("I think yes")], default=Reply(VALID), port=port) as flaky:
        assert ask(client(flaky, cache)).answer == "yes" and len(flaky.requests) == 2
    with FakeOpenAIServer(default=Reply("I think yes"), port=port) as same_endpoint:
        again = client(same_endpoint, cache)
        # the invalid first reply and the valid one after it both come from the cache
        assert ask(again).answer == "yes" and not same_endpoint.requests and again.usage.cache_hits == 2


def test_a_reply_without_choices_is_retried_and_never_cached(tmp_path):
    empty = '{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}'
    cache = ResponseCache(tmp_path / "c.sqlite")
    with FakeOpenAIServer([Reply(raw=empty), Reply(VALID)]) as server:
        llm = client(server, cache)
        assert ask(llm).answer == "yes" and llm.usage.retries == 1
    with FakeOpenAIServer(default=Reply(raw=empty)) as server:
        llm = client(server, cache, max_retries=1)
        with pytest.raises(LLMRequestFailed, match="no choices"):
            closing(llm, llm.text([{"role": "user", "content": "hello"}]))
    assert len(cache) == 1  # only the valid reply


def test_the_cache_keeps_the_replies_of_two_endpoints_apart(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with (
        FakeOpenAIServer(default=Reply(VALID)) as one,
        FakeOpenAIServer(default=Reply('{"answer": "no", "confidence": 0.2}')) as other,
    ):
        assert ask(client(one, cache)).answer == "yes"
        assert ask(client(other, cache)).answer == "no"  # same model name, another server
        again = client(one, ResponseCache(tmp_path / "c.sqlite"))
        assert ask(again).answer == "yes" and again.usage.cache_hits == 1
    assert cache_key({"model": "m"}, "http://a/v1") == cache_key({"model": "m"}, "http://a/v1/")
    assert cache_key({"model": "m"}, "http://a/v1") != cache_key({"model": "m"}, "http://b/v1")


def test_requests_in_flight_never_exceed_the_concurrency_limit():
    with FakeOpenAIServer(default=Reply(VALID), latency=0.2) as server:
        llm = client(server, concurrency=3)

        async def go():
            calls = [llm.structured([{"role": "user", "content": f"q{i}"}], Verdict) for i in range(9)]
            await asyncio.gather(*calls)
            await llm.aclose()

        asyncio.run(go())
    assert server.max_in_flight == 3 and len(server.requests) == 9


def test_unreachable_endpoint_names_the_endpoint():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = LLMConfig(base_url=url, max_retries=1, retry_backoff=0.01)
    with pytest.raises(LLMUnavailable, match=f"cannot reach LLM endpoint {url}"):
        ask(LLMClient(config, RemoteEndpoint(url)))


def test_rejected_key_is_named_but_never_shown(monkeypatch):
    monkeypatch.setenv("SIMPOP_LLM_API_KEY", "sk-secret-123")
    with FakeOpenAIServer(default=Reply(status=401)) as server:
        with pytest.raises(LLMUnavailable) as info:
            ask(client(server))
    assert "SIMPOP_LLM_API_KEY" in str(info.value) and "sk-secret-123" not in str(info.value)


def probability(llm: LLMClient, messages=MESSAGES):
    return closing(llm, llm.probability(messages))


def test_yes_probability_is_read_from_the_first_tokens_log_probabilities(tmp_path):
    # yes mass e^-0.5 + e^-2 = 0.7419, no mass e^-1.5 = 0.2231: P(yes) = 0.7419 / 0.9650 = 0.7688
    alternatives = {"Yes": -0.5, "No": -1.5, " yes": -2.0, "Maybe": -0.1}
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeOpenAIServer(default=Reply("Yes", top_logprobs=alternatives)) as server:
        assert probability(client(server, cache)) == pytest.approx(0.7688, abs=1e-4)
        again = client(server, cache)
        assert probability(again) == pytest.approx(0.7688, abs=1e-4)
    [request] = server.requests  # the second answer came from the cache
    assert request["max_tokens"] == 1 and request["temperature"] == 0.0
    assert request["logprobs"] is True and request["top_logprobs"] >= 6
    assert again.usage.cache_hits == 1


def test_an_endpoint_without_log_probabilities_gives_none_for_the_fallback():
    with FakeOpenAIServer(default=Reply("Yes")) as server:
        llm = client(server)

        async def twice():
            first = await llm.probability(MESSAGES)
            second = await llm.probability([{"role": "user", "content": "another question"}])
            return first, second

        assert closing(llm, twice()) == (None, None)
    # decided only after its first 3 replies all lacked them; then it is not asked again
    assert len(server.requests) == 3 and llm.logprobs is False
    with FakeOpenAIServer(default=Reply("Perhaps", top_logprobs={"Perhaps": -0.1, "Maybe": -2.0})) as server:
        assert probability(client(server)) is None  # neither yes nor no among the alternatives


YES = Reply("Yes", top_logprobs={"Yes": math.log(0.8), "No": math.log(0.2)})


def test_one_reply_without_log_probabilities_neither_switches_the_mode_nor_is_cached(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeOpenAIServer([Reply("Yes")], default=YES) as server:  # only the first reply lacks them
        llm = client(server, cache)
        assert probability(llm) == pytest.approx(0.8)
    assert llm.logprobs is True and len(server.requests) == 2  # asked again, not switched
    port, cache = closed_port(), ResponseCache(tmp_path / "other.sqlite")
    with FakeOpenAIServer(default=Reply("Yes"), port=port) as without:
        assert probability(client(without, cache)) is None
    with FakeOpenAIServer(default=YES, port=port) as healthy:  # the replies without them were not cached
        again = client(healthy, cache)
        assert probability(again) == pytest.approx(0.8) and again.usage.cache_hits == 0


def test_an_endpoint_that_sent_log_probabilities_and_stops_fails_that_question_alone():
    with FakeOpenAIServer([YES], default=Reply("Yes")) as server:
        llm = client(server)

        async def twice():
            first = await llm.probability(MESSAGES)
            with pytest.raises(LLMRequestFailed, match="no log-probabilities .* 3 times"):
                await llm.probability([{"role": "user", "content": "another question"}])
            return first

        assert closing(llm, twice()) == pytest.approx(0.8)
    assert llm.logprobs is True and len(server.requests) == 4


def test_yes_probability_counts_true_and_false_in_any_case():
    from simpop.llm.replies import yes_probability

    # yes mass 0.2, no mass 0.6: 0.2 / 0.8
    first_token = [("true", math.log(0.2)), ("NO", math.log(0.6)), ("x", 0.0)]
    assert yes_probability(first_token) == pytest.approx(0.25)
    assert yes_probability([]) is None


def test_identical_requests_in_flight_are_asked_once():
    with FakeOpenAIServer(default=Reply(VALID), latency=0.3) as server:
        llm = client(server)

        async def together():
            return await asyncio.gather(*(llm.structured(MESSAGES, Verdict) for _ in range(3)))

        replies = closing(llm, together())
    assert replies == [Verdict(answer="yes", confidence=0.7)] * 3
    assert len(server.requests) == 1 and (llm.usage.requests, llm.usage.cache_hits) == (1, 2)


def test_a_failure_of_a_request_in_flight_is_every_identical_asker_s():
    with FakeOpenAIServer(default=Reply(status=400), latency=0.3) as server:
        llm = client(server)

        async def together():
            return await asyncio.gather(*(llm.text(MESSAGES) for _ in range(2)), return_exceptions=True)

        errors = closing(llm, together())
    assert all(isinstance(e, LLMRequestFailed) for e in errors) and len(server.requests) == 1


def test_the_prompt_tokens_read_from_a_cached_prefix_are_tallied_per_kind(tmp_path, monkeypatch):
    """llama.cpp's server says how many prompt tokens it read from a cached prefix (``cache_n``):
    each kind of call keeps its own count, so a run's pace says which kind reused its prompts."""
    from simpop.llm.pace import read_paces, record_client_pace

    replies = [
        Reply(VALID, prompt_tokens=400, reused_tokens=300),
        Reply(VALID, prompt_tokens=400, reused_tokens=100),
    ]
    replies.append(Reply("ok", prompt_tokens=50))  # a server that says nothing of its cache
    with FakeOpenAIServer(replies) as server:
        llm = client(server)

        async def calls():
            try:
                await llm.structured(MESSAGES, Verdict)
                await llm.structured([{"role": "user", "content": "again"}], Verdict)
                await llm.text([{"role": "user", "content": "say ok"}])
            finally:
                await llm.aclose()

        asyncio.run(calls())
    assert llm.busy["schema"].reused_prompt_tokens == 400 and llm.busy["text"].reused_prompt_tokens == 0
    assert llm.usage.reused_prompt_tokens == 400
    monkeypatch.setenv("SIMPOP_CACHE_DIR", str(tmp_path))
    record_client_pace(llm, ["en"])
    [pace] = read_paces().values()
    assert pace.kinds["schema en"].reused_prompt_tokens == 200.0  # (300 + 100) / 2 calls
    assert pace.kinds["text en"].reused_prompt_tokens is None
