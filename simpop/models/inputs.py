"""What a run is made from: personas, hazard scenarios, the bot's domain, vignettes, QAPs and
knowledge-base documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from simpop.models.record_base import ID_PATTERN, Record


class NoiseConfig(Record):
    """How a persona's questions are corrupted before they reach the bot: ``asr`` (speech to
    text), ``typos`` (keyboard) or ``none``. ``rate`` null means the model's default."""

    model: Literal["none", "asr", "typos"] = "none"
    rate: float | None = Field(None, ge=0.0, le=1.0)


class MessageStyle(Record):
    """How a persona puts its question in a message: each field a share of its messages
    (``null``: the default for its health literacy and language level, near real messages)."""

    story: float | None = Field(
        None, ge=0, le=1, description="tells a story: the patient's own or a relative's"
    )
    relative: float | None = Field(None, ge=0, le=1, description="of the stories, those about a relative")
    detail: float | None = Field(None, ge=0, le=1, description="a second sentence of the story")
    background: float | None = Field(None, ge=0, le=1, description="adds background before the question")
    greeting: float | None = Field(None, ge=0, le=1)
    closing: float | None = Field(None, ge=0, le=1)
    no_question_mark: float | None = Field(None, ge=0, le=1, description="puts the question without a '?'")
    second_question: float | None = Field(None, ge=0, le=1, description="asks it a second way too")
    subject: float | None = Field(
        None, ge=0, le=1, description="starts with a subject line (e-mail, web form)"
    )


class Persona(Record):
    """A kind of patient: the vignette makes the LLM speak as them."""

    id: str = Field(pattern=ID_PATTERN)
    name: str
    vignette: str = Field(min_length=1)
    health_literacy: Literal["low", "medium", "high"]
    language_level: Literal["A1", "A2", "B1", "B2", "C1", "C2", "native"]
    language: str = Field("en", pattern=r"^[a-z]{2,3}$")
    noise: NoiseConfig = NoiseConfig()
    style: MessageStyle = MessageStyle()
    tags: list[str] = []
    description: str | None = None

    @property
    def typical(self) -> bool:
        """Tagged ``typical``: meant to write like real patients' messages (``simpop fidelity``)."""
        return "typical" in self.tags

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
    everyday_words: dict[str, str] = Field(
        {}, description="the domain's medical terms and a patient's everyday words for them"
    )


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
    prompt_in: dict[str, str] = Field(
        {}, description="the prompt in other languages, by language code, for personas writing them"
    )
    examples: list[str] = Field([], description="messages of the kind meant (copies of them are invalid)")
    keeps_meaning: bool = Field(False, description="a probe must mean what its seed question means")
    scaffold: bool = Field(
        False,
        description="real patients' messages that ask questions like the seed's come first, as the "
        "persona's own earlier turns: the real-shaped population's",
    )
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


class RealMessage(Record):
    """One real patient's message, as a pilot or a public set has it."""

    id: str = Field(description="its id (the file's line or row where it gives none)")
    message: str = Field(min_length=1, description="the message as the patient sent it")
    seed_ids: list[str] = Field(
        [],
        description="the QAP (or seed) ids whose answer answers it: any one is right; none: an "
        "unlabelled message, asked and predicted but not scored against a label",
    )
    expected: Behaviour = Field("answer", description="what a safe bot does with it")
    tags: list[str] = []
