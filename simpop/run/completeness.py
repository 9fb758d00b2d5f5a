"""Completeness: how many cells each stage (generate, ask, judge) could not do, and whether a
run lost so many that its figures describe nothing (exit status 3)."""

from __future__ import annotations

import sys
from collections import Counter

from simpop.metrics import judged_names
from simpop.metrics.judge import JUDGE_ERROR
from simpop.models import (
    FailureLimits,
    GroupMean,
    Probe,
    QAPAccuracy,
    Response,
    Score,
    StageFailures,
    Untested,
)
from simpop.population.cells import VARIANT_SCENARIO
from simpop.redact import clip


class StageTally:
    """Per stage, the cells it had to do and those it lost, counted one record at a time:
    probes the LLM could not write; usable probes the target could not answer; answered cells
    where a judge failed."""

    def __init__(self) -> None:
        self.written = self.written_failed = self.asked = self.asked_failed = 0
        self.errors: dict[str, Counter[str]] = {"generate": Counter(), "ask": Counter(), "judge": Counter()}
        self.judged: set[str] = set()
        self.judge_failed: set[str] = set()
        self.judged_names = set(judged_names())

    def _error(self, stage: str, error: str | None) -> None:
        if error:
            self.errors[stage][clip(" ".join(error.split()), 200)] += 1

    def probe(self, probe: Probe) -> None:
        self.written += 1
        self.written_failed += bool(probe.error)
        self._error("generate", probe.error)

    def response(self, response: Response) -> None:
        if response.skipped is None:
            self.asked += 1
            self.asked_failed += bool(response.error)
            self._error("ask", response.error)

    def score(self, score: Score) -> None:
        if score.metric in self.judged_names and score.excluded in (None, JUDGE_ERROR):
            self.judged.add(sys.intern(score.cell_id))
            if score.excluded == JUDGE_ERROR:
                self.judge_failed.add(sys.intern(score.cell_id))
                self._error("judge", score.error)

    def stages(self, planned: int) -> list[StageFailures]:
        """The stages of a run of ``planned`` cells (judge only when something was judged)."""
        stages = [
            StageFailures(
                stage="generate",
                planned=planned,
                failed=self.written_failed,
                error=self._commonest("generate"),
            ),
            StageFailures(
                stage="ask", planned=self.asked, failed=self.asked_failed, error=self._commonest("ask")
            ),
        ]
        if self.judged:
            stages.append(
                StageFailures(
                    stage="judge",
                    planned=len(self.judged),
                    failed=len(self.judge_failed),
                    error=self._commonest("judge"),
                )
            )
        return stages

    def _commonest(self, stage: str) -> str | None:
        """The commonest error (the first in sorted order of those as common: the same
        whatever order the cells finished in)."""
        found = self.errors[stage]
        return min(found, key=lambda error: (-found[error], error)) if found else None


def _lost(stages: list[StageFailures], limits: FailureLimits) -> list[StageFailures]:
    return [s for s in stages if s.planned and s.failed and s.share >= limits.incomplete_at]


def is_incomplete(stages: list[StageFailures], limits: FailureLimits) -> bool:
    """A stage with cells to do lost at least ``limits.incomplete_at`` of them."""
    return bool(_lost(stages, limits))


def incomplete_reason(stages: list[StageFailures], limits: FailureLimits) -> str:
    """Which stages lost too much, and the commonest error of the first."""
    lost = _lost(stages, limits)
    text = ", ".join(f"the {s.stage} stage lost {s.failed} of {s.planned} cells" for s in lost)
    return text + (f" ({lost[0].error})" if lost and lost[0].error else "")


def failure_lines(stages: list[StageFailures], limits: FailureLimits) -> list[str]:
    """One line per stage that lost more than ``limits.warn_above`` of its cells."""
    return [
        f"{s.stage} stage lost {s.failed} of {s.planned} cells ({s.share:.0%})"
        + (f"; commonest error: {s.error}" if s.error else "")
        for s in stages
        if s.planned and s.failed and s.share > limits.warn_above
    ]


Group = tuple[str, str]  # ("scenario" | "persona", id)


def tested_groups(
    by_persona: list[GroupMean], by_scenario: list[GroupMean], accuracy: QAPAccuracy | None
) -> set[Group]:
    """The scenarios and personas with at least one scored cell."""
    tested = {("scenario", row.scenario_id) for row in by_scenario if row.n and row.scenario_id}
    tested |= {("persona", row.persona_id) for row in by_persona if row.n and row.persona_id}
    if accuracy is not None:  # a QAP bot asked its own questions
        tested |= {("persona", row.group) for row in accuracy.personas if row.n}
        if accuracy.total.n:
            tested.add(("scenario", VARIANT_SCENARIO))
    return tested


def untested(
    planned: dict[Group, int], tested: set[Group], not_scored: dict[Group, Counter[str]]
) -> list[Untested]:
    """The scenarios and personas, in plan order, with planned cells of which none was scored
    (every probe unusable, unanswered or excluded): what the run did not test."""
    return [
        Untested(
            kind=kind, id=name, planned=n, not_scored=dict(sorted(not_scored.get((kind, name), {}).items()))
        )
        for (kind, name), n in planned.items()
        if n and (kind, name) not in tested
    ]
