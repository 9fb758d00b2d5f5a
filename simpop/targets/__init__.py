"""Target adapters: one per kind of chatbot, all behind ``Target.ask()``."""

from __future__ import annotations

from simpop.config import load_qaps
from simpop.embed import Embedder
from simpop.llm import LLMClient, open_llm
from simpop.models import (
    HTTPTargetConfig,
    LLMOnlyTargetConfig,
    OpenAIChatTargetConfig,
    PythonTargetConfig,
    QAPTargetConfig,
    RAGTargetConfig,
    TargetConfig,
)
from simpop.targets.base import Target, TargetError, TargetUnavailable
from simpop.targets.generating import GeneratingBot
from simpop.targets.http import HTTPBot
from simpop.targets.openai_chat import OpenAIChatBot
from simpop.targets.python_function import PythonFunctionBot
from simpop.targets.qap import QAPMatcher
from simpop.targets.retriever import Retriever

__all__ = ["Target", "TargetError", "TargetUnavailable", "build_target"]


def build_target(
    config: TargetConfig, embedder: Embedder, llm: LLMClient, name: str, use_cache: bool = True
) -> Target:
    """The adapter for ``config.kind``. Bots we build answer with ``llm`` unless their config
    names an LLM of their own."""
    if isinstance(config, QAPTargetConfig):
        return QAPMatcher(config, load_qaps(config.qaps), embedder, name=name)
    if isinstance(config, (LLMOnlyTargetConfig, RAGTargetConfig)):
        retriever = None
        if isinstance(config, RAGTargetConfig):
            retriever = Retriever(config.knowledge_base, config.retrieval, embedder)
        if config.llm is not None:
            return GeneratingBot(config, open_llm(config.llm, use_cache), retriever, name, own_llm=True)
        return GeneratingBot(config, llm, retriever, name)
    if isinstance(config, OpenAIChatTargetConfig):
        return OpenAIChatBot(config, name)
    if isinstance(config, HTTPTargetConfig):
        return HTTPBot(config, name)
    if isinstance(config, PythonTargetConfig):
        return PythonFunctionBot(config, name)
    raise ValueError(f"unknown target kind {config.kind!r}")
