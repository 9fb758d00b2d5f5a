"""Converse (issue 22): each persona plays each conversation case with the bot, turn by turn.
Every turn is recorded as it happens (``turns.jsonl``), so a killed run goes on at the next
turn; a finished conversation is recorded whole (``conversations.jsonl``, one record each); the
bot's turns are scored like single answers, then the conversation as a whole."""

from __future__ import annotations

import asyncio
import time

from rich.progress import Progress

from simpop.errors import SimpopError
from simpop.llm import LLMClient, LLMError
from simpop.metrics import Case, Metric, Scorers
from simpop.metrics.conversation_outcome import CONVERSATION, conversation_outcome, turn_cell_id
from simpop.models import (
    Behaviour,
    Cell,
    Conversation,
    ConversationTurn,
    Ending,
    Exchange,
    Persona,
    Probe,
    Response,
    Score,
)
from simpop.models.conversation_case import ConversationCase
from simpop.population.cells import sampling_seed
from simpop.population.conversation_patient import play
from simpop.population.noise import apply_noise, noise_label
from simpop.prompts import load_prompt
from simpop.redact import clip
from simpop.run.plan import RunInputs
from simpop.run.score import score_case
from simpop.run.tasks import gather_all, stage_progress
from simpop.store import JsonlLog
from simpop.targets import Target


def recorded_turns(turns: JsonlLog[ConversationTurn], cell: Cell) -> list[ConversationTurn]:
    """The turns of ``cell``'s conversation on disk, in order (up to the first missing one)."""
    found: list[ConversationTurn] = []
    while (turn := turns.get(turn_cell_id(cell.cell_id, len(found) + 1))) is not None:
        found.append(turn)
    return found


def turn_behaviour(expected: Behaviour) -> Behaviour:
    """A behaviour met over the whole conversation (answer, address_all) is asked of every turn
    as answering."""
    return "answer" if expected == "address_all" else expected


def turn_case(
    conversation: Conversation, turn: ConversationTurn, case: ConversationCase, target: str
) -> Case:
    """One bot turn as the single-answer metrics score it (``turn_behaviour``)."""
    ids = conversation.cell_ids() | {"cell_id": turn_cell_id(conversation.cell_id, turn.turn)}
    probe = Probe(
        **ids,
        text=turn.text,
        noisy_text=turn.noisy_text,
        noise=turn.noise,
        expected_behaviour=turn_behaviour(conversation.expected_behaviour),
        also_safe=conversation.also_safe,
        severity=conversation.severity,
        sampling_seed=conversation.sampling_seed,
        prompt=conversation.prompt,
        llm_model=conversation.llm_model,
    )
    response = Response(
        **ids,
        target=target,
        question=turn.asked_text,
        answer=turn.answer,
        contexts=turn.contexts,
        no_answer_reason=turn.no_answer_reason,
        latency_s=turn.latency_s,
        error=turn.error,
    )
    return Case(probe=probe, response=response, source=CONVERSATION, safe_concept=case.safe_concept)


class Conversations:
    """The conversation stage: plays, records and scores every conversation cell of a run."""

    def __init__(
        self,
        run_id: str,
        inputs: RunInputs,
        logs: tuple[JsonlLog[ConversationTurn], JsonlLog[Conversation], JsonlLog[Score]],
        llm: LLMClient,
        target: Target,
        scorers: Scorers,
        metrics: list[Metric],
        *,
        run_seed: int,
        ask_slots: asyncio.Semaphore,
        judge_slots: asyncio.Semaphore,
        progress: Progress | None = None,
    ) -> None:
        self.run_id = run_id
        self.inputs = inputs
        self.turns, self.conversations, self.scores = logs
        self.llm = llm
        self.target = target
        self.scorers = scorers
        # a turn's judges cost no LLM call unless the config names them (issue 42)
        self.metrics = [m for m in metrics if not m.calls_llm or m.name in scorers.scoring.turn_judges]
        self.run_seed = run_seed
        self.ask_slots = ask_slots
        self.judge_slots = judge_slots
        self.personas = {p.id: p for p in inputs.personas}
        cells = inputs.conversations
        self.done = {c.cell_id for c in cells if self.scores.get(f"{c.cell_id}/{CONVERSATION}") is not None}
        self.advance = stage_progress(progress, "play conversations", len(cells), len(self.done))

    async def run(self, concurrency: int) -> None:
        """Every conversation to its end and its scores, ``concurrency`` at a time."""
        await gather_all((self.one(cell) for cell in self.inputs.conversations), concurrency)

    async def one(self, cell: Cell) -> None:
        if cell.cell_id in self.done:
            return
        conversation = self.conversations.get(cell.cell_id)
        if conversation is None:
            conversation = await self.play(cell)
            self.conversations.append(conversation)
        await self.score(conversation)
        self.advance()

    async def play(self, cell: Cell) -> Conversation:
        """The conversation of ``cell``, going on from the turns a killed run recorded."""
        case, persona = self.inputs.cases[cell.scenario_id], self.personas[cell.persona_id]
        seed = sampling_seed(self.run_seed, cell)
        turns = recorded_turns(self.turns, cell)
        so_far = list(turns)

        async def ask(
            before: list[ConversationTurn], message: str, flag: str | None, added: list[str]
        ) -> ConversationTurn:
            turn = await self.ask(cell, persona, before, message, seed, flag, added)
            self.turns.append(turn)
            so_far.append(turn)
            return turn

        ending: Ending
        error = None
        try:
            turns, ending = await play(self.llm, persona, case, self.inputs.domain, ask, seed, turns)
        except LLMError as exc:  # the patient could not write on: the turns so far are kept
            turns, ending, error = so_far, "error", clip(f"simulated patient: {exc}", 500)
        return Conversation(
            run_id=self.run_id,
            **cell.fields(),
            turns=turns,
            ending=ending,
            expected_behaviour=case.expected,
            also_safe=case.also_safe,
            by_turn=case.by_turn,
            due_turn=case.due_turn,
            severity=case.severity,
            sampling_seed=seed,
            prompt=load_prompt("patient_turn", persona.language).id,
            llm_model=self.llm.config.model,
            error=error or next((t.error for t in turns if t.error), None),
        )

    async def ask(
        self,
        cell: Cell,
        persona: Persona,
        before: list[ConversationTurn],
        message: str,
        seed: int,
        flag: str | None = None,
        added: list[str] | None = None,
    ) -> ConversationTurn:
        """The bot's answer to the patient's next message (after the persona's noise)."""
        number = len(before) + 1
        noisy = await asyncio.to_thread(apply_noise, message, persona.noise, seed + number, persona.language)
        asked = noisy if noisy is not None else message
        history = [Exchange(asked=t.asked_text, answer=t.answer or "") for t in before]
        answer, error = None, None
        async with self.ask_slots:
            start = time.perf_counter()
            try:
                answer = await self.target.ask(asked, history, session=cell.cell_id)
            except SimpopError:
                raise  # the bot cannot be reached at all: stop, resumable
            except Exception as exc:  # noqa: BLE001 - any adapter failure is recorded on the turn
                error = clip(f"{type(exc).__name__}: {exc}", 500)
            latency = time.perf_counter() - start
        return ConversationTurn(
            run_id=self.run_id,
            **cell.fields(),
            turn=number,
            text=message,
            noisy_text=noisy,
            noise=noise_label(persona.noise) if noisy is not None else None,
            flag=flag,
            added=added or [],
            answer=answer.text if answer else None,
            contexts=answer.contexts if answer else [],
            retrieval_query=answer.retrieval_query if answer else None,
            no_answer_reason=answer.no_answer_reason if answer else None,
            latency_s=latency,
            error=error,
        )

    async def score(self, conversation: Conversation) -> None:
        """Each bot turn's scores that are missing, then the conversation's."""
        case = self.inputs.cases[conversation.scenario_id]
        by_turn: dict[int, dict[str, Score]] = {}
        for turn in conversation.turns:
            scored = turn_case(conversation, turn, case, self.target.name)
            done = {
                m.name: s
                for m in self.metrics
                if (s := self.scores.get(f"{scored.probe.cell_id}/{m.name}")) is not None
            }
            for score in await score_case(scored, self.metrics, self.scorers, done, self.judge_slots):
                self.scores.append(score)
                done[score.metric] = score
            by_turn[turn.turn] = done
        contradiction = await self.contradiction(conversation)
        judged = self.scorers.judge is not None
        self.scores.append(conversation_outcome(conversation, by_turn, contradiction, judged))

    async def contradiction(self, conversation: Conversation) -> float | None:
        """1 when the judge finds the bot contradicting itself, 0 when not; None with the judges
        off, fewer than two answers, or a failed call."""
        answered = [t for t in conversation.turns if t.answer]
        judge = self.scorers.judge
        if judge is None or len(answered) < 2:
            return None
        async with self.judge_slots:
            try:
                verdict = await judge.decide("judge_contradiction", "contradiction", turns=answered)
            except LLMError:
                return None
        return float(verdict.yes)
