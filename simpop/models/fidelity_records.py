"""The persona fidelity section of ``summary.json``: how believable each persona's simulated
messages are, their shape beside real messages, and how far a classifier tells them apart."""

from __future__ import annotations

from pydantic import Field

from simpop.models.record_base import Record


class PersonaFidelity(Record):
    """How believable one persona's simulated questions are.

    ``valid_share``: usable questions (generated, meaning kept, not a near-duplicate) over
    planned probes; ``distinct_ratio``: distinct questions over generated ones, across all of
    the persona's probes (its first 2,000 in the plan when it has more).
    """

    persona_id: str
    health_literacy: str
    planned: int
    generated: int
    valid_share: float | None
    duplicate_share: float | None
    invalid: int = Field(
        description="questions that drifted in meaning, are not a patient's, or the noise emptied"
    )
    lost_to_noise: int = Field(
        0, description="of those, messages the noise emptied or cut under the words the bot answers"
    )
    distinct_ratio: float | None
    mean_reading_grade: float | None
    mean_words: float | None
    mean_seed_similarity: float | None
    noisy: int
    noisy_wer: float | None = Field(None, description="word error rate of noisy against clean text")
    stories_written: int = Field(0, description="messages whose story is the situation the LLM wrote")
    stories_from_frames: int = Field(0, description="messages whose story is a sentence frame (the fallback)")
    ages_stated: int = Field(0, description="messages giving an age, the writer's or a relative's")
    ages_off: int = Field(0, description="of those, messages whose ages the persona's age contradicts")


class MessageShapes(Record):
    """How a set of messages looks, measured the same way for a persona and for real ones
    (``population/message_shape.py``): shares are of messages."""

    n: int
    median_words: float | None
    context: float | None = Field(description="tell the patient's own story or a relative's")
    relative: float | None = Field(description="tell a relative's story")
    no_question_mark: float | None
    multi_question: float | None = Field(description="ask two or more questions")
    subject: float | None
    reading_grade: float | None = Field(description="mean reading grade (German: Wiener Sachtextformel)")
    reading_grade_low: float | None = None
    reading_grade_high: float | None = None
    language_level: float | None = Field(
        None, description="estimated CEFR level, 1 (A1) to 6 (C2); English only"
    )
    rare_words: float | None = Field(
        None, description="share of words outside the language's 4,000 commonest"
    )
    slips_per_100_words: float | None = Field(None, description="learner grammar slips per 100 words")
    in_language: float | None = Field(None, description="share of messages in the expected language")


class StockSentence(Record):
    """A sentence that stands verbatim in several simulated messages."""

    sentence: str
    messages: int
    share: float = Field(description="of the messages measured")


class Separability(Record):
    """How far simulated messages can be told from real ones (``population/separability.py``)."""

    n: int
    stock_share: float | None = Field(description="share holding a sentence found in 3+ messages of the run")
    stock: list[StockSentence] = Field(description="the most widespread of those sentences")
    auc: float | None = Field(description="out-of-fold AUC telling them from real ones on style alone")
    auc_interval: tuple[float, float] | None
    distinct_1: float | None
    distinct_2: float | None
    real_distinct_1: float | None = Field(description="the same for as many real messages")
    real_distinct_2: float | None
    self_bleu: float | None
    real_self_bleu: float | None


class FidelitySummary(Record):
    """The persona fidelity section of a run summary, with its warnings."""

    personas: list[PersonaFidelity]
    reading_grade_by_literacy: dict[str, float | None] = Field(
        description="mean reading grade per health literacy (of a question alone where written alone; "
        "learners at A1-B1 left out)"
    )
    warnings: list[str]
    shapes: dict[str, MessageShapes] = Field({}, description="per persona: the shape of its usable messages")
    reference: MessageShapes | None = Field(None, description="the same figures for real messages")
    reference_name: str | None = None
