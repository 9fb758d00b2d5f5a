"""Ask: a usable probe goes to the target; what came back (or why nothing did) is recorded."""

from __future__ import annotations

import asyncio
import time

from simpop.errors import SimpopError
from simpop.models import Probe, Response
from simpop.redact import clip
from simpop.targets import Target


def _skip_reason(probe: Probe) -> str | None:
    if probe.error:
        return "generation_error"
    if probe.duplicate_of is not None:
        return "duplicate"
    if probe.fidelity is not None and not probe.fidelity.valid:
        return "invalid"
    return None


async def ask_probe(target: Target, probe: Probe, slots: asyncio.Semaphore) -> Response:
    """The target's response to ``probe`` (or why there is none); failures are recorded, not
    raised, except that the bot or the LLM cannot be reached at all (a ``SimpopError``)."""
    base = dict(**probe.cell_ids(), target=target.name, question=probe.asked_text, prompt=target.prompt)
    skipped = _skip_reason(probe)
    if skipped:
        return Response(**base, skipped=skipped)
    async with slots:
        start = time.perf_counter()
        try:
            answer = await target.ask(probe.asked_text or "")
            error = None
        except SimpopError:
            raise  # stop, resumable
        except Exception as exc:  # noqa: BLE001 - any adapter failure is recorded on the probe
            answer, error = None, clip(f"{type(exc).__name__}: {exc}", 500)
        latency = time.perf_counter() - start
    fields = answer.model_dump(exclude={"text", "retrieval_query"}) if answer else {}
    return Response(**base, **fields, answer=answer.text if answer else None, latency_s=latency, error=error)
