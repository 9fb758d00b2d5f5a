"""LLM access: one OpenAI-compatible client for the embedded server and any remote endpoint."""

from __future__ import annotations

from simpop.llm.cache import ResponseCache
from simpop.llm.client import (
    Endpoint,
    LLMClient,
    LLMError,
    LLMInvalidReply,
    LLMRequestFailed,
    LLMUnavailable,
    RemoteEndpoint,
)
from simpop.llm.local import EmbeddedServer
from simpop.models import LLMConfig
from simpop.paths import cache_dir

__all__ = [
    "EmbeddedServer",
    "Endpoint",
    "LLMClient",
    "LLMError",
    "LLMInvalidReply",
    "LLMRequestFailed",
    "LLMUnavailable",
    "RemoteEndpoint",
    "ResponseCache",
    "open_llm",
]


def open_llm(config: LLMConfig, use_cache: bool = True) -> LLMClient:
    """The client a run uses: the configured endpoint (or the embedded server) and the cache."""
    endpoint: Endpoint = RemoteEndpoint(config.base_url) if config.base_url else EmbeddedServer(config)
    cache = ResponseCache(cache_dir() / "llm-cache.sqlite")
    return LLMClient(config, endpoint, cache, read_cache=use_cache)
