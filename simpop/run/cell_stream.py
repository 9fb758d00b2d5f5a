"""The cell stream: each cell goes on to the bot and to scoring as soon as its probe is
written, so generation, asking, judging and the embedding metrics overlap."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from rich.progress import Progress

from simpop.llm import LLMClient
from simpop.metrics import Metric, Scorers
from simpop.models import Cell, Probe, Response, Score
from simpop.run.ask import ask_probe
from simpop.run.plan import RunInputs
from simpop.run.score import score_case
from simpop.run.tasks import BOT_ANSWERS, JUDGES, first_failure, stage_progress
from simpop.store import JsonlLog
from simpop.targets import Target

# cells on their way per slot of the target or the judge
BACKLOG_PER_SLOT = 4


class CellStream:
    """Each cell goes on to the target and to scoring as soon as its probe is recorded, so
    generation, asking, judging and the embedding metrics overlap; a cell's records are
    written as it finishes, one per cell, so a resumed run picks up where this one stopped."""

    def __init__(
        self,
        inputs: RunInputs,
        logs: tuple[JsonlLog[Probe], JsonlLog[Response], JsonlLog[Score]],
        target: Target,
        scorers: Scorers,
        *,
        metrics: list[Metric],
        ask_slots: int,
        judge_slots: int,
        progress: Progress | None,
    ) -> None:
        self.inputs = inputs
        self.probes, self.responses, self.scores = logs
        self.target = target
        self.scorers = scorers
        self.metrics = metrics
        self.ask_slots = asyncio.Semaphore(ask_slots)
        self.judge_slots = asyncio.Semaphore(judge_slots)
        cells = inputs.cells
        asked = sum(c.cell_id in self.responses for c in cells)
        self.asked = stage_progress(progress, f"ask {target.name}", len(cells), asked, BOT_ANSWERS)
        scored = sum(not self._missing(c) for c in cells)
        self.scored = stage_progress(progress, "score answers", len(cells), scored, JUDGES)
        # cells on their way at most: generation waits for room, so a run holds a bounded
        # number of cells in memory however many it has
        self.room = asyncio.Semaphore(BACKLOG_PER_SLOT * max(ask_slots, judge_slots))
        self.tasks: asyncio.TaskGroup | None = None

    def _done(self, cell: Cell) -> dict[str, Score]:
        found = ((m.name, self.scores.get(f"{cell.cell_id}/{m.name}")) for m in self.metrics)
        return {name: score for name, score in found if score is not None}

    def _missing(self, cell: Cell) -> bool:
        response = self.responses.get(cell.cell_id)
        if response is None:
            return True
        done = self._done(cell)
        case = self.inputs.case(self.probes.get(cell.cell_id), response)  # type: ignore[arg-type]
        return any(m.applies(case) and m.name not in done for m in self.metrics)

    async def follow(self, cell: Cell, probe: Probe | None = None) -> None:
        """Start ``cell`` on its way (its probe is recorded), once there is room."""
        await self.room.acquire()
        assert self.tasks is not None, "follow() is called by the generation that run() runs"
        self.tasks.create_task(self._finish(cell, probe))

    async def _finish(self, cell: Cell, probe: Probe | None) -> None:
        try:
            probe = probe or self.probes.get(cell.cell_id)
            assert probe is not None
            response = self.responses.get(cell.cell_id)
            if response is None:
                response = await ask_probe(self.target, probe, self.ask_slots)
                self.responses.append(response)
                self.asked()
            case = self.inputs.case(probe, response)
            new = await score_case(case, self.metrics, self.scorers, self._done(cell), self.judge_slots)
            for score in new:
                self.scores.append(score)
            if new:
                self.scored()
        finally:
            self.room.release()

    async def run(self, generation: Coroutine[Any, Any, None]) -> None:
        """Run ``generation`` (which calls ``follow`` for the probes it writes) and every cell
        to the end; the first failure cancels the rest and is raised."""
        async with first_failure() as self.tasks:
            self.tasks.create_task(generation)


def judge_slots(judge: LLMClient) -> int:
    """Answers judged at once: the judge's concurrency, or one on the embedded server."""
    return judge.config.concurrency if judge.endpoint.judges_in_parallel else 1
