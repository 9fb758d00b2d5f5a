"""Overhead of simpop's LLM layer over the LLM's own latency.

A fake OpenAI-compatible server (a separate process on 127.0.0.1) answers every chat request
after a fixed 50 ms. We send 1,000 structured-output calls at concurrency 16 through
``LLMClient.structured`` (cache lookup and write, JSON-schema request, pydantic validation)
and print:

- wall time / ideal time, where ideal = 1000 x 0.05 s / 16 (targets: <= 1.2);
- client CPU time per call (target: <= 3 ms);
- the speed-up of an identical second run served from the cache.

    python bench/llm_overhead.py [--calls 1000] [--concurrency 16] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from simpop.llm import LLMClient, RemoteEndpoint, ResponseCache
from simpop.models import LLMConfig


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: str
    reason: str


REPLY = json.dumps({"verdict": "supported", "reason": "The context states it."})


async def batch(llm: LLMClient, calls: int) -> None:
    async def one(i: int) -> None:
        messages = [
            {"role": "system", "content": "You judge whether a sentence is supported by a context."},
            {
                "role": "user",
                "content": f"Context: glaucoma damages the optic nerve.\nSentence {i}: it harms the nerve.",
            },
        ]
        await llm.structured(messages, Verdict, temperature=0.0)

    await asyncio.gather(*(one(i) for i in range(calls)))
    await llm.aclose()


def timed(llm: LLMClient, calls: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    asyncio.run(batch(llm, calls))
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()

    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simpop.testing.fake_openai",
            "--latency",
            str(args.latency),
            "--content",
            REPLY,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(server.stdout.readline())
        url = f"http://127.0.0.1:{port}/v1"
        config = LLMConfig(base_url=url, model="fake", concurrency=args.concurrency, timeout=30)
        with tempfile.TemporaryDirectory() as tmp:
            cache = ResponseCache(Path(tmp) / "cache.sqlite")
            timed(LLMClient(config, RemoteEndpoint(url), None), args.concurrency)  # warm-up, uncached
            cold = LLMClient(config, RemoteEndpoint(url), cache)
            cold_wall, cold_cpu = timed(cold, args.calls)
            warm = LLMClient(config, RemoteEndpoint(url), cache)
            warm_wall, _ = timed(warm, args.calls)
    finally:
        server.terminate()
        server.wait()

    ideal = args.calls * args.latency / args.concurrency
    assert cold.usage.requests == args.calls and warm.usage.cache_hits == args.calls
    print(f"calls {args.calls}, concurrency {args.concurrency}, server latency {args.latency * 1000:.0f} ms")
    print(f"wall time           {cold_wall:7.2f} s   ideal {ideal:.2f} s")
    print(f"ratio wall / ideal  {cold_wall / ideal:7.2f}     (target <= 1.2)")
    print(f"client CPU per call {cold_cpu / args.calls * 1000:7.2f} ms  (target <= 3 ms)")
    print(
        f"cached re-run       {warm_wall:7.2f} s   speed-up x{cold_wall / warm_wall:.0f}, "
        f"{warm.usage.requests} requests, {warm.usage.cache_hits} cache hits"
    )


if __name__ == "__main__":
    main()
