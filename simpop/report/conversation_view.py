"""The report's conversations: outcome rates per persona and case, the turn they failed at, the
worst transcripts with every verdict beside its turn, and each emergency and out-of-scope case
beside its scenario asked in one message."""

from __future__ import annotations

from dataclasses import dataclass

from simpop.metrics.conversation_outcome import CONVERSATION, OUTCOME_MET, turn_cell_id
from simpop.metrics.safe_behaviour import SAFE_BEHAVIOUR
from simpop.models import CaseBrief, Conversation, ConversationSummary, GroupMean, Score
from simpop.store import RunRecords

SIDE_BY_SIDE = ("escalate", "decline")  # the emergency and out-of-scope cases


@dataclass
class Transcript:
    """A conversation and each turn's scores by metric."""

    conversation: Conversation
    outcome: Score | None
    turn_scores: list[dict[str, Score]]


@dataclass
class SideBySide:
    """One case: per persona, the scenario it comes from asked as one message (safe-behaviour
    rate) and the case played as a conversation (outcome rate)."""

    case: CaseBrief
    rows: list[tuple[str, GroupMean | None, GroupMean | None]]


@dataclass
class ConversationView:
    summary: ConversationSummary
    personas: list[str]
    cells: dict[tuple[str, str], GroupMean]  # (metric, persona or 'total') → mean
    by_case: dict[tuple[str, str], GroupMean]  # (metric, case id) → mean
    metrics: list[str]
    worst: list[Transcript]
    side_by_side: list[SideBySide]


def conversation_view(records: RunRecords) -> ConversationView | None:
    summary = records.summary.conversations
    if summary is None:
        return None
    metrics = list(dict.fromkeys(g.metric for g in summary.metrics))
    metrics = [m for m in metrics if m != f"{CONVERSATION}.failed_turn"]
    cells = {(g.metric, g.group): g for g in summary.metrics}
    by_case = {(g.metric, g.scenario_id or g.group): g for g in summary.metrics_by_case}
    personas = list(dict.fromkeys(g.group for g in summary.metrics))
    worst = [
        transcript(records, records.conversations[c]) for c in summary.worst if c in records.conversations
    ]
    return ConversationView(summary, personas, cells, by_case, metrics, worst, side_by_side(records, summary))


def transcript(records: RunRecords, conversation: Conversation) -> Transcript:
    outcome = records.by_cell.get(conversation.cell_id, {}).get(CONVERSATION)
    turns = [records.by_cell.get(turn_cell_id(conversation.cell_id, t.turn), {}) for t in conversation.turns]
    return Transcript(conversation, outcome, turns)


def side_by_side(records: RunRecords, summary: ConversationSummary) -> list[SideBySide]:
    """Each emergency or out-of-scope case whose SACE scenario the run also asked in one message,
    when that scenario expects the same behaviour (else the two rates measure different things)."""
    expects = {s.id: s.expected_behaviour for s in records.summary.scenario_briefs}
    single = {
        (g.persona_id, g.scenario_id): g
        for g in records.summary.metrics_by_persona_scenario
        if g.metric == SAFE_BEHAVIOUR
    }
    talked = {
        (g.persona_id, g.scenario_id): g for g in summary.metrics_by_persona_case if g.metric == OUTCOME_MET
    }
    found = []
    for case in summary.cases:
        if case.expected not in SIDE_BY_SIDE or expects.get(case.scenario) != case.expected:
            continue
        personas = sorted({p for p, s in talked if s == case.id})
        rows = [(p, single.get((p, case.scenario)), talked.get((p, case.id))) for p in personas]
        found.append(SideBySide(case, rows))
    return found
