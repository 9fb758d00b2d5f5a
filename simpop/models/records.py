"""Per-cell records: the plan's cells and what each stage writes for them (probes, responses,
scores), and clinicians' labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from simpop.models.inputs import Behaviour, HCATType, Urgency
from simpop.models.record_base import Record
from simpop.models.summary import LLMUsage


@dataclass(frozen=True, slots=True)
class Cell:
    """One planned unit of work: a persona asking one probe of a scenario (or one variant of
    a seed QAP), the ``variant``-th of its kind. Not a record (the probe written for it is):
    a plain slotted object, so a plan of 100k cells takes a few MB."""

    cell_id: str
    persona_id: str
    scenario_id: str
    seed_id: str
    variant: int

    def fields(self) -> dict[str, Any]:
        """The identifying fields every record of this cell carries."""
        return {name: getattr(self, name) for name in self.__slots__}


class Invocation(Record):
    """One ``simpop run`` (or ``--resume``) of a run directory and how long it took."""

    started: str = Field(description="when it started (ISO 8601, UTC)")
    seconds: float = Field(ge=0)
    finished: bool = Field(description="it wrote the summary (false: stopped or failed)")
    llm: LLMUsage | None = Field(
        None, description="what the run's LLM did in it (none recorded before 2026-11-29)"
    )
    yes_no: str | None = Field(
        None,
        description="how the judge's endpoint answered yes/no questions: 'log-probabilities' or 'structured'",
    )


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

    reading_grade: float | None = Field(
        description="reading grade (Flesch-Kincaid; Wiener Sachtextformel for German)"
    )
    words: int
    seed_similarity: float | None = Field(None, description="embedding cosine to the seed question")
    duplicate_of: int | None = Field(None, description="the earlier probe of its group it repeats")
    valid: bool = True
    reason: str | None = None
    question: str | None = Field(
        None, description="the question inside the message, as checked against the seed (when wrapped)"
    )
    story: Literal["written", "frame"] | None = Field(
        None, description="the message's story: the situation the LLM wrote, or a sentence frame"
    )


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
    retrieval_query: str | None = Field(None, description="in a conversation: what a RAG bot retrieved with")


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

    @property
    def excluded(self) -> str | None:
        """Why the answer cannot be scored: the probe was not asked, or the call failed."""
        if self.skipped:
            return self.skipped
        return "target_error" if self.error else None


class Judgement(Record):
    """One part of an answer or question that was judged: an answer sentence (its kind and
    whether the context supports it, or its best similarity to a context sentence) or a
    sub-question (whether the answer addresses it)."""

    text: str
    kind: str | None = Field(None, description="acknowledgement | question | information | sub_question")
    verdict: bool | None = Field(None, description="supported (sentences) or addressed (sub-questions)")
    reason: str | None = None
    similarity: float | None = Field(None, description="best cosine to a context sentence")
    probability: float | None = Field(None, description="P(yes) the verdict rests on (judge or verifier)")


JudgedBy = Literal["probability", "structured", "verifier", "classifier", "gold"]


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
    judge_profile: str | None = Field(None, description="the judge profile its thresholds came from")
    judged_by: JudgedBy | None = Field(
        None,
        description="probability: P(yes) at a threshold; structured: a yes/no reply (the endpoint "
        "gave no log-probabilities); verifier: the support verifier over the judge's P(yes); classifier: "
        "a safety classifier (no LLM call); gold: the probe's gold contexts decided it (no LLM call)",
    )
    probabilities: dict[str, float | None] = Field(
        {}, description="P(yes) of each verdict (refused, relevant …); null where judged by a reply"
    )
    thresholds: dict[str, float] = Field({}, description="the threshold of each verdict")
    error: str | None = Field(None, description="the judge error, when excluded is 'judge_error'")
    answer_language: str | None = Field(
        None, description="the answer's language, detected: it chose the safety verdicts' classifiers"
    )


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
