"""A user's bot served behind an OpenAI-compatible chat-completions endpoint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from simpop.models import Answer, Exchange, HttpURL
from simpop.redact import secret_env
from simpop.targets.env import expand_env
from simpop.targets.no_answer_rule import from_text
from simpop.targets.target import (
    BotResources,
    HealthCheck,
    RemoteTargetConfig,
    Target,
    TargetError,
    TargetUnavailable,
    chat_messages,
    target,
)


class OpenAIChatTargetConfig(RemoteTargetConfig):
    """A bot served behind an OpenAI-compatible chat-completions endpoint."""

    kind: Literal["openai_chat"]
    base_url: HttpURL
    model: str
    system_prompt: str | None = None
    headers: dict[str, str] = {}
    api_key_env: str | None = Field(None, description="environment variable holding the key")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, gt=0)

    def bot_models(self, run_llm: str) -> dict[str, str]:
        return {"bot (remote model)": self.model}

    def health_check(self) -> HealthCheck:
        """The endpoint's model list, with the bot's key and headers."""
        key = secret_env(self.api_key_env) or ""
        headers = {k: expand_env(v, f"headers.{k}") for k, v in self.headers.items()}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = expand_env(self.base_url, "base_url").rstrip("/") + "/models"
        return HealthCheck("bot endpoint", self.base_url, url, "GET", headers)


class OpenAIChatBot(Target):
    """Sends the question as the user turn (after the configured system prompt and, in a
    conversation, the turns before it), never cached: the point is to see what the bot says
    today. The ``openai`` client retries 429, 5xx, timeouts and dropped connections ``retries``
    times with backoff."""

    def __init__(self, config: OpenAIChatTargetConfig, name: str = "bot") -> None:
        self.config = config
        self.name = name
        import openai  # loaded only when this bot is asked

        key = secret_env(config.api_key_env) or ""
        self.client = openai.AsyncOpenAI(
            base_url=expand_env(config.base_url, "base_url"),
            api_key=key or "not-needed",
            timeout=config.timeout,
            max_retries=config.retries,
            default_headers={k: expand_env(v, f"headers.{k}") for k, v in config.headers.items()},
        )
        self.where = config.base_url

    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer:
        messages = chat_messages(question, history, self.config.system_prompt)
        extra = {
            k: v
            for k, v in (("temperature", self.config.temperature), ("max_tokens", self.config.max_tokens))
            if v is not None
        }
        import openai

        tries = self.config.retries + 1
        try:
            reply = await self.client.chat.completions.create(
                model=self.config.model, messages=messages, **extra
            )
        except openai.APITimeoutError:
            raise TargetError(
                f"{self.where}: no reply within {self.config.timeout:g}s ({tries} tries)"
            ) from None
        except openai.APIConnectionError:
            raise TargetUnavailable(f"cannot reach bot endpoint {self.where} ({tries} tries)") from None
        except openai.AuthenticationError:
            key = self.config.api_key_env or "api_key_env"
            raise TargetUnavailable(
                f"bot endpoint {self.where} rejected the API key (401); check {key}"
            ) from None
        except openai.APIStatusError as error:
            raise TargetError(f"{self.where} answered {error.status_code} ({tries} tries)") from None
        except ValueError:
            raise TargetError(f"{self.where} sent a reply that is not JSON") from None
        if not reply.choices:
            raise TargetError(f"{self.where} sent a reply with no choices")
        text = (reply.choices[0].message.content or "").strip()
        answer = Answer(text=text or None, no_answer_reason=None if text else "the bot gave no answer")
        return from_text(answer, self.config.no_answer)

    async def aclose(self) -> None:
        await self.client.close()


@target(OpenAIChatTargetConfig)
def openai_chat_bot(config: OpenAIChatTargetConfig, run: BotResources) -> Target:
    return OpenAIChatBot(config, run.name)
