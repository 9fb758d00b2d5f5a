"""Helpers for fake LLM servers in tests: what a probe-writing request asks for."""

from __future__ import annotations

import re
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
