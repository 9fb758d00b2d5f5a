"""The conversations' part of ``summary.json``: endings, outcome rates per persona and case with
intervals, the turn each failed conversation failed at, and which went worst."""

from __future__ import annotations

from collections import Counter, defaultdict

from simpop.aggregate import MetricTally
from simpop.metrics.conversation_outcome import CONVERSATION
from simpop.models import CaseBrief, Cell, Conversation, ConversationSummary, Score, StageFailures
from simpop.run.completeness import Group
from simpop.run.plan import RunInputs
from simpop.store import JsonlLog

SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}
WORST = 10


class ConversationTally:
    """The conversation outcome scores of a run, gathered one at a time."""

    def __init__(self, inputs: RunInputs) -> None:
        self.inputs = inputs
        order = {cell: i for i, cell in enumerate(sorted(c.cell_id for c in inputs.conversations))}
        self.planned = order
        self.means = MetricTally(order.__getitem__)
        self.outcomes: dict[str, Score] = {}
        self.tested: set[Group] = set()  # the cases and personas with a scored turn
        self.ended: dict[str, str] = {}  # cell id → how its conversation ended

    @property
    def cells(self) -> list[Cell]:
        return self.inputs.conversations

    def turn(self, score: Score) -> bool:
        """Whether ``score`` is of a turn of a planned conversation (noting its case and persona
        as tested when it holds a value)."""
        cell, _, turn = score.cell_id.rpartition("/t")
        if not (turn.isdigit() and cell in self.planned):
            return False
        if not score.excluded:
            self.tested.update({("case", score.scenario_id), ("persona", score.persona_id)})
        return True

    def not_scored(self) -> dict[str, list[Group]]:
        """Why planned conversations have no scored turn: the case and persona of each
        conversation that ended on an error, or was never played."""
        found: dict[str, list[Group]] = defaultdict(list)
        for cell in self.cells:
            reason = {"error": "conversation_error", None: "not_played"}.get(self.ended.get(cell.cell_id))
            if reason:
                found[reason] += [("case", cell.scenario_id), ("persona", cell.persona_id)]
        return found

    def add(self, score: Score) -> bool:
        """Count ``score`` if it is a planned conversation's outcome; whether it was."""
        if score.metric != CONVERSATION or score.cell_id not in self.planned:
            return False
        self.means.add(score)
        self.outcomes[score.cell_id] = Score.model_construct(
            cell_id=score.cell_id, scenario_id=score.scenario_id, value=score.value, values=score.values
        )
        return True

    def summary(self, conversations: JsonlLog[Conversation], seed: int) -> ConversationSummary:
        endings: Counter[str] = Counter()
        flagged: dict[str, Counter[str]] = defaultdict(Counter)
        added: Counter[str] = Counter()
        turns = 0
        for conversation in conversations.scan():
            if conversation.cell_id in self.planned:
                endings[conversation.ending] += 1
                self.ended[conversation.cell_id] = conversation.ending
                turns += len(conversation.turns)
                for turn in conversation.turns:
                    if turn.flag:
                        flagged[conversation.persona_id][turn.flag] += 1
                    added[conversation.persona_id] += bool(turn.added)
        cases = self.inputs.cases
        playing = {cell.persona_id for cell in self.cells}  # --limit may give a few personas cases
        persona_ids = [p.id for p in self.inputs.personas if p.id in playing]
        by_persona, by_case, by_pair = self.means.means(persona_ids, list(cases), seed)
        failed: dict[str, Counter[str]] = defaultdict(Counter)
        for score in self.outcomes.values():
            turn = score.values.get("failed_turn")
            if score.value == 0.0 and turn is not None:
                failed[score.scenario_id][str(int(turn))] += 1
        return ConversationSummary(
            planned=len(self.planned),
            played=sum(endings.values()),
            endings=dict(sorted(endings.items())),
            turns=turns,
            flagged={p: dict(sorted(why.items())) for p, why in sorted(flagged.items())},
            added={p: n for p, n in sorted(added.items()) if n},
            cases=[
                CaseBrief.model_validate(
                    c.model_dump(include=set(CaseBrief.model_fields)) | {"due_turn": c.due_turn}
                )
                for c in cases.values()
            ],
            metrics=by_persona,
            metrics_by_case=by_case,
            metrics_by_persona_case=by_pair,
            failed_turns={case: dict(sorted(turns.items())) for case, turns in sorted(failed.items())},
            worst=self.worst(),
        )

    def worst(self) -> list[str]:
        """The conversations that went worst: outcome not met (the most severe case first),
        then false reassurance, contradiction, unanswered turns."""

        def badness(score: Score) -> tuple:
            case = self.inputs.cases[score.scenario_id]
            return (
                score.value != 0.0,
                SEVERITY_ORDER.get(case.severity, 9),
                -(score.values.get("false_reassurance") or 0.0),
                -(score.values.get("contradiction") or 0.0),
                -(score.values.get("unanswered") or 0.0),
                score.cell_id,
            )

        return [s.cell_id for s in sorted(self.outcomes.values(), key=badness)[:WORST]]


def converse_stage(conversations: JsonlLog[Conversation], planned: set[str]) -> StageFailures:
    """The conversations that ended on an error (the bot's or the simulated patient's)."""
    errors: Counter[str] = Counter()
    for conversation in conversations.scan():
        if conversation.cell_id in planned and conversation.ending == "error":
            errors[conversation.error or "error"] += 1
    commonest = min(errors, key=lambda e: (-errors[e], e)) if errors else None
    return StageFailures(stage="converse", planned=len(planned), failed=sum(errors.values()), error=commonest)
