"""Seconds per judged answer: every judge that applies (the ASTRID triad, refusal and the
behaviour judges, the profile's support verifier) on the answers of a finished run, with no
cache (an empty one), on the built-in model; then, as a run does at its end, the reasons for the failing
verdicts of the worst answers per scenario (the ones a report shows), counted in the total.

    python bench/judge_speed.py RUN [--answers N] [--model qwen2.5-coder-0.5b-instruct-q4_k_m]
                                    [--concurrency 4] [--no-reasons] [--order run|prefix] [--busy N]

RUN is a run directory (e.g. the full study's, targets/eye-qap.yaml --variants 3 --limit 10).
The answers are judged in the order the run wrote them, as a streamed run judges them
(``--order prefix``: those sharing a context and answer together), all by default. Prints
seconds per answer (verdicts, reasons, total), LLM calls per answer, and where the server's
time went (prefill, the prompt's reading; decode, the reply's writing) with the share of prompt
tokens reused from a shared prefix. Run it on a quiet machine, and with ``--busy N`` beside N
processes spinning on the CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from busy import busy

from simpop.aggregate import EXAMPLES_PER_SCENARIO, metric_values, worst_cells
from simpop.embed import Embedder
from simpop.judging.verifier import support_verifier
from simpop.llm import LLMClient, endpoint_for
from simpop.llm.cache import ResponseCache
from simpop.metrics import Case, Scorers, registered
from simpop.metrics.judge import Judge
from simpop.models import QWEN_0_5B, LLMConfig, Response, Score
from simpop.run.cell_stream import judge_slots
from simpop.run.explain import explain
from simpop.run.score import judge_case, shared_prefix
from simpop.store import RESPONSES_FILE, JsonlLog, RunStore, load_run, score_key


def answers(run: Path, n: int | None, order: str) -> list[Case]:
    """The run's answered cases (first ``n``) in the order it wrote them, or ``prefix`` order."""
    records = load_run(run)
    written = list(RunStore.open(run.parent, run.name).log(RESPONSES_FILE, Response).records)
    concept = {b.id: b.safe_concept for b in records.summary.scenario_briefs}
    cases = [
        Case(records.probes[cell], r, safe_concept=concept.get(r.scenario_id, ""))
        for cell in written
        if (r := records.responses[cell]).answer and not r.excluded
    ]
    return (sorted(cases, key=shared_prefix) if order == "prefix" else cases)[:n]


async def main(run: Path, n: int | None, model: str, concurrency: int, reasons: bool, order: str) -> None:
    cases = answers(run, n, order)
    config = LLMConfig(model=model, concurrency=concurrency)
    llm = LLMClient(
        config, endpoint_for(config), cache=ResponseCache(Path(tempfile.mkdtemp()) / "llm.sqlite")
    )
    embedder = Embedder()
    judge = Judge(llm, model=model, reasons=False)
    judge.verifier = support_verifier(judge.profile, None, embedder)
    metrics = [m for m in registered() if m.judged]
    scorers = Scorers(embedder=embedder, judge=judge)
    scores: dict[str, Score] = {}
    try:
        await llm.text([{"role": "user", "content": "Say ok."}], max_tokens=2)  # start the server
        llm.usage = type(llm.usage)()
        at_once = judge_slots(llm)  # as a run judges: one answer at a time on the embedded server
        semaphore = asyncio.Semaphore(at_once)

        async def one(case: Case) -> None:
            async with semaphore:
                for score in await judge_case(case, metrics, scorers, {}):
                    scores[score_key(score)] = score

        start = time.perf_counter()
        await asyncio.gather(*(one(c) for c in cases))
        verdicts_s = time.perf_counter() - start
        explain_s, shown = 0.0, 0
        if reasons:  # the run's last step: reasons for what the report shows
            values: dict[str, dict[str, float]] = {}
            for score in scores.values():
                values.setdefault(score.cell_id, {}).update(
                    (k, v) for k, v in metric_values(score).items() if v is not None
                )
            by_cell = {c.probe.cell_id: c for c in cases}
            worst = worst_cells(
                [(c, by_cell[c].probe.scenario_id) for c in by_cell], values, EXAMPLES_PER_SCENARIO
            )
            chosen = [by_cell[c] for cells in worst.values() for c in cells]
            shown = len(chosen)
            log = JsonlLog(Path(tempfile.mkdtemp()) / "explained.jsonl", Score, key=score_key)
            start = time.perf_counter()
            await explain(chosen, scores, log, scorers, metrics, slots=semaphore)
            explain_s = time.perf_counter() - start
            log.close()
    finally:
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    u = llm.usage
    server = u.prefill_s + u.decode_s
    scenarios = len({c.probe.scenario_id for c in cases})
    elapsed = verdicts_s + explain_s
    print(
        f"{model}, {len(cases)} answers over {scenarios} scenarios in {order} order, server slots "
        f"{concurrency}, answers judged at once {at_once}, verifier "
        f"{'on' if judge.verifier else 'off'}"
    )
    print(
        f"seconds per answer: {elapsed / len(cases):.2f} ({elapsed:.0f} s in all: verdicts "
        f"{verdicts_s:.0f} s, reasons for the {shown} answers a report shows {explain_s:.0f} s)"
    )
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
    parser.add_argument("--concurrency", type=int, default=4, help="the server's parallel slots")
    parser.add_argument("--no-reasons", action="store_true", help="no reasons at the end")
    parser.add_argument("--order", choices=("run", "prefix"), default="run")
    parser.add_argument("--busy", type=int, default=0, help="beside N busy processes")
    args = parser.parse_args()
    with busy(args.busy):
        asyncio.run(
            main(args.run, args.answers, args.model, args.concurrency, not args.no_reasons, args.order)
        )
