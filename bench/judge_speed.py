"""Seconds per judged answer: every judge that applies (the ASTRID triad, refusal and the
behaviour judges, reasons for failing verdicts, the profile's support verifier) on the answers
of a finished run, with no cache, on the built-in model.

    python bench/judge_speed.py RUN [--answers N] [--model qwen2.5-coder-0.5b-instruct-q4_k_m]
                                    [--concurrency 4] [--no-reasons]

RUN is a run directory (e.g. the README's main command's). The answers are taken in the order
the score stage judges them (those sharing a context and answer together), all by default.
Prints seconds per answer, LLM calls per answer, and where the server's time went (prefill,
the prompt's reading; decode, the reply's writing) with the share of prompt tokens reused from
a shared prefix. Run it on a quiet machine and again beside a busy one (e.g. ``stress -c 2``)
to see both.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from simpop.embed import Embedder
from simpop.judging.verifier import support_verifier
from simpop.llm import LLMClient, endpoint_for
from simpop.metrics import Case, Scorers, registered
from simpop.metrics.judge import Judge
from simpop.models import QWEN_0_5B, LLMConfig
from simpop.run.score import judge_case, shared_prefix
from simpop.store import load_run


def answers(run: Path, n: int | None) -> list[Case]:
    """The run's answered cases in the order the score stage judges them (first ``n``)."""
    records = load_run(run)
    concept = {b.id: b.safe_concept for b in records.summary.scenario_briefs}
    cases = [
        Case(records.probes[cell], r, safe_concept=concept.get(r.scenario_id, ""))
        for cell, r in sorted(records.responses.items())
        if r.answer and not r.excluded
    ]
    return sorted(cases, key=shared_prefix)[:n]


async def main(run: Path, n: int | None, model: str, concurrency: int, reasons: bool) -> None:
    cases = answers(run, n)
    config = LLMConfig(model=model, concurrency=concurrency)
    llm = LLMClient(config, endpoint_for(config), cache=None)
    embedder = Embedder()
    judge = Judge(llm, model=model, max_tokens=1024, reasons=reasons)
    judge.verifier = support_verifier(judge.profile, None, embedder)
    judged = [m for m in registered() if m.judged]
    scorers = Scorers(embedder=embedder, judge=judge)
    try:
        await llm.text([{"role": "user", "content": "Say ok."}], max_tokens=2)  # start the server
        llm.usage = type(llm.usage)()
        semaphore = asyncio.Semaphore(concurrency)

        async def one(case: Case) -> None:
            async with semaphore:
                await judge_case(case, judged, scorers, {})

        start = time.perf_counter()
        await asyncio.gather(*(one(c) for c in cases))
        elapsed = time.perf_counter() - start
    finally:
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    u = llm.usage
    server = u.prefill_s + u.decode_s
    scenarios = len({c.probe.scenario_id for c in cases})
    print(
        f"{model}, {len(cases)} answers over {scenarios} scenarios, concurrency {concurrency}, verifier "
        f"{'on' if judge.verifier else 'off'}"
    )
    print(f"seconds per answer: {elapsed / len(cases):.2f}  ({elapsed:.0f} s in all)")
    print(
        f"LLM calls per answer: {u.requests / len(cases):.1f}; prompt tokens per answer "
        f"{u.prompt_tokens / len(cases):.0f}, reused from a shared prefix "
        f"{u.reused_prompt_tokens / max(1, u.prompt_tokens):.0%}"
    )
    if server:
        print(
            f"server time: prefill {u.prefill_s:.0f} s ({u.prefill_s / server:.0%}), "
            f"decode {u.decode_s:.0f} s ({u.decode_s / server:.0%}); summed over parallel slots"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("run", type=Path)
    parser.add_argument("--answers", type=int, help="only the first N answers")
    parser.add_argument("--model", default=QWEN_0_5B)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--no-reasons", action="store_true", help="no reasons for failing verdicts")
    args = parser.parse_args()
    asyncio.run(main(args.run, args.answers, args.model, args.concurrency, not args.no_reasons))
