"""Local generation through simpop against the same llama.cpp server asked directly.

simpop starts its embedded xllamacpp server (``--slots`` parallel slots); the same
generation requests (a patient's questions about an eye condition, ``--tokens`` at most,
temperature 0.7, a seed each) are then sent ``--slots`` at a time, alternately by simpop's
``LLMClient`` (no cache) and by a bare ``openai`` client to the same server's URL. Each pass
has prompts of its own, so neither finds the other's prompts in llama.cpp's prompt cache.
Printed: completion tokens per second of each, and simpop / bare (goal >= 0.9).

    python bench/local_throughput.py [--model qwen2.5-coder-0.5b-instruct-q4_k_m] [--slots 2]
                                     [--requests 8] [--tokens 96] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import time

import openai

from simpop.llm import LLMClient, endpoint_for
from simpop.models import QWEN_0_5B, LLMConfig

CONDITIONS = ("glaucoma", "cataract", "dry eye", "macular degeneration", "pink eye", "a floater")


def messages(i: int, tag: str) -> list[dict[str, str]]:
    condition = CONDITIONS[i % len(CONDITIONS)]
    return [
        {"role": "system", "content": f"You are patient {tag}-{i}, worried about your eyes."},
        {"role": "user", "content": f"Write three short questions you would ask a nurse about {condition}."},
    ]


async def through_simpop(llm: LLMClient, args: argparse.Namespace, tag: str) -> tuple[int, float]:
    before = llm.usage.completion_tokens
    start = time.perf_counter()
    await asyncio.gather(
        *(llm.text(messages(i, tag), max_tokens=args.tokens, seed=i) for i in range(args.requests))
    )
    return llm.usage.completion_tokens - before, time.perf_counter() - start


async def bare(client: openai.AsyncOpenAI, args: argparse.Namespace, tag: str) -> tuple[int, float]:
    slots = asyncio.Semaphore(args.slots)

    async def one(i: int) -> int:
        async with slots:
            reply = await client.chat.completions.create(
                model=args.model,
                messages=messages(i, tag),  # type: ignore[arg-type]
                max_tokens=args.tokens,
                temperature=0.7,
                seed=i,
            )
        return reply.usage.completion_tokens if reply.usage else 0

    start = time.perf_counter()
    tokens = await asyncio.gather(*(one(i) for i in range(args.requests)))
    return sum(tokens), time.perf_counter() - start


async def main(args: argparse.Namespace) -> None:
    config = LLMConfig(model=args.model, concurrency=args.slots, temperature=0.7)
    llm = LLMClient(config, endpoint_for(config), cache=None)
    try:
        await llm.text([{"role": "user", "content": "Say ok."}], max_tokens=2)  # start the server
        client = openai.AsyncOpenAI(base_url=await llm.endpoint.url(), api_key="none", timeout=600)
        ours, theirs = [0, 0.0], [0, 0.0]
        for round_ in range(args.rounds):
            for label, total, run in (
                ("bare", theirs, lambda tag: bare(client, args, tag)),
                ("simpop", ours, lambda tag: through_simpop(llm, args, tag)),
            ):
                tokens, wall = await run(f"{label}{round_}")
                total[0] += tokens
                total[1] += wall
                rate = tokens / wall
                print(f"round {round_ + 1} {label:6}: {tokens} tokens in {wall:.1f} s = {rate:.1f} tok/s")
        await client.close()
    finally:
        await llm.aclose()
        llm.endpoint.close()
    ratio = (ours[0] / ours[1]) / (theirs[0] / theirs[1])
    print(
        f"simpop {ours[0] / ours[1]:.1f} tok/s, bare {theirs[0] / theirs[1]:.1f} tok/s: "
        f"{ratio:.2f} x (goal >= 0.9)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=QWEN_0_5B)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    asyncio.run(main(parser.parse_args()))
