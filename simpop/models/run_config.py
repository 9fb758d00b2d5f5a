"""What a run is configured with: the LLM, the embedding model, the knowledge base, the target,
scoring and topics, and the run config that holds them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, SerializeAsAny, model_validator

from simpop.models.inputs import Domain, HCATType
from simpop.models.record_base import (
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_LOCAL_MODEL,
    ID_PATTERN,
    HttpURL,
    Record,
)
from simpop.models.registry import TargetSettings, parse_target

# a target config of any registered kind, serialised with all of its kind's fields
TargetConfig = Annotated[SerializeAsAny[TargetSettings], BeforeValidator(parse_target)]


class LLMConfig(Record):
    """Where LLM calls go. ``base_url: null`` means the embedded local llama.cpp server."""

    base_url: HttpURL | None = None
    model: str = DEFAULT_LOCAL_MODEL
    api_key_env: str = "SIMPOP_LLM_API_KEY"
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    max_tokens: int = Field(512, gt=0)
    concurrency: int = Field(4, gt=0)
    timeout: float | None = Field(
        None,
        gt=0,
        description="seconds per request (default: 120, or from the embedded server's speed)",
    )
    max_retries: int = Field(4, ge=0)
    retry_backoff: float = Field(0.5, ge=0)
    validation_retries: int = Field(2, ge=0)
    context_per_slot: int = Field(
        4096,
        gt=0,
        description="tokens one request may hold on the embedded server: a judge's prompt holds the "
        "context, the answer and the message (a long QAP of the demo set, matched: about 2,800)",
    )
    threads: int | None = Field(
        None, gt=0, description="embedded server threads (default: the cores idle when it starts)"
    )


class EmbeddingConfig(Record):
    """The sentence-transformers model (the built-in name or a local model directory), or a
    model served behind an OpenAI-compatible ``/embeddings`` endpoint (Text Embeddings
    Inference, vLLM, Ollama ...) when ``base_url`` is set."""

    model: str = DEFAULT_EMBEDDING_MODEL
    batch_size: int = Field(64, gt=0, description="texts per request to an endpoint")
    base_url: HttpURL | None = Field(None, description="an OpenAI-compatible embeddings endpoint")
    api_key_env: str = Field("SIMPOP_EMBEDDING_API_KEY", description="variable holding the endpoint's key")
    timeout: float = Field(60.0, gt=0, description="seconds per request to the endpoint")
    max_retries: int = Field(3, ge=0, description="extra tries after 429, 5xx, timeouts")
    threads: int = Field(
        1,
        gt=0,
        description="torch threads for the local model; the count changes a vector's last bits, "
        "so 1 gives the same figures on any machine under any load",
    )


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


class ScoringConfig(Record):
    """How answers are scored beyond the judge-free metrics."""

    judges: bool = Field(True, description="run the LLM judges (ASTRID triad, safe behaviour)")
    judge_max_tokens: int = Field(
        40, gt=0, description="longest reason the judge writes for a failing verdict (tokens)"
    )
    coverage_threshold: float = Field(
        0.5, ge=-1.0, le=1.0, description="similarity at which a context sentence counts as covered"
    )
    nli_model: Path | None = Field(
        None, description="folder of a local NLI cross-encoder for groundedness (optional)"
    )
    verifier: Path | None = Field(
        None, description="support verifier file from simpop judge train (default: the judge profile's)"
    )
    safety_judges: Literal["profile", "llm"] = Field(
        "profile",
        description="who decides escalated, false reassurance, refused and asks to clarify: the judge "
        "profile's safety classifiers (no LLM call; the LLM where the profile has none) or the LLM judge",
    )
    safety_classifiers: dict[Literal["escalated", "false_reassurance", "refused", "clarify"], Path] = Field(
        {},
        description="safety classifier files from simpop judge train --judge NAME, instead of the profile's",
    )
    turn_judges: list[Literal["faithfulness", "context_relevance"]] = Field(
        [],
        description="LLM-judged metrics also scored on every conversation turn (each costs LLM calls "
        "per turn); the safety verdicts are scored on every turn regardless, by the profile's classifiers",
    )
    judge_reasons: bool = Field(
        True,
        description="ask the judge why, for the failing verdicts a report shows (the worst probes per "
        "scenario, the worst conversations) at the end of a run",
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


class FailureLimits(Record):
    """When lost cells make a run incomplete (exit status 3) or earn a warning line."""

    incomplete_at: float = Field(
        1.0, gt=0.0, le=1.0, description="share of a stage's cells that, failed, make the run incomplete"
    )
    warn_above: float = Field(0.1, ge=0.0, le=1.0, description="a stage losing more than this is named")


class GateBudget(Record):
    """What a sequential gate may spend at most before it stops undecided."""

    cells: int | None = Field(None, gt=0, description="cells (default: every cell of the plan)")
    minutes: float | None = Field(None, gt=0, description="wall-clock minutes of the run")


class GateConfig(Record):
    """The release gate of a run (issue 72): with ``sequential``, cells are planned in rounds and
    the run stops as soon as every rule of the policy is decided on its confidence sequence."""

    policy: Path | None = Field(None, description="the release policy YAML (or --policy)")
    sequential: bool = Field(False, description="plan the cells in rounds; stop once every rule is decided")
    error: float = Field(
        0.05,
        gt=0,
        lt=1,
        description="the gate's error: a bot that breaks a rule passes, or one that meets every rule fails, "
        "at most this often",
    )
    fail_error: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="each group's error of a fail instead of `error` shared among the groups: faster "
        "fails, but a bot that meets every rule may fail at up to this times its groups",
    )
    budget: GateBudget = GateBudget()
    round_units: int = Field(8, gt=0, description="cells per round")
    stop: Literal["verdict", "every-rule"] = Field(
        "verdict",
        description="verdict: stop once the gate's outcome is known (a rule failed, or every rule passed "
        "with every persona × scenario tested); every-rule: once each rule is passed or failed",
    )


class RunConfig(Record):
    """Everything a run needs, as resolved from the config file and the command line."""

    name: str = Field(pattern=ID_PATTERN)
    description: str | None = None
    plugins: list[str] = Field(
        [], description="modules (dotted names or .py files) that register more targets or metrics"
    )
    target: TargetConfig
    language: str = Field(
        "en", pattern=r"^[a-z]{2,3}$", description="the language of the bot, its QAPs and its knowledge base"
    )
    seeds: Path | None = Field(None, description="QAPs the patients rephrase (default: a qap target's)")
    real_patients: Path | None = Field(
        None,
        description="real patients' messages (JSONL or CSV: message, seed_ids, optional id, expected, tags), "
        "asked and scored as the probes are and shown beside the simulated personas",
    )
    personas: Path = Path("personas")
    persona_ids: list[str] | None = None
    domain: Domain | None = Field(None, description="the bot's domain and scope (or a YAML file of it)")
    scenario_dir: Path = Path("scenarios")
    scenarios: list[str] | Literal["all"] = Field("all", description="scenario ids to probe; [] for none")
    probes: int = Field(3, gt=0, le=50, description="probes per scenario and persona")
    conversation_dir: Path = Field(
        Path("scenarios/conversations"), description="default: the scenario_dir's conversations folder"
    )
    conversations: list[str] | Literal["all"] = Field(
        [], description="conversation case ids each persona plays with the bot; 'all' for every one"
    )
    conversation_repeats: int = Field(1, gt=0, le=20, description="times each persona plays each case")
    min_similarity: float = Field(
        0.6, ge=-1.0, le=1.0, description="a rephrased question less similar to its seed is invalid"
    )
    variants: int = Field(5, ge=0, le=50)
    population: Literal["rephrase", "real-shaped"] = Field(
        "rephrase",
        description="what a variant is: the seed question reworded in the persona's voice with a "
        "story around it, or a message shaped like a real patient's (a real message shown as the "
        "model: English only)",
    )
    topics: TopicConfig = TopicConfig()
    limit: int | None = Field(None, gt=0)
    seed: int = 0
    stream: bool = Field(
        True, description="each cell goes on to the bot and the scores once its probe is written"
    )
    llm: LLMConfig = LLMConfig()
    judge: LLMConfig | None = Field(
        None, description="the judges' LLM (default: the llm section); temperature 0"
    )
    scoring: ScoringConfig = ScoringConfig()
    metrics: list[str] | None = Field(
        None,
        description="the metrics to score, by name (default: every one that applies); the ones they "
        "need are added; with the judges off (--no-judge) the judged ones are left out",
    )
    embedding: EmbeddingConfig = EmbeddingConfig()
    failures: FailureLimits = FailureLimits()
    gate: GateConfig | None = Field(
        None, description="the release gate the run ends with (sequential or not)"
    )

    plugin_files: dict[str, str] = Field(
        {}, description="the source file of each plugin the run imported, and its SHA-256"
    )
