"""A sequential run's rounds (``rounds.jsonl``, issue 72): the units each round chose, and once
it was run, every rule's decision after it; a killed run is resumed from them."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from simpop.models import Record
from simpop.sequential.allocation import Unit
from simpop.sequential.decision import Decision
from simpop.store import JsonlLog

ROUNDS_FILE = "rounds.jsonl"


class RuleStanding(Record):
    """One rule after a round: its decision and its groups' counts."""

    rule: int
    metric: str
    decision: Decision
    n: int = Field(description="values of the rule's metric so far, over its groups")
    undecided: list[str] = Field([], description="its groups still undecided")
    failed: list[str] = Field([], description="its groups failed")
    bounds: dict[str, tuple[float, float]] = Field(
        {}, description="each group's confidence sequence interval after the round"
    )


class GateRound(Record):
    """A round chosen (its units), or a round decided (every rule's standing after it)."""

    round: int = Field(ge=0)
    stage: Literal["chosen", "decided"]
    units: list[tuple[str, str, str]] = Field([], description="persona, scenario, cell id of each cell")
    cells: int = Field(0, description="cells run so far, this round's included")
    planned: int = Field(0, description="cells of the whole plan (the fixed grid's)")
    groups: int | None = Field(
        None, description="round 0: the plan's rule groups, a fail's error is shared among"
    )
    rules: list[RuleStanding] = []
    seconds: float | None = Field(None, description="the run's seconds when the round was decided")

    @property
    def key(self) -> str:
        return f"{self.round}/{self.stage}"


def rounds_log(path: Path) -> JsonlLog[GateRound]:
    """A run's ``rounds.jsonl``, loaded."""
    log = JsonlLog(path, GateRound, key=lambda r: r.key)
    log.load()
    return log


def in_order(log: JsonlLog[GateRound]) -> list[GateRound]:
    """The rounds of a log, each chosen record before its decided one."""
    return sorted(log.records.values(), key=lambda r: (r.round, r.stage == "decided"))


def rounds_of(path: Path) -> list[GateRound]:
    """The rounds of a run's ``rounds.jsonl``, in order; none where it has none."""
    return in_order(rounds_log(path)) if path.is_file() else []


def rounds_lines(rounds: list[GateRound], error: float) -> list[str]:
    """What a sequential run's rounds decided, in words: after how many cells each rule was
    decided, or that it was not."""
    decided = [r for r in rounds if r.stage == "decided"]
    if not decided:
        return []
    last, planned = decided[-1], max(r.planned for r in rounds) or decided[-1].cells
    lines = [
        f"sequential gate: {len(decided)} round{'s' * (len(decided) != 1)}, {last.cells} of {planned} "
        f"planned cells ({last.cells / planned:.0%}); each group decided on its confidence sequence at "
        f"error {error:g}"
    ]
    for standing in last.rules:
        first = next(r for r in decided if _standing(r, standing.rule).decision == standing.decision)
        when = f"after {first.cells} cells (round {first.round})"
        if standing.decision == "undecided":
            when = f"still after {last.cells} cells: {', '.join(standing.undecided)} undecided"
        lines.append(f"  rule {standing.rule} {standing.metric}: {standing.decision} {when}")
    return lines


def _standing(round_: GateRound, rule: int) -> RuleStanding:
    return next(s for s in round_.rules if s.rule == rule)


def chosen_units(rounds: list[GateRound]) -> list[Unit]:
    """Every cell a round has chosen, in the order chosen."""
    return [Unit(tuple(key)) for r in rounds if r.stage == "chosen" for key in r.units]
