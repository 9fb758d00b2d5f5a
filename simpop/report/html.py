"""The HTML report of a run: one self-contained, printable file (no scripts, fonts or images to
fetch; figures embedded) that shows where the bot fails and for whom. Every string from a
persona, a bot or an LLM is escaped by the template engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from simpop import __version__
from simpop.aggregate import EXAMPLES_PER_SCENARIO, worst_cells
from simpop.metrics import ceiling, columns, higher_is_better, label, shown_in
from simpop.metrics.metric import scenario_validations, unvalidated_in, validations
from simpop.metrics.qap_match import METRIC as QAP_MATCH
from simpop.models import GroupMean, MessageShapes, Probe, Response, Score, Validation
from simpop.population.fidelity_summary import shape_rows
from simpop.population.language_level import level_name
from simpop.report.conversation_view import conversation_view
from simpop.report.forest_plot import forest_plot, sequence_plot
from simpop.report.gate import GateResult
from simpop.report.weakness import MIN_N, WeaknessAnalysis, factor_rows, weakness_analysis
from simpop.store import RunRecords
from simpop.textfiles import write_text_atomic

REPORT_FILE = "report.html"
SAFE = "safe_behaviour"


@dataclass
class Example:
    """One probe shown in full: why the bot was (un)safe, sentence by sentence."""

    probe: Probe
    response: Response
    scores: dict[str, Score]


NEUTRAL = "#e8eef5"


def colour(metric: str, value: float | None) -> str:
    """A cell background from red (worse) to green (better), for metrics on a 0-1 scale; a
    neutral one where neither direction is better or a perfect bot may score under 1 (a value
    shaded red that is the best attainable reads as a weakness)."""
    if value is None:
        return "#f2f2f2"
    direction = higher_is_better(metric)
    good = max(0.0, min(1.0, value if direction is not False else 1.0 - value))
    if direction is None or ceiling(metric) is not None:
        return NEUTRAL
    # hue 0 (red) to 120 (green), light enough for black text
    return f"hsl({good * 120:.0f}, 65%, 82%)"


UNVALIDATED = "#e0e0e0"


def trust_note(validation: dict[str, Validation], metric: str, where: list[str] | None = None) -> str:
    """How far a judged safety figure can be trusted, in a few words ('' for other figures);
    ``where``: the scenarios it is not validated on, when it is on the others."""
    found = validation.get(metric)
    if found is None:
        return ""
    if found.validated and found.kappa is not None:
        return f"κ {found.kappa:.2f} held out"
    on = f" on {', '.join(where)}" if where else ""
    return "not validated" + (f" (κ {found.kappa:.2f})" if found.kappa is not None else "") + on


def trusted(validation: dict[str, Validation], metric: str) -> bool:
    """False for a judged figure whose judge is not validated."""
    return metric not in validation or validation[metric].validated


def heatmap(records: RunRecords, metric: str) -> dict[str, Any] | None:
    """Persona × scenario cells of ``metric`` from the run summary."""
    rows = records.summary.metrics_by_persona_scenario
    cells = {(g.persona_id, g.scenario_id): g for g in rows if g.metric == metric}
    if not cells:
        return None
    personas = list(dict.fromkeys(p for p, _ in cells))
    scenarios = list(dict.fromkeys(s for _, s in cells))
    return {"metric": metric, "personas": personas, "scenarios": scenarios, "cells": cells}


def worst_examples(
    records: RunRecords, per_scenario: int = EXAMPLES_PER_SCENARIO
) -> dict[str, list[Example]]:
    """Per scenario, the probes that went worst (``aggregate.worst_first``; probes not asked are
    left out): the ones the judge explained at the end of the run."""
    asked = [
        (cell, r.scenario_id)
        for cell, r in records.responses.items()
        if r.question is not None and not r.skipped
    ]
    return {
        scenario: [
            Example(records.probes[c], records.responses[c], records.by_cell.get(c, {})) for c in cells
        ]
        for scenario, cells in worst_cells(asked, records.values, per_scenario).items()
    }


def persona_table(records: RunRecords) -> tuple[list[str], list[str], dict[tuple[str, str], GroupMean]]:
    """Every metric (rows) per persona and in total (columns)."""
    cells = {(g.metric, g.group): g for g in records.summary.metrics if g.n}
    metrics = list(dict.fromkeys(m for m, _ in cells))
    safety = list(columns("safety"))
    ordered = [m for m in safety if m in metrics] + [m for m in metrics if m not in safety]
    groups = list(dict.fromkeys(g.group for g in records.summary.metrics))
    return ordered, groups, cells


def findings(analysis: WeaknessAnalysis | None, limit: int = 6) -> list[str]:
    """The weakest well-supported groups of the weakness analysis, in words: single factors,
    and pairs of levels that do worse than each of their levels alone; a group with the same
    figures as one already listed (the same probes under another name) is left out."""
    if analysis is None:
        return []
    marginal_gap = {
        (f, c.levels[f]): c.gap for f, cells in analysis.marginal.items() for c in cells if c.gap is not None
    }
    candidates = [c for cells in analysis.marginal.values() for c in cells]
    candidates += [
        c
        for cells in analysis.bivariate.values()
        for c in cells
        if c.gap is not None
        and all(c.gap < marginal_gap.get((f, level), 0.0) for f, level in c.levels.items())
    ]
    overall = round(analysis.overall.mean or 0.0, 2)
    worse = [c for c in candidates if not c.low_n and c.gap is not None and c.gap < 0]
    # worse as printed: "0.45 against 0.45 overall" tells nothing
    weak = sorted((c for c in worse if round(c.mean or 0.0, 2) < overall), key=lambda c: c.gap or 0.0)
    lines, seen = [], set()
    for cell in weak:
        if (cell.n, cell.mean) in seen:
            continue
        seen.add((cell.n, cell.mean))
        where = ", ".join(f"{factor.replace('_', ' ')} {level}" for factor, level in cell.levels.items())
        lines.append(
            f"{where}: {label(analysis.metric)} {cell.mean:.2f} "
            f"(95% CI {cell.ci_low:.2f}–{cell.ci_high:.2f}, n={cell.n}) "
            f"against {analysis.overall.mean:.2f} overall"
        )
    return lines[:limit]


# the QAP matcher's headline (summary.json's ``accuracy``): Reichenpfader et al.'s eq. 1 on the
# bot's own questions reworded; ``qap_match`` pools every probe written from a QAP
OWN_QUESTIONS = f"{QAP_MATCH}:own_questions"
OWN_QUESTIONS_LABEL = "QAP-match accuracy"


def report_label(name: str) -> str:
    return OWN_QUESTIONS_LABEL if name == OWN_QUESTIONS else label(name)


def qap_accuracy_rows(records: RunRecords) -> list[GroupMean]:
    """QAP-match accuracy per persona and in total (a QAP bot asked its own questions) as
    group means, so it can head the report like any metric."""
    accuracy = records.summary.accuracy
    if accuracy is None or not accuracy.total.n:
        return []
    return [
        GroupMean(
            group=row.group,
            metric=OWN_QUESTIONS,
            n=row.n,
            mean=row.accuracy,
            ci_low=row.ci_low,
            ci_high=row.ci_high,
            interval="wilson",
            persona_id=None if row is accuracy.total else row.group,
        )
        for row in (*accuracy.personas, accuracy.total)
        if row.n
    ]


def key_figures(records: RunRecords) -> list[GroupMean]:
    """The first screen's figures over all personas: the bot's own headline metric first
    (QAP-match accuracy for a QAP matcher), then safe behaviour and the triad."""
    totals = {g.metric: g for g in records.summary.metrics if g.group == "total" and g.n}
    headline = [g for g in qap_accuracy_rows(records) if g.group == "total"]
    return headline + [totals[m] for m in columns("safety") if m in totals]


def overall_poor(analysis: WeaknessAnalysis) -> bool:
    """Whether the whole run does badly on the analysed metric (under 0.5 on its good side),
    so that "no group does worse" is no good news."""
    mean, direction = analysis.overall.mean, higher_is_better(analysis.metric)
    if mean is None or direction is None:
        return False
    return (mean if direction else 1.0 - mean) < 0.5


def environment() -> Environment:
    """The report templates, every value escaped."""
    env = Environment(
        loader=PackageLoader("simpop.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = lambda v, d=2: "–" if v is None else f"{v:.{d}f}"
    env.filters["label"] = report_label
    env.filters["cefr"] = lambda v: "–" if v is None else f"{level_name(v)} ({v:.1f})"
    env.globals["colour"] = colour
    env.globals["ceiling"] = ceiling
    return env


def sequence_plots(records: RunRecords, gate: GateResult | None) -> list[str]:
    """A sequential run's rules, each group's confidence sequence by round (none otherwise)."""
    from simpop.sequential.rounds import ROUNDS_FILE, rounds_of

    rounds = rounds_of(records.directory / ROUNDS_FILE)
    if gate is None or not rounds:
        return []
    plots = []
    for rule, metric, low, high in sorted({(c.rule, c.metric, c.min, c.max) for c in gate.checks if c.rule}):
        threshold = low if low is not None else high
        title = f"rule {rule}: {report_label(metric)} {'>=' if low is not None else '<='} {threshold:g}"
        if threshold is not None and (uri := sequence_plot(rounds, rule, threshold, title)):
            plots.append(uri)
    return plots


def report_html(
    records: RunRecords,
    metrics: list[str] | None = None,
    min_n: int = MIN_N,
    gate: GateResult | None = None,
) -> str:
    """The report as one HTML string; ``metrics`` are shown as heatmaps and weakness analyses
    besides the safe-behaviour rate."""
    chosen = [m for m in dict.fromkeys([SAFE, *(metrics or [])]) if m in records.metrics]
    if not chosen:
        chosen = [m for m in ("qap_match", "faithfulness", "embedding.groundedness") if m in records.metrics][
            :1
        ]
    analyses = [a for m in chosen if (a := weakness_analysis(factor_rows(records, m), m, min_n))]
    primary = analyses[0] if analyses else None
    safe_rows = [g for g in records.summary.metrics if g.metric == (primary.metric if primary else SAFE)]
    if not safe_rows or records.summary.target_kind == "qap":
        safe_rows = qap_accuracy_rows(records) or safe_rows  # the QAP matcher's own figure
    config = records.config
    validation = validations(records.summary.judge)
    in_scenario = scenario_validations(records.summary.judge, records.summary.scenario_briefs)
    where = unvalidated_in(records.summary.judge, records.summary.scenario_briefs)
    env = environment()
    env.globals["trust"] = lambda metric, scenario=None: trust_note(
        in_scenario.get(scenario, validation), metric, [] if scenario else where.get(metric, [])
    )
    env.globals["colour"] = lambda metric, value, scenario=None: (
        UNVALIDATED if not trusted(in_scenario.get(scenario, validation), metric) else colour(metric, value)
    )
    template = env.get_template("report.html.j2")
    return template.render(
        version=__version__,
        records=records,
        summary=records.summary,
        config=config,
        models=_models(records),
        prompts=_prompts(records),
        errors=_errors(records),
        table=persona_table(records),
        heatmaps=[h for m in chosen if (h := heatmap(records, m))],
        analyses=analyses,
        findings=findings(primary),
        key_figures=key_figures(records),
        forest=forest_plot(safe_rows, f"{report_label(safe_rows[0].metric)} per persona (95% CI)")
        if safe_rows
        else None,
        forest_metric=safe_rows[0].metric if safe_rows else None,
        overall_poor=overall_poor(primary) if primary else False,
        examples=worst_examples(records),
        gate=gate,
        sequences=sequence_plots(records, gate),
        min_n=min_n,
        realism_rows=realism_rows(records),
        talk=conversation_view(records),
        turn_metrics=shown_in("turn"),
        card_metrics=shown_in("card"),
    )


def realism_rows(records: RunRecords) -> list[tuple[str, MessageShapes]]:
    """Per persona (typical ones marked), then the real reference."""
    fidelity = records.summary.fidelity
    if fidelity is None:
        return []
    return shape_rows(fidelity, {p.id for p in records.summary.personas if p.typical}, " (typical)")


def _models(records: RunRecords) -> dict[str, str]:
    config = records.config
    models = {"probe writer (LLM)": config.llm.model} | config.target.bot_models(config.llm.model)
    if records.summary.judge is not None:
        models["judge (LLM)"] = records.summary.judge.model
    models["embedding"] = config.embedding.model
    return models


def _prompts(records: RunRecords) -> list[str]:
    """Every prompt version behind the run's records."""
    found = {p.prompt for p in records.probes.values() if p.prompt}
    found |= {r.prompt for r in records.responses.values() if r.prompt}
    for score in records.scores:
        found |= set((score.prompt or "").split())
    return sorted(found)


def _errors(records: RunRecords) -> dict[str, int]:
    errors = dict(records.summary.excluded)
    if records.summary.judge is not None:
        errors |= {f"judge error: {m}": n for m, n in records.summary.judge.errors.items()}
    return errors


def write_report(records: RunRecords, **options: Any) -> Path:
    """``<run>/report.html``, written whole or not at all."""
    return write_text_atomic(records.directory / REPORT_FILE, report_html(records, **options))
