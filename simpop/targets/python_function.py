"""A user's bot as a Python function ``module:function`` (sync or async) called in-process."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from simpop.errors import ConfigError
from simpop.models import Answer, Exchange
from simpop.targets.no_answer_rule import from_text
from simpop.targets.target import (
    BotResources,
    RemoteTargetConfig,
    Target,
    TargetError,
    answer_from_reply,
    chat_messages,
    target,
    with_retries,
)


class PythonTargetConfig(RemoteTargetConfig):
    """A Python function ``module:function`` taking the question (and, for conversations, a
    ``messages`` keyword: the chat so far as {role, content} dicts, the question last),
    returning a dict or a string."""

    kind: Literal["python"]
    function: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    path: Path | None = Field(None, description="folder to import the module from")

    def conversation_problem(self) -> str | None:
        if takes_messages(load_function(self)):
            return None
        return (
            f"target.function: {self.function} has no 'messages' parameter, so it would see each "
            "message of a conversation without the ones before it"
        )


def takes_messages(function: Callable[..., Any]) -> bool:
    """Whether ``function`` accepts the chat so far as ``messages``."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "messages" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def load_function(config: PythonTargetConfig) -> Callable[[str], Any]:
    """Import ``module:function``, from ``config.path`` first when it is set."""
    module_name, function_name = config.function.split(":")
    if config.path is not None:
        if not config.path.is_dir():
            raise ConfigError(f"target.path: {config.path}: folder not found")
        if str(config.path) not in sys.path:
            sys.path.insert(0, str(config.path))
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - any import failure is a bad config
        raise ConfigError(
            f"target.function: cannot import '{module_name}' ({type(error).__name__}: {error})"
        ) from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ConfigError(f"target.function: '{module_name}' has no function '{function_name}'")
    return function


class PythonFunctionBot(Target):
    """Calls the function with the question; it returns a string or a mapping with ``answer``,
    ``contexts`` and ``matched_id``. A sync function runs in a worker thread; a call over
    ``timeout`` is abandoned (the thread cannot be killed, so it may finish in the background)."""

    def __init__(self, config: PythonTargetConfig, name: str = "bot") -> None:
        self.config = config
        self.name = name
        self.function = load_function(config)
        self.takes_messages = takes_messages(self.function)

    async def _call(self, question: str, history: Sequence[Exchange]) -> Any:
        function = self.function
        if self.takes_messages:
            function = partial(function, messages=chat_messages(question, history))
        if inspect.iscoroutinefunction(self.function):
            call = function(question)
        else:
            call = asyncio.to_thread(function, question)
        return await asyncio.wait_for(call, self.config.timeout)

    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer:
        where, tries = self.config.function, self.config.retries + 1
        try:
            reply = await with_retries(
                lambda: self._call(question, history), self.config.retries, lambda e: True
            )
        except TimeoutError:
            raise TargetError(f"{where}: no reply within {self.config.timeout:g}s ({tries} tries)") from None
        except Exception as error:  # noqa: BLE001 - the user's code may raise anything
            raise TargetError(f"{where} raised {type(error).__name__}: {error} ({tries} tries)") from None
        return from_text(answer_from_reply(reply, where), self.config.no_answer)


@target(PythonTargetConfig)
def python_function_bot(config: PythonTargetConfig, run: BotResources) -> Target:
    return PythonFunctionBot(config, run.name)
