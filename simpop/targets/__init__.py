"""Target adapters: one module per kind of chatbot, each registering its config and its bot
(``@target``), all behind ``Target.ask()``."""

from __future__ import annotations

# the built-in kinds, registered on import
from simpop.targets import generating, http, openai_chat, python_function, qap  # noqa: F401
from simpop.targets.target import BotResources, Target, TargetError, TargetUnavailable, build_target, target

__all__ = ["BotResources", "Target", "TargetError", "TargetUnavailable", "build_target", "target"]
