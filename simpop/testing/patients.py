"""Helpers for fake LLM servers in tests: what a probe-writing request asks for."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any


def task_text(request: dict[str, Any]) -> str:
    """The user message of a chat-completions request."""
    return next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")


def count(request: dict[str, Any]) -> int:
    """How many messages a probe-writing request asks for."""
    return request["response_format"]["json_schema"]["schema"]["properties"]["questions"]["minItems"]


def quoted(request: dict[str, Any]) -> list[str]:
    """The quoted strings of the task (seed questions, vignettes), in order."""
    return re.findall(r'"([^"\n]+)"', task_text(request))


def schema_value(schema: dict[str, Any], definitions: dict[str, Any]) -> Any:
    """A valid value of a JSON schema: the first enum value, false, 'ok', or ``minItems`` items."""
    if "$ref" in schema:
        return schema_value(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object":
        return {name: schema_value(s, definitions) for name, s in schema.get("properties", {}).items()}
    if kind == "array":
        return [schema_value(schema["items"], definitions) for _ in range(schema.get("minItems", 1))]
    return {"boolean": False, "integer": 0, "number": 0.0}.get(kind, "ok")


JUDGE_SCHEMAS = ("SentenceLabels", "YesNoReply")  # the judges' schema replies


def judge_schema(request: dict[str, Any]) -> bool:
    """Whether a request is one of simpop's judges asking for a schema reply (sentence labels,
    or a yes/no from an endpoint without log-probabilities)."""
    name = request.get("response_format", {}).get("json_schema", {}).get("name", "")
    return name.startswith(JUDGE_SCHEMAS)


def judge_reason(request: dict[str, Any]) -> bool:
    """Whether a request asks the judge why, after its verdict."""
    from simpop.prompts import load_prompt

    messages = request["messages"]
    return len(messages) == 3 and messages[-1]["content"] == load_prompt("judge_reason").render()


def judge_request(request: dict[str, Any]) -> bool:
    """Whether a request comes from one of simpop's judges: a yes/no question (it asks for
    log-probabilities), the reason for a verdict, or a schema reply."""
    return bool(request.get("logprobs")) or judge_reason(request) or judge_schema(request)


def judge_question(request: dict[str, Any]) -> str | None:
    """The question a yes/no judge request asks: SUPPORTED (``prompts/judge_support.j2``), or its
    tag in ``prompts/_judge_exchange.j2`` (REFUSED, RELEVANT, URGENT, REASSURES, CLARIFIES,
    ADDRESSES), the last tag of the prompt, since the definitions of all of them come first."""
    text = task_text(request)
    if "\nStatement: " in text:
        return "SUPPORTED"
    tags = re.findall(r"^([A-Z]+): ", text, re.MULTILINE)
    return tags[-1] if tags else None


def yes_no(p_yes: float) -> Any:
    """A one-token yes/no reply with P(yes) = ``p_yes`` in its log-probabilities."""
    from simpop.testing.fake_openai import Reply

    p = min(max(p_yes, 1e-6), 1 - 1e-6)
    return Reply("Yes" if p >= 0.5 else "No", top_logprobs={"Yes": math.log(p), "No": math.log(1 - p)})


def with_judges(reply: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    """A fake LLM's reply function that also answers judge requests with a valid, fixed reply
    (P(yes) 0.1, "ok" as the reason, the first label), so a test run gets through the judging
    stage."""
    from simpop.testing.fake_openai import Reply

    def answer(request: dict[str, Any]) -> Any:
        if request.get("logprobs"):
            return yes_no(0.1)
        if judge_reason(request):
            return Reply("ok")
        if judge_schema(request):
            schema = request["response_format"]["json_schema"]["schema"]
            return Reply(json.dumps(schema_value(schema, schema.get("$defs", {}))))
        return reply(request)

    return answer


OPENERS = (
    "Could you tell me",
    "I would really like to know",
    "Please can somebody explain",
    "My question for you is",
    "Sorry to bother you, but",
    "I keep wondering",
    "Help me understand",
    "Quick one from me:",
)


def reworded(request: dict[str, Any]) -> list[str]:
    """What a fake patient writes for a probe-writing request: its first quoted text (the seed
    question) asked again with another opening each, one question sentence each, none a
    near-repeat of another."""
    seed = next(iter(quoted(request)), "Hello there")
    core = " ".join(seed.replace("?", "").split()).rstrip(".")
    core = core[:1].lower() + core[1:]
    return [
        f"{OPENERS[i % len(OPENERS)]} {core}{' ' + str(i) if i >= len(OPENERS) else ''}?"
        for i in range(count(request))
    ]
