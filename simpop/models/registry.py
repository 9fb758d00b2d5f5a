"""Which target kinds exist: each kind's config class registers here, and plugins (modules named
in a run config) are imported before a config is read, so their kinds and metrics exist too.

The built-in kinds live in ``simpop.targets``; it is imported by name the first time a kind is
looked up, so reading a config never needs more than the target modules themselves (whose heavy
libraries load only when a bot is built).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, ClassVar, get_args

from pydantic_core import PydanticCustomError

from simpop.models.record_base import Record

BUILTIN_TARGETS = "simpop.targets"


class TargetSettings(Record):
    """The config of one kind of bot. A kind subclasses it with ``kind: Literal["<kind>"]``,
    and says what the run needs to know about the bot through the methods below."""

    kind: str
    # the user's own bot: its answers are never cached, and it may return knowledge-base chunk ids
    user_bot: ClassVar[bool] = False

    def own_qaps(self) -> Path | None:
        """The QAP file the bot answers with, if it is a predefined-QAP bot."""
        return None

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
        _SETTINGS[kind] = settings
    return settings


def target_kinds() -> dict[str, type[TargetSettings]]:
    """Every registered target kind and its config class, the built-in ones included."""
    importlib.import_module(BUILTIN_TARGETS)
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
    settings = kinds.get(value["kind"])
    if settings is None:  # worded as pydantic words it for a discriminated union
        raise PydanticCustomError(
            "union_tag_invalid",
            "Input tag '{tag}' found using 'kind' does not match any of the expected tags: {expected}",
            {"tag": str(value["kind"]), "expected": ", ".join(f"'{kind}'" for kind in kinds)},
        )
    return settings.model_validate(value)


def import_plugins(plugins: list[str]) -> list[str]:
    """Import each plugin: a dotted module name, or a ``.py`` file. Its components register
    themselves on import (``@target``, ``@metric``)."""
    for plugin in plugins:
        if plugin.endswith(".py") and not Path(plugin).is_file():
            raise ValueError(f"plugin {plugin}: no such Python file")
        try:
            _import(plugin)
        except Exception as error:  # noqa: BLE001 - any failure of the user's module is a config error
            raise ValueError(f"plugin {plugin}: cannot import it ({type(error).__name__}: {error})") from None
    return plugins


def _import(plugin: str) -> None:
    if not plugin.endswith(".py"):
        importlib.import_module(plugin)
        return
    name = f"simpop_plugin_{Path(plugin).stem}"
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, plugin)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # a failed plugin is not left half-imported
        raise
