"""Summarise: every metric per persona, per scenario and per pair with intervals, QAP-match
accuracy, the judge, persona fidelity, topics and labels, into ``summary.json``."""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from simpop.aggregate import MetricTally, accuracy_by_persona, metric_values
from simpop.judging.profile import profile_for
from simpop.labels.clinicians import labels_summary
from simpop.metrics import judged_names
from simpop.metrics.faithfulness import FAITHFULNESS
from simpop.metrics.judge import JUDGE_ERROR
from simpop.metrics.metric import figure_validations
from simpop.metrics.qap_match import METRIC as QAP_MATCH
from simpop.models import (
    FailureLimits,
    JudgeSummary,
    LLMUsage,
    Probe,
    QAPAccuracy,
    Response,
    RunSummary,
    ScenarioBrief,
    Score,
    TopicStrata,
    Validation,
)
from simpop.population.cells import VARIANT_SCENARIO
from simpop.population.fidelity_summary import fidelity_summary
from simpop.run.assembly import RunLogs
from simpop.run.completeness import Group, StageTally, is_incomplete, tested_groups, untested
from simpop.run.conversation_summary import ConversationTally, converse_stage
from simpop.run.plan import RunInputs
from simpop.run.real_arm import real_summary, reply_of
from simpop.store import JsonlLog, RunStore
from simpop.validity.predictive import SimulatedValues
from simpop.validity.predictor import Reply


class JudgeTally:
    """The judge's part of a run, counted one score at a time (probes' and conversation turns')."""

    def __init__(self) -> None:
        self.names = set(judged_names())
        self.scores = self.no_information = 0
        self.judged_by: Counter[str] = Counter()
        self.prompts: set[str] = set()
        self.judged: set[str] = set()
        self.turns: set[str] = set()
        self.errors: Counter[str] = Counter()

    def add(self, score: Score, turn: bool = False) -> None:
        if score.metric not in self.names:
            return
        self.scores += 1
        if score.judged_by:
            self.judged_by[score.judged_by] += 1
        self.prompts.update((score.prompt or "").split())
        if not score.excluded or score.excluded == JUDGE_ERROR:
            (self.turns if turn else self.judged).add(sys.intern(score.cell_id))
        if score.excluded == JUDGE_ERROR:
            self.errors[score.metric] += 1
        self.no_information += score.metric == FAITHFULNESS and score.label == "no_information"

    def summary(
        self,
        model: str,
        usage: LLMUsage | None,
        verdicts: dict[str, Validation] | None = None,
        yes_no: str | None = None,
        behaviours: set[str] | None = None,
    ) -> JudgeSummary | None:
        """The judge model, its prompts, its errors, the CF-undefined count of a run, and each
        judged figure's validation from that of its ``verdicts`` (a figure decided per behaviour:
        those of the ``behaviours`` the run expects)."""
        if not self.scores:
            return None
        profile = profile_for(model)
        return JudgeSummary(
            model=model,
            profile=profile.name,
            agreement=profile.agreement,
            judged_by=dict(sorted(self.judged_by.items())),
            yes_no=yes_no,
            prompts=sorted(self.prompts),
            judged=len(self.judged),
            judged_turns=len(self.turns),
            errors=dict(sorted(self.errors.items())),
            no_information=self.no_information,
            llm=usage,
            validation=figure_validations(verdicts or {}, behaviours),
            verdicts=dict(sorted((verdicts or {}).items())),
        )


def expected_behaviours(inputs: RunInputs) -> set[str]:
    """Every behaviour the run's scenarios and conversation cases expect or also allow."""
    scenarios = [inputs.scenarios[s] for s in {c.scenario_id for c in inputs.cells}]
    cases = [inputs.cases[s] for s in {c.scenario_id for c in inputs.conversations}]
    return {b for s in scenarios for b in (s.expected_behaviour, *s.also_safe)} | {
        b for c in cases for b in (c.expected, *c.also_safe)
    }


def topic_strata(inputs: RunInputs, allocation: str) -> TopicStrata | None:
    """The topic clusters with the chunks sampled from each (over all chunk scenarios)."""
    if inputs.topics is None:
        return None
    drawn = {
        (c.scenario_id, c.seed_id) for c in inputs.cells if inputs.scenarios[c.scenario_id].source == "chunks"
    }
    return inputs.topics.strata([seed for _, seed in sorted(drawn)], allocation)


@dataclass(frozen=True)
class RunFacts:
    """What the summary says of a run beside its records."""

    target: str
    target_kind: str
    judge_model: str
    judge_usage: LLMUsage | None
    judge_yes_no: str | None
    allocation: str
    limits: FailureLimits
    seed: int
    usage: LLMUsage
    duration_s: float
    invocations: int = 1
    verdicts: dict[str, Validation] | None = None


class RecordTally:
    """The records of the run's planned cells, counted one at a time: the stages, what was not
    scored and why, the metric means, the judge, QAP-match labels and conversation turns."""

    def __init__(self, inputs: RunInputs) -> None:
        self.in_plan = {c.cell_id: i for i, c in enumerate(inputs.cells)}
        by_id = {cell: i for i, cell in enumerate(sorted(self.in_plan))}
        self.stages = StageTally()
        self.excluded: Counter[str] = Counter()
        self.not_scored: dict[Group, Counter[str]] = defaultdict(Counter)
        self.means, self.judge = MetricTally(by_id.__getitem__), JudgeTally()
        self.qap_match: list[Score] = []  # label and persona only: see accuracy_by_persona
        self.own_variants = bool(inputs.own_seeds) and VARIANT_SCENARIO in inputs.scenarios
        self.talks = ConversationTally(inputs)
        # the simulated rephrasings' values by metric and seed, beside the real patients' (issue 71)
        self.real = bool(inputs.real)
        self.simulated = SimulatedValues()
        self.replies: dict[str, Reply | None] = {}  # the bot's reply to each simulated rephrasing

    def probes(self, probes: JsonlLog[Probe]) -> Iterator[Probe]:
        for probe in probes.scan():
            if probe.cell_id in self.in_plan:
                self.stages.probe(probe)
                yield probe

    def response(self, response: Response) -> None:
        if response.cell_id not in self.in_plan:
            return
        self.stages.response(response)
        if self.real and response.scenario_id == VARIANT_SCENARIO:
            self.replies[response.cell_id] = reply_of(response)
        if response.excluded:
            self.excluded[response.excluded] += 1
            self.not_scored["scenario", response.scenario_id][response.excluded] += 1
            self.not_scored["persona", response.persona_id][response.excluded] += 1

    def score(self, score: Score) -> None:
        if score.cell_id not in self.in_plan:
            if self.talks.turn(score):  # a conversation turn is an answer judged like a probe's
                self.stages.score(score)
                self.judge.add(score, turn=True)
            else:
                self.talks.add(score)
            return
        self.stages.score(score)
        self.judge.add(score)
        if self.real and score.scenario_id == VARIANT_SCENARIO and not score.excluded:
            reply = self.replies.get(score.cell_id)
            for name, value in metric_values(score).items():
                if value is not None:
                    self.simulated.add(name, score.seed_id, value, reply)
        if score.metric != QAP_MATCH:
            self.means.add(score)
        elif self.own_variants and score.scenario_id == VARIANT_SCENARIO:
            self.qap_match.append(
                Score.model_construct(persona_id=score.persona_id, label=score.label, excluded=score.excluded)
            )

    def accuracy(self, persona_ids: list[str]) -> QAPAccuracy | None:
        if not self.own_variants:
            return None
        rows, total = accuracy_by_persona(self.qap_match, persona_ids)
        return QAPAccuracy(personas=rows, total=total)


def summarise(store: RunStore, inputs: RunInputs, logs: RunLogs, facts: RunFacts) -> RunSummary:
    """The run's summary, read from its record files one record at a time (memory does not
    grow with the number of cells), in an order that does not depend on the order the cells
    finished in."""
    persona_ids = [p.id for p in inputs.personas]
    tally = RecordTally(inputs)
    fidelity = fidelity_summary(inputs.personas, tally.probes(logs.probes), order=tally.in_plan)
    for response in logs.responses.scan():
        tally.response(response)
    for score in logs.scores.scan():
        tally.score(score)
    accuracy = tally.accuracy(persona_ids)
    scenario_ids = list(dict.fromkeys(inputs.scenarios))
    by_persona, by_scenario, by_pair = tally.means.means(persona_ids, scenario_ids, facts.seed)
    stage_rows = tally.stages.stages(len(inputs.cells))
    talks, talked = tally.talks, None
    if inputs.conversations:
        talked = talks.summary(logs.conversations, facts.seed)
        stage_rows.append(converse_stage(logs.conversations, set(talks.planned)))
    planned: Counter[Group] = Counter(("scenario", c.scenario_id) for c in inputs.cells)
    planned.update(("case", c.scenario_id) for c in talks.cells)
    planned.update(("persona", c.persona_id) for c in [*inputs.cells, *talks.cells])
    for reason, groups in talks.not_scored().items():
        for group in groups:
            tally.not_scored[group][reason] += 1
    tested = tested_groups(by_persona, by_scenario, accuracy) | talks.tested
    real = (
        real_summary(store, inputs.real, tally.simulated, str(inputs.real_file), facts.seed)
        if inputs.real
        else None
    )
    return RunSummary(
        run_id=store.run_id,
        target=facts.target,
        target_kind=facts.target_kind,
        planned_cells=len(inputs.cells),
        excluded=dict(tally.excluded),
        seeds_without_gold=[qap_id for qap_id, gold in inputs.gold.items() if gold == []],
        seed_equivalents=inputs.equivalents,
        accuracy=accuracy,
        metrics=by_persona,
        metrics_by_scenario=by_scenario,
        metrics_by_persona_scenario=by_pair,
        judge=tally.judge.summary(
            facts.judge_model,
            facts.judge_usage,
            facts.verdicts,
            facts.judge_yes_no,
            expected_behaviours(inputs),
        ),
        fidelity=fidelity,
        scenarios=dict(Counter(c.scenario_id for c in inputs.cells)),
        topics=topic_strata(inputs, facts.allocation),
        labels=labels_summary(store, persona_ids),
        personas=inputs.personas,
        scenario_briefs=[
            ScenarioBrief.model_validate(s.model_dump(include=set(ScenarioBrief.model_fields)))
            for s in inputs.scenarios.values()
        ],
        stages=stage_rows,
        incomplete=is_incomplete(stage_rows, facts.limits),
        untested=untested(planned, tested, tally.not_scored),
        conversations=talked,
        llm=facts.usage,
        duration_s=facts.duration_s,
        invocations=facts.invocations,
        real_patients=real,
    )
