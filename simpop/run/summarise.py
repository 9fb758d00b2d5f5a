"""Summarise: every metric per persona, per scenario and per pair with intervals, QAP-match
accuracy, the judge, persona fidelity, topics and labels, into ``summary.json``."""

from __future__ import annotations

from collections import Counter

from simpop.aggregate import accuracy_by_persona, metric_means
from simpop.judging.profile import profile_for
from simpop.labels.clinicians import labels_summary
from simpop.metrics import judged_names
from simpop.metrics.faithfulness import FAITHFULNESS
from simpop.metrics.judge import JUDGE_ERROR
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
)
from simpop.population.cells import VARIANT_SCENARIO
from simpop.population.fidelity_summary import fidelity_summary
from simpop.run.completeness import is_incomplete, stage_failures
from simpop.run.plan import RunInputs
from simpop.store import JsonlLog, RunStore, score_key


def judge_summary(model: str, scores: list[Score], usage: LLMUsage | None) -> JudgeSummary | None:
    """The judge model, its prompts, its errors and the CF-undefined count of a run."""
    names = set(judged_names())
    judged = [s for s in scores if s.metric in names]
    if not judged:
        return None
    profile = profile_for(model)
    return JudgeSummary(
        model=model,
        profile=profile.name,
        agreement=profile.agreement,
        judged_by=dict(sorted(Counter(s.judged_by for s in judged if s.judged_by).items())),
        prompts=sorted({p for s in judged if s.prompt for p in s.prompt.split()}),
        judged=len({s.cell_id for s in judged if not s.excluded or s.excluded == JUDGE_ERROR}),
        errors=dict(sorted(Counter(s.metric for s in judged if s.excluded == JUDGE_ERROR).items())),
        no_information=sum(1 for s in judged if s.metric == FAITHFULNESS and s.label == "no_information"),
        llm=usage,
    )


def topic_strata(inputs: RunInputs, allocation: str) -> TopicStrata | None:
    """The topic clusters with the chunks sampled from each (over all chunk scenarios)."""
    if inputs.topics is None:
        return None
    drawn = {
        (c.scenario_id, c.seed_id) for c in inputs.cells if inputs.scenarios[c.scenario_id].source == "chunks"
    }
    return inputs.topics.strata([seed for _, seed in sorted(drawn)], allocation)


def summarise(
    store: RunStore,
    inputs: RunInputs,
    probes: JsonlLog[Probe],
    responses: JsonlLog[Response],
    scores: JsonlLog[Score],
    *,
    target: str,
    target_kind: str,
    judge_model: str,
    judge_usage: LLMUsage | None,
    allocation: str,
    limits: FailureLimits,
    seed: int,
    usage: LLMUsage,
    duration_s: float,
) -> RunSummary:
    """The run's summary, from its records."""
    persona_ids = [p.id for p in inputs.personas]
    cell_scores = sorted(scores.records.values(), key=score_key)  # not the order they finished in
    accuracy = None
    if inputs.own_seeds and VARIANT_SCENARIO in inputs.scenarios:
        variant_scores = [
            s for s in cell_scores if s.metric == QAP_MATCH and s.scenario_id == VARIANT_SCENARIO
        ]
        rows, total = accuracy_by_persona(variant_scores, persona_ids)
        accuracy = QAPAccuracy(personas=rows, total=total)
    cell_responses = [responses.records[c.cell_id] for c in inputs.cells]
    by_persona, by_scenario, by_pair = metric_means(
        [s for s in cell_scores if s.metric != QAP_MATCH],
        persona_ids,
        list(dict.fromkeys(inputs.scenarios)),
        seed=seed,
    )
    stages = stage_failures(inputs.cells, probes.records, responses.records, cell_scores)
    return RunSummary(
        run_id=store.run_id,
        target=target,
        target_kind=target_kind,
        planned_cells=len(inputs.cells),
        excluded=dict(Counter(r.excluded for r in cell_responses if r.excluded)),
        seeds_without_gold=[qap_id for qap_id, gold in inputs.gold.items() if gold == []],
        accuracy=accuracy,
        metrics=by_persona,
        metrics_by_scenario=by_scenario,
        metrics_by_persona_scenario=by_pair,
        judge=judge_summary(judge_model, cell_scores, judge_usage),
        fidelity=fidelity_summary(inputs.personas, [probes.records[c.cell_id] for c in inputs.cells]),
        scenarios=dict(Counter(c.scenario_id for c in inputs.cells)),
        topics=topic_strata(inputs, allocation),
        labels=labels_summary(store, persona_ids),
        personas=inputs.personas,
        scenario_briefs=[
            ScenarioBrief.model_validate(s.model_dump(include=set(ScenarioBrief.model_fields)))
            for s in inputs.scenarios.values()
        ],
        stages=stages,
        incomplete=is_incomplete(stages, limits),
        llm=usage,
        duration_s=duration_s,
    )
