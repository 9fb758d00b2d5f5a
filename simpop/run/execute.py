"""A run, stage by stage: plan (``plan.load_inputs``), generate, ask, score, summarise. Every
stage reads the records of the one before and resumes where it stopped."""

from __future__ import annotations

import time
from contextlib import nullcontext

from rich.progress import Progress

from simpop.embed import Embedder
from simpop.judging.verifier import support_verifier
from simpop.llm import LLMClient, open_llm
from simpop.metrics import Scorers
from simpop.metrics.judge import Judge
from simpop.models import Probe, Response, RunConfig, RunSummary, Score
from simpop.run.ask import ask_target
from simpop.run.generate import generate_probes
from simpop.run.plan import RunInputs
from simpop.run.score import score_cases
from simpop.run.summarise import summarise
from simpop.store import PROBES_FILE, RESPONSES_FILE, SCORES_FILE, SUMMARY_FILE, RunStore, score_key
from simpop.targets import BotResources, Target, build_target


async def execute(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    *,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> RunSummary:
    """Run (or resume) every stage of ``config`` into ``store`` and write ``summary.json``."""
    started = time.perf_counter()
    llm = open_llm(config.llm, use_cache=use_cache)
    probes = store.log(PROBES_FILE, Probe)
    responses = store.log(RESPONSES_FILE, Response)
    scores = store.log(SCORES_FILE, Score, key=score_key)
    embedder = Embedder(config.embedding)
    target: Target | None = None
    judge_llm: LLMClient | None = None
    try:
        with progress if progress is not None else nullcontext():
            await generate_probes(
                store.run_id,
                inputs,
                llm,
                embedder,
                probes,
                run_seed=config.seed,
                min_similarity=config.min_similarity,
                chunk_min_similarity=config.topics.min_similarity,
                progress=progress,
            )
            target = build_target(config.target, BotResources(embedder, llm, config.name, use_cache))
            await ask_target(target, inputs.cells, probes, responses, config.llm.concurrency, progress)
            scorers = Scorers(embedder, config.scoring)
            if config.scoring.judges:
                judge_llm = llm if config.judge is None else open_llm(config.judge, use_cache=use_cache)
                scorers.judge = Judge(
                    judge_llm,
                    model=judge_llm.config.model,
                    seed=config.seed,
                    max_tokens=config.scoring.judge_max_tokens,
                    reasons=config.scoring.judge_reasons,
                )
                scorers.judge.verifier = support_verifier(
                    scorers.judge.profile, config.scoring.verifier, embedder
                )
            cases = [
                inputs.case(probes.records[c.cell_id], responses.records[c.cell_id]) for c in inputs.cells
            ]
            concurrency = judge_llm.config.concurrency if judge_llm is not None else config.llm.concurrency
            await score_cases(
                cases,
                scores,
                scorers,
                judges=config.scoring.judges,
                concurrency=concurrency,
                progress=progress,
            )
    finally:
        for log in (probes, responses, scores):
            log.close()
        if target is not None:
            await target.aclose()
        for client in dict.fromkeys([llm, judge_llm]):
            if client is not None:
                await client.aclose()
                client.endpoint.close()
        embedder.close()
    summary = summarise(
        store,
        inputs,
        probes,
        responses,
        scores,
        target=config.name,
        target_kind=config.target.kind,
        judge_model=(config.judge or config.llm).model,
        judge_usage=judge_llm.usage if judge_llm is not None and judge_llm is not llm else None,
        allocation=config.topics.allocation,
        limits=config.failures,
        seed=config.seed,
        usage=llm.usage,
        duration_s=round(time.perf_counter() - started, 3),
    )
    store.write(SUMMARY_FILE, summary)
    return summary
