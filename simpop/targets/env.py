"""``${VAR}`` in a target's URL, headers or body: secrets stay in the environment, never in run files."""

from __future__ import annotations

import os
import re
from typing import Any

from simpop.errors import ConfigError
from simpop.redact import remember

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env(value: str, field: str) -> str:
    """``value`` with each ``${VAR}`` replaced by the environment variable's value."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ConfigError(f"target.{field}: environment variable {name} is not set")
        return remember(os.environ[name])

    return _VAR.sub(replace, value)


def expand_env_in(value: Any, field: str) -> Any:
    """``value`` (a JSON value: a body template) with ``${VAR}`` expanded in every string in it."""
    if isinstance(value, str):
        return expand_env(value, field)
    if isinstance(value, list):
        return [expand_env_in(item, f"{field}.{i}") for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: expand_env_in(item, f"{field}.{key}") for key, item in value.items()}
    return value
