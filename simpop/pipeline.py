"""A run, stage by stage: plan, generate, ask, score, summarise. Every stage resumes."""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path

from rich.progress import Progress

from simpop.config import load_personas, load_qaps, load_scenarios, load_vignettes
from simpop.embed import Embedder
from simpop.errors import ConfigError, SimpopError
from simpop.knowledge import load_chunks
from simpop.labels import labels_summary
from simpop.llm import LLMClient, LLMError, open_llm
from simpop.metrics import match
from simpop.metrics.embedding import EMBEDDING, NLIGroundedness, embedding_scores
from simpop.metrics.ir import retrieval_metrics
from simpop.metrics.judge import JUDGE_ERROR, Judge
from simpop.metrics.judging import JUDGED, judge_probe, judged_metrics
from simpop.metrics.similarity import answer_similarity
from simpop.metrics.triad import FAITHFULNESS
from simpop.models import (
    QAP,
    Cell,
    Domain,
    JudgeSummary,
    KnowledgeBaseConfig,
    NoiseConfig,
    Persona,
    Probe,
    QAPAccuracy,
    QAPTargetConfig,
    RAGTargetConfig,
    Response,
    RunConfig,
    RunSummary,
    Scenario,
    ScenarioBrief,
    Score,
    TopicStrata,
    Vignette,
)
from simpop.population.fidelity import check_group, most_usable
from simpop.population.gold import gold_chunk_ids
from simpop.population.noise import apply_noise, expected_rate
from simpop.population.plan import (
    NO_SEED,
    VARIANT_SCENARIO,
    PlannedScenario,
    builtin_ids,
    chunks_per_probe,
    hcat_scenario,
    plan,
    sampling_seed,
    scenario_seeds,
    scenario_vignettes,
    variant_scenario,
    vignette_id,
)
from simpop.population.probes import OVERSAMPLE, ProbeSource, probe_messages, prompt_id, write_probes
from simpop.population.strata import Topics, knowledge_topics
from simpop.report.aggregate import accuracy_by_persona, metric_means
from simpop.report.fidelity import fidelity_summary
from simpop.store import (
    PROBES_FILE,
    RESPONSES_FILE,
    SCORES_FILE,
    SUMMARY_FILE,
    JsonlLog,
    RunStore,
    score_key,
)
from simpop.targets import Target, build_target
from simpop.targets.qap import matchable

RETRIEVAL = "retrieval"
ANSWER_SIMILARITY = "answer_similarity"


@dataclass
class RunInputs:
    """What a run's cells are made from: personas, seed QAPs (with each seed's gold ids,
    ``None`` when the target retrieves nothing we can check), scenarios, their vignettes, and
    the knowledge base's topics when probes are written from its chunks."""

    personas: list[Persona]
    qaps: list[QAP]
    scenarios: dict[str, Scenario]
    vignettes: dict[str, dict[str, Vignette]]
    domain: Domain | None
    cells: list[Cell]
    repeated: int
    gold: dict[str, list[str] | None]
    topics: Topics | None = None
    chunk_gold: bool = False

    def source(self, cell: Cell) -> ProbeSource:
        """The seed question(s), vignette or passages a cell's probe is written from."""
        if cell.seed_id == NO_SEED:
            return ProbeSource([])
        if self.scenarios[cell.scenario_id].source == "chunks" and self.topics is not None:
            chunks = [self.topics.chunk(i) for i in cell.seed_id.split("+")]
            return ProbeSource(
                [], passages=tuple(c.text for c in chunks), titles=tuple(c.title for c in chunks)
            )
        vignette = self.vignettes.get(cell.scenario_id, {}).get(cell.seed_id)
        if vignette is not None:
            return ProbeSource([], vignette.case_description, vignette.urgency_level)
        return ProbeSource([self.qap_by_id[i].question for i in cell.seed_id.split("+")])

    @cached_property
    def qap_by_id(self) -> dict[str, QAP]:
        return {q.id: q for q in self.qaps}

    def gold_ids(self, cell: Cell) -> list[str] | None:
        """The gold ids of a cell written from seed QAPs (all of them for several) or from
        chunks (when the target answers from the same knowledge base)."""
        source = self.scenarios[cell.scenario_id].source
        if source == "chunks":
            return cell.seed_id.split("+") if self.chunk_gold else None
        if source not in ("qap", "multi_question"):
            return None
        golds = [self.gold[i] for i in cell.seed_id.split("+")]
        if any(g is None for g in golds):
            return None
        return list(dict.fromkeys(i for g in golds for i in g or []))

    def topic(self, cell: Cell) -> str | None:
        if self.topics is None or self.scenarios[cell.scenario_id].source != "chunks":
            return None
        return self.topics.label(cell.seed_id.split("+")[0])


def seed_file(config: RunConfig) -> Path:
    """The QAP file the patients rephrase: ``seeds``, else a QAP target's own QAPs."""
    if config.seeds is not None:
        return config.seeds
    if isinstance(config.target, QAPTargetConfig):
        return config.target.qaps
    raise ConfigError(
        f"field 'seeds': required for a {config.target.kind} target when variants or QAP-seeded "
        "scenarios are run (a QAP file to rephrase)"
    )


def asks_own_qaps(config: RunConfig) -> bool:
    """A QAP target asked its own questions: the seed QAP is the one it should match."""
    return isinstance(config.target, QAPTargetConfig) and seed_file(config) == config.target.qaps


def load_run_scenarios(config: RunConfig) -> list[Scenario]:
    """The scenarios asked for; those written from the domain or vignettes need a domain."""
    if config.scenarios == []:
        return []
    ids = None if config.scenarios == "all" else config.scenarios
    if not config.scenario_dir.is_dir():
        raise ConfigError(
            f"field 'scenario_dir': scenario folder {config.scenario_dir} not found "
            "(set scenario_dir, or scenarios: [] / --scenarios none to run without scenarios)"
        )
    scenarios = load_scenarios(config.scenario_dir, ids)
    reserved = next((s.id for s in scenarios if s.id in builtin_ids()), None)
    if reserved is not None:
        raise ConfigError(f"{config.scenario_dir}: scenario id '{reserved}' is taken by a built-in scenario")
    needy = next((s for s in scenarios if s.source in ("generate", "vignettes")), None)
    if needy is not None and config.domain is None:
        raise ConfigError(
            f"field 'domain': scenario '{needy.id}' needs the bot's domain "
            "(a few sentences of what the bot is for, in the target config)"
        )
    return scenarios


def topic_knowledge_base(config: RunConfig) -> KnowledgeBaseConfig:
    """The documents topic-stratified questions are written from."""
    if config.topics.knowledge_base is not None:
        return config.topics.knowledge_base
    if isinstance(config.target, RAGTargetConfig):
        return config.target.knowledge_base
    raise ConfigError(
        f"field 'topics.knowledge_base': required for a {config.target.kind} target "
        "(the documents to write questions from)"
    )


def answers_from_chunks(config: RunConfig) -> bool:
    """The target's contexts can be the topic chunks: a RAG target over the same knowledge
    base, or the user's own bot (which may return the chunk ids)."""
    if isinstance(config.target, RAGTargetConfig):
        return config.topics.knowledge_base in (None, config.target.knowledge_base)
    return config.target.kind in ("http", "openai_chat", "python")


def plan_topics(config: RunConfig, scenarios: list[Scenario]) -> tuple[Topics | None, list[PlannedScenario]]:
    """The knowledge base's topics, and the chunk scenarios (the HCAT types of ``topics`` and
    any of the user's) with their chunks, sampled by topic."""
    chunk_scenarios = [s for s in scenarios if s.source == "chunks"]
    if config.topics.questions:
        chunk_scenarios += [hcat_scenario(t) for t in dict.fromkeys(config.topics.types)]
    if not chunk_scenarios:
        return None, []
    chunks = load_chunks(topic_knowledge_base(config))
    embedder = Embedder(config.embedding)
    try:
        topics = knowledge_topics(chunks, embedder, config.topics, config.seed)
    finally:
        embedder.close()
    counts = [config.topics.questions if s.id in builtin_ids() else config.probes for s in chunk_scenarios]
    drawn = topics.draw(counts, config.topics.allocation, config.seed)
    planned = [
        PlannedScenario(scenario, [topics.seed_id(i, chunks_per_probe(scenario)) for i in indices])
        for scenario, indices in zip(chunk_scenarios, drawn, strict=True)
    ]
    return topics, planned


def load_inputs(config: RunConfig) -> RunInputs:
    """Personas; as seeds, the first ``limit`` QAPs with a distinct question and their gold
    ids; scenarios and vignettes; the knowledge base's topics and sampled chunks; the plan."""
    personas = load_personas(config.personas, config.persona_ids)
    scenarios = load_run_scenarios(config)
    target = config.target
    seeds: list[QAP] = []
    repeated = 0
    gold: dict[str, list[str] | None] = {}
    if config.variants or any(s.source in ("qap", "multi_question") for s in scenarios):
        qaps = load_qaps(seed_file(config))
        seeds = matchable(qaps)
        repeated = len(qaps) - len(seeds)
        seeds = seeds[: config.limit]
        gold = dict.fromkeys((q.id for q in seeds), None)
        if asks_own_qaps(config):
            gold = {q.id: [q.id] for q in seeds}
        elif isinstance(target, RAGTargetConfig):
            chunks = load_chunks(target.knowledge_base)
            gold = {q.id: gold_chunk_ids(q, chunks) for q in seeds}
    vignettes: dict[str, dict[str, Vignette]] = {}
    planned = []
    for scenario in [s for s in scenarios if s.source != "chunks"]:
        ids: list[str] = []
        if scenario.source == "vignettes" and scenario.vignettes is not None:
            every = load_vignettes(scenario.vignettes)
            ids = scenario_vignettes(scenario, every, config.domain)
            vignettes[scenario.id] = {vignette_id(i): v for i, v in enumerate(every) if vignette_id(i) in ids}
        planned.append(PlannedScenario(scenario, scenario_seeds(scenario, config.probes, seeds, ids)))
    topics, by_topic = plan_topics(config, scenarios)
    planned += by_topic
    by_id = {s.scenario.id: s.scenario for s in planned}
    if config.variants:
        by_id[VARIANT_SCENARIO] = variant_scenario()
    cells = plan(personas, seeds if config.variants else [], config.variants, planned)
    chunk_gold = answers_from_chunks(config)
    if config.scoring.nli_model is not None and not config.scoring.nli_model.is_dir():
        raise ConfigError(f"field 'scoring.nli_model': no model folder at {config.scoring.nli_model}")
    return RunInputs(
        personas, seeds, by_id, vignettes, config.domain, cells, repeated, gold, topics, chunk_gold
    )


def stage_progress(progress: Progress | None, label: str, total: int, done: int) -> Callable[[], None]:
    """A progress bar for one stage; returns the function that advances it by one."""
    if progress is None:
        return lambda: None
    task = progress.add_task(label, total=total, completed=done)
    return lambda: progress.advance(task)


def _noise_label(noise: NoiseConfig) -> str:
    return f"{noise.model}@{expected_rate(noise):g}"


async def generate_probes(
    run_id: str,
    config: RunConfig,
    inputs: RunInputs,
    llm: LLMClient,
    embedder: Embedder,
    probes: JsonlLog[Probe],
    progress: Progress | None = None,
) -> None:
    """One LLM call per group of cells with the same persona, scenario and seed, asking for
    more messages than cells; the fidelity checks keep the most distinct valid ones; then the
    persona's (or the scenario's) noise."""
    groups: dict[tuple[str, str, str], list[Cell]] = defaultdict(list)
    for cell in inputs.cells:
        groups[(cell.persona_id, cell.scenario_id, cell.seed_id)].append(cell)
    todo = {
        key: cells for key, cells in groups.items() if any(c.cell_id not in probes.records for c in cells)
    }
    done = len(inputs.cells) - sum(
        1 for cells in todo.values() for c in cells if c.cell_id not in probes.records
    )
    advance = stage_progress(progress, "generate questions", len(inputs.cells), done)
    personas = {p.id: p for p in inputs.personas}

    async def one_group(cells: list[Cell]) -> None:
        persona, scenario = personas[cells[0].persona_id], inputs.scenarios[cells[0].scenario_id]
        source = inputs.source(cells[0])
        seed = sampling_seed(config.seed, cells[0])
        messages = probe_messages(persona, scenario, inputs.domain, source, OVERSAMPLE * len(cells))
        try:
            candidates: list[str | None] = list(
                await write_probes(llm, messages, OVERSAMPLE * len(cells), seed)
            )
            error = None
        except LLMError as exc:
            candidates, error = [None] * len(cells), str(exc)
        bound = config.min_similarity if scenario.keeps_meaning else None
        if scenario.source == "chunks":
            bound = config.topics.min_similarity
        check = partial(
            check_group,
            seed_text=source.seed_text,
            embedder=embedder,
            min_similarity=bound,
            examples=scenario.examples,
            prompt=messages[-1]["content"],
        )
        texts = [candidates[i] for i in most_usable(check(candidates), len(cells))]
        checks = check(texts)  # again, so a duplicate names the probe it repeats
        prompt = prompt_id(scenario)
        noise = scenario.noise or persona.noise
        for cell, text, fidelity in zip(cells, texts, checks, strict=True):
            if cell.cell_id in probes.records:
                continue
            noisy = apply_noise(text, noise, sampling_seed(config.seed, cell)) if text else None
            probes.append(
                Probe(
                    run_id=run_id,
                    **cell.model_dump(),
                    text=text,
                    noisy_text=noisy,
                    noise=_noise_label(noise) if noisy is not None else None,
                    expected_behaviour=scenario.expected_behaviour,
                    also_safe=scenario.also_safe,
                    severity=scenario.severity,
                    question_type=scenario.question_type,
                    seed_text=source.seed_text,
                    sub_questions=source.questions if scenario.source == "multi_question" else None,
                    urgency=source.urgency,
                    topic=inputs.topic(cell),
                    hcat_type=scenario.hcat_type,
                    fidelity=fidelity,
                    sampling_seed=seed,
                    prompt=prompt,
                    llm_model=config.llm.model,
                    gold_ids=inputs.gold_ids(cell),
                    error=error or (None if text else "empty question"),
                )
            )
            advance()

    await gather_all([one_group(cells) for cells in todo.values()])


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
    if probe.fidelity is not None and not probe.fidelity.valid:
        return "invalid"
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
    gold ids (targets that retrieve), answer-to-reference similarity, and the HCAT embedding
    metrics."""
    references = {q.id: q.answer for q in inputs.qaps}
    own_qaps = asks_own_qaps(config)
    similar: list[tuple[Cell, Response]] = []
    embed: list[tuple[Probe, Response]] = []
    for cell in inputs.cells:
        probe, response = probes.records[cell.cell_id], responses.records[cell.cell_id]
        ids, excluded = probe.cell_ids(), _excluded(response)
        if f"{cell.cell_id}/{EMBEDDING}" not in scores.records:
            if excluded:
                scores.append(Score(**ids, metric=EMBEDDING, value=None, excluded=excluded))
            else:
                embed.append((probe, response))
        one_seed = inputs.scenarios[cell.scenario_id].source == "qap"
        if own_qaps and one_seed and f"{cell.cell_id}/{match.METRIC}" not in scores.records:
            scores.append(match.qap_match(probe, response))
        if probe.gold_ids is not None and f"{cell.cell_id}/{RETRIEVAL}" not in scores.records:
            ranked = [c.id for c in response.contexts]
            values = retrieval_metrics(ranked, probe.gold_ids) if not excluded else {}
            reason = excluded or (None if probe.gold_ids else "no_gold")
            scores.append(Score(**ids, metric=RETRIEVAL, value=None, values=values, excluded=reason))
        if not one_seed or f"{cell.cell_id}/{ANSWER_SIMILARITY}" in scores.records:
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
    if embed:
        nli = NLIGroundedness(config.scoring.nli_model) if config.scoring.nli_model else None
        for score in embedding_scores(embed, embedder, config.scoring.coverage_threshold, nli):
            scores.append(score)


async def judge_responses(
    inputs: RunInputs,
    judge: Judge,
    probes: JsonlLog[Probe],
    responses: JsonlLog[Response],
    scores: JsonlLog[Score],
    concurrency: int,
    progress: Progress | None = None,
) -> None:
    """The LLM judgements of every answer (ASTRID triad, behaviour judges, safe-behaviour
    verdict) that are not recorded yet; a failed judgement is recorded as a judge error."""
    todo = [
        c
        for c in inputs.cells
        if any(f"{c.cell_id}/{m}" not in scores.records for m in judged_metrics(probes.records[c.cell_id]))
    ]
    advance = stage_progress(progress, "judge answers", len(inputs.cells), len(inputs.cells) - len(todo))
    # a few probes at a time, so each finishes (and is written) before the next starts
    semaphore = asyncio.Semaphore(concurrency)

    async def one(cell: Cell) -> None:
        probe, response = probes.records[cell.cell_id], responses.records[cell.cell_id]
        done = {
            m: scores.records[key]
            for m in judged_metrics(probe)
            if (key := f"{cell.cell_id}/{m}") in scores.records
        }
        safe_concept = inputs.scenarios[cell.scenario_id].safe_concept
        async with semaphore:
            judged = await judge_probe(judge, probe, response, safe_concept, done, _excluded(response))
        for score in judged:
            scores.append(score)
        advance()

    await gather_all([one(cell) for cell in todo])


def judge_summary(config: RunConfig, scores: list[Score], own: LLMClient | None) -> JudgeSummary | None:
    """The judge model, its prompts, its errors and the CF-undefined count of a run."""
    judged = [s for s in scores if s.metric in JUDGED]
    if not judged:
        return None
    return JudgeSummary(
        model=(config.judge or config.llm).model,
        prompts=sorted({p for s in judged if s.prompt for p in s.prompt.split()}),
        judged=len({s.cell_id for s in judged if not s.excluded or s.excluded == JUDGE_ERROR}),
        errors=dict(sorted(Counter(s.metric for s in judged if s.excluded == JUDGE_ERROR).items())),
        no_information=sum(1 for s in judged if s.metric == FAITHFULNESS and s.label == "no_information"),
        llm=own.usage if own is not None else None,
    )


def topic_strata(inputs: RunInputs, config: RunConfig) -> TopicStrata | None:
    """The topic clusters with the chunks sampled from each (over all chunk scenarios)."""
    if inputs.topics is None:
        return None
    drawn = {
        (c.scenario_id, c.seed_id) for c in inputs.cells if inputs.scenarios[c.scenario_id].source == "chunks"
    }
    return inputs.topics.strata([seed for _, seed in sorted(drawn)], config.topics.allocation)


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
    target = None
    judge_llm: LLMClient | None = None
    try:
        with progress if progress is not None else nullcontext():
            await generate_probes(store.run_id, config, inputs, llm, embedder, probes, progress)
            target = build_target(config.target, embedder, llm, name=config.name, use_cache=use_cache)
            await ask_target(target, inputs, probes, responses, config.llm.concurrency, progress)
            score_responses(config, inputs, embedder, probes, responses, scores)
            if config.scoring.judges:
                judge_llm = llm if config.judge is None else open_llm(config.judge, use_cache=use_cache)
                judge = Judge(
                    judge_llm,
                    model=judge_llm.config.model,
                    seed=config.seed,
                    max_tokens=config.scoring.judge_max_tokens,
                )
                await judge_responses(
                    inputs, judge, probes, responses, scores, judge_llm.config.concurrency, progress
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
    persona_ids = [p.id for p in inputs.personas]
    cell_scores = list(scores.records.values())
    accuracy = None
    if asks_own_qaps(config) and config.variants:
        variant_scores = [
            s for s in cell_scores if s.metric == match.METRIC and s.scenario_id == VARIANT_SCENARIO
        ]
        rows, total = accuracy_by_persona(variant_scores, persona_ids)
        accuracy = QAPAccuracy(personas=rows, total=total)
    cell_responses = [responses.records[c.cell_id] for c in inputs.cells]
    by_persona, by_scenario, by_pair = metric_means(
        [s for s in cell_scores if s.metric != match.METRIC],
        persona_ids,
        list(dict.fromkeys(inputs.scenarios)),
    )
    summary = RunSummary(
        run_id=store.run_id,
        target=config.name,
        target_kind=config.target.kind,
        planned_cells=len(inputs.cells),
        excluded=dict(Counter(reason for r in cell_responses if (reason := _excluded(r)))),
        accuracy=accuracy,
        metrics=by_persona,
        metrics_by_scenario=by_scenario,
        metrics_by_persona_scenario=by_pair,
        judge=judge_summary(config, cell_scores, judge_llm if judge_llm is not llm else None),
        fidelity=fidelity_summary(inputs.personas, [probes.records[c.cell_id] for c in inputs.cells]),
        scenarios=dict(Counter(c.scenario_id for c in inputs.cells)),
        topics=topic_strata(inputs, config),
        labels=labels_summary(store, persona_ids),
        personas=inputs.personas,
        scenario_briefs=[
            ScenarioBrief.model_validate(s.model_dump(include=set(ScenarioBrief.model_fields)))
            for s in inputs.scenarios.values()
        ],
        llm=llm.usage,
        duration_s=round(time.perf_counter() - started, 3),
    )
    store.write(SUMMARY_FILE, summary)
    return summary
