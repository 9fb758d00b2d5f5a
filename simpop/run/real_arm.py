"""The real-patients arm (issue 71): real messages a team has (a pilot's, a public set's), asked of
the bot exactly as the probes are and scored by the same metrics, into records of their own
(``real_probes.jsonl``, ``real_responses.jsonl``, ``real_scores.jsonl``), so that no simulated
figure mixes with them. The summary sets each metric's real figure beside the simulated one,
with the gap and the real figure corrected by the simulation (``simpop.validity.corrected``).
No LLM is called for a real message beyond the bot's own and the judges'."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass

from rich.progress import Progress

from simpop.aggregate import is_rate, mean, metric_values
from simpop.config import load_qaps, load_real_patients
from simpop.errors import ConfigError
from simpop.metrics import Case, Metric, Scorers
from simpop.models import (
    Probe,
    RealMessage,
    RealPatientsSummary,
    Response,
    RunConfig,
    Score,
)
from simpop.population.cells import NO_SEED, cell_id
from simpop.population.gold import equivalent_qaps
from simpop.run.ask import ask_probe
from simpop.run.score import score_case
from simpop.run.seeds import seed_file
from simpop.run.tasks import stage_progress
from simpop.store import JsonlLog, RunStore, score_key
from simpop.targets import Target
from simpop.validity.predictive import RealValues, SimulatedValues, predictive
from simpop.validity.predictor import Reply

REAL = "real-patients"  # the persona and scenario id its records carry
GROUP = "real patients"


@dataclass(frozen=True)
class RealCell:
    """A real message as a cell: its probe, the reference answer and the QAPs a match to which
    is right (any of its seeds, and their equivalents in the bot's catalogue)."""

    message: RealMessage
    probe: Probe
    reference: str | None
    accepted: tuple[str, ...]


def plan_real(config: RunConfig, own: bool) -> list[RealCell]:
    """The real messages of ``config.real_patients`` as cells (``own``: the run's seeds are the
    bot's own QAPs); a ConfigError for a seed id that is none of the run's QAPs (checked before
    any work)."""
    if config.real_patients is None:
        return []
    messages = load_real_patients(config.real_patients)
    if config.seeds is None and config.target.own_qaps() is None:
        raise ConfigError(
            "field 'real_patients': its seed_ids name QAPs: give the run `seeds` (a QAP file), "
            "or use a bot with QAPs of its own"
        )
    # a pilot's messages ask about any of the bot's QAPs, not only the ones the patients rephrase
    file = (config.target.own_qaps() if own else None) or seed_file(config)
    qaps = {q.id: q for q in load_qaps(file)}
    same = equivalent_qaps(list(qaps.values())) if own else {}
    cells = []
    for index, message in enumerate(messages):
        unknown = [i for i in message.seed_ids if i not in qaps]
        if unknown:
            raise ConfigError(
                f"{config.real_patients}: message '{message.id}': field 'seed_ids': '{unknown[0]}' is "
                f"none of the QAPs of {file}"
            )
        first = message.seed_ids[0] if message.seed_ids else NO_SEED
        accepted = tuple(dict.fromkeys(i for s in message.seed_ids for i in (s, *same.get(s, ()))))
        probe = Probe(
            run_id="",  # the run's, once it has one (ask_real)
            cell_id=cell_id(REAL, REAL, message.id, index),
            persona_id=REAL,
            scenario_id=REAL,
            seed_id=first,
            variant=index,
            text=message.message,
            expected_behaviour=message.expected,
            question_type="clinical",
            seed_text=qaps[first].question if message.seed_ids else None,
            sampling_seed=0,
            prompt=REAL,
            llm_model="-",
            gold_ids=list(message.seed_ids) if own and message.seed_ids else None,
        )
        reference = qaps[first].answer if message.seed_ids else None
        cells.append(RealCell(message, probe, reference, accepted if own else ()))
    return cells


PROBES_FILE, RESPONSES_FILE, SCORES_FILE = "real_probes.jsonl", "real_responses.jsonl", "real_scores.jsonl"


@dataclass
class RealLogs:
    """The arm's own record files."""

    probes: JsonlLog[Probe]
    responses: JsonlLog[Response]
    scores: JsonlLog[Score]

    @classmethod
    def open(cls, store: RunStore) -> RealLogs:
        return cls(
            store.log(PROBES_FILE, Probe),
            store.log(RESPONSES_FILE, Response),
            store.log(SCORES_FILE, Score, key=score_key),
        )

    def close(self) -> None:
        for log in (self.probes, self.responses, self.scores):
            log.close()


async def ask_real(
    store: RunStore,
    cells: list[RealCell],
    target: Target,
    scorers: Scorers,
    metrics: list[Metric],
    own_seed: bool,
    slots: tuple[asyncio.Semaphore, asyncio.Semaphore],
    progress: Progress | None = None,
) -> None:
    """Ask and score each real message not yet done (a resumed run asks none twice), into the
    arm's own records."""
    logs = RealLogs.open(store)
    advance = stage_progress(progress, "ask real patients", len(cells), 0)
    ask_slots, judge_slots = slots

    async def one(cell: RealCell) -> None:
        probe = cell.probe.model_copy(update={"run_id": store.run_id})
        if probe.cell_id not in logs.probes:
            logs.probes.append(probe)
        response = logs.responses.get(probe.cell_id)
        if response is None:
            response = await ask_probe(target, probe, ask_slots)
            logs.responses.append(response)
        found = ((m.name, logs.scores.get(f"{probe.cell_id}/{m.name}")) for m in metrics)
        done = {name: score for name, score in found if score is not None}
        case = _case(cell, probe, response, own_seed)
        for score in await score_case(case, metrics, scorers, done, judge_slots):
            logs.scores.append(score)
        advance()

    try:
        await asyncio.gather(*(one(c) for c in cells))
    finally:
        logs.close()


def _case(cell: RealCell, probe: Probe, response: Response, own_seed: bool) -> Case:
    return Case(
        probe=probe,
        response=response,
        source="qap" if cell.message.expected == "answer" else "generate",
        reference=cell.reference,
        own_seed=own_seed and bool(cell.message.seed_ids),  # an unlabelled message has no right QAP
        equivalent=cell.accepted,
    )


def reply_of(response: Response | None) -> Reply | None:
    """What the bot did with a message, as the predictor sees it (``None``: not asked)."""
    if response is None or response.excluded:
        return None
    scores = sorted((c.score for c in response.contexts if c.score is not None), reverse=True)
    margin = round(scores[0] - scores[1], 6) if len(scores) > 1 else None
    return Reply(
        response.answer is not None and response.no_answer_reason is None, response.similarity, margin
    )


def real_summary(
    store: RunStore,
    cells: list[RealCell],
    simulated: SimulatedValues,
    file: str,
    seed: int = 0,
) -> RealPatientsSummary:
    """Each metric over the real messages, beside its simulated figure over the simulated
    patients' rephrasings of the seeds: the gap, the figure predicted from the bot's replies to
    the real messages, and the real figure corrected by the simulation
    (``simpop.validity.predictive``)."""
    logs = RealLogs.open(store)
    replies = {c.probe.cell_id: reply_of(logs.responses.get(c.probe.cell_id)) for c in cells}
    values: dict[str, list[tuple[str, float, Reply | None]]] = defaultdict(list)
    valued: dict[str, set[str]] = defaultdict(set)
    for score in logs.scores.scan():
        for name, value in metric_values(score).items():
            if value is not None and not score.excluded:
                values[name].append((score.seed_id, value, replies.get(score.cell_id)))
                valued[name].add(score.cell_id)
    metrics, figures = [], []
    for name in sorted(values):
        found = [v for _, v, _ in values[name]]
        real = mean(found, GROUP, name, is_rate(found), seed=seed)
        metrics.append(real)
        every = [v for by in simulated.by_seed.get(name, {}).values() for v in by]
        if every:
            unlabelled = [r for cell, r in replies.items() if r is not None and cell not in valued[name]]
            figures.append(
                predictive(
                    mean(every, "simulated patients", name, is_rate(every), seed=seed),
                    real,
                    RealValues(values[name], unlabelled),
                    simulated.by_seed[name],
                    simulated.replies.get(name, []),
                )
            )
    responses = [logs.responses.get(c.probe.cell_id) for c in cells]
    logs.close()
    return RealPatientsSummary(
        file=file,
        messages=len(cells),
        labelled=sum(1 for c in cells if c.message.seed_ids),
        asked=sum(1 for r in responses if r is not None and not r.error and not r.skipped),
        errors=sum(1 for r in responses if r is None or r.error),
        metrics=metrics,
        predictive=figures,
    )
