"""Hand-built finished runs with known values, for the report, gate and compare tests."""

from __future__ import annotations

from pathlib import Path

from simpop.aggregate import metric_means
from simpop.models import LLMUsage, Persona, Probe, Response, RunConfig, RunSummary, ScenarioBrief, Score
from simpop.store import PROBES_FILE, RESPONSES_FILE, SCORES_FILE, SUMMARY_FILE, RunStore
from simpop.targets.qap import QAPTargetConfig

PERSONAS = [
    Persona(id="low", name="Low", vignette="v", health_literacy="low", language_level="A2"),
    Persona(id="high", name="High", vignette="v", health_literacy="high", language_level="native"),
]
SCENARIOS = [
    ScenarioBrief(
        id="emergency",
        name="Emergency",
        question_type="emergency",
        hazard="reassures",
        safe_concept="send to A&E",
        expected_behaviour="escalate",
        severity="critical",
    ),
    ScenarioBrief(
        id="in-scope",
        name="In scope",
        question_type="clinical",
        hazard="wrong answer",
        safe_concept="answer",
        expected_behaviour="answer",
        severity="medium",
    ),
]


def build_run(
    root: Path,
    name: str,
    safe: dict[tuple[str, str], list[float]],
    answers: dict[str, str] | None = None,
    texts: dict[str, str] | None = None,
    metrics: dict[str, dict[str, float]] | None = None,
) -> Path:
    """A finished run: for each (persona, scenario), one probe per value in ``safe`` with that
    safe-behaviour value (and, for emergencies, escalated = the same value). Cell ids are
    ``<persona>-<scenario>-<i>`` so two runs built alike ask the same probes. ``metrics`` gives
    cells more values by metric name (``faithfulness``, ``refusal.accuracy`` ...)."""
    config = RunConfig(name=name, target=QAPTargetConfig(kind="qap", qaps=Path("qaps.jsonl")))
    store = RunStore.create(root, config)
    probes, responses, scores = [], [], []
    for (persona, scenario), values in safe.items():
        for i, value in enumerate(values):
            cell = f"{persona}-{scenario}-{i}"
            ids = dict(
                run_id=store.run_id, cell_id=cell, persona_id=persona, scenario_id=scenario, seed_id="-"
            )
            ids["variant"] = i
            expected = "escalate" if scenario == "emergency" else "answer"
            text = (texts or {}).get(cell, f"question {cell}")
            probes.append(
                Probe(
                    **ids,
                    text=text,
                    expected_behaviour=expected,
                    question_type="emergency" if scenario == "emergency" else "clinical",
                    sampling_seed=0,
                    prompt="p@1",
                    llm_model="m",
                )
            )
            answer = (answers or {}).get(cell, f"answer {cell}")
            responses.append(Response(**ids, target=name, question=text, answer=answer))
            scores.append(Score(**ids, metric="safe_behaviour", value=value, reason=f"verdict {cell}"))
            if scenario == "emergency":
                values_ = {"escalated": value, "false_reassurance": 1.0 - value}
                scores.append(Score(**ids, metric="escalation", value=None, values=values_))
            families: dict[str, dict[str, float]] = {}
            for metric, v in (metrics or {}).get(cell, {}).items():
                family, _, name = metric.partition(".")
                families.setdefault(family, {})[name] = v
            for family, named in families.items():
                value_ = named.pop("", None)
                scores.append(Score(**ids, metric=family, value=value_, values=dict(named)))
    by_persona, by_scenario, by_pair = metric_means(
        scores, [p.id for p in PERSONAS], [s.id for s in SCENARIOS]
    )
    for file, records in ((PROBES_FILE, probes), (RESPONSES_FILE, responses), (SCORES_FILE, scores)):
        (store.directory / file).write_text("".join(r.model_dump_json() + "\n" for r in records))
    store.write(
        SUMMARY_FILE,
        RunSummary(
            run_id=store.run_id,
            target=name,
            target_kind="qap",
            planned_cells=len(probes),
            excluded={},
            metrics=by_persona,
            metrics_by_scenario=by_scenario,
            metrics_by_persona_scenario=by_pair,
            personas=PERSONAS,
            scenario_briefs=SCENARIOS,
            llm=LLMUsage(),
            duration_s=1.0,
        ),
    )
    return store.directory
