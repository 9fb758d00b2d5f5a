"""Helpers for fake LLM servers in tests: what a probe-writing request asks for."""

from __future__ import annotations

import re
from typing import Any

from simpop.population.probes import angles


def task_text(request: dict[str, Any]) -> str:
    """The user message of a chat-completions request."""
    return next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")


def angle_index(request: dict[str, Any]) -> int:
    """Which angle (0, 1, ...) a probe-writing request asks for."""
    text = task_text(request)
    return next(i for i, angle in enumerate(angles()) if angle in text)


def quoted(request: dict[str, Any]) -> list[str]:
    """The quoted strings of the task (seed questions, vignettes), in order."""
    return re.findall(r'"([^"\n]+)"', task_text(request))
