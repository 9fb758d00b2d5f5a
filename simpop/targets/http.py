"""A user's bot behind any JSON HTTP API: a request template in, JSON paths to the fields out."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import Field

from simpop.config import load_qaps
from simpop.models import Answer, Exchange, HttpURL, Record
from simpop.redact import clip
from simpop.targets.env import expand_env, expand_env_in
from simpop.targets.no_answer_rule import declared, from_text
from simpop.targets.target import (
    BotResources,
    HealthCheck,
    RemoteTargetConfig,
    Target,
    TargetError,
    TargetUnavailable,
    answer_from_reply,
    chat_messages,
    target,
    with_retries,
)


class ContextPaths(Record):
    """Where a context's fields are inside each item of the reply's context list."""

    id: str | None = "id"
    text: str | None = "text"
    score: str | None = "score"


class HTTPTargetConfig(RemoteTargetConfig):
    """Any bot with a JSON HTTP API: a request template in, JSON paths to the fields out."""

    kind: Literal["http"]
    url: HttpURL
    method: Literal["GET", "POST", "PUT"] = "POST"
    headers: dict[str, str] = {}
    body: Any = Field(
        default_factory=lambda: {"question": "{{ question }}"},
        description="JSON body; '{{ question }}' in any string is replaced by the question, "
        "'{{ session_id }}' by the conversation's id, and a string that is only '{{ messages }}' "
        "by the conversation so far as a list of {role, content} (the question last); "
        "'${VAR}' in any string by the environment variable (a key the API wants in the body)",
    )
    answer_path: str = "answer"
    contexts_path: str | None = None
    context_fields: ContextPaths = ContextPaths()
    matched_id_path: str | None = None
    qaps: Path | None = Field(
        None,
        description="the QAP file the bot answers from, when it is a predefined-QAP bot: a reply is "
        "matched to its QAP by `matched_id_path`, or else by its text being that QAP's answer, and "
        "QAP-match accuracy is scored when the run's seeds are this file",
    )

    def own_qaps(self) -> Path | None:
        return self.qaps

    def reports_contexts(self) -> bool:
        return self.contexts_path is not None

    def health_check(self) -> HealthCheck:
        """A HEAD request to the bot's URL with its headers: no question is asked, and an
        unreachable host, refused credentials or an unset ``${VAR}`` show at once."""
        expand_env_in(self.body, "body")
        headers = {k: expand_env(v, f"headers.{k}") for k, v in self.headers.items()}
        return HealthCheck("bot endpoint", self.url, expand_env(self.url, "url"), "HEAD", headers)

    def conversation_problem(self) -> str | None:
        text = json.dumps(self.body)
        if _MESSAGES.search(text) or _SESSION.search(text):
            return None
        return (
            "target.body: has neither '{{ messages }}' nor '{{ session_id }}', so the bot would "
            "see each message of a conversation without the ones before it"
        )


_QUESTION = re.compile(r"\{\{\s*question\s*\}\}")
_SESSION = re.compile(r"\{\{\s*session_id\s*\}\}")
_MESSAGES = re.compile(r"\{\{\s*messages\s*\}\}")
_MISSING = object()


def fill(
    template: Any, question: str, messages: list[dict[str, str]] | None = None, session: str = ""
) -> Any:
    """``template`` with ``{{ question }}`` and ``{{ session_id }}`` replaced inside every string
    (JSON-escaped on send), and a string that is only ``{{ messages }}`` replaced by the chat
    messages."""
    if isinstance(template, str):
        if _MESSAGES.fullmatch(template.strip()):
            return messages if messages is not None else [{"role": "user", "content": question}]
        return _SESSION.sub(lambda _: session, _QUESTION.sub(lambda _: question, template))
    if isinstance(template, list):
        return [fill(item, question, messages, session) for item in template]
    if isinstance(template, dict):
        return {key: fill(value, question, messages, session) for key, value in template.items()}
    return template


def json_path(data: Any, path: str, default: Any = _MISSING) -> Any:
    """The value at a dotted path with list indices (``choices.0.text`` or ``choices[0].text``)."""
    value = data
    for part in re.sub(r"\[(\d+)\]", r".\1", path).split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif default is not _MISSING:
            return default
        else:
            raise KeyError(path)
    return value


_DECLARE = (
    " (if that status is the bot's way of saying it has no answer, declare it: target.no_answer.status)"
)


def _words(text: str) -> str:
    return " ".join(text.split())


class _Retryable(Exception):
    """The bot answered 429 or 5xx: worth trying again."""


class HTTPBot(Target):
    """POSTs (or GETs) the filled template; 429, 5xx, timeouts and refused connections are
    tried again ``retries`` times; an endpoint never reached stops the run."""

    def __init__(self, config: HTTPTargetConfig, name: str = "bot") -> None:
        self.config = config
        self.name = name
        self.url = expand_env(config.url, "url")
        self.body = expand_env_in(config.body, "body")
        headers = {k: expand_env(v, f"headers.{k}") for k, v in config.headers.items()}
        self.client = httpx.AsyncClient(headers=headers, timeout=config.timeout)
        self.qap_of_answer = {_words(q.answer): q.id for q in load_qaps(config.qaps)} if config.qaps else {}

    async def _send(self, body: Any) -> httpx.Response:
        if self.config.method == "GET":
            params = body if isinstance(body, dict) else None
            response = await self.client.get(self.url, params=params)
        else:
            response = await self.client.request(self.config.method, self.url, json=body)
        declared = self.config.no_answer.status if self.config.no_answer else []
        if response.status_code not in declared and (
            response.status_code == 429 or response.status_code >= 500
        ):
            raise _Retryable(response.status_code)
        return response

    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer:
        where, tries = self.config.url, self.config.retries + 1
        body = fill(self.body, question, chat_messages(question, history), session or "")
        retryable = (httpx.TimeoutException, httpx.TransportError, _Retryable)
        try:
            response = await with_retries(
                lambda: self._send(body), self.config.retries, lambda e: isinstance(e, retryable)
            )
        except httpx.TimeoutException:
            raise TargetError(f"{where}: no reply within {self.config.timeout:g}s ({tries} tries)") from None
        except httpx.ConnectError:
            raise TargetUnavailable(f"cannot reach bot endpoint {where} ({tries} tries)") from None
        except httpx.TransportError as error:
            raise TargetError(f"{where}: {type(error).__name__} ({tries} tries)") from None
        except _Retryable as error:
            raise TargetError(f"{where} answered {error.args[0]} ({tries} tries){_DECLARE}") from None
        if response.status_code in (401, 403):
            raise TargetUnavailable(f"bot endpoint {where} refused the request ({response.status_code})")
        rule = self.config.no_answer
        if rule and response.status_code in rule.status:
            return declared(f"status {response.status_code}: {clip(response.text, 100)!r}")
        if response.status_code >= 400:
            raise TargetError(
                f"{where} answered {response.status_code}: {clip(response.text, 200)}{_DECLARE}"
            )
        try:
            data = response.json()
        except ValueError:
            raise TargetError(
                f"{where} sent a reply that is not JSON: {clip(response.text, 100)!r}"
            ) from None
        if rule and rule.path is not None and json_path(data, rule.path, None) == rule.equals:
            return declared(f"'{rule.path}' is {rule.equals!r}")
        answer = from_text(answer_from_reply(self.extract(data), where), rule)
        if answer.text and answer.matched_id is None and self.qap_of_answer:
            answer.matched_id = self.qap_of_answer.get(_words(answer.text))
        return answer

    def extract(self, data: Any) -> dict[str, Any]:
        """The reply's fields at the configured paths, in the shape ``answer_from_reply`` takes."""
        config = self.config
        try:
            answer = json_path(data, config.answer_path)
        except KeyError:
            raise TargetError(f"{config.url}: reply has no '{config.answer_path}'") from None
        fields: dict[str, Any] = {"answer": answer}
        if config.matched_id_path:
            fields["matched_id"] = json_path(data, config.matched_id_path, None)
        if config.contexts_path:
            items = json_path(data, config.contexts_path, None) or []
            if not isinstance(items, list):
                raise TargetError(f"{config.url}: '{config.contexts_path}' is not a list")
            paths = config.context_fields
            fields["contexts"] = [
                {
                    key: json_path(item, path, None) if path else None
                    for key, path in (("id", paths.id), ("text", paths.text), ("score", paths.score))
                }
                if isinstance(item, dict)
                else item
                for item in items
            ]
        return fields

    async def aclose(self) -> None:
        await self.client.aclose()


@target(HTTPTargetConfig)
def http_bot(config: HTTPTargetConfig, run: BotResources) -> Target:
    return HTTPBot(config, run.name)
