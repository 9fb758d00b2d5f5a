"""The QAP matcher's threshold, swept over a finished run: at each threshold, how many of the
questions the bot has an answer for it matches correctly, and how many of those it must not
answer (no QAP holds the answer: decline or escalate) it answers anyway.

Every response of a QAP target records its best match and similarity, so the sweep re-decides
each answer offline; nothing is asked again. The suggested threshold maximises Youden's J
(correct share − share of unanswerable questions answered; Youden 1950).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simpop.models import Probe, Response
from simpop.store import RunRecords

THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.3, 0.91, 0.05))
MUST_NOT_ANSWER = ("decline", "escalate")


@dataclass(frozen=True)
class ThresholdRow:
    threshold: float
    correct: float  # of answerable questions: matched to their own QAP
    wrong: float  # of answerable questions: matched to another QAP
    answered_unanswerable: float  # of unanswerable questions: given a QAP's answer

    @property
    def youden(self) -> float:
        return self.correct - self.answered_unanswerable


@dataclass(frozen=True)
class ThresholdSweep:
    rows: list[ThresholdRow]
    answerable: int
    unanswerable: int
    current: float | None

    @property
    def suggested(self) -> ThresholdRow | None:
        if not self.answerable or not self.unanswerable:
            return None
        return max(self.rows, key=lambda r: (round(r.youden, 6), r.threshold))


def _best(response: Response) -> tuple[str | None, float | None]:
    if not response.contexts or response.similarity is None:
        return None, None  # too short to match: no answer at any threshold
    return response.contexts[0].id, response.similarity


def run_sweep(records: RunRecords) -> ThresholdSweep:
    """``sweep_threshold`` over a finished run of a QAP matcher."""
    kind = records.config.target.kind
    if kind != "qap":
        raise ValueError(f"run {records.run_id} is of a {kind} target; only a QAP matcher has a threshold")
    current = getattr(records.config.target, "threshold", None)
    equivalents = records.summary.seed_equivalents
    return sweep_threshold(list(records.probes.values()), records.responses, current, equivalents=equivalents)


def sweep_threshold(
    probes: list[Probe],
    responses: dict[str, Response],
    current: float | None = None,
    thresholds: tuple[float, ...] = THRESHOLDS,
    equivalents: dict[str, list[str]] | None = None,
) -> ThresholdSweep:
    """Re-decide every scored answer at each threshold (``responses`` by cell id); a match to a
    QAP ``equivalents`` names for the seed is right, as QAP-match accuracy counts it."""
    answerable: list[tuple[Probe, str | None, float | None]] = []
    unanswerable: list[float | None] = []
    for probe in probes:
        response = responses.get(probe.cell_id)
        if response is None or response.excluded:
            continue
        best_id, similarity = _best(response)
        if probe.gold_ids and probe.sub_questions is None and probe.expected_behaviour == "answer":
            answerable.append((probe, best_id, similarity))
        elif probe.expected_behaviour in MUST_NOT_ANSWER:
            unanswerable.append(similarity)
    rows = []
    for t in thresholds:
        matched = [(p, b) for p, b, s in answerable if s is not None and s >= t]
        correct = sum(
            1 for p, b in matched if b in [*(p.gold_ids or []), *(equivalents or {}).get(p.seed_id, [])]
        )
        answered = sum(1 for s in unanswerable if s is not None and s >= t)
        rows.append(
            ThresholdRow(
                threshold=t,
                correct=correct / len(answerable) if answerable else 0.0,
                wrong=(len(matched) - correct) / len(answerable) if answerable else 0.0,
                answered_unanswerable=answered / len(unanswerable) if unanswerable else 0.0,
            )
        )
    return ThresholdSweep(rows, len(answerable), len(unanswerable), current)
