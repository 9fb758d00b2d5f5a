"""LLM access: one OpenAI-compatible client for the embedded server and any remote endpoint."""

from __future__ import annotations

from simpop.llm.cache import ResponseCache
from simpop.llm.client import LLMClient, LLMError, LLMInvalidReply, LLMRequestFailed, LLMUnavailable
from simpop.llm.endpoint import Endpoint, RemoteEndpoint
from simpop.llm.local import EmbeddedServer, embedded_server
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
    "embedded_server",
    "endpoint_for",
    "open_llm",
]


def endpoint_for(config: LLMConfig) -> Endpoint:
    """The configured endpoint, or the embedded local server when there is no ``base_url``."""
    return RemoteEndpoint(config.base_url) if config.base_url else embedded_server(config)


def open_llm(config: LLMConfig, use_cache: bool = True) -> LLMClient:
    """The client a run uses: its endpoint and the persistent response cache."""
    cache = ResponseCache(cache_dir() / "llm-cache.sqlite")
    return LLMClient(config, endpoint_for(config), cache, read_cache=use_cache)
