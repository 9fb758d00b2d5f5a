"""Plan: what a run's cells are made from (personas, seed QAPs and their gold ids, scenarios,
vignettes, the knowledge base's topics) and the cells themselves, checked before any work."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from simpop.config import load_conversation_cases, load_personas, load_qaps, load_scenarios, load_vignettes
from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judging.profile import profile_for
from simpop.judging.safety_classifier import read_classifier
from simpop.judging.verifier import read_verifier
from simpop.knowledge import load_chunks
from simpop.metrics import Case
from simpop.models import (
    QAP,
    Cell,
    Domain,
    KnowledgeBaseConfig,
    Persona,
    Probe,
    Response,
    RunConfig,
    Scenario,
    Vignette,
)
from simpop.models.conversation_case import ConversationCase
from simpop.population.cells import (
    NO_SEED,
    VARIANT_SCENARIO,
    PlannedScenario,
    builtin_ids,
    chunks_per_probe,
    conversation_cells,
    hcat_scenario,
    plan,
    scenario_seeds,
    scenario_vignettes,
    variant_scenario,
    vignette_id,
)
from simpop.population.conversation_patient import RenderedCase
from simpop.population.probes import ProbeSource
from simpop.population.scaffolds import check_scaffold_language
from simpop.population.strata import Topics, knowledge_topics
from simpop.run.language_checks import check_case_languages, check_languages
from simpop.run.real_arm import RealCell, plan_real
from simpop.run.seeds import asks_own_qaps, load_seeds
from simpop.verdicts import options


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
    own_seeds: bool = False
    equivalents: dict[str, list[str]] = field(default_factory=dict)  # a seed's equivalent QAPs
    real: list[RealCell] = field(default_factory=list)  # real patients' messages (issue 71)
    real_file: Path | None = None
    cases: dict[str, ConversationCase] = field(default_factory=dict)
    conversations: list[Cell] = field(default_factory=list)
    language: str = "en"  # the bot's, its QAPs' and knowledge base's

    @property
    def languages(self) -> list[str]:
        """The patients' languages, each once."""
        return sorted({p.language for p in self.personas})

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
        qaps = [self.qap_by_id[i] for i in cell.seed_id.split("+")]
        if len(qaps) == 1:
            qtype = qaps[0].metadata.get("qtype")
            return ProbeSource(
                [qaps[0].question],
                topic=qaps[0].topic,
                qtype=str(qtype) if qtype else None,
                language=self.language,
            )
        return ProbeSource([q.question for q in qaps], language=self.language)

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

    def case(self, probe: Probe, response: Response) -> Case:
        """A probe and its response as the metrics score them."""
        scenario = self.scenarios[probe.scenario_id]
        one_seed = scenario.source == "qap"
        return Case(
            probe=probe,
            response=response,
            source=scenario.source,
            safe_concept=scenario.safe_concept,
            reference=self.qap_by_id[probe.seed_id].answer if one_seed else None,
            own_seed=self.own_seeds,
            equivalent=tuple(self.equivalents.get(probe.seed_id, ())),
        )

    def topic(self, cell: Cell) -> str | None:
        if self.topics is None or self.scenarios[cell.scenario_id].source != "chunks":
            return None
        return self.topics.label(cell.seed_id.split("+")[0])


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


def load_run_cases(config: RunConfig) -> list[ConversationCase]:
    """The conversation cases asked for, each template checked by rendering it with the domain,
    and a bot that can be given a conversation's history."""
    if config.conversations == []:
        return []
    if not config.conversation_dir.is_dir():
        raise ConfigError(
            f"field 'conversation_dir': conversation case folder {config.conversation_dir} not found"
        )
    ids = None if config.conversations == "all" else config.conversations
    cases = load_conversation_cases(config.conversation_dir, ids, case_scenarios(config))
    for case in cases:  # a template error names its case, before any work
        try:
            RenderedCase.of(case, config.domain)
        except ConfigError:
            if config.domain is None:
                raise ConfigError(
                    f"field 'domain': conversation case '{case.id}' needs the bot's domain "
                    "(a few sentences of what the bot is for, in the target config)"
                ) from None
            raise
    problem = config.target.conversation_problem()
    if problem is not None:
        raise ConfigError(problem)
    return cases


def case_scenarios(config: RunConfig) -> set[str] | None:
    """The scenarios a conversation case may come from: the scenario folder's and the built-in
    ones; None (not checked) where there is no scenario folder to check against."""
    folder = config.scenario_dir
    if not folder.is_dir() or not any(folder.glob("*.y*ml")):
        return None
    return {s.id for s in load_scenarios(folder)} | builtin_ids()


def check_profile_files(config: RunConfig) -> None:
    """The judge profile's verifier and safety classifiers that a run judges with, read before
    any work: a corrupt one is an error naming the profile, not a crash mid-run."""
    if not config.scoring.judges:
        return
    profile = profile_for((config.judge or config.llm).model)
    field = "verifier"
    try:
        verifier = profile.verifier_path()
        if config.scoring.verifier is None and verifier is not None:
            read_verifier(verifier)
        for verdict, path in profile.safety_paths().items():
            field = f"safety.{verdict}"
            read_classifier(path, verdict)
    except ConfigError as error:
        raise ConfigError(f"judge profile '{profile.name}': field '{field}': {error}") from None


def topic_knowledge_base(config: RunConfig) -> KnowledgeBaseConfig:
    """The documents topic-stratified questions are written from."""
    if config.topics.knowledge_base is not None:
        return config.topics.knowledge_base
    if config.target.documents() is not None:
        return config.target.documents()
    raise ConfigError(
        f"field 'topics.knowledge_base': required for a {config.target.kind} target "
        "(the documents to write questions from)"
    )


def answers_from_chunks(config: RunConfig) -> bool:
    """The target's contexts can be the topic chunks: a RAG target over the same knowledge
    base, or the user's own bot (which may return the chunk ids)."""
    documents = config.target.documents()
    if documents is not None:
        return config.topics.knowledge_base in (None, documents)
    return config.target.user_bot


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


def plan_scenarios(
    config: RunConfig, scenarios: list[Scenario], seeds: list[QAP]
) -> tuple[list[PlannedScenario], dict[str, dict[str, Vignette]]]:
    """Each scenario with the seeds of its probes, and the vignettes of the vignette scenarios."""
    vignettes: dict[str, dict[str, Vignette]] = {}
    planned = []
    for scenario in [s for s in scenarios if s.source != "chunks"]:
        ids: list[str] = []
        if scenario.source == "vignettes" and scenario.vignettes is not None:
            every = load_vignettes(scenario.vignettes)
            ids = scenario_vignettes(scenario, every, config.domain)
            vignettes[scenario.id] = {vignette_id(i): v for i, v in enumerate(every) if vignette_id(i) in ids}
        pool = seeds if scenario.source == "multi_question" else seeds[: config.limit]
        planned.append(PlannedScenario(scenario, scenario_seeds(scenario, config.probes, pool, ids)))
    return planned, vignettes


def check_scoring_files(config: RunConfig) -> None:
    """The scoring section's model, verifier, classifier and profile files can be read."""
    if config.scoring.nli_model is not None and not config.scoring.nli_model.is_dir():
        raise ConfigError(f"field 'scoring.nli_model': no model folder at {config.scoring.nli_model}")
    if config.scoring.verifier is not None:
        try:
            read_verifier(config.scoring.verifier)
        except ConfigError as error:
            raise ConfigError(f"field 'scoring.verifier': {error}") from None
    for name, path in config.scoring.safety_classifiers.items():
        try:
            read_classifier(path, options()[name])
        except ConfigError as error:
            raise ConfigError(f"field 'scoring.safety_classifiers.{name}': {error}") from None
    check_profile_files(config)


def load_inputs(config: RunConfig) -> RunInputs:
    """Personas; as seeds, the first ``limit`` QAPs with a distinct question (``load_seeds``) and their gold
    ids; scenarios and vignettes; the knowledge base's topics and sampled chunks; the plan."""
    personas = load_personas(config.personas, config.persona_ids)
    check_languages(config, personas)
    if config.target.own_qaps() is not None:  # the bot's own QAP file, bad or not, before any work
        load_qaps(config.target.own_qaps())
    scenarios = load_run_scenarios(config)
    own = asks_own_qaps(config)  # reads the QAP files: once
    seeds, repeated, gold, equivalents = load_seeds(config, scenarios, own)
    planned, vignettes = plan_scenarios(config, scenarios, seeds)
    topics, by_topic = plan_topics(config, scenarios)
    planned += by_topic
    by_id = {s.scenario.id: s.scenario for s in planned}
    if config.variants:
        by_id[VARIANT_SCENARIO] = variant_scenario(config.population)
        if config.population == "real-shaped":
            for persona in personas:
                check_scaffold_language(persona)
    cells = plan(personas, seeds[: config.limit] if config.variants else [], config.variants, planned)
    cases = load_run_cases(config)
    talkers = personas[: config.limit]  # --limit: the first personas play each case
    check_case_languages(cases, talkers)
    conversations = conversation_cells(talkers, [c.id for c in cases], config.conversation_repeats)
    chunk_gold = answers_from_chunks(config)
    check_scoring_files(config)
    return RunInputs(
        personas=personas,
        qaps=seeds,
        scenarios=by_id,
        vignettes=vignettes,
        domain=config.domain,
        cells=cells,
        repeated=repeated,
        gold=gold,
        topics=topics,
        chunk_gold=chunk_gold,
        own_seeds=own,
        equivalents=equivalents,
        real=plan_real(config, own),
        real_file=config.real_patients,
        cases={c.id: c for c in cases},
        conversations=conversations,
        language=config.language,
    )


def pinned(config: RunConfig, inputs: RunInputs) -> RunConfig:
    """``config`` with its personas and scenarios named, so a resume plans the same cells even if
    files are added to their folders."""
    scenario_ids = [s for s in inputs.scenarios if s not in builtin_ids()]
    return config.model_copy(
        update={
            "persona_ids": [p.id for p in inputs.personas],
            "scenarios": scenario_ids,
            "conversations": list(inputs.cases),
        }
    )
