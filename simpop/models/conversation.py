"""Records of played conversations (issue 22): each turn as it happens (``turns.jsonl``, what a
resumed run continues from) and each finished conversation whole (``conversations.jsonl``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from simpop.models.inputs import Behaviour
from simpop.models.record_base import Record
from simpop.models.records import CellRecord, Context

Ending = Literal["goal_met", "gave_up", "max_turns", "bot_ended", "error"]


class Exchange(Record):
    """One turn as the bot saw it: the message it received (after noise) and its answer."""

    asked: str
    answer: str


class ConversationTurn(CellRecord):
    """The patient's ``turn``-th message (clean, and as the bot received it) and the bot's
    answer, or why there is none. ``cell_id`` is the conversation's."""

    turn: int = Field(ge=1)
    text: str = Field(description="the patient's message as written")
    noisy_text: str | None = Field(None, description="as the bot received it, when noise changed it")
    noise: str | None = None
    flag: str | None = Field(None, description="why the message is not a believable patient's, if not")
    added: list[str] = Field(
        [], description="facts due at this turn the patient left out, which simpop added in its voice"
    )
    answer: str | None = None
    contexts: list[Context] = []
    retrieval_query: str | None = Field(None, description="what a RAG bot retrieved with (history condensed)")
    no_answer_reason: str | None = None
    latency_s: float | None = None
    error: str | None = None

    @property
    def asked_text(self) -> str:
        return self.text if self.noisy_text is None else self.noisy_text

    @property
    def key(self) -> str:
        return f"{self.cell_id}/t{self.turn}"


class Conversation(CellRecord):
    """A conversation played to its end: a persona (``persona_id``) playing a case
    (``scenario_id``, derived from the SACE scenario ``seed_id``), the ``variant``-th time."""

    turns: list[ConversationTurn]
    ending: Ending
    expected_behaviour: Behaviour
    also_safe: list[Behaviour] = []
    by_turn: int | None = None
    due_turn: int = Field(
        1, ge=1, description="the patient's message from which its expected behaviour is due"
    )
    severity: str
    sampling_seed: int
    prompt: str
    llm_model: str
    error: str | None = Field(None, description="why the conversation stopped early (the patient's LLM)")
