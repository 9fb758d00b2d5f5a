"""Structured LLM calls through the ``openai`` client: cache, retries, validation, usage."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from simpop.backoff import MAX_WAIT_S, backoff_delay
from simpop.errors import SimpopError
from simpop.llm.cache import ResponseCache, cache_key
from simpop.llm.endpoint import Endpoint
from simpop.llm.in_flight import InFlight
from simpop.llm.replies import (
    LOGPROB_PROBES,
    NEITHER,
    NO_LOGPROBS,
    TOP_LOGPROBS,
    content,
    response_format,
    valid,
    yes_probability_text,
)
from simpop.models import LLMConfig, LLMUsage
from simpop.redact import clip, secret_env

if TYPE_CHECKING:
    import openai

M = TypeVar("M", bound=BaseModel)
Messages = list[dict[str, str]]
# a structured reply, free text, a one-token verdict, a judge's short reason for its verdict
CallKind = Literal["schema", "text", "yes_no", "reason"]


@dataclass
class KindTally:
    """The calls of one kind the endpoint answered (cache hits not counted): their seconds from
    request to reply, their tokens, the prompt tokens read from a cached prefix (llama.cpp's
    server says) and the reply tokens they were allowed."""

    calls: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_tokens: int = 0
    reused_prompt_tokens: int = 0

    def add(
        self, seconds: float, prompt_tokens: int, completion_tokens: int, max_tokens: int, reused: int = 0
    ) -> None:
        self.calls += 1
        self.seconds += seconds
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.max_tokens += max_tokens
        self.reused_prompt_tokens += reused


class LLMError(Exception):
    """An LLM call on one probe failed; the run records it on that probe and goes on."""


class LLMInvalidReply(LLMError):
    """Every try returned a reply that does not match the requested schema."""


class LLMRequestFailed(LLMError):
    """The endpoint kept failing (429, 5xx, timeouts) or refused the request (4xx)."""


class LLMUnavailable(SimpopError):
    """The endpoint cannot be reached or rejects our credentials: no call can succeed."""


class _NoChoices(ValueError):
    """A reply with an empty ``choices`` list: a server fault, retried like a body that is not JSON."""


def _retryable(error: Exception) -> bool:
    import openai

    if isinstance(error, (openai.APIConnectionError, openai.RateLimitError, ValueError)):
        return True  # ValueError: a reply body that is not JSON, or one with no choices
    return isinstance(error, openai.APIStatusError) and error.status_code >= 500


class LLMClient:
    """Every LLM call of simpop goes through here.

    ``structured()`` asks for a JSON reply matching a pydantic model, validates it, retries
    with the validation error shown to the model, and raises ``LLMInvalidReply`` after the
    last try. Transport failures (429, 5xx, timeouts, refused connections) are retried with
    exponential backoff; an endpoint that stays unreachable raises ``LLMUnavailable``.
    """

    def __init__(
        self,
        config: LLMConfig,
        endpoint: Endpoint,
        cache: ResponseCache | None = None,
        read_cache: bool = True,
    ) -> None:
        self.config = config
        self.endpoint = endpoint
        self.cache = cache
        self.read_cache = read_cache
        self.usage = LLMUsage()
        self._semaphore = asyncio.Semaphore(config.concurrency)
        self._client: openai.AsyncOpenAI | None = None
        self._client_lock = asyncio.Lock()
        self.timeout_s: float | None = self.config.timeout  # known once the endpoint is up
        self.logprobs: bool | None = None  # does the endpoint send log-probabilities (None: not known)
        self.missing_logprobs = 0  # replies without them before that was decided
        self.busy: dict[CallKind, KindTally] = {}  # the calls the endpoint answered, per kind
        self._logprobs_lock = asyncio.Lock()
        self._in_flight = InFlight()

    async def _openai(self) -> openai.AsyncOpenAI:
        import openai  # on the first call not served from the cache: a cached run never loads it

        async with self._client_lock:
            if self._client is None:
                api_key = secret_env(self.config.api_key_env) or secret_env("OPENAI_API_KEY") or "not-needed"
                base_url = await self.endpoint.url()
                self.timeout_s = self.config.timeout or self.endpoint.timeout()
                self._client = openai.AsyncOpenAI(
                    base_url=base_url,
                    api_key=api_key,
                    timeout=self.timeout_s,
                    max_retries=0,
                )
            return self._client

    async def structured(
        self,
        messages: Messages,
        schema: type[M],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> M:
        """The reply to ``messages`` parsed as ``schema``."""
        messages = list(messages)
        invalid: list[str] = []  # cache keys of the replies that failed validation
        for attempt in range(self.config.validation_retries + 1):
            request = self._request(messages, temperature, max_tokens, seed, schema)
            # cached valid or not, so a re-run asks nothing a valid reply came after
            reply = await self._complete(request, kind="schema")
            try:
                return schema.model_validate_json(reply)
            except ValidationError as error:
                invalid.append(cache_key(request, self.config.base_url))
                problem = error.errors()[0]
                where = ".".join(str(p) for p in problem["loc"]) or "reply"
                detail = f"{where}: {problem['msg']}"
                if attempt == self.config.validation_retries:
                    self.usage.failures += 1
                    if self.cache is not None:  # no valid reply came: the endpoint is asked again next time
                        self.cache.delete(*invalid)
                    raise LLMInvalidReply(
                        f"reply did not match {schema.__name__} after {attempt + 1} tries ({detail})"
                    ) from None
                messages = messages + [
                    {"role": "assistant", "content": reply[:2000]},
                    {
                        "role": "user",
                        "content": f"That reply is not valid ({detail}). Answer again with "
                        "only a JSON object that matches the schema.",
                    },
                ]
        raise AssertionError("unreachable")

    def cached(
        self,
        messages: Messages,
        schema: type[M],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> bool:
        """Whether ``structured`` with these arguments would be answered from the cache."""
        if self.cache is None or not self.read_cache:
            return False
        request = self._request(list(messages), temperature, max_tokens, seed, schema)
        reply = self.cache.get(cache_key(request, self.config.base_url))
        return reply is not None and valid(schema, reply)

    async def text(
        self,
        messages: Messages,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        kind: CallKind = "text",
    ) -> str:
        """The reply to ``messages`` as free text ('' when the model says nothing); ``kind``
        keeps its pace apart (``simpop.llm.pace``)."""
        return await self._complete(self._request(messages, temperature, max_tokens, seed), kind=kind)

    async def probability(self, messages: Messages) -> float | None:
        """P(yes) of a yes/no question, read from the log-probabilities of a one-token answer
        at temperature 0; None when neither yes nor no is among the likeliest first tokens, and
        None when the endpoint sends no log-probabilities (ask for a structured boolean instead).

        The endpoint is taken to send none only when its first ``LOGPROB_PROBES`` replies all
        lack them; from an endpoint that has sent them, a reply without them is asked again and
        then fails this question alone. A reply without them is never cached."""
        request = self._request(messages, 0.0, 1, None)
        request |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        if self.logprobs is None:
            async with self._logprobs_lock:  # undecided: one question at a time until it is decided
                while self.logprobs is None:
                    reply = await self._yes_no(request)
                    if reply != NO_LOGPROBS:
                        self.logprobs = True
                        return None if reply == NEITHER else float(reply)
                    self.missing_logprobs += 1
                    if self.missing_logprobs >= LOGPROB_PROBES:
                        self.logprobs = False
        if not self.logprobs:
            return None
        for _ in range(LOGPROB_PROBES):
            reply = await self._yes_no(request)
            if reply != NO_LOGPROBS:
                return None if reply == NEITHER else float(reply)
        self.usage.failures += 1
        raise LLMRequestFailed(
            f"LLM endpoint {self.config.base_url or 'the embedded LLM server'} sent no log-probabilities "
            f"for a yes/no question {LOGPROB_PROBES} times, though it sent them before"
        )

    async def _yes_no(self, request: dict[str, Any]) -> str:
        return await self._complete(
            request, yes_probability_text, accept=lambda reply: reply != NO_LOGPROBS, kind="yes_no"
        )

    def _request(
        self,
        messages: Messages,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
        schema: type[BaseModel] | None = None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": max_tokens or self.config.max_tokens,
        }
        if seed is not None:
            request["seed"] = seed
        if schema is not None:
            request["response_format"] = response_format(schema)
        return request

    async def _complete(
        self,
        request: dict[str, Any],
        read: Callable[[Any], str] = content,
        accept: Callable[[str], bool] = lambda reply: True,
        kind: CallKind = "text",
    ) -> str:
        """``read`` of the reply (its text by default), cached under the request and the
        endpoint only when ``accept`` takes it, and served from the cache only then."""
        key = cache_key(request, self.config.base_url)
        if self.cache is not None and self.read_cache:
            cached = self.cache.get(key)
            if cached is not None and accept(cached):
                self.usage.cache_hits += 1
                return cached
        if not self.read_cache:
            return await self._ask(request, key, read, accept, kind)
        # an identical request in flight: its reply, as the cache would serve it (so identical
        # runs make identical calls, however their requests interleave)
        reply, merged = await self._in_flight.once(
            key, lambda: self._ask(request, key, read, accept, kind), accept
        )
        self.usage.cache_hits += merged
        return reply

    async def _ask(
        self,
        request: dict[str, Any],
        key: str,
        read: Callable[[Any], str],
        accept: Callable[[str], bool],
        kind: CallKind,
    ) -> str:
        """The endpoint's reply to ``request``, retried as the config says, and cached."""
        async with self._semaphore:
            client = await self._openai()
            import openai
            from openai.types.chat import ChatCompletion

            for attempt in range(self.config.max_retries + 1):
                start = time.perf_counter()
                try:
                    # the request is already plain JSON: posted as it is, without the client's
                    # per-call walk over its typed parameters (~1 ms of CPU a call)
                    response = await client.post("/chat/completions", body=request, cast_to=ChatCompletion)
                    if not isinstance(response, ChatCompletion):  # a web page: the client hands back its text
                        raise ValueError("not JSON")
                    if not response.choices:
                        raise _NoChoices()
                    break
                except (openai.APIError, ValueError) as error:
                    timed_out = isinstance(error, openai.APITimeoutError)
                    if (
                        not _retryable(error)
                        or (timed_out and not self.endpoint.retries_timeouts)
                        or attempt == self.config.max_retries
                    ):
                        raise self._final_error(error, attempt + 1) from None
                    self.usage.retries += 1
                    await asyncio.sleep(self._backoff(error, attempt))
        self.usage.requests += 1
        seconds = time.perf_counter() - start
        reply = read(response)
        prompt_tokens = response.usage.prompt_tokens if response.usage else 0
        completion_tokens = response.usage.completion_tokens if response.usage else 0
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        timings = (response.model_extra or {}).get("timings")
        reused = 0
        if isinstance(timings, dict):  # llama.cpp's server says where its time went
            self.usage.prefill_s += float(timings.get("prompt_ms") or 0) / 1000
            self.usage.decode_s += float(timings.get("predicted_ms") or 0) / 1000
            reused = int(timings.get("cache_n") or 0)
            self.usage.reused_prompt_tokens += reused
        self.busy.setdefault(kind, KindTally()).add(
            seconds, prompt_tokens, completion_tokens, request.get("max_tokens") or 0, reused
        )
        if self.cache is not None and accept(reply):
            self.cache.put(key, reply, prompt_tokens, completion_tokens)
        return reply

    def _backoff(self, error: Exception, attempt: int) -> float:
        delay = backoff_delay(self.config.retry_backoff, attempt)
        response = getattr(error, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        if retry_after:
            with suppress(ValueError):  # an HTTP-date or junk: keep our own backoff
                delay = max(delay, min(float(retry_after), MAX_WAIT_S))
        return delay

    def _final_error(self, error: Exception, tries: int) -> Exception:
        import openai

        self.usage.failures += 1
        where = self.config.base_url or "the embedded LLM server"
        if isinstance(error, _NoChoices):
            return LLMRequestFailed(f"LLM endpoint {where} sent a reply with no choices ({tries} tries)")
        if isinstance(error, ValueError):
            return LLMRequestFailed(f"LLM endpoint {where} sent a body that is not JSON ({tries} tries)")
        if isinstance(error, openai.APITimeoutError):
            return LLMRequestFailed(f"LLM request timed out after {self.timeout_s:g}s ({tries} tries)")
        if isinstance(error, openai.APIConnectionError):
            return LLMUnavailable(f"cannot reach LLM endpoint {where} ({tries} tries)")
        if isinstance(error, openai.AuthenticationError):
            return LLMUnavailable(
                f"LLM endpoint {where} rejected the API key (401); "
                f"set {self.config.api_key_env} or OPENAI_API_KEY"
            )
        status = getattr(error, "status_code", None)
        body = getattr(error, "body", None)
        detail = clip(json.dumps(body) if body else str(error), 200)
        return LLMRequestFailed(f"LLM endpoint {where} answered {status} after {tries} tries: {detail}")

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def yes_no_mode(client: LLMClient | None) -> str | None:
    """How ``client``'s endpoint answered yes/no questions, for the summary (None: none asked)."""
    if client is None or client.logprobs is None:
        return None
    return "log-probabilities" if client.logprobs else "structured"
