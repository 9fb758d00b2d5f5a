"""Explain (issue 18): the judge's reasons for the verdicts a report shows, and no others.

Scoring asks for no reasons. At the end of a run, the judged metrics of the probes that went
worst per scenario (``aggregate.worst_cells``, the ones the report shows in full) and of every
turn of the worst conversations are scored again with reasons on: the verdicts come again from
the LLM cache, and only the reasons for failing verdicts are new calls (each a short reply
after the verdict, in the same conversation). Writing a reason costs more than deciding the
verdict, so asking for every failing verdict of a run took over half the judges' time.

The scores with reasons go to ``explained.jsonl``; ``store.load_run`` shows a reason only where
its verdicts are the run's own."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Protocol

from rich.progress import Progress

from simpop.aggregate import EXAMPLES_PER_SCENARIO, metric_values, worst_cells
from simpop.metrics import Case, Metric, Scorers
from simpop.models import Conversation, Probe, Response, Score
from simpop.run.conversation_summary import ConversationTally
from simpop.run.converse import turn_case
from simpop.run.plan import RunInputs
from simpop.run.score import judge_case
from simpop.run.tasks import REASONS, gather_all, stage_progress
from simpop.store import JsonlLog


def shown_cases(
    inputs: RunInputs,
    logs: tuple[JsonlLog[Probe], JsonlLog[Response], JsonlLog[Score], JsonlLog[Conversation]],
    target: str,
) -> Iterator[Case]:
    """The cases a report shows with the judges' reasons: the worst probes of each scenario,
    then every bot turn of the worst conversations."""
    probes, responses, scores, conversations = logs
    values: dict[str, dict[str, float]] = {}
    talks = ConversationTally(inputs)
    for score in scores.scan():
        if not talks.add(score) and not score.excluded:
            values.setdefault(score.cell_id, {}).update(
                (k, v) for k, v in metric_values(score).items() if v is not None
            )
    asked = [(r.cell_id, r.scenario_id) for r in responses.scan() if r.question is not None and not r.skipped]
    for cells in worst_cells(asked, values, EXAMPLES_PER_SCENARIO).values():
        for cell in cells:
            probe, response = probes.get(cell), responses.get(cell)
            if probe is not None and response is not None:
                yield inputs.case(probe, response)
    for cell in talks.worst():
        conversation = conversations.get(cell)
        if conversation is not None:
            case = inputs.cases[conversation.scenario_id]
            yield from (turn_case(conversation, turn, case, target) for turn in conversation.turns)


class ScoreLookup(Protocol):
    def get(self, key: str, /) -> Score | None: ...


async def explain(
    cases: Iterable[Case],
    scores: ScoreLookup,
    explained: JsonlLog[Score],
    scorers: Scorers,
    metrics: list[Metric],
    *,
    slots: asyncio.Semaphore,
    progress: Progress | None = None,
) -> None:
    """Score the judged metrics of ``cases`` again with reasons into ``explained`` (``scores``:
    the run's scores by cell and metric); a case whose judged scores are all explained already
    is skipped, so a resumed run goes on."""
    assert scorers.judge is not None
    explaining = replace(scorers, judge=replace(scorers.judge, reasons=True))
    judged = [m for m in metrics if m.judged]

    def keys(case: Case) -> list[str]:
        found = (scores.get(f"{case.probe.cell_id}/{m.name}") for m in judged)
        return [f"{s.cell_id}/{s.metric}" for s in found if s is not None and not s.excluded]

    shown = [c for c in cases if keys(c)]
    todo = [c for c in shown if not all(k in explained for k in keys(c))]
    advance = stage_progress(progress, "explain verdicts", len(shown), len(shown) - len(todo), REASONS)

    async def one(case: Case) -> None:
        cell = case.probe.cell_id
        plain = {m.name: s for m in metrics if not m.judged and (s := scores.get(f"{cell}/{m.name}"))}
        # only what the run scored: a conversation turn has no faithfulness unless asked for
        again = [m for m in judged if scores.get(f"{cell}/{m.name}") is not None]
        async with slots:
            for score in await judge_case(case, again, explaining, plain):
                if not score.excluded:
                    explained.append(score)
        advance()

    await gather_all(one(c) for c in todo)
