"""What a timed-out request costs the embedded llama.cpp server, and the timeout simpop derives
from the server's measured speed, on a quiet machine and beside busy processes.

    python bench/embedded_timeouts.py [--model qwen2.5-coder-0.5b-instruct-q4_k_m] [--busy 2]

1. The server's speed (prefill and decode tokens per second) and the request timeout simpop
   takes from it for the default concurrency (4 slots) and the model's context per slot.
2. Abandonment: a long request is given up by the client after 2 s; a one-token request sent
   right after it then waits for the abandoned one only if the server keeps working on it.
   Printed: the one-token request's seconds on an idle server and right after the abandoned one.
3. The same speed and timeout with ``--busy`` processes spinning on the CPU beside the server.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

import httpx

from simpop.llm.local import EmbeddedServer, measure_speed
from simpop.models import QWEN_0_5B, LLMConfig

LONG = "Write a long, detailed story about a lighthouse keeper, at least 400 words."


def spin(stop: multiprocessing.Event) -> None:  # type: ignore[valid-type]
    while not stop.is_set():  # type: ignore[attr-defined]
        sum(i * i for i in range(10_000))


def one_token(url: str, model: str) -> float:
    start = time.perf_counter()
    httpx.post(
        f"{url}/chat/completions",
        json={"model": model, "messages": [{"role": "user", "content": "Say yes."}], "max_tokens": 1},
        timeout=600,
    )
    return time.perf_counter() - start


def abandoned_then_short(url: str, model: str) -> float:
    """Seconds of a one-token request sent right after a long one the client gave up on."""
    request = {"model": model, "messages": [{"role": "user", "content": LONG}], "max_tokens": 400}
    try:
        httpx.post(f"{url}/chat/completions", json=request, timeout=2.0)
    except httpx.TimeoutException:
        pass
    return one_token(url, model)


def report(label: str, url: str, config: LLMConfig) -> None:
    speed = measure_speed(url, config.model)
    if speed is None:
        print(f"{label}: the server sent no timings")
        return
    default = config.model_copy(update={"concurrency": 4})
    print(
        f"{label}: prefill {speed.prefill:.0f} tok/s, decode {speed.decode:.1f} tok/s → timeout "
        f"{speed.timeout(default):.0f}s (4 slots × {config.context_per_slot} prompt + "
        f"{config.max_tokens} reply tokens, ×2), against the old fixed 120s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=QWEN_0_5B)
    parser.add_argument("--busy", type=int, default=2, help="busy processes for the loaded run")
    args = parser.parse_args()
    config = LLMConfig(model=args.model, concurrency=1)
    server = EmbeddedServer(config)
    url = server.start()
    report("quiet", url, config)
    idle = min(one_token(url, config.model) for _ in range(3))
    after = abandoned_then_short(url, config.model)
    print(
        f"one-token request: {idle:.2f}s on an idle server, {after:.2f}s right after a request "
        f"abandoned at 2s ({'the server dropped it' if after < idle + 2 else 'the server finished it first'})"
    )
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=spin, args=(stop,)) for _ in range(args.busy)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(1)
        report(f"beside {args.busy} busy processes", url, config)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    server.close()


if __name__ == "__main__":
    main()
