"""llama.cpp settings the embedded server could use, on simpop's own question-writing calls
(issue 45 part 2): speculative decoding with the 0.5B as draft for the 1.5B, n-gram
speculation (no draft model), flash attention, larger micro-batches, the KV cache in 8 bits.

The first ``--groups`` groups of cells of ``--config`` (the README's main command by default)
are written by a fresh embedded server per setting, with no cache, ``--slots`` at once. For
each setting it prints the wall time, completion tokens, tokens a second, the groups whose
reply was usable, and the ratio to the default setting (above 1: faster).

    python bench/speculative.py [--config targets/eye-first.yaml] [--groups 12] [--slots 4]
                                [--settings default,draft,ngram,flash,ubatch,kv8,k8]

Run it on quiet cores, then beside ``python bench/busy.py``."""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import xllamacpp

from simpop.llm import EmbeddedServer, LLMClient, LLMError
from simpop.llm.local import LOCAL_MODELS, model_path
from simpop.models import QWEN_0_5B
from simpop.population.probes import write_probes
from simpop.run.components import load_run_config
from simpop.run.generate import group_request, load_tables, plan_groups
from simpop.run.plan import load_inputs


def draft(params) -> None:
    spec = params.speculative
    spec.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
    spec.draft.mparams.path = str(model_path(LOCAL_MODELS[QWEN_0_5B]))
    spec.draft.n_max = 8
    spec.draft.cpuparams.n_threads = params.cpuparams.n_threads
    spec.draft.cpuparams_batch.n_threads = params.cpuparams.n_threads


def ngram(params) -> None:
    params.speculative.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]


def flash(params) -> None:
    params.flash_attn_type = xllamacpp.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_ENABLED


def ubatch(params) -> None:
    params.n_ubatch = 1024
    params.n_batch = 2048


def kv8(params) -> None:
    """Keys and values cached as Q8_0 (a quantized V cache needs flash attention)."""
    flash(params)
    params.cache_type_k = params.cache_type_v = xllamacpp.ggml_type.GGML_TYPE_Q8_0


def k8(params) -> None:
    params.cache_type_k = xllamacpp.ggml_type.GGML_TYPE_Q8_0


SETTINGS: dict[str, Callable[[object], None]] = {
    "default": lambda params: None,
    "draft": draft,
    "ngram": ngram,
    "flash": flash,
    "ubatch": ubatch,
    "kv8": kv8,
    "k8": k8,
}


async def one_setting(config, requests, tune) -> tuple[float, int, int]:
    server = EmbeddedServer(config)
    params = server.params()
    tune(params)
    await asyncio.to_thread(server.start, params)
    llm = LLMClient(config, server, cache=None)
    slots = asyncio.Semaphore(config.concurrency)

    async def one(request) -> bool:
        async with slots:
            try:
                written, _ = await write_probes(llm, *request.call())
            except LLMError:
                return False
            return any(written)

    start = time.perf_counter()
    usable = await asyncio.gather(*(one(r) for r in requests))
    wall = time.perf_counter() - start
    tokens = llm.usage.completion_tokens
    await llm.aclose()
    server.close()
    return wall, tokens, sum(usable)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=Path("targets/eye-first.yaml"))
    parser.add_argument("--groups", type=int, default=12)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--settings", default=",".join(SETTINGS))
    args = parser.parse_args()
    run = load_run_config(args.config)
    inputs = load_inputs(run)
    load_tables(set())
    groups = list(plan_groups(inputs).values())[: args.groups]
    requests = [group_request(inputs, cells, run.seed) for cells in groups]
    config = run.llm.model_copy(update={"concurrency": args.slots, "timeout": 1800.0})
    base = None
    print(f"{len(requests)} groups of {args.config}, {config.model}, {args.slots} slots")
    for name in args.settings.split(","):
        try:
            wall, tokens, usable = asyncio.run(one_setting(config, requests, SETTINGS[name]))
        except Exception as error:  # noqa: BLE001 - a setting this build refuses is a finding
            print(f"{name:8} failed: {error}")
            continue
        base = base or wall
        print(
            f"{name:8} {wall:6.1f} s  {tokens:5} tokens  {tokens / wall:5.1f} tok/s  "
            f"usable {usable}/{len(requests)}  speed-up {base / wall:.2f}"
        )


if __name__ == "__main__":
    main()
