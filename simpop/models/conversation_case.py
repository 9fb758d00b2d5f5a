"""A conversation case (issue 22): what a simulated patient knows, reveals only as a real patient
would over several turns, and the outcome a safe bot reaches, by which of its turns."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from simpop.models.inputs import Behaviour
from simpop.models.record_base import ID_PATTERN, Record

Reveal = Literal["at_start", "when_asked"] | int


class Fact(Record):
    """Something the patient knows, and when they say it."""

    text: str = Field(min_length=1, description="Jinja template, in the patient's words or close to them")
    reveal: Reveal = Field(
        "when_asked",
        description="at_start: in the first message or whenever it fits; when_asked: only once the "
        "bot asks about it; N: not before the patient's N-th message",
    )
    due: bool = Field(
        False,
        description="telling it makes the case's expected behaviour due (the red flag): a bot's "
        "reply before it does not count",
    )

    @field_validator("reveal")
    @classmethod
    def _a_message_of_the_patient(cls, reveal: Reveal) -> Reveal:
        if isinstance(reveal, int) and reveal < 1:
            raise ValueError(f"{reveal} is no message of the patient's (the first is 1)")
        return reveal


class Event(Record):
    """Something that happens before the patient's N-th message (the pain gets worse, a relative
    says it is nothing)."""

    turn: int = Field(ge=2, description="the patient's message it comes before (the first is 1)")
    text: str = Field(min_length=1, description="Jinja template, told to the simulated patient")
    told: str | None = Field(
        None,
        description="Jinja template: what the message must say of it, in the patient's words; simpop "
        "adds it when the message leaves it out (none: not checked)",
    )
    due: bool = Field(False, description="it makes the case's expected behaviour due (see Fact.due)")


class ConversationCase(Record):
    """One case a persona plays out with the bot, derived from a SACE operating context."""

    id: str = Field(pattern=ID_PATTERN)
    name: str
    scenario: str = Field(pattern=ID_PATTERN, description="the SACE scenario it comes from")
    description: str = Field(min_length=1, description="notes for people; not sent to the LLM")
    hazard: str = Field(min_length=1, description="the hazardous behaviour to catch")
    safe_concept: str = Field(min_length=1, description="the safe operating concept")
    severity: Literal["low", "medium", "high", "critical"]
    situation: str = Field(min_length=1, description="Jinja template: what is happening to the patient")
    goal: str = Field(min_length=1, description="what the patient opens the conversation wanting")
    language: str = Field("en", pattern=r"^[a-z]{2,3}$", description="the language its texts are written in")
    facts: list[Fact] = []
    events: list[Event] = []
    max_turns: int = Field(6, ge=1, le=20, description="the patient's messages at most")
    expected: Behaviour = Field(description="what a safe bot does")
    by_turn: int | None = Field(
        None, ge=1, description="the bot's reply by which it must have done it (none: at any turn)"
    )
    also_safe: list[Behaviour] = Field([], description="other behaviours that are safe too")

    @model_validator(mode="after")
    def _turns_fit(self) -> ConversationCase:
        late = [f"events: turn {e.turn}" for e in self.events if e.turn > self.max_turns]
        late += [
            f"facts: reveal {f.reveal}"
            for f in self.facts
            if isinstance(f.reveal, int) and f.reveal > self.max_turns
        ]
        if self.by_turn is not None and self.by_turn > self.max_turns:
            late.append(f"by_turn {self.by_turn}")
        if late:
            raise ValueError(f"{', '.join(late)} after max_turns {self.max_turns}")
        if self.expected in self.also_safe:
            raise ValueError(f"also_safe repeats the expected behaviour '{self.expected}'")
        if any(f.due and f.reveal == "when_asked" for f in self.facts):
            raise ValueError("a fact told only when asked cannot be due: give its reveal turn")
        if self.by_turn is not None and self.by_turn < self.due_turn:
            raise ValueError(f"by_turn {self.by_turn} before the due fact's turn {self.due_turn}")
        return self

    @property
    def due_turn(self) -> int:
        """The patient's message from which the expected behaviour is due: the latest turn of a
        ``due`` fact or event (1 when none is marked)."""
        turns = [f.reveal if isinstance(f.reveal, int) else 1 for f in self.facts if f.due]
        return max([1, *turns, *(e.turn for e in self.events if e.due)])

    @property
    def last_scheduled_turn(self) -> int:
        """The patient's last message that has a fact or event due at it (1 when none has)."""
        turns = [f.reveal for f in self.facts if isinstance(f.reveal, int)]
        return max([1, *turns, *(e.turn for e in self.events)])
