"""Records: every file simpop reads or writes is one of these pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
QWEN_1_5B = "qwen2.5-coder-1.5b-instruct-q4_k_m"
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class Record(BaseModel):
    """Base of every record: unknown fields are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


# --- inputs -------------------------------------------------------------------------------


class NoiseConfig(Record):
    """How a persona's questions are corrupted before they reach the bot: ``asr`` (speech to
    text), ``typos`` (keyboard) or ``none``. ``rate`` null means the model's default."""

    model: Literal["none", "asr", "typos"] = "none"
    rate: float | None = Field(None, ge=0.0, le=1.0)


class Persona(Record):
    """A kind of patient: the vignette makes the LLM speak as them."""

    id: str = Field(pattern=ID_PATTERN)
    name: str
    vignette: str = Field(min_length=1)
    health_literacy: Literal["low", "medium", "high"]
    language_level: Literal["A1", "A2", "B1", "B2", "C1", "C2", "native"]
    language: str = Field("en", pattern=r"^[a-z]{2,3}$")
    noise: NoiseConfig = NoiseConfig()
    tags: list[str] = []
    description: str | None = None

    @field_validator("noise", mode="before")
    @classmethod
    def _noise_shorthand(cls, value: Any) -> Any:
        return {"model": value} if isinstance(value, str) else value


Behaviour = Literal["answer", "decline", "escalate", "clarify", "address_all"]
Urgency = Literal["em", "ne", "sc"]
HCATType = Literal["factual", "multi_hop", "inference", "yes_no"]


class Domain(Record):
    """What the bot under test is for: scenario generation reads it to tell in-scope from
    out-of-scope, and which emergencies belong to the bot's care pathway."""

    description: str = Field(min_length=1, description="the bot's purpose and audience, in a few sentences")
    in_scope: list[str] = Field([], description="topics the bot answers")
    out_of_scope: list[str] = Field([], description="clinical topics it must not answer")
    emergencies: list[str] = Field([], description="urgent situations within its care pathway")
    administrative: list[str] = Field([], description="practical questions it can answer")
    not_administrative: list[str] = Field([], description="practical requests it cannot handle")
    keywords: list[str] = Field([], description="words that put a diagnosis within the domain")


class Scenario(Record):
    """An operating context of the SACE hazard analysis (ASTRID, Figure 10): what patients
    bring, what could go wrong, and what the safe bot does."""

    id: str = Field(pattern=ID_PATTERN)
    name: str
    question_type: Literal["clinical", "administrative", "emergency", "non_clinical", "mixed"]
    operating_context: str = Field(min_length=1)
    description: str = Field(min_length=1)
    hazard: str = Field(min_length=1, description="the hazardous behaviour to catch")
    safe_concept: str = Field(min_length=1, description="the safe operating concept")
    expected_behaviour: Behaviour
    also_safe: list[Behaviour] = Field([], description="other behaviours that are safe here")
    severity: Literal["low", "medium", "high", "critical"]
    source: Literal["generate", "qap", "vignettes", "multi_question", "chunks"] = Field(
        "generate",
        description="what a probe is written from: nothing but the domain, a seed QAP, a triage "
        "vignette, 2-3 seed QAPs, or knowledge-base chunks sampled by topic",
    )
    prompt: str = Field(min_length=1, description="Jinja template of the situation, in the patient's words")
    examples: list[str] = Field(min_length=1)
    keeps_meaning: bool = Field(False, description="a probe must mean what its seed question means")
    noise: NoiseConfig | None = Field(None, description="noise applied whatever the persona's")
    vignettes: Path | None = None
    urgency: list[Urgency] = Field([], description="the vignette urgency levels to use")
    combine: list[int] = Field([2, 3], description="questions per multi-question probe, in turn")
    hcat_type: HCATType | None = Field(None, description="HCAT question type of a chunks scenario")

    @model_validator(mode="after")
    def _source_inputs(self) -> Scenario:
        if self.source == "vignettes" and (self.vignettes is None or not self.urgency):
            raise ValueError("a vignettes scenario needs 'vignettes' and 'urgency'")
        if (self.source == "chunks") != (self.hcat_type is not None):
            raise ValueError("'hcat_type' is set exactly for a chunks scenario")
        if any(n < 2 for n in self.combine):
            raise ValueError("combine: a multi-question probe combines at least 2 questions")
        return self


class Vignette(Record):
    """A clinical case with its urgency (Semigran et al. triage vignettes)."""

    urgency_level: Urgency
    correct_diagnosis: str
    case_description: str


class QAP(Record):
    """A predefined question-answer pair of the bot under test."""

    id: str
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    topic: str | None = None
    doc_id: str | None = None
    url: str | None = None
    metadata: dict[str, Any] = {}


class Document(Record):
    """One document of a knowledge base."""

    id: str = Field(min_length=1)
    title: str
    text: str
    metadata: dict[str, Any] = {}


class Chunk(Record):
    """A retrievable piece of a document; its id is ``<doc-id>#<n>``."""

    id: str
    doc_id: str
    title: str
    text: str


class LLMConfig(Record):
    """Where LLM calls go. ``base_url: null`` means the embedded local llama.cpp server."""

    base_url: str | None = None
    model: str = DEFAULT_LOCAL_MODEL
    api_key_env: str = "SIMPOP_LLM_API_KEY"
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    max_tokens: int = Field(512, gt=0)
    concurrency: int = Field(4, gt=0)
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(4, ge=0)
    retry_backoff: float = Field(0.5, ge=0)
    validation_retries: int = Field(2, ge=0)
    context_per_slot: int = Field(2048, gt=0)
    threads: int | None = Field(None, gt=0)


class EmbeddingConfig(Record):
    """The sentence-transformers model: the built-in name or a local model directory."""

    model: str = DEFAULT_EMBEDDING_MODEL
    batch_size: int = Field(64, gt=0)


class ChromaServer(Record):
    """A running Chroma server (``chroma run``) that holds a shared index."""

    host: str = "127.0.0.1"
    port: int = Field(8000, gt=0, lt=65536)


class KnowledgeBaseConfig(Record):
    """Documents a RAG bot answers from, and how they are split into chunks."""

    path: Path
    chunk_size: int = Field(800, ge=50, description="most characters in a chunk")
    chunk_overlap: int = Field(100, ge=0, description="characters repeated from the previous chunk")
    id_field: str = "id"
    text_field: str = "text"
    title_field: str = "title"
    chroma: ChromaServer | None = None

    @model_validator(mode="after")
    def _overlap_below_size(self) -> KnowledgeBaseConfig:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("chunk_overlap must be smaller than chunk_size")
        return self


class RetrievalConfig(Record):
    """``top_k``: the k most similar chunks; ``threshold``: every chunk at least that similar."""

    mode: Literal["top_k", "threshold"] = "top_k"
    k: int = Field(4, gt=0)
    threshold: float | None = Field(None, ge=-1.0, le=1.0)
    max_chunks: int | None = Field(None, gt=0, description="cap in threshold mode")

    @model_validator(mode="after")
    def _threshold_given(self) -> RetrievalConfig:
        if self.mode == "threshold" and self.threshold is None:
            raise ValueError("threshold mode needs a threshold")
        return self


class QAPTargetConfig(Record):
    """The predefined-QAP matcher of Reichenpfader et al."""

    kind: Literal["qap"]
    qaps: Path
    threshold: float = Field(0.5, ge=-1.0, le=1.0)
    min_words: int = Field(3, ge=0)
    top_k: int = Field(3, gt=0)


class GeneratingTargetConfig(Record):
    """What every bot that writes its answer with our LLM has: prompt, format, sampling."""

    system_prompt: str | None = Field(None, description="the bot's system prompt (default: a template)")
    answer_format: Literal["free", "yes_no"] = "free"
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(300, gt=0)
    llm: LLMConfig | None = Field(None, description="the bot's LLM (default: the run's llm section)")


class LLMOnlyTargetConfig(GeneratingTargetConfig):
    """The LLM answers from what it knows: the no-retrieval baseline."""

    kind: Literal["llm_only"]


class RAGTargetConfig(GeneratingTargetConfig):
    """Retrieve chunks (with the question, or with a HyDE passage) and answer from them."""

    kind: Literal["naive_rag", "hyde_rag"]
    knowledge_base: KnowledgeBaseConfig
    retrieval: RetrievalConfig = RetrievalConfig()
    passage_max_tokens: int = Field(200, gt=0, description="length of HyDE's hypothetical passage")


class RemoteTargetConfig(Record):
    """Per-call limits of a bot we reach over the network or call in-process."""

    timeout: float = Field(60.0, gt=0, description="seconds per call")
    retries: int = Field(2, ge=0, description="extra tries after a failed call")


class OpenAIChatTargetConfig(RemoteTargetConfig):
    """A bot served behind an OpenAI-compatible chat-completions endpoint."""

    kind: Literal["openai_chat"]
    base_url: str
    model: str
    system_prompt: str | None = None
    headers: dict[str, str] = {}
    api_key_env: str | None = Field(None, description="environment variable holding the key")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, gt=0)


class ContextPaths(Record):
    """Where a context's fields are inside each item of the reply's context list."""

    id: str | None = "id"
    text: str | None = "text"
    score: str | None = "score"


class HTTPTargetConfig(RemoteTargetConfig):
    """Any bot with a JSON HTTP API: a request template in, JSON paths to the fields out."""

    kind: Literal["http"]
    url: str
    method: Literal["GET", "POST", "PUT"] = "POST"
    headers: dict[str, str] = {}
    body: Any = Field(
        default_factory=lambda: {"question": "{{ question }}"},
        description="JSON body; '{{ question }}' in any string is replaced by the question",
    )
    answer_path: str = "answer"
    contexts_path: str | None = None
    context_fields: ContextPaths = ContextPaths()
    matched_id_path: str | None = None


class PythonTargetConfig(RemoteTargetConfig):
    """A Python function ``module:function`` taking the question, returning a dict or a string."""

    kind: Literal["python"]
    function: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    path: Path | None = Field(None, description="folder to import the module from")


TargetConfig = Annotated[
    QAPTargetConfig
    | LLMOnlyTargetConfig
    | RAGTargetConfig
    | OpenAIChatTargetConfig
    | HTTPTargetConfig
    | PythonTargetConfig,
    Field(discriminator="kind"),
]
TARGET_KINDS = {"qap", "llm_only", "naive_rag", "hyde_rag", "openai_chat", "http", "python"}


class ScoringConfig(Record):
    """How answers are scored beyond the judge-free metrics."""

    judges: bool = Field(True, description="run the LLM judges (ASTRID triad, safe behaviour)")
    judge_max_tokens: int = Field(1024, gt=0, description="longest judge reply")
    coverage_threshold: float = Field(
        0.5, ge=-1.0, le=1.0, description="similarity at which a context sentence counts as covered"
    )
    nli_model: Path | None = Field(
        None, description="folder of a local NLI cross-encoder for groundedness (optional)"
    )


class TopicConfig(Record):
    """Topic-stratified questions from the knowledge base (HCAT, section 2): chunks are embedded,
    reduced (PCA), clustered (KMeans, k by silhouette) and sampled per cluster; the persona writes
    questions of the HCAT types from each sampled chunk, so its gold chunks are known."""

    questions: int = Field(0, ge=0, le=500, description="chunks sampled per question type (0: none)")
    types: list[HCATType] = Field(
        ["factual", "multi_hop", "inference", "yes_no"], min_length=1, description="HCAT question types"
    )
    allocation: Literal["proportional", "equal"] = Field(
        "proportional", description="chunks per cluster: by cluster size, or the same for each"
    )
    components: int = Field(16, ge=1, description="PCA dimensions kept before clustering")
    max_clusters: int = Field(10, ge=2, description="the largest number of clusters tried")
    min_words: int = Field(40, ge=0, description="shorter chunks (a title, a heading) are not sampled")
    min_similarity: float = Field(
        0.3, ge=-1.0, le=1.0, description="a question less similar to its chunk(s) is about something else"
    )
    knowledge_base: KnowledgeBaseConfig | None = Field(
        None, description="the documents to sample (default: the target's knowledge base)"
    )


class RunConfig(Record):
    """Everything a run needs, as resolved from the config file and the command line."""

    name: str = Field(pattern=ID_PATTERN)
    description: str | None = None
    target: TargetConfig
    seeds: Path | None = Field(None, description="QAPs the patients rephrase (default: a qap target's)")
    personas: Path = Path("personas")
    persona_ids: list[str] | None = None
    domain: Domain | None = Field(None, description="the bot's domain and scope (or a YAML file of it)")
    scenario_dir: Path = Path("scenarios")
    scenarios: list[str] | Literal["all"] = Field("all", description="scenario ids to probe; [] for none")
    probes: int = Field(3, gt=0, le=50, description="probes per scenario and persona")
    min_similarity: float = Field(
        0.6, ge=-1.0, le=1.0, description="a rephrased question less similar to its seed is invalid"
    )
    variants: int = Field(5, ge=0, le=50)
    topics: TopicConfig = TopicConfig()
    limit: int | None = Field(None, gt=0)
    seed: int = 0
    llm: LLMConfig = LLMConfig()
    judge: LLMConfig | None = Field(
        None, description="the judges' LLM (default: the llm section); temperature 0"
    )
    scoring: ScoringConfig = ScoringConfig()
    embedding: EmbeddingConfig = EmbeddingConfig()


# --- outputs ------------------------------------------------------------------------------


class Cell(Record):
    """One planned unit of work: a persona asking one probe of a scenario (or one variant of
    a seed QAP), the ``variant``-th of its kind."""

    cell_id: str
    persona_id: str
    scenario_id: str
    seed_id: str
    variant: int


class CellRecord(Record):
    """Fields every probe, response and score carries, so each traces back to its cell."""

    run_id: str
    cell_id: str
    persona_id: str
    scenario_id: str
    seed_id: str
    variant: int

    def cell_ids(self) -> dict[str, Any]:
        """The identifying fields, to carry over to the next stage's record."""
        return self.model_dump(include=set(CellRecord.model_fields))


class Fidelity(Record):
    """Is this simulated question believable? (simpop's own check before blaming a bot)"""

    reading_grade: float | None = Field(description="Flesch-Kincaid grade level")
    words: int
    seed_similarity: float | None = Field(None, description="embedding cosine to the seed question")
    duplicate_of: int | None = Field(None, description="the earlier probe of its group it repeats")
    valid: bool = True
    reason: str | None = None


class Probe(CellRecord):
    """A question as a simulated patient writes it (clean) and as the bot receives it (noisy)."""

    text: str | None
    noisy_text: str | None = None
    noise: str | None = Field(None, description="the noise model applied, e.g. 'asr@0.369'")
    expected_behaviour: Behaviour
    also_safe: list[Behaviour] = []
    severity: str | None = None
    question_type: str | None = None
    seed_text: str | None = Field(None, description="the seed question(s) or vignette it was written from")
    sub_questions: list[str] | None = Field(None, description="the questions a multi-question probe asks")
    urgency: Urgency | None = Field(None, description="the triage vignette's urgency")
    topic: str | None = Field(None, description="the knowledge-base topic cluster")
    hcat_type: HCATType | None = Field(None, description="HCAT question type")
    fidelity: Fidelity | None = None
    sampling_seed: int
    prompt: str
    llm_model: str
    gold_ids: list[str] | None = Field(None, description="ids of the contexts that answer it")
    error: str | None = None

    @property
    def duplicate_of(self) -> int | None:
        return self.fidelity.duplicate_of if self.fidelity else None

    @property
    def asked_text(self) -> str | None:
        return self.text if self.noisy_text is None else self.noisy_text


class Context(Record):
    """A piece of knowledge the bot answered from: a QAP or a retrieved chunk."""

    id: str
    text: str
    score: float | None = None


class Answer(Record):
    """What a target adapter returns for one question."""

    text: str | None
    matched_id: str | None = None
    similarity: float | None = None
    contexts: list[Context] = []
    no_answer_reason: str | None = None
    hypothetical_passage: str | None = None


class Response(CellRecord):
    """The bot's reply to one probe, or why there is none."""

    target: str
    question: str | None
    answer: str | None = None
    matched_id: str | None = None
    similarity: float | None = None
    contexts: list[Context] = []
    no_answer_reason: str | None = None
    hypothetical_passage: str | None = None
    prompt: str | None = None
    latency_s: float | None = None
    skipped: str | None = None
    error: str | None = None


class Judgement(Record):
    """One part of an answer or question that was judged: an answer sentence (its kind and
    whether the context supports it, or its best similarity to a context sentence) or a
    sub-question (whether the answer addresses it)."""

    text: str
    kind: str | None = Field(None, description="acknowledgement | question | information | sub_question")
    verdict: bool | None = Field(None, description="supported (sentences) or addressed (sub-questions)")
    reason: str | None = None
    similarity: float | None = Field(None, description="best cosine to a context sentence")


class Score(CellRecord):
    """One metric's verdict on one response. ``excluded`` says why a cell is not counted."""

    metric: str
    value: float | None
    label: str | None = None
    values: dict[str, float | None] = {}
    excluded: str | None = None
    reason: str | None = Field(None, description="why: the judge's reason, or why the value is null")
    details: list[Judgement] = Field([], description="per sentence or sub-question")
    prompt: str | None = Field(None, description="the judge prompt(s) and their versions")
    judge_model: str | None = None
    error: str | None = Field(None, description="the judge error, when excluded is 'judge_error'")


class LLMUsage(Record):
    """What the LLM layer did during a run."""

    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    failures: int = 0


class GroupAccuracy(Record):
    """QAP-match accuracy of one group of probes (Reichenpfader eq. 1) with a Wilson interval."""

    group: str
    n: int
    correct: int
    wrong: int
    no_answer: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None


class QAPAccuracy(Record):
    """QAP-match accuracy per persona and in total."""

    personas: list[GroupAccuracy]
    total: GroupAccuracy


class GroupMean(Record):
    """The mean of one metric over a group of probes, with a 95% interval.

    ``metric`` is ``family`` or ``family.value`` (e.g. ``retrieval.recall``).
    """

    group: str
    metric: str
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    interval: Literal["wilson", "bootstrap"] | None = Field(
        None, description="Wilson for rates (0/1 values), percentile bootstrap for other means"
    )
    persona_id: str | None = None
    scenario_id: str | None = None


class PersonaFidelity(Record):
    """How believable one persona's simulated questions are.

    ``valid_share``: usable questions (generated, meaning kept, not a near-duplicate) over
    planned probes; ``distinct_ratio``: distinct questions over generated ones, across all of
    the persona's probes.
    """

    persona_id: str
    health_literacy: str
    planned: int
    generated: int
    valid_share: float | None
    duplicate_share: float | None
    invalid: int = Field(description="questions that drifted in meaning or are not a patient's")
    distinct_ratio: float | None
    mean_reading_grade: float | None
    mean_words: float | None
    mean_seed_similarity: float | None
    noisy: int
    noisy_wer: float | None = Field(None, description="word error rate of noisy against clean text")


class FidelitySummary(Record):
    """The persona fidelity section of a run summary, with its warnings."""

    personas: list[PersonaFidelity]
    reading_grade_by_literacy: dict[str, float | None]
    warnings: list[str]


class TopicCluster(Record):
    """One topic cluster of the knowledge base: named after its most common document title."""

    cluster: int
    name: str
    chunks: int = Field(description="chunks long enough to sample")
    sampled: int


class TopicStrata(Record):
    """How the knowledge base was stratified into topics (HCAT, section 2)."""

    chunks: int
    components: int = Field(description="PCA dimensions clustered")
    clusters: list[TopicCluster]
    silhouette: dict[int, float] = Field(description="mean silhouette per number of clusters tried")
    allocation: str


HumanVerdict = Literal["correct", "partially_correct", "incorrect"]


# ASTRID §4.2.2's clinician questions, lowest level first.
RATING_LEVELS: dict[str, tuple[str, ...]] = {
    "harm": ("none", "mild_moderate", "severe"),
    "helpful": ("no", "yes"),
    "inappropriate": ("no", "little", "great"),
}


class HumanLabel(CellRecord):
    """A clinician's verdict on one answer (Reichenpfader et al.'s semi-automated evaluation)
    and ratings of its harm, helpfulness and inappropriateness (ASTRID §4.2.2)."""

    label: HumanVerdict | None = None
    ratings: dict[str, str] = Field({}, description="rating name (harm, helpful, inappropriate) → level")
    comment: str | None = None
    labeller: str | None = None


class LabelRow(Record):
    """One row of Reichenpfader et al.'s Table 2: a persona's answers as clinicians judged them."""

    group: str
    questions: int = Field(description="probes asked")
    labelled: int
    correct: int
    partially_correct: int
    incorrect: int
    no_answer: int = Field(description="labelled probes the bot gave no answer to")
    correct_share: float | None = Field(description="correct over labelled")
    partially_correct_share: float | None
    incorrect_share: float | None


class LabelTable(Record):
    """Human labels per persona and in total."""

    personas: list[LabelRow]
    total: LabelRow


class JudgeSummary(Record):
    """Who judged the answers and how often a judgement failed or was undefined."""

    model: str
    prompts: list[str] = Field(description="judge prompts used, as name@version")
    judged: int = Field(description="probes with judged scores")
    errors: dict[str, int] = Field(description="judge errors per metric (the judge's reply never validated)")
    no_information: int = Field(description="answers with no informative sentence: CF is null, counted apart")
    llm: LLMUsage | None = Field(None, description="the judge's own LLM use, when it is not the run's llm")


class ScenarioBrief(Record):
    """A scenario as a report names it: its hazard and what the safe bot does."""

    id: str
    name: str
    question_type: str
    hazard: str
    safe_concept: str
    expected_behaviour: Behaviour
    also_safe: list[Behaviour] = []
    severity: str


SUMMARY_SCHEMA_VERSION = "1"


CalibrationMethod = Literal["platt", "isotonic", "ordinal"]
CALIBRATION_METHODS: tuple[str, ...] = get_args(CalibrationMethod)


class PredictedGroup(Record):
    """The predicted label shares of a group of probes: mean calibrated probabilities, or the
    share a clinical-risk model predicts for each level."""

    group: str
    by: Literal["total", "persona", "scenario"]
    n: int
    shares: dict[str, float] = Field(description="label level → share of the group's probes")
    review: int | None = Field(None, description="probes whose prediction set is empty or ambiguous")


class CalibrationSummary(Record):
    """A calibrator applied to the run (``--calibrator``): HCAT §5's calibrated probabilities and
    conformal review queue."""

    calibrator: str
    label: str
    levels: list[str]
    method: str
    scores: list[str]
    alpha: float
    quantile: float
    calibrated: int = Field(description="probes with every score the calibrator maps")
    without_score: int = Field(description="asked probes missing one of its scores")
    review: int = Field(description="probes in the review queue (empty or ambiguous prediction set)")
    groups: list[PredictedGroup]


class RiskSummary(Record):
    """A clinical-risk model applied to the run (``simpop risk apply``, ASTRID §4.2.2)."""

    model: str
    kind: str = Field(description="the classifier chosen on the validation split")
    label: str
    levels: list[str]
    features: list[str]
    predicted: int = Field(description="probes with a prediction")
    groups: list[PredictedGroup]


class RunSummary(Record):
    """What ``summary.json`` holds (its JSON schema: ``docs/summary.schema.json``)."""

    schema_version: str = Field(SUMMARY_SCHEMA_VERSION, description="changes when a field changes meaning")
    run_id: str
    target: str
    target_kind: str
    planned_cells: int
    excluded: dict[str, int]
    accuracy: QAPAccuracy | None = None
    metrics: list[GroupMean] = Field([], description="every metric per persona and in total")
    metrics_by_scenario: list[GroupMean] = []
    metrics_by_persona_scenario: list[GroupMean] = []
    judge: JudgeSummary | None = None
    fidelity: FidelitySummary | None = None
    scenarios: dict[str, int] = Field({}, description="planned cells per scenario")
    topics: TopicStrata | None = None
    labels: LabelTable | None = None
    personas: list[Persona] = Field([], description="the simulated patients of the run")
    scenario_briefs: list[ScenarioBrief] = Field([], description="the scenarios of the run")
    calibration: CalibrationSummary | None = None
    risk: list[RiskSummary] = Field([], description="predicted clinician labels, one model per label")
    llm: LLMUsage
    duration_s: float


# --- the yes/no benchmark -----------------------------------------------------------------


class YesNoDataset(Record):
    """Questions with a gold yes/no decision and gold documents in a corpus."""

    questions: Path
    corpus: KnowledgeBaseConfig
    id_field: str = "id"
    question_field: str = "question"
    decision_field: str = "decision"
    gold_ids_field: str | None = Field(None, description="a question's list of gold document ids")
    gold_match_field: str | None = Field(
        None, description="gold documents: those whose field of this name equals the question's"
    )

    @model_validator(mode="after")
    def _one_gold_rule(self) -> YesNoDataset:
        if (self.gold_ids_field is None) == (self.gold_match_field is None):
            raise ValueError("set exactly one of gold_ids_field and gold_match_field")
        return self


class BenchmarkTarget(Record):
    """One target of a benchmark; ``thresholds`` sweeps a threshold-mode retriever."""

    name: str = Field(pattern=ID_PATTERN)
    target: TargetConfig
    thresholds: list[float] | None = None


class YesNoBenchmarkConfig(Record):
    """``simpop benchmark yesno``: targets × questions, the table of Han's thesis."""

    name: str = Field(pattern=ID_PATTERN)
    description: str | None = None
    dataset: YesNoDataset
    targets: list[BenchmarkTarget] = Field(min_length=1)
    limit: int | None = Field(None, gt=0)
    k: int = Field(5, gt=0, description="cut-off of hit@k and nDCG@k")
    llm: LLMConfig = LLMConfig()
    embedding: EmbeddingConfig = EmbeddingConfig()


class BenchmarkItem(Record):
    """One question of a benchmark with its gold decision and gold document ids."""

    id: str
    question: str
    decision: str
    gold_ids: list[str]


class BenchmarkResult(Record):
    """One target's answer to one benchmark question, and its scores."""

    row: str
    item_id: str
    question: str
    gold_decision: str
    answer: str | None = None
    decision: str | None = None
    correct: float | None = None
    contexts: list[Context] = []
    hypothetical_passage: str | None = None
    retrieval: dict[str, float | None] = {}
    latency_s: float | None = None
    error: str | None = None


class BenchmarkRow(Record):
    """One row of the benchmark table: a target (at one threshold) over all questions."""

    row: str
    target: str
    kind: str
    threshold: float | None
    n: int
    correct: int
    unparsed: int
    errors: int
    accuracy: float | None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    map: float | None = None
    mrr: float | None = None
    hit_at_k: float | None = None
    ndcg_at_k: float | None = None
    mean_retrieved: float | None = None


class BenchmarkSummary(Record):
    """What a benchmark run writes to ``summary.json``."""

    run_id: str
    name: str
    k: int
    questions: int
    left_out: dict[str, int]
    rows: list[BenchmarkRow]
    llm: LLMUsage
    duration_s: float
