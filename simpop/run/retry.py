"""Retry what failed: take a run's failed records out of its logs, so that ``--resume`` does
those cells again and keeps everything that worked (as Inspect AI's ``eval-retry`` re-runs a
log's failed samples). Failed are: probes the LLM could not write, answers the bot could not
give, judge verdicts that never came, and conversations an error stopped (they go on from the
last turn that worked; one with a turn a judge failed on is scored again, its outcome too)."""

from __future__ import annotations

from simpop.metrics.conversation_outcome import CONVERSATION
from simpop.metrics.judge import JUDGE_ERROR
from simpop.models import Conversation, ConversationTurn, Probe, Response, Score
from simpop.store import (
    CONVERSATIONS_FILE,
    PROBES_FILE,
    RESPONSES_FILE,
    SCORES_FILE,
    TURNS_FILE,
    RunStore,
    score_key,
)


def _conversation_of(cell_id: str) -> str:
    """The conversation cell id of a turn's score (``<id>/t<n>``), or the id itself."""
    return cell_id.split("/t", 1)[0]


def drop_failed(store: RunStore) -> dict[str, int]:
    """Take the failed records out of ``store``'s logs; how many of each kind went.

    Scores go first and the records they were made from last, so a kill part way leaves no
    score of an answer that will be asked again, and a second call finds what is left."""
    probes = store.log(PROBES_FILE, Probe, keep=False)
    responses = store.log(RESPONSES_FILE, Response, keep=False)
    conversations = store.log(CONVERSATIONS_FILE, Conversation, keep=False)
    unwritten = {p.cell_id for p in probes.scan() if p.error}
    unanswered = {r.cell_id for r in responses.scan() if r.error} | unwritten
    # a conversation stopped by an error: the turn the bot failed on and any after it go too
    stopped: dict[str, int | None] = {}
    for conversation in conversations.scan():
        if conversation.ending == "error":
            failed = next((t.turn for t in conversation.turns if t.error), None)
            stopped[conversation.cell_id] = failed

    scores = store.log(SCORES_FILE, Score, key=score_key, keep=False)
    # a conversation is scored again only when its outcome is missing: take it out too
    rejudged = {_conversation_of(s.cell_id) for s in scores.scan() if s.excluded == JUDGE_ERROR}

    def score_failed(score: Score) -> bool:
        talk = _conversation_of(score.cell_id)
        return (
            score.excluded == JUDGE_ERROR
            or score.cell_id in unanswered
            or talk in stopped
            or (talk in rejudged and score.metric == CONVERSATION)
        )

    def turn_failed(turn: ConversationTurn) -> bool:
        failed = stopped.get(turn.cell_id)
        return failed is not None and turn.turn >= failed

    verdicts = scores.drop(score_failed)
    dropped = {
        "conversations": conversations.drop(lambda c: c.cell_id in stopped),
        "turns": store.log(TURNS_FILE, ConversationTurn, key=lambda t: t.key, keep=False).drop(turn_failed),
        "answers": responses.drop(lambda r: r.cell_id in unanswered),
        "probes": probes.drop(lambda p: p.cell_id in unwritten),
        "scores": verdicts,
    }
    for log in (probes, responses, conversations, scores):
        log.close()
    return dropped


def retry_line(dropped: dict[str, int]) -> str:
    """What ``drop_failed`` took out, for the console."""
    done = [f"{n} {kind}" for kind, n in dropped.items() if n]
    if not done:
        return "retry: nothing had failed"
    return "retry: taken out to do again: " + ", ".join(done)
