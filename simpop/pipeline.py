"""A run, stage by stage: plan, generate, ask, score, summarise. Every stage resumes."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass

from rich.progress import Progress

from simpop.config import load_personas, load_qaps
from simpop.embed import Embedder
from simpop.llm import LLMClient, LLMError, open_llm
from simpop.metrics.match import METRIC, qap_match
from simpop.models import QAP, Cell, Persona, Probe, Response, RunConfig, RunSummary, Score
from simpop.population.plan import plan, sampling_seed
from simpop.population.variants import generate_variants, prompt_id
from simpop.report.aggregate import accuracy_by_persona, excluded_counts
from simpop.store import PROBES_FILE, RESPONSES_FILE, SCORES_FILE, SUMMARY_FILE, JsonlLog, RunStore
from simpop.targets import Target, build_target
from simpop.targets.qap import matchable


@dataclass
class RunInputs:
    """The loaded personas and seed QAPs of a run, and its planned cells."""

    personas: list[Persona]
    qaps: list[QAP]
    cells: list[Cell]
    unmatchable: int


def load_inputs(config: RunConfig) -> RunInputs:
    """Personas, and as seeds the first ``limit`` QAPs the matcher can return."""
    personas = load_personas(config.personas, config.persona_ids)
    qaps = load_qaps(config.target.qaps)
    seeds = matchable(qaps)
    unmatchable = len(qaps) - len(seeds)
    seeds = seeds[: config.limit]
    return RunInputs(personas, seeds, plan(personas, seeds, config.variants), unmatchable)


def _stage(progress: Progress | None, label: str, total: int, done: int) -> Callable[[], None]:
    """A progress bar for one stage; returns the function that advances it by one."""
    if progress is None:
        return lambda: None
    task = progress.add_task(label, total=total, completed=done)
    return lambda: progress.advance(task)


async def generate_probes(
    run_id: str,
    config: RunConfig,
    inputs: RunInputs,
    llm: LLMClient,
    probes: JsonlLog[Probe],
    progress: Progress | None = None,
) -> None:
    """One LLM call per (persona, QAP) with a missing probe; writes a probe per cell."""
    groups: dict[tuple[str, str], list[Cell]] = defaultdict(list)
    for cell in inputs.cells:
        if cell.cell_id not in probes.records:
            groups[(cell.persona_id, cell.seed_id)].append(cell)
    done = len(inputs.cells) - sum(len(c) for c in groups.values())
    advance = _stage(progress, "generate questions", len(inputs.cells), done)
    personas = {p.id: p for p in inputs.personas}
    qaps = {q.id: q for q in inputs.qaps}
    prompt = prompt_id()

    async def one_group(persona_id: str, seed_id: str, cells: list[Cell]) -> None:
        seed = sampling_seed(config.seed, persona_id, seed_id)
        base = dict(run_id=run_id, sampling_seed=seed, prompt=prompt, llm_model=config.llm.model)
        try:
            variants = await generate_variants(
                llm, personas[persona_id], qaps[seed_id], config.variants, seed
            )
        except LLMError as error:
            for cell in cells:
                probes.append(Probe(**base, **cell.model_dump(), text=None, error=str(error)))
                advance()
            return
        for cell in cells:
            variant = variants[cell.variant]
            probes.append(
                Probe(
                    **base,
                    **cell.model_dump(),
                    text=variant.text,
                    duplicate_of=variant.duplicate_of,
                    error=None if variant.text else "empty variant",
                )
            )
            advance()

    await _gather([one_group(p, s, cells) for (p, s), cells in groups.items()])


async def _gather(jobs: list[Awaitable[None]]) -> None:
    """Run jobs together; the first unexpected failure cancels the rest and is raised."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _skip_reason(probe: Probe) -> str | None:
    if probe.error:
        return "generation_error"
    if probe.duplicate_of is not None:
        return "duplicate"
    return None


async def ask_target(
    target: Target,
    inputs: RunInputs,
    probes: JsonlLog[Probe],
    responses: JsonlLog[Response],
    concurrency: int,
    progress: Progress | None = None,
) -> None:
    """Ask the target every probe that has no response yet; failures are recorded, not raised."""
    todo = [c for c in inputs.cells if c.cell_id not in responses.records]
    advance = _stage(progress, f"ask {target.name}", len(inputs.cells), len(inputs.cells) - len(todo))
    semaphore = asyncio.Semaphore(concurrency)

    async def one(cell: Cell) -> None:
        probe = probes.records[cell.cell_id]
        base = dict(**probe.cell_ids(), target=target.name, question=probe.asked_text)
        skipped = _skip_reason(probe)
        if skipped:
            responses.append(Response(**base, skipped=skipped))
            advance()
            return
        async with semaphore:
            start = time.perf_counter()
            try:
                answer = await target.ask(probe.asked_text or "")
                error = None
            except Exception as exc:  # noqa: BLE001 - any adapter failure is recorded on the probe
                answer, error = None, f"{type(exc).__name__}: {exc}"[:500]
            latency = time.perf_counter() - start
        fields = answer.model_dump() if answer else {}
        fields.pop("text", None)
        responses.append(
            Response(**base, **fields, answer=answer.text if answer else None, latency_s=latency, error=error)
        )
        advance()

    await _gather([one(cell) for cell in todo])


def score_responses(
    inputs: RunInputs,
    probes: JsonlLog[Probe],
    responses: JsonlLog[Response],
    scores: JsonlLog[Score],
) -> None:
    for cell in inputs.cells:
        if cell.cell_id not in scores.records:
            scores.append(qap_match(probes.records[cell.cell_id], responses.records[cell.cell_id]))


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
    scores = store.log(SCORES_FILE, Score)
    embedder = Embedder(config.embedding)
    target = None
    try:
        with progress if progress is not None else nullcontext():
            await generate_probes(store.run_id, config, inputs, llm, probes, progress)
            target = build_target(config.target, embedder, name=config.name)
            await ask_target(target, inputs, probes, responses, config.llm.concurrency, progress)
            score_responses(inputs, probes, responses, scores)
    finally:
        for log in (probes, responses, scores):
            log.close()
        await llm.aclose()
        llm.endpoint.close()
        if target is not None:
            target.close()
        embedder.close()
    cell_scores = [scores.records[c.cell_id] for c in inputs.cells]
    rows, total = accuracy_by_persona(cell_scores, [p.id for p in inputs.personas])
    summary = RunSummary(
        run_id=store.run_id,
        target=config.name,
        metric=METRIC,
        personas=rows,
        total=total,
        planned_cells=len(inputs.cells),
        excluded=excluded_counts(cell_scores),
        target_errors=sum(1 for c in inputs.cells if responses.records[c.cell_id].error),
        llm=llm.usage,
        duration_s=round(time.perf_counter() - started, 3),
    )
    store.write(SUMMARY_FILE, summary)
    return summary
