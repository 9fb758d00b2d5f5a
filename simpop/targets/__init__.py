"""Target adapters: one per kind of chatbot, all behind ``Target.ask()``."""

from __future__ import annotations

from simpop.config import load_qaps
from simpop.embed import Embedder
from simpop.models import TargetConfig
from simpop.targets.base import Target
from simpop.targets.qap import QAPMatcher

__all__ = ["QAPMatcher", "Target", "build_target"]


def build_target(config: TargetConfig, embedder: Embedder, name: str) -> Target:
    """The adapter for ``config.kind``."""
    if config.kind == "qap":
        return QAPMatcher(config, load_qaps(config.qaps), embedder, name=name)
    raise ValueError(f"unknown target kind {config.kind!r}")
