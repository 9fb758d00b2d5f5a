"""A run, stage by stage: plan, generate, ask, score, summarise. Every stage resumes."""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from rich.progress import Progress

from simpop.config import load_personas, load_qaps
from simpop.embed import Embedder
from simpop.errors import ConfigError, SimpopError
from simpop.knowledge import load_chunks
from simpop.llm import LLMClient, LLMError, open_llm
from simpop.metrics import match
from simpop.metrics.ir import retrieval_metrics
from simpop.metrics.similarity import answer_similarity
from simpop.models import (
    QAP,
    Cell,
    Persona,
    Probe,
    QAPAccuracy,
    QAPTargetConfig,
    RAGTargetConfig,
    Response,
    RunConfig,
    RunSummary,
    Score,
)
from simpop.population.gold import gold_chunk_ids
from simpop.population.plan import plan, sampling_seed
from simpop.population.variants import generate_variants, prompt_id
from simpop.report.aggregate import accuracy_by_persona, means_by_persona
from simpop.store import PROBES_FILE, RESPONSES_FILE, SCORES_FILE, SUMMARY_FILE, JsonlLog, RunStore
from simpop.targets import Target, build_target
from simpop.targets.qap import matchable

RETRIEVAL = "retrieval"
ANSWER_SIMILARITY = "answer_similarity"


@dataclass
class RunInputs:
    """The loaded personas and seed QAPs of a run, its planned cells, and each seed's gold ids
    (``None`` when the target retrieves nothing we can check)."""

    personas: list[Persona]
    qaps: list[QAP]
    cells: list[Cell]
    repeated: int
    gold: dict[str, list[str] | None]


def seed_file(config: RunConfig) -> Path:
    """The QAP file the patients rephrase: ``seeds``, else a QAP target's own QAPs."""
    if config.seeds is not None:
        return config.seeds
    if isinstance(config.target, QAPTargetConfig):
        return config.target.qaps
    raise ConfigError(f"field 'seeds': required for a {config.target.kind} target (a QAP file to rephrase)")


def asks_own_qaps(config: RunConfig) -> bool:
    """A QAP target asked its own questions: the seed QAP is the one it should match."""
    return isinstance(config.target, QAPTargetConfig) and seed_file(config) == config.target.qaps


def load_inputs(config: RunConfig) -> RunInputs:
    """Personas; as seeds, the first ``limit`` QAPs with a distinct question; their gold ids."""
    personas = load_personas(config.personas, config.persona_ids)
    qaps = load_qaps(seed_file(config))
    seeds = matchable(qaps)
    repeated = len(qaps) - len(seeds)
    seeds = seeds[: config.limit]
    target = config.target
    gold: dict[str, list[str] | None] = dict.fromkeys((q.id for q in seeds), None)
    if asks_own_qaps(config):
        gold = {q.id: [q.id] for q in seeds}
    elif isinstance(target, RAGTargetConfig):
        chunks = load_chunks(target.knowledge_base)
        gold = {q.id: gold_chunk_ids(q, chunks) for q in seeds}
    return RunInputs(personas, seeds, plan(personas, seeds, config.variants), repeated, gold)


def stage_progress(progress: Progress | None, label: str, total: int, done: int) -> Callable[[], None]:
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
    advance = stage_progress(progress, "generate questions", len(inputs.cells), done)
    personas = {p.id: p for p in inputs.personas}
    qaps = {q.id: q for q in inputs.qaps}
    prompt = prompt_id()

    async def one_group(persona_id: str, seed_id: str, cells: list[Cell]) -> None:
        seed = sampling_seed(config.seed, persona_id, seed_id)
        base = dict(
            run_id=run_id,
            sampling_seed=seed,
            prompt=prompt,
            llm_model=config.llm.model,
            gold_ids=inputs.gold[seed_id],
        )
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

    await gather_all([one_group(p, s, cells) for (p, s), cells in groups.items()])


async def gather_all(jobs: list[Awaitable[None]]) -> None:
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
    advance = stage_progress(progress, f"ask {target.name}", len(inputs.cells), len(inputs.cells) - len(todo))
    semaphore = asyncio.Semaphore(concurrency)

    async def one(cell: Cell) -> None:
        probe = probes.records[cell.cell_id]
        base = dict(**probe.cell_ids(), target=target.name, question=probe.asked_text, prompt=target.prompt)
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
            except SimpopError:
                raise  # the bot or the LLM cannot be reached at all: stop, resumable
            except Exception as exc:  # noqa: BLE001 - any adapter failure is recorded on the probe
                answer, error = None, f"{type(exc).__name__}: {exc}"[:500]
            latency = time.perf_counter() - start
        fields = answer.model_dump() if answer else {}
        fields.pop("text", None)
        responses.append(
            Response(**base, **fields, answer=answer.text if answer else None, latency_s=latency, error=error)
        )
        advance()

    await gather_all([one(cell) for cell in todo])


def _score_key(score: Score) -> str:
    return f"{score.cell_id}/{score.metric}"


def _excluded(response: Response) -> str | None:
    if response.skipped:
        return response.skipped
    return "target_error" if response.error else None


def score_responses(
    config: RunConfig,
    inputs: RunInputs,
    embedder: Embedder,
    probes: JsonlLog[Probe],
    responses: JsonlLog[Response],
    scores: JsonlLog[Score],
) -> None:
    """The metrics that need no judge: QAP match (QAP targets), retrieval against the probe's
    gold ids (targets that retrieve), and answer-to-reference similarity."""
    references = {q.id: q.answer for q in inputs.qaps}
    own_qaps = asks_own_qaps(config)
    similar: list[tuple[Cell, Response]] = []
    for cell in inputs.cells:
        probe, response = probes.records[cell.cell_id], responses.records[cell.cell_id]
        ids, excluded = probe.cell_ids(), _excluded(response)
        if own_qaps:
            scores.append(match.qap_match(probe, response))
        if probe.gold_ids is not None and f"{cell.cell_id}/{RETRIEVAL}" not in scores.records:
            ranked = [c.id for c in response.contexts]
            values = retrieval_metrics(ranked, probe.gold_ids) if not excluded else {}
            reason = excluded or (None if probe.gold_ids else "no_gold")
            scores.append(Score(**ids, metric=RETRIEVAL, value=None, values=values, excluded=reason))
        if f"{cell.cell_id}/{ANSWER_SIMILARITY}" in scores.records:
            continue
        if excluded or not response.answer:
            reason = excluded or "no_answer"
            scores.append(Score(**ids, metric=ANSWER_SIMILARITY, value=None, excluded=reason))
        else:
            similar.append((cell, response))
    values = answer_similarity(
        [r.answer or "" for _, r in similar], [references[c.seed_id] for c, _ in similar], embedder
    )
    for (cell, _), value in zip(similar, values, strict=True):
        ids = probes.records[cell.cell_id].cell_ids()
        scores.append(Score(**ids, metric=ANSWER_SIMILARITY, value=round(value, 6)))


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
    scores = store.log(SCORES_FILE, Score, key=_score_key)
    embedder = Embedder(config.embedding)
    target = None
    try:
        with progress if progress is not None else nullcontext():
            await generate_probes(store.run_id, config, inputs, llm, probes, progress)
            target = build_target(config.target, embedder, llm, name=config.name, use_cache=use_cache)
            await ask_target(target, inputs, probes, responses, config.llm.concurrency, progress)
            score_responses(config, inputs, embedder, probes, responses, scores)
    finally:
        for log in (probes, responses, scores):
            log.close()
        if target is not None:
            await target.aclose()
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    persona_ids = [p.id for p in inputs.personas]
    cell_scores = list(scores.records.values())
    accuracy = None
    if asks_own_qaps(config):
        rows, total = accuracy_by_persona([s for s in cell_scores if s.metric == match.METRIC], persona_ids)
        accuracy = QAPAccuracy(personas=rows, total=total)
    cell_responses = [responses.records[c.cell_id] for c in inputs.cells]
    summary = RunSummary(
        run_id=store.run_id,
        target=config.name,
        target_kind=config.target.kind,
        planned_cells=len(inputs.cells),
        excluded=dict(Counter(reason for r in cell_responses if (reason := _excluded(r)))),
        accuracy=accuracy,
        metrics=means_by_persona([s for s in cell_scores if s.metric != match.METRIC], persona_ids),
        llm=llm.usage,
        duration_s=round(time.perf_counter() - started, 3),
    )
    store.write(SUMMARY_FILE, summary)
    return summary
