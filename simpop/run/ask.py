"""Ask: every usable probe goes to the target; what came back (or why nothing did) is recorded."""

from __future__ import annotations

import asyncio
import time

from rich.progress import Progress

from simpop.errors import SimpopError
from simpop.models import Cell, Probe, Response
from simpop.run.tasks import gather_all, stage_progress
from simpop.store import JsonlLog
from simpop.targets import Target


def _skip_reason(probe: Probe) -> str | None:
    if probe.error:
        return "generation_error"
    if probe.duplicate_of is not None:
        return "duplicate"
    if probe.fidelity is not None and not probe.fidelity.valid:
        return "invalid"
    return None


async def ask_target(
    target: Target,
    cells: list[Cell],
    probes: JsonlLog[Probe],
    responses: JsonlLog[Response],
    concurrency: int,
    progress: Progress | None = None,
) -> None:
    """Ask the target every probe that has no response yet; failures are recorded, not raised."""
    todo = [c for c in cells if c.cell_id not in responses.records]
    advance = stage_progress(progress, f"ask {target.name}", len(cells), len(cells) - len(todo))
    semaphore = asyncio.Semaphore(concurrency)

    async def one(cell: Cell) -> None:
        probe = probes.records[cell.cell_id]
        base = dict(**probe.cell_ids(), target=target.name, question=probe.asked_text, prompt=target.prompt)
        skipped = _skip_reason(probe)
        if skipped:
            responses.append(Response(**base, skipped=skipped))
            advance()
            return
        async with semaphore:
            start = time.perf_counter()
            try:
                answer = await target.ask(probe.asked_text or "")
                error = None
            except SimpopError:
                raise  # the bot or the LLM cannot be reached at all: stop, resumable
            except Exception as exc:  # noqa: BLE001 - any adapter failure is recorded on the probe
                answer, error = None, f"{type(exc).__name__}: {exc}"[:500]
            latency = time.perf_counter() - start
        fields = answer.model_dump() if answer else {}
        fields.pop("text", None)
        responses.append(
            Response(**base, **fields, answer=answer.text if answer else None, latency_s=latency, error=error)
        )
        advance()

    await gather_all([one(cell) for cell in todo])
