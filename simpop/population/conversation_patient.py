"""The simulated patient of a conversation (issue 22): the LLM acting as a persona writes the
next message from the case and the transcript so far, and says in the same structured reply
whether its goal is met or it gives up. A conversation ends by rule, never by an extra judge
call: the patient's flag, ``max_turns``, or the bot ending it (an empty answer)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from pydantic import Field

from simpop.errors import ConfigError
from simpop.llm import LLMClient
from simpop.models import ConversationTurn, Domain, Ending, Persona, Record
from simpop.models.conversation_case import ConversationCase, Reveal
from simpop.population.conversation_fidelity import (
    LEAVES_OUT,
    first_person,
    in_own_voice,
    tells,
    turn_flaw,
)
from simpop.population.probes import MAX_MESSAGE_CHARS, TOKENS_PER_CHAR, clean_question, persona_system
from simpop.prompts import load_prompt

_TEMPLATES = SandboxedEnvironment(undefined=jinja2.StrictUndefined)
RETRY_SEED = 7919  # added to a turn's seed for a second try at a flagged message


class PatientTurn(Record):
    """The simulated patient's structured reply."""

    message: str = Field(max_length=MAX_MESSAGE_CHARS)
    done: bool = Field(False, description="the bot has given the patient what they wanted")
    gives_up: bool = Field(False, description="the patient would stop talking to the bot here")


@dataclass(frozen=True)
class RenderedCase:
    """A case's templates rendered with the bot's domain, once per conversation."""

    case: ConversationCase
    situation: str
    goal: str
    facts: list[str]  # in the case's order
    events: list[str]
    told: list[str | None]  # of each event, what the message must say of it

    @classmethod
    def of(cls, case: ConversationCase, domain: Domain | None) -> RenderedCase:
        def render(text: str) -> str:
            try:
                return _TEMPLATES.from_string(text).render(domain=domain).strip()
            except jinja2.TemplateError as error:
                raise ConfigError(f"conversation case '{case.id}': {error}") from None

        return cls(
            case,
            render(case.situation),
            render(case.goal),
            [render(f.text) for f in case.facts],
            [render(e.text) for e in case.events],
            [render(e.told) if e.told else None for e in case.events],
        )

    def facts_where(self, reveal: Callable[[Reveal], bool]) -> list[str]:
        return [text for f, text in zip(self.case.facts, self.facts, strict=True) if reveal(f.reveal)]

    def kept(self) -> list[str]:
        """The facts to tell only when the bot asks."""
        return self.facts_where(lambda r: r == "when_asked")

    def due(self, turn: int) -> list[str]:
        """What message ``turn`` must say, checked and added when left out: the facts the case
        reveals at it (the first message: also the ``due`` facts told from the start) and what
        it must say of its events."""
        told = [t for e, t in zip(self.case.events, self.told, strict=True) if e.turn == turn and t]
        opening = [
            text
            for f, text in zip(self.case.facts, self.facts, strict=True)
            if f.due and f.reveal == "at_start"
        ]
        return (opening if turn == 1 else []) + self.facts_where(lambda r: r == turn) + told

    def now(self, turn: int) -> list[str]:
        """What the request for message ``turn`` asks it to tell: the events before it and the
        facts due at it."""
        return [
            text for e, text in zip(self.case.events, self.events, strict=True) if e.turn == turn
        ] + self.facts_where(lambda r: r == turn)


def turn_messages(
    persona: Persona, case: RenderedCase, transcript: list[ConversationTurn]
) -> list[dict[str, str]]:
    """The request for the patient's next message (number ``len(transcript) + 1``): the facts due
    by then, those to say only when asked, and what this message must be about (the events of
    this turn and the facts due at it)."""
    turn = len(transcript) + 1
    task = load_prompt("patient_turn", persona.language).render(
        situation=case.situation,
        goal=case.goal,
        say=case.facts_where(lambda r: r == "at_start" or (isinstance(r, int) and r <= turn)),
        if_asked=case.kept(),
        now=case.now(turn),
        transcript=transcript,
        turn=turn,
        max_turns=case.case.max_turns,
        max_chars=MAX_MESSAGE_CHARS,
    )
    return [{"role": "system", "content": persona_system(persona)}, {"role": "user", "content": task}]


async def next_turn(llm: LLMClient, messages: list[dict[str, str]], seed: int) -> PatientTurn:
    budget = int(TOKENS_PER_CHAR * MAX_MESSAGE_CHARS) + 48
    reply = await llm.structured(messages, PatientTurn, seed=seed, max_tokens=budget)
    return reply.model_copy(update={"message": clean_question(reply.message)})


def ended(turn: ConversationTurn, case: ConversationCase) -> Ending | None:
    """How the conversation ends after ``turn``, if it does: the bot failed or said nothing, or
    the patient has no message left."""
    if turn.error:
        return "error"
    if not turn.answer:
        return "bot_ended"
    return "max_turns" if turn.turn >= case.max_turns else None


async def play(
    llm: LLMClient,
    persona: Persona,
    case: ConversationCase,
    domain: Domain | None,
    ask: Callable[[list[ConversationTurn], str, str | None, list[str]], Awaitable[ConversationTurn]],
    seed: int,
    turns: list[ConversationTurn] | None = None,
) -> tuple[list[ConversationTurn], Ending]:
    """The conversation of ``persona`` playing ``case`` and how it ended, going on from ``turns``
    (those a killed run recorded). ``ask(turns, message, flag, added)`` sends ``message`` to the
    bot after ``turns`` and returns the turn it recorded; ``flag`` says why the message is not a
    believable patient's (``turn_flaw``), when it is not and a second try was no better;
    ``added``: the facts due at the turn that the patient left out and simpop added. Every
    message up to the case's last one with a fact or event due is sent (a done or gives-up flag
    on it is ignored): a case is played as far as it goes."""
    turns = list(turns or [])
    rendered = RenderedCase.of(case, domain)
    kept = rendered.kept()
    ending = ended(turns[-1], case) if turns else None
    while ending is None:
        turn = len(turns) + 1
        messages = turn_messages(persona, rendered, turns)
        due = rendered.due(turn)
        reply = await next_turn(llm, messages, seed + turn)
        flag = turn_flaw(reply.message, turns, kept, due)
        if flag is not None:  # one more try; if it is no better, the first is sent, flagged
            again = await next_turn(llm, messages, seed + turn + RETRY_SEED)
            if (second := turn_flaw(again.message, turns, kept, due)) in (None, LEAVES_OUT):
                reply, flag = again, second
        message = in_own_voice(reply.message, rendered.facts)
        added = [first_person(f) for f in due if not tells(message, f)]
        if added:  # a fact due now goes to the bot all the same, in the patient's voice
            message = " ".join([message, *added])
            flag = None if flag == LEAVES_OUT else flag
        if turns and turn > case.last_scheduled_turn and (reply.done or reply.gives_up):
            return turns, "goal_met" if reply.done else "gave_up"
        turns.append(await ask(list(turns), message, flag, added))
        ending = ended(turns[-1], case)
    return turns, ending
