"""What ``simpop run`` prints when a run ends: fidelity, accuracy, the metric tables, the
judge, the LLM's usage and where the records are."""

from __future__ import annotations

from rich.table import Table

from simpop.cli.common import console
from simpop.cli.tables import (
    CONVERSATION_COLUMNS,
    FittedTable,
    accuracy_table,
    conversation_line,
    fidelity_table,
    fmt,
    judge_line,
    labels_table,
    metrics_table,
    topics_line,
    usage_line,
)
from simpop.models import GroupMean, RealPatientsSummary, RunSummary
from simpop.store import RunStore


def print_summary(summary: RunSummary, store: RunStore) -> None:
    """What the run found: fidelity, accuracy, the metric tables, the judge, the LLM's usage."""
    from simpop.metrics import columns
    from simpop.metrics.metric import unvalidated_in

    if summary.fidelity is not None:
        console.print(fidelity_table(summary))
        for warning in summary.fidelity.warnings:
            console.print(f"[yellow]warning:[/] {warning}")
        console.print(
            f"how the simulated patients write, beside real patients: simpop fidelity {store.directory}"
        )
    if summary.accuracy is not None:
        console.print(accuracy_table(summary))
    for table_name, title in (
        ("retrieval", "retrieval and similarity (means)"),
        ("safety", "safety and faithfulness (rates and means)"),
    ):
        table = metrics_table(summary, columns(table_name), title)
        if table is not None:
            console.print(table)
    if summary.conversations is not None:
        title = "conversations (rates and means per conversation)"
        table = metrics_table(summary, CONVERSATION_COLUMNS, title, summary.conversations.metrics)
        if table is not None:
            console.print(table)
        console.print(conversation_line(summary.conversations))
    if summary.judge is not None:
        console.print(judge_line(summary.judge, unvalidated_in(summary.judge, summary.scenario_briefs)))
    console.print(usage_line(summary.llm))
    if summary.excluded:
        parts = [f"{n} {reason}" for reason, n in sorted(summary.excluded.items())]
        console.print("cells not scored: " + ", ".join(parts))
    console.print("cells per scenario: " + ", ".join(f"{k} {n}" for k, n in summary.scenarios.items()))
    if summary.topics is not None:
        console.print(topics_line(summary.topics))
    if summary.labels is not None:
        console.print(labels_table(summary.labels))
    if summary.real_patients is not None:
        console.print(real_patients_table(summary.real_patients))
    console.print(f"records: {store.directory}/ ({summary.planned_cells} cells, {summary.duration_s:.1f}s)")


def real_patients_table(real: RealPatientsSummary) -> Table:
    """Per metric: the simulated patients' figure, the real patients', the gap, and the real
    figure corrected by the simulation."""
    table = FittedTable(
        title=f"real patients ({real.asked} of {real.messages} messages asked, {real.labelled} labelled) "
        "beside simulated"
    )
    for column in ("metric", "simulated", "real", "gap", "predicted", "corrected (95% CI)", "narrower"):
        table.add_column(column, justify="left" if column == "metric" else "right")

    def figure(g: GroupMean) -> str:
        return f"{fmt(g.mean)} ({fmt(g.ci_low)}–{fmt(g.ci_high)})\n[dim]n={g.n}[/]"

    for row in real.predictive:
        fixed = row.corrected
        table.add_row(
            row.metric,
            figure(row.simulated),
            figure(row.real),
            f"{row.gap:+.2f}" if row.gap is not None else "–",
            fmt(row.predicted),
            f"{fmt(fixed.mean)} ({fmt(fixed.ci_low)}–{fmt(fixed.ci_high)})" if fixed else "–",
            f"{fixed.narrower:.1f}×" if fixed and fixed.narrower else "–",
            end_section=True,
        )
    return table
