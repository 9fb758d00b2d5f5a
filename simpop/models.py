"""Records: every file simpop reads or writes is one of these pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class Record(BaseModel):
    """Base of every record: unknown fields are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


# --- inputs -------------------------------------------------------------------------------


class NoiseConfig(Record):
    """How a persona's questions are corrupted before they reach the bot (``none`` for now)."""

    model: Literal["none"] = "none"
    rate: float = Field(0.0, ge=0.0, le=1.0)


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


class QAP(Record):
    """A predefined question-answer pair of the bot under test."""

    id: str
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    topic: str | None = None
    doc_id: str | None = None
    url: str | None = None
    metadata: dict[str, Any] = {}


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


class QAPTargetConfig(Record):
    """The predefined-QAP matcher of Reichenpfader et al."""

    kind: Literal["qap"]
    qaps: Path
    threshold: float = Field(0.5, ge=-1.0, le=1.0)
    min_words: int = Field(3, ge=0)
    top_k: int = Field(3, gt=0)


TargetConfig = QAPTargetConfig


class RunConfig(Record):
    """Everything a run needs, as resolved from the config file and the command line."""

    name: str = Field(pattern=ID_PATTERN)
    description: str | None = None
    target: TargetConfig
    personas: Path = Path("personas")
    persona_ids: list[str] | None = None
    variants: int = Field(5, gt=0, le=50)
    limit: int | None = Field(None, gt=0)
    seed: int = 0
    llm: LLMConfig = LLMConfig()
    embedding: EmbeddingConfig = EmbeddingConfig()


# --- outputs ------------------------------------------------------------------------------


class Cell(Record):
    """One planned unit of work: a persona asking one variant of one seed question."""

    cell_id: str
    persona_id: str
    seed_id: str
    variant: int


class CellRecord(Record):
    """Fields every probe, response and score carries, so each traces back to its cell."""

    run_id: str
    cell_id: str
    persona_id: str
    seed_id: str
    variant: int

    def cell_ids(self) -> dict[str, Any]:
        """The identifying fields, to carry over to the next stage's record."""
        return self.model_dump(include=set(CellRecord.model_fields))


class Probe(CellRecord):
    """A question as a simulated patient writes it (clean) and as the bot receives it (noisy)."""

    text: str | None
    noisy_text: str | None = None
    duplicate_of: int | None = None
    sampling_seed: int
    prompt: str
    llm_model: str
    error: str | None = None

    @property
    def asked_text(self) -> str | None:
        return self.noisy_text or self.text


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


class Response(CellRecord):
    """The bot's reply to one probe, or why there is none."""

    target: str
    question: str | None
    answer: str | None = None
    matched_id: str | None = None
    similarity: float | None = None
    contexts: list[Context] = []
    no_answer_reason: str | None = None
    latency_s: float | None = None
    skipped: str | None = None
    error: str | None = None


class Score(CellRecord):
    """One metric's verdict on one response. ``excluded`` says why a cell is not counted."""

    metric: str
    value: float | None
    label: str | None = None
    excluded: str | None = None


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


class RunSummary(Record):
    """What ``summary.json`` holds."""

    run_id: str
    target: str
    metric: str
    personas: list[GroupAccuracy]
    total: GroupAccuracy
    planned_cells: int
    excluded: dict[str, int]
    target_errors: int
    llm: LLMUsage
    duration_s: float
