"""The one interface every chatbot under test is wrapped in."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, get_args

from pydantic import Field, model_validator

from simpop.backoff import backoff_delay
from simpop.errors import SimpopError
from simpop.models import Answer, Context, Exchange, TargetSettings, register_settings
from simpop.targets.no_answer_rule import NoAnswerRule

if TYPE_CHECKING:
    from simpop.embed import Embedder
    from simpop.llm import LLMClient

T = TypeVar("T")
S = TypeVar("S", bound=TargetSettings)


class TargetError(Exception):
    """One call to the bot failed (timeout, error status, bad reply): recorded on that probe."""


class TargetUnavailable(SimpopError):
    """The bot cannot be reached at all or rejects our credentials: the run stops (resumable)."""


class Target(ABC):
    """A chatbot under test. ``ask`` takes a patient's message and returns what the bot said;
    in a conversation, after the ``history`` of the turns before it (``session`` names the
    conversation, for bots that keep their own state).

    Adapters raise ``TargetError`` for a failed call; the run records it on that probe. A bot
    that deliberately gives no answer returns ``Answer(text=None, no_answer_reason=...)``.
    """

    name: str
    prompt: str | None = None  # versions of the prompt templates the bot answers with, if ours

    @abstractmethod
    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer: ...

    async def aclose(self) -> None:
        """Release what the adapter holds (connections, clients)."""


def chat_messages(
    question: str, history: Sequence[Exchange] = (), system: str | None = None
) -> list[dict[str, str]]:
    """The conversation as chat messages: the system prompt, each earlier turn, the question."""
    messages = [{"role": "system", "content": system}] if system else []
    for exchange in history:
        messages.append({"role": "user", "content": exchange.asked})
        messages.append({"role": "assistant", "content": exchange.answer})
    return messages + [{"role": "user", "content": question}]


@dataclass
class BotResources:
    """What a bot may share with the run: the embedding model, the run's LLM (for bots simpop
    builds itself), the name to record answers under, and whether LLM replies may be cached."""

    embedder: Embedder
    llm: LLMClient
    name: str
    use_cache: bool = True


Builder = Callable[[Any, BotResources], Target]
_BUILDERS: dict[str, Builder] = {}


def target(
    settings: type[S],
) -> Callable[[Callable[[S, BotResources], Target]], Callable[[S, BotResources], Target]]:
    """Register a kind of target: its config class (``kind: Literal[...]``) and the function
    that builds its bot. A new kind is one module with both, decorated with this."""
    register_settings(settings)

    def register(build: Callable[[S, BotResources], Target]) -> Callable[[S, BotResources], Target]:
        for kind in get_args(settings.model_fields["kind"].annotation):
            _BUILDERS[kind] = build
        return build

    return register


def build_target(config: TargetSettings, resources: BotResources) -> Target:
    """The bot of ``config``'s kind."""
    return _BUILDERS[config.kind](config, resources)


@dataclass(frozen=True)
class HealthCheck:
    """A request that shows, before a run, whether an endpoint is there and takes our
    credentials: any answer but 401 and 403 will do (of a ``json_api``, a successful one in JSON)."""

    what: str  # "bot endpoint", "LLM endpoint"
    endpoint: str  # as the config names it
    url: str  # what is asked
    method: str = "GET"
    headers: dict[str, str] = field(default_factory=dict)
    json_api: bool = False  # an API that answers JSON: a web page in its place is the wrong address


class RemoteTargetConfig(TargetSettings):
    """Per-call limits of a bot we reach over the network or call in-process: the user's own."""

    user_bot = True
    timeout: float = Field(60.0, gt=0, description="seconds per call")
    retries: int = Field(2, ge=0, description="extra tries after a failed call")
    no_answer: NoAnswerRule | None = Field(
        None, description="how the bot says it has no answer (a status, a field's value, answer texts)"
    )

    @model_validator(mode="after")
    def _no_answer_fits_the_kind(self) -> RemoteTargetConfig:
        if self.no_answer and self.no_answer.by_reply and self.kind != "http":
            raise ValueError(
                "no_answer: `status` and `path` read an HTTP reply; this bot has `patterns` only"
            )
        return self

    def health_check(self) -> HealthCheck | None:
        """How to tell, before any work, that the bot can be reached (None: nothing to check)."""
        return None


async def with_retries(
    call: Callable[[], Awaitable[T]],
    retries: int,
    retryable: Callable[[Exception], bool],
    backoff: float = 0.5,
) -> T:
    """``call()``, tried again up to ``retries`` times after a failure ``retryable`` accepts."""
    for attempt in range(retries + 1):
        try:
            return await call()
        except Exception as error:
            if attempt == retries or not retryable(error):
                raise
            await asyncio.sleep(backoff_delay(backoff, attempt))
    raise AssertionError("unreachable")


def answer_from_reply(reply: Any, source: str) -> Answer:
    """An ``Answer`` from what a bot returned: a string, or a mapping with ``answer`` and
    optionally ``contexts`` (strings, or mappings with ``id``, ``text``, ``score``),
    ``matched_id`` and ``no_answer_reason``."""
    if reply is None or isinstance(reply, str):
        reply = {"answer": reply}
    if not isinstance(reply, dict):
        raise TargetError(f"{source} returned {type(reply).__name__}, not a string or a mapping")
    text = reply.get("answer")
    if text is not None and not isinstance(text, str):
        raise TargetError(f"{source}: 'answer' is {type(text).__name__}, not a string")
    contexts = []
    for n, item in enumerate(reply.get("contexts") or []):
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            raise TargetError(f"{source}: context {n} is not a string or a mapping")
        score = item.get("score")
        contexts.append(
            Context(
                id=str(item["id"]) if item.get("id") is not None else str(n),
                text=str(item.get("text") or ""),
                score=float(score) if isinstance(score, (int, float)) else None,
            )
        )
    text = text.strip() if text else None
    matched = reply.get("matched_id")
    reason = reply.get("no_answer_reason") or (None if text else "the bot gave no answer")
    return Answer(
        text=text,
        contexts=contexts,
        matched_id=str(matched) if matched is not None else None,
        no_answer_reason=None if text else str(reason),
    )
