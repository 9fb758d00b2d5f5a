"""The simulated patient of a conversation (issue 22): the LLM acting as a persona writes the
next message from the case and the transcript so far, and says in the same structured reply
whether its goal is met or it gives up. A conversation ends by rule, never by an extra judge
call: the patient's flag, ``max_turns``, or the bot ending it (an empty answer)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from pydantic import Field

from simpop.errors import ConfigError
from simpop.llm import LLMClient
from simpop.models import Domain, Persona, Record
from simpop.models.conversation_case import ConversationCase
from simpop.population.probes import MAX_MESSAGE_CHARS, TOKENS_PER_CHAR, clean_question, persona_system
from simpop.prompts import load_prompt

_TEMPLATES = SandboxedEnvironment(undefined=jinja2.StrictUndefined)

Ending = Literal["goal_met", "gave_up", "max_turns", "bot_ended"]


class PatientTurn(Record):
    """The simulated patient's structured reply."""

    message: str = Field(max_length=MAX_MESSAGE_CHARS)
    done: bool = Field(False, description="the bot has given the patient what they wanted")
    gives_up: bool = Field(False, description="the patient would stop talking to the bot here")


@dataclass(frozen=True)
class Exchange:
    """One turn: the patient's message (before noise) and the bot's answer."""

    patient: str
    bot: str


@dataclass
class Played:
    """A conversation played to its end."""

    exchanges: list[Exchange] = field(default_factory=list)
    ending: Ending = "max_turns"


def render(case: ConversationCase, text: str, domain: Domain | None) -> str:
    try:
        return _TEMPLATES.from_string(text).render(domain=domain).strip()
    except jinja2.TemplateError as error:
        raise ConfigError(f"conversation case '{case.id}': {error}") from None


def turn_messages(
    persona: Persona,
    case: ConversationCase,
    domain: Domain | None,
    transcript: list[Exchange],
) -> list[dict[str, str]]:
    """The request for the patient's next message (number ``len(transcript) + 1``): the facts due
    by then, those to say only when asked, and what this message must be about (the events of
    this turn and the facts due at it)."""
    turn = len(transcript) + 1
    due = [
        f for f in case.facts if f.reveal == "at_start" or (isinstance(f.reveal, int) and f.reveal <= turn)
    ]
    task = load_prompt("patient_turn").render(
        situation=render(case, case.situation, domain),
        goal=render(case, case.goal, domain),
        say=[render(case, f.text, domain) for f in due],
        if_asked=[render(case, f.text, domain) for f in case.facts if f.reveal == "when_asked"],
        # what this message must be about: the events of this turn and the facts due at it
        now=[render(case, e.text, domain) for e in case.events if e.turn == turn]
        + [render(case, f.text, domain) for f in case.facts if f.reveal == turn],
        transcript=transcript,
        turn=turn,
        max_turns=case.max_turns,
        max_chars=MAX_MESSAGE_CHARS,
    )
    return [{"role": "system", "content": persona_system(persona)}, {"role": "user", "content": task}]


async def next_turn(llm: LLMClient, messages: list[dict[str, str]], seed: int) -> PatientTurn:
    budget = int(TOKENS_PER_CHAR * MAX_MESSAGE_CHARS) + 48
    reply = await llm.structured(messages, PatientTurn, seed=seed, max_tokens=budget)
    return reply.model_copy(update={"message": clean_question(reply.message)})


async def play(
    llm: LLMClient,
    persona: Persona,
    case: ConversationCase,
    domain: Domain | None,
    ask: Callable[[list[Exchange], str], Awaitable[str]],
    seed: int,
) -> Played:
    """The conversation of ``persona`` playing ``case``; ``ask(history, message)`` is the bot's
    answer to ``message`` after the exchanges of ``history``. The first message is always sent
    (a flag on it is ignored)."""
    played = Played()
    while True:
        turn = len(played.exchanges) + 1
        reply = await next_turn(llm, turn_messages(persona, case, domain, played.exchanges), seed + turn)
        if played.exchanges and (reply.done or reply.gives_up):
            played.ending = "goal_met" if reply.done else "gave_up"
            return played
        answer = await ask(list(played.exchanges), reply.message)
        played.exchanges.append(Exchange(reply.message, answer))
        if not answer.strip():
            played.ending = "bot_ended"
            return played
        if turn == case.max_turns:
            played.ending = "max_turns"
            return played
