"""A run: plan (``plan.load_inputs``), then generate, ask and score as a stream of cells, then
summarise. Every stage reads the records of the one before and resumes where it stopped."""

from __future__ import annotations

import asyncio
from contextlib import nullcontext

from rich.progress import Progress

from simpop.judging.profile import profile_for
from simpop.judging.safety_validation import answer_languages, run_validation
from simpop.llm.client import yes_no_mode
from simpop.metrics import selected
from simpop.models import Invocation, RunConfig, RunSummary
from simpop.run.assembly import RunParts, run_parts
from simpop.run.cell_stream import CellStream, judge_slots
from simpop.run.converse import Conversations
from simpop.run.explain import explain, shown_cases
from simpop.run.generate import generate_probes
from simpop.run.invocations import Invocations
from simpop.run.plan import RunInputs
from simpop.run.real_arm import ask_real
from simpop.run.summarise import RunFacts, summarise
from simpop.store import SUMMARY_FILE, RunStore


async def execute(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    *,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> RunSummary:
    """Run (or resume) every stage of ``config`` into ``store`` and write ``summary.json``.

    With ``config.stream`` (the default) the stages overlap cell by cell; without it every
    probe is written before the first is asked. The records are the same either way."""
    parts: RunParts | None = None  # once started
    invocations = Invocations(
        store,
        usage=lambda: parts.llm.usage if parts is not None else None,
        yes_no=lambda: yes_no_mode(parts.judge_llm) if parts is not None else None,
    )
    with invocations:
        with progress if progress is not None else nullcontext():
            async with run_parts(store, config, use_cache, inputs.languages) as parts:
                await run_stages(store, config, inputs, parts, progress)
                await explain_shown(config, inputs, parts, progress)
        this = invocations.this(finished=True)
        summary = summary_of(store, config, inputs, parts, invocations, this)
        store.write(SUMMARY_FILE, summary)
        invocations.end(this)
    return summary


async def run_stages(
    store: RunStore, config: RunConfig, inputs: RunInputs, parts: RunParts, progress: Progress | None
) -> None:
    """Generate, ask and score the cells as a stream; then the real patients' messages and the
    conversations."""
    logs = parts.logs
    stream = CellStream(
        inputs,
        (logs.probes, logs.responses, logs.scores),
        parts.target,
        parts.scorers,
        metrics=selected(config.metrics, config.scoring.judges),
        ask_slots=config.llm.concurrency,
        judge_slots=judge_slots(parts.judge_llm or parts.llm),
        progress=progress,
    )

    await stream.run(generation(store, config, inputs, parts, stream, progress))
    if inputs.real:  # real patients' messages, beside the simulated ones
        slots = (stream.ask_slots, stream.judge_slots)  # the cells' own: real messages share them
        await ask_real(
            store, inputs.real, parts.target, parts.scorers, stream.metrics, inputs.own_seeds, slots, progress
        )
    if inputs.conversations:
        await Conversations(
            store.run_id,
            inputs,
            (logs.turns, logs.conversations, logs.scores),
            parts.llm,
            parts.target,
            parts.scorers,
            stream.metrics,
            run_seed=config.seed,
            ask_slots=stream.ask_slots,
            judge_slots=stream.judge_slots,
            progress=progress,
        ).run(config.llm.concurrency)


async def explain_shown(
    config: RunConfig, inputs: RunInputs, parts: RunParts, progress: Progress | None
) -> None:
    """The judge's reasons for what a report shows."""
    if parts.scorers.judge is None or not config.scoring.judge_reasons:
        return
    logs = parts.logs
    shown = shown_cases(
        inputs, (logs.probes, logs.responses, logs.scores, logs.conversations), parts.target.name
    )
    await explain(
        shown,
        logs.scores,
        logs.explained,
        parts.scorers,
        selected(config.metrics, config.scoring.judges),
        slots=asyncio.Semaphore(judge_slots(parts.judge_llm or parts.llm)),
        progress=progress,
    )


async def generation(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    parts: RunParts,
    stream: CellStream,
    progress: Progress | None,
) -> None:
    """Write the probes, each cell handed to ``stream`` as its probe is written (streamed) or
    all once every probe is (not)."""
    logs = parts.logs
    if config.stream:  # the cells a resumed run had written probes for
        for cell in inputs.cells:
            if cell.cell_id in logs.probes:
                await stream.follow(cell)
    await generate_probes(
        store.run_id,
        inputs,
        parts.llm,
        parts.embedder,
        logs.probes,
        run_seed=config.seed,
        min_similarity=config.min_similarity,
        chunk_min_similarity=config.topics.min_similarity,
        min_words=config.target.shortest_question(),
        progress=progress,
        written=stream.follow if config.stream else None,
    )
    if not config.stream:  # every probe first, then the rest
        for cell in inputs.cells:
            await stream.follow(cell)


def summary_of(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    parts: RunParts,
    invocations: Invocations,
    this: Invocation,
) -> RunSummary:
    """The run's summary, from the records on disk; its duration counts every invocation."""
    judge_llm, llm = parts.judge_llm, parts.llm
    judge_model = (config.judge or config.llm).model
    judge_profile = profile_for(judge_model)
    return summarise(
        store,
        inputs,
        parts.logs,
        RunFacts(
            target=config.name,
            target_kind=config.target.kind,
            judge_model=judge_model,
            judge_usage=judge_llm.usage if judge_llm is not None and judge_llm is not llm else None,
            judge_yes_no=this.yes_no,
            allocation=config.topics.allocation,
            limits=config.failures,
            seed=config.seed,
            usage=invocations.total_usage(this),
            duration_s=invocations.seconds(this),
            invocations=len(invocations.earlier) + 1,
            verdicts=run_validation(
                judge_profile, config.scoring, answer_languages(parts.logs.scores.scan()), config.language
            )
            | judge_profile.llm_validation(),
        ),
    )
