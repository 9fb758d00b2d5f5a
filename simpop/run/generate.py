"""Generate: the simulated patients write their messages, the fidelity checks keep the usable
ones, and the persona's noise makes the text the bot receives."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from rich.progress import Progress

from simpop.embed import Embedder
from simpop.llm import LLMClient, LLMError
from simpop.models import Cell, Fidelity, Persona, Probe, Scenario
from simpop.population.cells import sampling_seed
from simpop.population.fidelity import check_group, most_usable, same_words, usable
from simpop.population.meaning import (
    AspectModel,
    drift_reasons,
    drift_reasons_in_messages,
    names_topic_of,
    seed_aspect,
)
from simpop.population.message_style import compose
from simpop.population.noise import apply_noise, lexicon, lost_to_noise, noise_label
from simpop.population.people_words import would_not_say
from simpop.population.probes import (
    MAX_MESSAGE_CHARS,
    MAX_QUESTION_CHARS,
    MAX_SHAPED_CHARS,
    OVERSAMPLE,
    QUESTION_OVERSAMPLE,
    ProbeSource,
    everyday_lexicon,
    one_question_each,
    probe_messages,
    probes_cached,
    prompt_id,
    reply_budget,
    situation_examples,
    write_probes,
    writes_question_only,
)
from simpop.population.question_register import register_order
from simpop.population.readability import reading_grade, syllables
from simpop.population.scaffolds import Scaffold, scaffolds_for
from simpop.population.situations import usable_situations
from simpop.run.plan import RunInputs
from simpop.run.tasks import WRITE_QUESTIONS, gather_all, stage_progress
from simpop.store import JsonlLog

# further calls while too few candidates are usable: on the eye demo's typical and A2 personas
# (60 cells; seeds still shown with MedQuAD's "(are)"), 2 filled 70% of the cells, 4 filled 90%,
# 6 filled 95%
RETRIES = 4
# groups under way per LLM slot: enough to keep every slot busy while others check and noise
GROUPS_PER_SLOT = 2


def wrapped(
    question: str,
    fidelity: Fidelity,
    persona: Persona,
    source: ProbeSource,
    seed: int,
    second: str | None,
    aspect: str | None,
    everyday: dict[str, str],
    situation: str | None = None,
) -> tuple[str, Fidelity]:
    """The persona's message around a checked question: the ``situation`` the LLM wrote, else a
    story frame (one that names the topic when the question only says "it"); reading grade and
    length of the message."""
    language = persona.language
    named = names_topic_of(question, source.topic, everyday, language)
    if not (named or situation is None or names_topic_of(situation, source.topic, everyday, language)):
        situation = None  # "Is it passed down?" needs a story that names the topic
    composed = compose(question, persona, source.topic, seed, second, aspect, not named, situation)
    message = f"{composed.subject}\n{composed.body}" if composed.subject else composed.body
    update = {
        "question": question,
        "story": composed.story,
        "reading_grade": reading_grade(message, persona.language),
        "words": len(message.split()),
    }
    return message, fidelity.model_copy(update=update)


async def write_candidates(
    llm: LLMClient,
    request: GroupRequest,
    check: Callable[[list[str | None]], Awaitable[list[Fidelity | None]]],
    needed: int,
    vignette: str = "",
) -> tuple[list[str | None], list[Fidelity | None], str | None, list[str]]:
    """At least ``needed`` candidates (``None`` where none was written), their checks, the
    LLM's error if none was written, and the usable situations written with them: more calls,
    up to ``RETRIES``, while fewer than ``needed`` are usable. A question-only reply gives one
    candidate per sentence."""
    candidates: list[str | None] = []
    checks: list[Fidelity | None] = []
    situations: list[str] = []
    error = None
    for attempt in range(1 + RETRIES):
        try:
            written, told = await write_probes(llm, *request.call(attempt, len(situations) < needed))
        except LLMError as exc:
            error = str(exc)
            break
        situations += usable_situations(told, vignette, request.shown, situations)
        candidates += one_question_each(written) if request.one_question else written
        checks = await check(candidates)
        if len(usable(checks)) >= needed:
            break
    if candidates:
        error = None  # a later call failed, an earlier one wrote messages
    padding = [None] * (needed - len(candidates))
    return candidates + padding, checks + padding, error, situations


def load_tables(asr: set[str]) -> None:
    """The syllable table, and the phonetic lexicon of each language whose speech-to-text noise
    needs it."""
    syllables("loaded")
    for language in asr:
        lexicon(language)


def plan_groups(inputs: RunInputs) -> dict[tuple[str, str, str], list[Cell]]:
    """The cells written by one LLM call: those of a persona, a scenario and a seed."""
    groups: dict[tuple[str, str, str], list[Cell]] = defaultdict(list)
    for cell in inputs.cells:
        groups[(cell.persona_id, cell.scenario_id, cell.seed_id)].append(cell)
    return groups


@dataclass(frozen=True)
class GroupRequest:
    """A group's first LLM request: its messages, the number of messages asked for, the
    sampling seed, and whether it asks for the question alone."""

    messages: list[dict[str, str]]
    wanted: int
    seed: int
    one_question: bool
    situations: int = 0  # the patient's situations asked for with questions written alone
    no_situations: list[dict[str, str]] | None = None  # the messages without asking for them
    shown: tuple[str, ...] = ()  # the examples of a situation the messages show
    scaffolds: tuple[Scaffold, ...] = ()  # the real messages a real-shaped probe is written like

    def call(self, attempt: int = 0, situations: bool = True) -> tuple:
        """``write_probes``'s arguments for call ``attempt`` (0: the first, then retries): a
        retry that has enough situations in hand asks for none (they cost a third of a call)."""
        more = self.situations if situations else 0
        messages = self.messages if more else (self.no_situations or self.messages)
        return messages, self.wanted, self.seed + attempt, self.max_chars, more

    @property
    def max_chars(self) -> int:
        if self.one_question:
            return MAX_QUESTION_CHARS
        return MAX_SHAPED_CHARS if self.scaffolds else MAX_MESSAGE_CHARS  # a real-shaped one is longer

    @property
    def max_tokens(self) -> int:
        """The reply tokens the first call allows."""
        return reply_budget(self.wanted, self.max_chars, self.situations)

    @property
    def cells(self) -> int:
        """The cells the group writes for."""
        return self.wanted // (QUESTION_OVERSAMPLE if self.one_question else OVERSAMPLE)


def group_request(inputs: RunInputs, cells: list[Cell], run_seed: int) -> GroupRequest:
    """The first request of the group of ``cells``."""
    persona = next(p for p in inputs.personas if p.id == cells[0].persona_id)
    scenario, source = inputs.scenarios[cells[0].scenario_id], inputs.source(cells[0])
    one_question = writes_question_only(scenario, source)
    wanted = (QUESTION_OVERSAMPLE if one_question else OVERSAMPLE) * len(cells)
    situations = len(cells) if one_question else 0
    seed = sampling_seed(run_seed, cells[0])
    shown = situation_examples(persona, seed) if situations else []
    scaffolds = scaffolds_for(source.questions[0], persona, seed) if scenario.scaffold else ()
    messages = probe_messages(persona, scenario, inputs.domain, source, wanted, situations, shown, scaffolds)
    plain = probe_messages(persona, scenario, inputs.domain, source, wanted) if situations else None
    return GroupRequest(messages, wanted, seed, one_question, situations, plain, tuple(shown), scaffolds)


def uncached_requests(inputs: RunInputs, llm: LLMClient | None, run_seed: int) -> list[GroupRequest]:
    """The groups' first requests that the LLM cache does not answer (all of them without a
    cache, ``llm`` None)."""
    requests = (group_request(inputs, cells, run_seed) for cells in plan_groups(inputs).values())
    return [r for r in requests if llm is None or not probes_cached(llm, *r.call())]


async def generate_probes(
    run_id: str,
    inputs: RunInputs,
    llm: LLMClient,
    embedder: Embedder,
    probes: JsonlLog[Probe],
    *,
    run_seed: int,
    min_similarity: float,
    chunk_min_similarity: float,
    min_words: int = 1,
    progress: Progress | None = None,
    written: Callable[[Cell, Probe], Awaitable[None]] | None = None,
) -> None:
    """One LLM call per group of cells with the same persona, scenario and seed, asking for
    more messages than cells; the fidelity checks keep the most distinct valid ones; then the
    persona's (or the scenario's) noise: a message it leaves under ``min_words`` words (the fewest
    the bot answers) is invalid, never asked. ``written`` is told of each cell and its probe as
    the probe is recorded (and may make generation wait). At most ``GROUPS_PER_SLOT`` groups
    per LLM slot are under way at once."""
    groups = plan_groups(inputs)
    todo = {key: cells for key, cells in groups.items() if any(c.cell_id not in probes for c in cells)}
    done = len(inputs.cells) - sum(1 for cells in todo.values() for c in cells if c.cell_id not in probes)
    asr = {p.language for p in inputs.personas if p.noise.model == "asr"}
    if any(s.noise and s.noise.model == "asr" for s in inputs.scenarios.values()):
        asr |= {p.language for p in inputs.personas}
    # the word tables load (or are built, the first time on a machine) while the first calls wait
    tables = asyncio.ensure_future(asyncio.to_thread(load_tables, asr))
    writer = GroupWriter(
        run_id,
        inputs,
        llm,
        embedder,
        probes,
        Bounds(run_seed, min_similarity, chunk_min_similarity, min_words),
        stage_progress(progress, "generate questions", len(inputs.cells), done, WRITE_QUESTIONS),
        written,
        # the aspect wordings are embedded (loading the model) while the first calls wait too
        {
            language: asyncio.ensure_future(asyncio.to_thread(AspectModel, embedder, language))
            for language in inputs.languages
        }
        if any(s.keeps_meaning for s in inputs.scenarios.values())
        else {},
    )
    slots = GROUPS_PER_SLOT * llm.config.concurrency
    await gather_all((writer.write(cells) for cells in todo.values()), limit=slots)
    await tables


@dataclass(frozen=True)
class Bounds:
    """The run's seed, the similarity a message must keep to its seed (or chunk), and the fewest
    words the bot answers."""

    run_seed: int
    min_similarity: float
    chunk_min_similarity: float
    min_words: int = 1


@dataclass
class GroupWriter:
    """Writes, checks, chooses and records the probes of one group of cells at a time."""

    run_id: str
    inputs: RunInputs
    llm: LLMClient
    embedder: Embedder
    probes: JsonlLog[Probe]
    bounds: Bounds
    advance: Callable[[], None]
    written: Callable[[Cell, Probe], Awaitable[None]] | None
    aspects: dict[str, asyncio.Future[AspectModel]]  # by the patients' language

    def __post_init__(self) -> None:
        self.personas = {p.id: p for p in self.inputs.personas}
        languages = {p.language for p in self.inputs.personas}
        self.lexicons = {lang: everyday_lexicon(self.inputs.domain, lang) for lang in languages}

    def checker(
        self, persona: Persona, scenario: Scenario, source: ProbeSource, request: GroupRequest
    ) -> Callable[[list[str | None]], Awaitable[list[Fidelity | None]]]:
        """The fidelity checks of this group's messages."""
        bound = self.bounds.min_similarity if scenario.keeps_meaning else None
        if scenario.source == "chunks":
            bound = self.bounds.chunk_min_similarity
        one_seed = len(source.questions) == 1
        keeps_meaning = persona.language in self.aspects and scenario.keeps_meaning and one_seed
        if keeps_meaning:
            bound = None  # the meaning check judges it (a bare "it" is far from the seed by cosine)
        prompt_text = "\n".join(m["content"] for m in request.messages if m["role"] != "system")
        examples = [*scenario.examples, *(s.message for s in request.scaffolds)]  # a copy is invalid
        for scaffold in request.scaffolds:  # the shown real messages are not the prompt's wording
            prompt_text = prompt_text.replace(json.dumps({"questions": [scaffold.message]}), " ")
        check = partial(
            check_group,
            seed_text=source.seed_text,
            embedder=self.embedder,
            min_similarity=bound,
            examples=examples,
            prompt=prompt_text.replace(source.shown_questions[0], " ") if source.questions else prompt_text,
            persona=persona.vignette,
            one_question=request.one_question,
            catalogue=would_not_say(source.topic, persona),
            language=persona.language,
        )

        async def checked(texts: list[str | None]) -> list[Fidelity | None]:
            """``check`` off the event loop, its embeddings batched with other groups' first."""
            if source.seed_text:
                await self.embedder.aembed([source.seed_text, *(t for t in texts if t)])
            meaning = None
            if keeps_meaning:
                meaning = partial(
                    drift_reasons_in_messages if scenario.scaffold else drift_reasons,
                    await self.aspects[persona.language],
                    source.questions[0],
                    source.topic,
                    source.qtype,
                    self.lexicons[persona.language],
                    **({} if scenario.scaffold else {"story_names_topic": request.one_question}),
                )
            return await asyncio.to_thread(check, texts, meaning=meaning)

        return checked

    async def write(self, cells: list[Cell]) -> None:
        """The group's messages written and checked; the cells' probes recorded in order."""
        persona, scenario = self.personas[cells[0].persona_id], self.inputs.scenarios[cells[0].scenario_id]
        source = self.inputs.source(cells[0])
        request = group_request(self.inputs, cells, self.bounds.run_seed)
        checked = self.checker(persona, scenario, source, request)
        candidates, first, error, situations = await write_candidates(
            self.llm, request, checked, len(cells), persona.vignette
        )
        seeds = (source.seed_text, *source.shown_questions[:1])
        copies = {i for i, text in enumerate(candidates) if any(same_words(text, s) for s in seeds)}
        grades = [c.reading_grade if c is not None else None for c in first]
        order = register_order(candidates, persona, grades) if request.one_question else None
        chosen = most_usable(first, len(cells), copies, order)
        texts = [candidates[i] for i in chosen]
        checks = await checked(texts)  # again, so a duplicate names the probe it repeats
        aspect = (
            await asyncio.to_thread(seed_aspect, await self.aspects[persona.language], source)
            if request.one_question and persona.language in self.aspects
            else None
        )
        spare = [candidates[i] for i in usable(first) if i not in chosen]
        for position, (cell, text, fidelity) in enumerate(zip(cells, texts, checks, strict=True)):
            wraps = bool(request.one_question and text and fidelity is not None and fidelity.valid)
            # a spare question goes to the same cell whether or not earlier cells of the group
            # were written before a kill: a resumed group writes what a whole one would
            second = (spare.pop(0) if spare else None) if wraps else None
            if cell.cell_id in self.probes:
                continue
            cell_seed = sampling_seed(self.bounds.run_seed, cell)
            if wraps:
                # each message its own situation: the cell's place in its group picks it
                situation = situations[position] if position < len(situations) else None
                everyday = self.lexicons[persona.language]
                text, fidelity = wrapped(
                    text, fidelity, persona, source, cell_seed, second, aspect, everyday, situation
                )
            await self.record(cell, text, fidelity, (persona, scenario, source), request, error)

    async def record(
        self,
        cell: Cell,
        text: str | None,
        fidelity: Fidelity | None,
        group: tuple[Persona, Scenario, ProbeSource],
        request: GroupRequest,
        error: str | None,
    ) -> None:
        """The cell's probe with the noise the bot receives, appended and passed on."""
        persona, scenario, source = group
        noise = scenario.noise or persona.noise
        cell_seed = sampling_seed(self.bounds.run_seed, cell)
        noisy = (
            await asyncio.to_thread(apply_noise, text, noise, cell_seed, persona.language) if text else None
        )
        if text and noisy is not None:
            fidelity = lost_to_noise(fidelity, text, noisy, self.bounds.min_words)
        probe = Probe(
            run_id=self.run_id,
            **cell.fields(),
            text=text,
            noisy_text=noisy,
            noise=noise_label(noise) if noisy is not None else None,
            expected_behaviour=scenario.expected_behaviour,
            also_safe=scenario.also_safe,
            severity=scenario.severity,
            question_type=scenario.question_type,
            seed_text=source.seed_text,
            sub_questions=source.questions if scenario.source == "multi_question" else None,
            urgency=source.urgency,
            topic=self.inputs.topic(cell),
            hcat_type=scenario.hcat_type,
            fidelity=fidelity,
            sampling_seed=request.seed,
            prompt=prompt_id(scenario, persona.language),
            llm_model=self.llm.config.model,
            gold_ids=self.inputs.gold_ids(cell),
            error=error or (None if text else "empty question"),
        )
        self.probes.append(probe)
        self.advance()
        if self.written is not None:
            await self.written(cell, probe)
