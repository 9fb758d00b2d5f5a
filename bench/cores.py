"""How many threads llama.cpp and torch should take: the embedded server's and the embedding
model's speed on a quiet machine and beside processes that keep cores busy.

    python bench/cores.py [--model qwen2.5-coder-0.5b-instruct-q4_k_m] [--texts 200] [--busy 1]

Per case it prints prefill and decode tokens per second (llama.cpp's timings over three
requests of about 130 prompt and 48 reply tokens) and MiniLM embeddings per second (``--texts``
texts never embedded before). Each case runs in a process of its own.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROMPT = "Tell me about the eye, in plain words. " + " ".join(f"word{n}" for n in range(100))


def spin(stop) -> None:  # noqa: ANN001 - a multiprocessing.Event
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def llm_case(model: str, threads: int) -> dict:
    import httpx

    from simpop.llm.local import EmbeddedServer
    from simpop.models import LLMConfig

    server = EmbeddedServer(LLMConfig(model=model, concurrency=1, threads=threads, timeout=900))
    url = server.start()
    totals = {"prompt_ms": 0.0, "predicted_ms": 0.0, "prompt_n": 0, "predicted_n": 0}
    for n in range(3):
        request = {
            "model": model,
            "messages": [{"role": "user", "content": f"{n}. {PROMPT}"}],
            "max_tokens": 48,
            "temperature": 0.0,
            "cache_prompt": False,
        }
        timings = httpx.post(f"{url}/chat/completions", json=request, timeout=900).json()["timings"]
        for key in totals:
            totals[key] += timings[key]
    server.close()
    return {
        "prefill": totals["prompt_n"] / totals["prompt_ms"] * 1000,
        "decode": totals["predicted_n"] / totals["predicted_ms"] * 1000,
    }


def embedding_case(texts: int, threads: int) -> dict:
    import torch

    from simpop.embed import Embedder

    torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as folder:
        embedder = Embedder(cache_path=Path(folder) / "e.sqlite")
        embedder.embed(["warm up"])
        batch = [f"Question {time.time_ns()} {n}: is my eye pressure too high?" for n in range(texts)]
        start = time.perf_counter()
        embedder.embed(batch)
        seconds = time.perf_counter() - start
        embedder.close()
    return {"texts_per_s": texts / seconds}


def run_case(case: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--case", *case], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--busy", type=int, default=1, help="busy processes for the loaded rows")
    parser.add_argument("--case", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        kind, *rest = args.case
        result = (
            llm_case(args.model, int(rest[0])) if kind == "llm" else embedding_case(args.texts, int(rest[0]))
        )
        print(json.dumps(result))
        return
    from simpop.cores import available_cores

    cores = available_cores()
    print(f"cores available to this process: {cores}")
    for busy in (0, args.busy):
        stop = multiprocessing.Event()
        workers = [multiprocessing.Process(target=spin, args=(stop,)) for _ in range(busy)]
        for worker in workers:
            worker.start()
        where = f"beside {busy} busy" if busy else "quiet"
        try:
            for threads in sorted({1, cores}):
                r = run_case(["llm", str(threads), "--model", args.model])
                print(
                    f"{where:>13}: llama.cpp {threads} thread(s): "
                    f"prefill {r['prefill']:6.1f} tok/s, decode {r['decode']:5.1f} tok/s"
                )
                e = run_case(["embed", str(threads), "--texts", str(args.texts)])
                print(f"{where:>13}: MiniLM {threads} torch thread(s): {e['texts_per_s']:6.1f} texts/s")
        finally:
            stop.set()
            for worker in workers:
                worker.join()


if __name__ == "__main__":
    main()
