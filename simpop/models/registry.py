"""Which target kinds exist: each kind's config class registers here, and plugins (modules named
in a run config) are imported before a config is read, so their kinds and metrics exist too.

The built-in kinds register when ``simpop.targets`` is imported; ``simpop.run.components``
imports them, and the built-in metrics, before any plugin.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any, ClassVar, get_args

from pydantic_core import PydanticCustomError

from simpop.models.record_base import Record


class TargetSettings(Record):
    """The config of one kind of bot. A kind subclasses it with ``kind: Literal["<kind>"]``,
    and says what the run needs to know about the bot through the methods below."""

    kind: str
    # the user's own bot: its answers are never cached, and it may return knowledge-base chunk ids
    user_bot: ClassVar[bool] = False

    def own_qaps(self) -> Path | None:
        """The QAP file the bot answers with, if it is a predefined-QAP bot."""
        return None

    def shortest_question(self) -> int:
        """The fewest words the bot answers: a message the noise cuts below it is the
        simulator's failure, not the bot's (invalid, never asked)."""
        return 1

    def reports_contexts(self) -> bool:
        """Whether the bot's replies carry the contexts it answered from (else retrieval is not
        measured: no contexts is not a retrieval that missed)."""
        return True

    def documents(self) -> Any:
        """The knowledge base (a ``KnowledgeBaseConfig``) the bot retrieves from, if any."""
        return None

    def bot_models(self, run_llm: str) -> dict[str, str]:
        """The models behind the bot's answers, by role, for the report."""
        return {}

    def conversation_problem(self) -> str | None:
        """Why the bot cannot be given a conversation's history, if it cannot (checked before a
        run with conversations starts)."""
        return None


_SETTINGS: dict[str, type[TargetSettings]] = {}


def register_settings(settings: type[TargetSettings]) -> type[TargetSettings]:
    """Register a target config class under every value its ``kind`` literal allows."""
    for kind in get_args(settings.model_fields["kind"].annotation):
        if kind in _SETTINGS:
            check_replacement("target kind", kind, _SETTINGS[kind], settings)
        _SETTINGS[kind] = settings
    return settings


def target_kinds() -> dict[str, type[TargetSettings]]:
    """Every registered target kind and its config class."""
    return dict(_SETTINGS)


def parse_target(value: Any) -> TargetSettings:
    """A target config of the kind ``value`` names (its errors are located under ``target``)."""
    if isinstance(value, TargetSettings):
        return value
    if not isinstance(value, dict):
        raise PydanticCustomError(
            "model_attributes_type", "Input should be a valid dictionary or object to extract fields from"
        )
    if "kind" not in value:
        raise PydanticCustomError("union_tag_not_found", "Unable to extract tag using discriminator 'kind'")
    kinds = target_kinds()
    if not kinds:  # a library user who read a config before importing any kind
        raise PydanticCustomError(
            "union_tag_invalid", "no target kind is registered: import simpop.run.components first"
        )
    settings = kinds.get(value["kind"])
    if settings is None:  # worded as pydantic words it for a discriminated union
        raise PydanticCustomError(
            "union_tag_invalid",
            "Input tag '{tag}' found using 'kind' does not match any of the expected tags: {expected}",
            {"tag": str(value["kind"]), "expected": ", ".join(f"'{kind}'" for kind in kinds)},
        )
    return settings.model_validate(value)


PLUGINS_ENV = "SIMPOP_ALLOW_PLUGINS"  # set to 1 on machines whose runs and configs a team trusts
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_allowed = False


def allow_plugins() -> None:
    """Let this process import the plugins a received run or config names (``--allow-plugins``)."""
    global _allowed
    _allowed = True


def plugins_allowed() -> bool:
    return _allowed or os.environ.get(PLUGINS_ENV, "").lower() in ("1", "true", "yes")


def check_plugin(plugin: str) -> None:
    """A plugin entry names a ``.py`` file or a dotted module, and nothing else."""
    if plugin.endswith(".py"):
        if not Path(plugin).is_file():
            raise ValueError(f"plugin {plugin}: no such Python file")
    elif not _DOTTED.match(plugin):
        raise ValueError(f"plugin {plugin}: not a .py file or a dotted module name")


def import_plugins(plugins: list[str]) -> dict[str, str]:
    """Import each plugin: a dotted module name, or a ``.py`` file. Its components register
    themselves on import (``@target``, ``@metric``) and may not replace one registered before
    (the built-in ones are, by ``simpop.run.components``). Returns each plugin's source file and
    its SHA-256."""
    for plugin in plugins:
        check_plugin(plugin)
    imported: dict[str, str] = {}
    for plugin in plugins:
        try:
            source = _import(plugin)
        except BaseException as error:  # noqa: BLE001 - even sys.exit() in the user's module is a config error
            raise ValueError(f"plugin {plugin}: cannot import it ({type(error).__name__}: {error})") from None
        imported[str(source)] = hashlib.sha256(source.read_bytes()).hexdigest()
    return imported


def _import(plugin: str) -> Path:
    """Import ``plugin``; its source file."""
    if not plugin.endswith(".py"):
        spec = importlib.util.find_spec(plugin)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            raise ImportError("not a Python module (a folder without __init__.py, or no such module)")
        importlib.import_module(plugin)
        return Path(spec.origin)
    name = f"simpop_plugin_{Path(plugin).stem}"
    if name in sys.modules:
        return Path(plugin)
    spec = importlib.util.spec_from_file_location(name, plugin)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # a failed plugin is not left half-imported
        raise
    return Path(plugin)


def check_replacement(what: str, name: str, existing: type, new: type) -> None:
    """A plugin may add a kind or metric, never replace one registered before it."""
    if existing is new or (existing.__module__, existing.__qualname__) == (new.__module__, new.__qualname__):
        return
    raise ValueError(
        f"{what} '{name}' of {new.__module__} would replace the one of {existing.__module__}; "
        "give it a name of its own"
    )
