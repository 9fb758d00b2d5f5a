"""Checks of what a run needs on this machine: embedding model, local LLM, endpoint, Chroma."""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from simpop.errors import SimpopError
from simpop.models import EmbeddingConfig, LLMConfig


@dataclass
class Check:
    name: str
    ok: bool | None  # None: skipped
    detail: str


class _Pong(BaseModel):
    ok: bool


def check_embedding(config: EmbeddingConfig) -> Check:
    from simpop.embed import Embedder

    try:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            embedder = Embedder(config, cache_path=Path(tmp) / "e.sqlite")
            vector = embedder.embed(["Is glaucoma hereditary?"])
            embedder.close()
        return Check(
            "embedding model",
            True,
            f"{config.model}: {vector.shape[1]} dimensions, "
            f"{'served by ' + config.base_url if config.base_url else f'loaded from {embedder.path}'} "
            f"in {time.perf_counter() - start:.1f}s",
        )
    except Exception as error:  # noqa: BLE001 - a check reports any failure
        return Check("embedding model", False, str(error))


async def _ping(config: LLMConfig) -> float:
    from simpop.llm import LLMClient, endpoint_for

    endpoint = endpoint_for(config)
    client = LLMClient(config.model_copy(update={"max_retries": 1}), endpoint, cache=None)
    try:
        await endpoint.url()
        start = time.perf_counter()
        await client.structured([{"role": "user", "content": 'Reply {"ok": true}'}], _Pong, max_tokens=16)
        return time.perf_counter() - start
    finally:
        await client.aclose()
        endpoint.close()


def check_local_llm(config: LLMConfig) -> Check:
    from simpop.llm.local import local_model, model_path

    name = "local LLM"
    try:
        model = local_model(config.model if not config.base_url else LLMConfig().model)
        path = model_path(model)
        local = config.model_copy(update={"base_url": None, "model": model.name, "concurrency": 1})
        seconds = asyncio.run(_ping(local))
        return Check(name, True, f"{model.name} ({path}, sha256 ok) answered in {seconds:.1f}s")
    except Exception as error:  # noqa: BLE001
        return Check(name, False, str(error))


def check_endpoint(config: LLMConfig) -> Check:
    name = "configured endpoint"
    if not config.base_url:
        return Check(name, True, "none configured: LLM calls go to the embedded local server")
    try:
        seconds = asyncio.run(_ping(config))
        return Check(name, True, f"{config.base_url} model {config.model} answered in {seconds:.1f}s")
    except SimpopError as error:
        return Check(name, False, str(error))
    except Exception as error:  # noqa: BLE001
        return Check(name, False, f"{config.base_url}: {error}")


def check_chroma() -> Check:
    try:
        import chromadb

        from simpop.targets.chroma import open_chroma

        with tempfile.TemporaryDirectory() as tmp:
            client = open_chroma(Path(tmp))
            client.heartbeat()
        return Check("chroma", True, f"chromadb {chromadb.__version__}, persistent store works")
    except Exception as error:  # noqa: BLE001
        return Check("chroma", False, str(error))


CHECKS = ("embedding", "local-llm", "endpoint", "chroma")
_NAMES = dict(zip(CHECKS, ("embedding model", "local LLM", "configured endpoint", "chroma"), strict=True))


def run_checks(llm: LLMConfig, embedding: EmbeddingConfig, skip: frozenset[str] = frozenset()) -> list[Check]:
    """Every check in ``CHECKS`` order; one in ``skip`` is listed as skipped, not run."""
    run = {
        "embedding": lambda: check_embedding(embedding),
        "local-llm": lambda: check_local_llm(llm),
        "endpoint": lambda: check_endpoint(llm),
        "chroma": check_chroma,
    }
    return [Check(_NAMES[c], None, f"left out: --skip {c}") if c in skip else run[c]() for c in CHECKS]
