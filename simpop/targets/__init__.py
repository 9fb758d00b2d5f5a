"""Target adapters: one module per kind of chatbot, each registering its config and its bot
(``@target``), all behind ``Target.ask()``."""

from __future__ import annotations

# the built-in kinds, registered on import in this order (the order error messages list them in)
# isort: off
from simpop.targets import qap, generating, openai_chat, http, python_function  # noqa: F401

# isort: on
from simpop.targets.target import BotResources, Target, TargetError, TargetUnavailable, build_target, target

__all__ = ["BotResources", "Target", "TargetError", "TargetUnavailable", "build_target", "target"]
