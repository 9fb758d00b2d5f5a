"""Completeness: how many cells each stage (generate, ask, judge) could not do, and whether a
run lost so many that its figures describe nothing (exit status 3)."""

from __future__ import annotations

from collections import Counter

from simpop.metrics import judged_names
from simpop.metrics.judge import JUDGE_ERROR
from simpop.models import Cell, FailureLimits, Probe, Response, Score, StageFailures


def _commonest(errors: list[str | None]) -> str | None:
    found = Counter(" ".join(e.split())[:200] for e in errors if e)
    return found.most_common(1)[0][0] if found else None


def stage_failures(
    cells: list[Cell], probes: dict[str, Probe], responses: dict[str, Response], scores: list[Score]
) -> list[StageFailures]:
    """Per stage, the cells it had to do and those it lost: probes the LLM could not write; usable
    probes the target could not answer; answered cells where a judge failed."""
    ids = [c.cell_id for c in cells]
    written = [probes[i] for i in ids if i in probes]
    stages = [
        StageFailures(
            stage="generate",
            planned=len(ids),
            failed=sum(1 for p in written if p.error),
            error=_commonest([p.error for p in written]),
        )
    ]
    asked = [responses[i] for i in ids if i in responses and responses[i].skipped is None]
    stages.append(
        StageFailures(
            stage="ask",
            planned=len(asked),
            failed=sum(1 for r in asked if r.error),
            error=_commonest([r.error for r in asked]),
        )
    )
    names = set(judged_names())
    judged = [s for s in scores if s.metric in names and (s.excluded is None or s.excluded == JUDGE_ERROR)]
    if judged:
        failed = [s for s in judged if s.excluded == JUDGE_ERROR]
        stages.append(
            StageFailures(
                stage="judge",
                planned=len({s.cell_id for s in judged}),
                failed=len({s.cell_id for s in failed}),
                error=_commonest([s.error for s in failed]),
            )
        )
    return stages


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
