"""A run: plan (``plan.load_inputs``), then generate, ask and score as a stream of cells, then
summarise. Every stage reads the records of the one before and resumes where it stopped."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from contextlib import nullcontext, suppress
from datetime import datetime, timezone
from typing import Any

from rich.progress import Progress

from simpop.embed import Embedder
from simpop.judging.profile import profile_for
from simpop.judging.safety_classifier import run_classifiers, run_validation
from simpop.judging.verifier import support_verifier
from simpop.llm import LLMClient, open_llm
from simpop.llm.client import yes_no_mode
from simpop.llm.pace import record_client_pace
from simpop.metrics import Scorers, registered
from simpop.metrics.judge import Judge
from simpop.models import (
    DEFAULT_EMBEDDING_MODEL,
    Cell,
    Conversation,
    ConversationTurn,
    Invocation,
    Probe,
    Response,
    RunConfig,
    RunSummary,
    Score,
)
from simpop.run.ask import ask_probe
from simpop.run.converse import Conversations
from simpop.run.explain import explain, shown_cases
from simpop.run.generate import generate_probes
from simpop.run.plan import RunInputs
from simpop.run.score import score_case
from simpop.run.summarise import summarise
from simpop.run.tasks import first_failure, stage_progress
from simpop.store import (
    CONVERSATIONS_FILE,
    EXPLAINED_FILE,
    PROBES_FILE,
    RESPONSES_FILE,
    SCORES_FILE,
    SUMMARY_FILE,
    TURNS_FILE,
    JsonlLog,
    RunStore,
    score_key,
)
from simpop.targets import BotResources, Target, build_target

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
        judges: bool,
        ask_slots: int,
        judge_slots: int,
        progress: Progress | None,
    ) -> None:
        self.inputs = inputs
        self.probes, self.responses, self.scores = logs
        self.target = target
        self.scorers = scorers
        self.metrics = [m for m in registered() if judges or not m.judged]
        self.ask_slots = asyncio.Semaphore(ask_slots)
        self.judge_slots = asyncio.Semaphore(judge_slots)
        cells = inputs.cells
        asked = sum(c.cell_id in self.responses for c in cells)
        self.asked = stage_progress(progress, f"ask {target.name}", len(cells), asked)
        scored = sum(not self._missing(c) for c in cells)
        self.scored = stage_progress(progress, "score answers", len(cells), scored)
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


async def execute(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    *,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> RunSummary:
    """Run (or resume) every stage of ``config`` into ``store`` and write ``summary.json``.

    With ``config.stream`` (the default) the stages overlap cell by cell; without it every
    probe is written before the first is asked. The records are the same either way."""
    started = time.perf_counter()
    invocations = store.invocations()
    begun = datetime.now(timezone.utc).isoformat()

    def invocation(finished: bool) -> Invocation:
        """This invocation, as long as it has taken so far."""
        return Invocation(started=begun, seconds=round(time.perf_counter() - started, 3), finished=finished)

    llm = open_llm(config.llm, use_cache=use_cache)
    # records go to disk and stay there: the stream passes each cell's along, the summary
    # reads the files
    probes = store.log(PROBES_FILE, Probe, keep=False)
    responses = store.log(RESPONSES_FILE, Response, keep=False)
    scores = store.log(SCORES_FILE, Score, key=score_key, keep=False)
    turns = store.log(TURNS_FILE, ConversationTurn, key=lambda t: t.key, keep=False)
    conversations = store.log(CONVERSATIONS_FILE, Conversation, keep=False)
    explained = store.log(EXPLAINED_FILE, Score, key=score_key, keep=False)
    embedder = Embedder(config.embedding)
    features = embedder  # the judges' own embedding model (below)
    target: Target | None = None
    judge_llm: LLMClient | None = None
    try:
        with progress if progress is not None else nullcontext():
            target = build_target(config.target, BotResources(embedder, llm, config.name, use_cache))
            scorers = Scorers(embedder, config.scoring)
            if config.scoring.judges:
                judge_llm = llm if config.judge is None else open_llm(config.judge, use_cache=use_cache)
                scorers.judge = Judge(
                    judge_llm,
                    model=judge_llm.config.model,
                    seed=config.seed,
                    max_tokens=config.scoring.judge_max_tokens,
                    reasons=False,  # only for the verdicts a report shows, by ``explain`` at the end
                )
                # the verifier and the safety classifiers were fitted on the built-in model's vectors
                if embedder.model_id != DEFAULT_EMBEDDING_MODEL:
                    features = Embedder()
                scorers.judge.verifier = support_verifier(
                    scorers.judge.profile, config.scoring.verifier, features
                )
                scorers.judge.classifiers = run_classifiers(scorers.judge.profile, config.scoring, features)
            stream = CellStream(
                inputs,
                (probes, responses, scores),
                target,
                scorers,
                judges=config.scoring.judges,
                ask_slots=config.llm.concurrency,
                judge_slots=judge_slots(judge_llm or llm),
                progress=progress,
            )

            async def generation() -> None:
                if config.stream:  # the cells a resumed run had written probes for
                    for cell in inputs.cells:
                        if cell.cell_id in probes:
                            await stream.follow(cell)
                await generate_probes(
                    store.run_id,
                    inputs,
                    llm,
                    embedder,
                    probes,
                    run_seed=config.seed,
                    min_similarity=config.min_similarity,
                    chunk_min_similarity=config.topics.min_similarity,
                    progress=progress,
                    written=stream.follow if config.stream else None,
                )
                if not config.stream:  # every probe first, then the rest
                    for cell in inputs.cells:
                        await stream.follow(cell)

            await stream.run(generation())
            if inputs.conversations:
                await Conversations(
                    store.run_id,
                    inputs,
                    (turns, conversations, scores),
                    llm,
                    target,
                    scorers,
                    stream.metrics,
                    run_seed=config.seed,
                    ask_slots=stream.ask_slots,
                    judge_slots=stream.judge_slots,
                    progress=progress,
                ).run(config.llm.concurrency)
            if scorers.judge is not None and config.scoring.judge_reasons:
                await explain(
                    shown_cases(inputs, (probes, responses, scores, conversations), target.name),
                    scores,
                    explained,
                    scorers,
                    stream.metrics,
                    slots=stream.judge_slots,
                    progress=progress,
                )
    except BaseException:  # stopped (Ctrl-C) or failed: its time still counts in the whole run's
        invocations.append(invocation(finished=False))
        raise
    finally:
        for log in (probes, responses, scores, turns, conversations, explained, invocations):
            log.close()
        if target is not None:
            await target.aclose()
        for client in dict.fromkeys([llm, judge_llm]):
            if client is not None:
                await client.aclose()
                client.endpoint.close()
                with suppress(OSError):  # the pace is a cache for estimates: never fail a run
                    record_client_pace(client)
        for model in dict.fromkeys([embedder, features]):
            model.close()
    this = invocation(finished=True)
    earlier = sum(i.seconds for i in invocations.records.values())
    summary = summarise(
        store,
        inputs,
        probes,
        responses,
        scores,
        target=config.name,
        target_kind=config.target.kind,
        judge_model=(config.judge or config.llm).model,
        judge_usage=judge_llm.usage if judge_llm is not None and judge_llm is not llm else None,
        judge_yes_no=yes_no_mode(judge_llm),
        allocation=config.topics.allocation,
        limits=config.failures,
        seed=config.seed,
        usage=llm.usage,
        duration_s=round(earlier + this.seconds, 3),
        invocations=len(invocations.records) + 1,
        conversations=conversations,
        verdicts=run_validation(profile_for((config.judge or config.llm).model), config.scoring),
    )
    store.write(SUMMARY_FILE, summary)
    invocations.append(this)
    invocations.close()
    return summary
