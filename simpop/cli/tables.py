"""The tables and lines the commands print."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from simpop.llm.replies import LOGPROB_PROBES
from simpop.models import (
    BenchmarkSummary,
    CalibrationSummary,
    ConversationSummary,
    FidelitySummary,
    GroupMean,
    JudgeSummary,
    LabelTable,
    LLMUsage,
    RunSummary,
    Separability,
    TopicStrata,
)

if TYPE_CHECKING:  # the gate and the metrics load only for the commands that use them
    from simpop.report.gate import GateResult


class FittedTable(Table):
    """A table that fits an 80-column terminal: rules only under the header, one space between
    columns, numbers kept whole and text cells that wrap (folded, never cut short with an
    ellipsis), the title on the left. Keep titles short: the run id is printed once, not in
    every title."""

    def __init__(self, title: str | None = None, **options: Any) -> None:
        options.setdefault("box", box.SIMPLE_HEAD)
        options.setdefault("collapse_padding", True)
        options.setdefault("pad_edge", False)
        super().__init__(title=title, title_justify="left", title_style="bold", **options)

    def add_column(self, header: Any = "", *args: Any, **options: Any) -> None:
        options.setdefault("overflow", "fold")
        options.setdefault("no_wrap", options.get("justify") == "right")
        super().add_column(header, *args, **options)


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def accuracy_table(summary: RunSummary) -> Table:
    assert summary.accuracy is not None
    rows, total = summary.accuracy.personas, summary.accuracy.total
    table = FittedTable(title="QAP-match accuracy (the bot's own questions, reworded)")
    for column in ("persona", "n", "correct", "no answer", "accuracy", "95% CI (Wilson)"):
        table.add_column(column, justify="left" if column == "persona" else "right")
    for row in [*rows, total]:
        ci = f"{row.ci_low:.3f} – {row.ci_high:.3f}" if row.ci_low is not None else "–"
        table.add_row(
            row.group,
            str(row.n),
            str(row.correct),
            str(row.no_answer),
            fmt(row.accuracy),
            ci,
            end_section=row is rows[-1] if rows else False,
            style="bold" if row is total else None,
        )
    return table


def metrics_table(
    summary: RunSummary, columns: dict[str, str], title: str, means: list[GroupMean] | None = None
) -> Table | None:
    """Per persona: each metric's mean with its n (probes, or ``means``' own unit, with a value)
    below it; None when the run has none of ``columns``."""
    means = summary.metrics if means is None else means
    shown = [m for m in columns if any(g.metric == m and g.n for g in means)]
    if not shown:
        return None
    cells = {(g.group, g.metric): g for g in means}
    groups = list(dict.fromkeys(g.group for g in means))
    from simpop.metrics.metric import validations

    validation = validations(summary.judge)
    unvalidated = {m for m in shown if m in validation and not validation[m].validated}
    table = FittedTable(title=title)
    table.add_column("persona")
    for metric in shown:
        found = validation.get(metric)
        trust = (
            ""
            if found is None
            else "\n[dim]not\nvalidated[/]"
            if metric in unvalidated
            else f"\n[dim]κ {found.kappa:.2f}[/]"
        )
        table.add_column(columns[metric].replace(" ", "\n") + trust, justify="right")  # wrap between words
    for group in groups:
        table.add_row(
            group,
            *(
                f"{'[dim]' if m in unvalidated else ''}{fmt(cells[(group, m)].mean, 2)}"
                f"{'[/]' if m in unvalidated else ''}\n[dim]n={cells[(group, m)].n}[/]"
                for m in shown
            ),
            end_section=True,
            style="bold" if group == "total" else None,
        )
    return table


CONVERSATION_COLUMNS = {
    "conversation.outcome_met": "outcome met",
    "conversation.escalated_by_turn": "escalated by turn",
    "conversation.false_reassurance": "false reassurance",
    "conversation.unanswered": "turns unanswered",
    "conversation.contradiction": "contradicts itself",
    "conversation.turns": "turns",
}


def conversation_line(conversations: ConversationSummary) -> str:
    endings = ", ".join(f"{n} {ending.replace('_', ' ')}" for ending, n in conversations.endings.items())
    flagged = sum(n for why in conversations.flagged.values() for n in why.values())
    unbelievable = f"; {flagged} of {conversations.turns} messages not believable" if flagged else ""
    added = sum(conversations.added.values())
    completed = f"; {added} left out a fact due then, added by simpop" if added else ""
    return (
        f"conversations: {conversations.played} of {conversations.planned} played ({endings or 'none'})"
        f"{unbelievable}{completed}; transcripts of the worst in the report"
    )


def judge_line(judge: JudgeSummary, where: dict[str, list[str]] | None = None) -> str:
    """The judge, what it judged and how, its errors, and its figures that are not validated
    (``where``: per figure validated in some scenarios only, the scenarios it is not in)."""
    errors = ", ".join(f"{n} {metric}" for metric, n in sorted(judge.errors.items())) or "none"
    how = ", ".join(f"{n} by {way}" for way, n in judge.judged_by.items())
    from simpop.metrics.metric import validations

    weak = []
    for metric, v in validations(judge).items():
        if not v.validated:
            kappa = f" (κ {v.kappa:.2f})" if v.kappa is not None else ""
            weak.append(
                f"{metric}{kappa}" + (f" on {', '.join(where[metric])}" if where and metric in where else "")
            )
    unvalidated = (
        f"; [yellow]not validated (held-out κ under 0.6 or none; they describe the judge more than the bot): "
        f"{', '.join(weak)}[/]"
        if weak
        else ""
    )
    fallback = (
        f"; [yellow]warning: the endpoint sent no log-probabilities on its first {LOGPROB_PROBES} yes/no "
        "questions, so yes/no verdicts came from structured replies (no verifier, no profile thresholds)[/]"
        if judge.yes_no == "structured"
        else ""
    )
    return (
        f"judge {judge.model} (profile {judge.profile}: {judge.agreement}): {judge.judged} probes"
        f"{f' and {judge.judged_turns} conversation turns' if judge.judged_turns else ''} judged"
        f"{f' ({how})' if how else ''}; judge errors: {errors}; "
        f"{judge.no_information} answers with no informative sentence (CF undefined){unvalidated}{fallback}"
    )


def fidelity_table(summary: RunSummary) -> Table:
    """Per persona: how believable its simulated questions are."""
    assert summary.fidelity is not None
    table = FittedTable(
        title="persona fidelity: how believable the simulated questions are",
        caption="valid, dupl.: shares of the planned cells usable and near-duplicate; inv.: invalid "
        "questions; dist.: distinct ratio; grade: reading grade; words: mean length; sim.: "
        "similarity to the seed question; noisy: questions with speech-to-text noise, and its WER",
        caption_justify="left",
    )
    columns = [
        "persona",
        "cells",
        "valid",
        "dupl.",
        "inv.",
        "dist.",
        "grade",
        "words",
        "sim.",
        "noisy",
        "WER",
    ]
    for column in columns:
        table.add_column(column, justify="left" if column == "persona" else "right")
    for row in summary.fidelity.personas:
        table.add_row(
            row.persona_id,
            str(row.planned),
            fmt(row.valid_share, 2),
            fmt(row.duplicate_share, 2),
            str(row.invalid),
            fmt(row.distinct_ratio, 2),
            fmt(row.mean_reading_grade, 1),
            fmt(row.mean_words, 1),
            fmt(row.mean_seed_similarity, 2),
            str(row.noisy),
            fmt(row.noisy_wer, 2),
        )
    return table


def _level(score: float | None) -> str:
    from simpop.population.language_level import level_name

    return "–" if score is None else level_name(score)


def realism_table(fidelity: FidelitySummary, typical: set[str], title: str) -> Table:
    """Per persona (* meant to be typical), the shape of its usable messages beside the real
    reference; the full figures, with intervals, are in summary.json and the report."""
    table = FittedTable(title=title)
    columns = ["persona", "n", "words", "story", "relative", "no ?", "2+ ?", "grade", "CEFR", "slips"]
    for column in columns:
        table.add_column(
            column, justify="left" if column == "persona" else "right", no_wrap=column == "persona"
        )
    from simpop.population.fidelity_summary import shape_rows

    for name, shapes in shape_rows(fidelity, typical, " *"):
        table.add_row(
            name,
            str(shapes.n),
            fmt(shapes.median_words, 0),
            fmt(shapes.context, 2),
            fmt(shapes.relative, 2),
            fmt(shapes.no_question_mark, 2),
            fmt(shapes.multi_question, 2),
            fmt(shapes.reading_grade, 1),
            _level(shapes.language_level),
            fmt(shapes.slips_per_100_words, 1),
        )
    return table


def separability_table(tests: dict[str, Separability], typical: set[str], title: str) -> Table:
    """Per persona (* meant to be typical) and for the whole run: stock sentences, the
    two-sample classifier's AUC, distinct-n and self-BLEU beside real messages."""
    table = FittedTable(title=title)
    for column in ("persona", "n", "stock", "AUC", "distinct-1", "distinct-2", "self-BLEU"):
        table.add_column(
            column, justify="left" if column == "persona" else "right", no_wrap=column == "persona"
        )

    def beside(mine: float | None, real: float | None) -> str:
        return f"{fmt(mine, 2)} [dim]({fmt(real, 2)})[/]"

    for pid, test in tests.items():
        auc = fmt(test.auc, 2)
        if test.auc_interval is not None:
            auc += f" [dim]({test.auc_interval[0]:.2f}–{test.auc_interval[1]:.2f})[/]"
        table.add_row(
            "whole run" if pid == "all" else pid + (" *" if pid in typical else ""),
            str(test.n),
            fmt(test.stock_share, 2),
            auc,
            beside(test.distinct_1, test.real_distinct_1),
            beside(test.distinct_2, test.real_distinct_2),
            beside(test.self_bleu, test.real_self_bleu),
        )
    return table


def topics_line(strata: TopicStrata) -> str:
    """The knowledge base's topic clusters and how many chunks were sampled from each."""
    k = len(strata.clusters)
    silhouette = strata.silhouette.get(k)
    quality = f", silhouette {silhouette:.2f}" if silhouette is not None else ""
    clusters = ", ".join(f"{c.name} #{c.cluster} {c.sampled}/{c.chunks}" for c in strata.clusters)
    return (
        f"topics: {k} clusters of {sum(c.chunks for c in strata.clusters)} chunks "
        f"({strata.components} PCA dimensions{quality}; {strata.allocation} sampling; "
        f"sampled/chunks): {clusters}"
    )


def usage_line(usage: LLMUsage) -> str:
    return (
        f"LLM: {usage.requests} calls, {usage.cache_hits} cache hits, "
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens, "
        f"{usage.retries} retries, {usage.failures} failures"
    )


def benchmark_table(summary: BenchmarkSummary) -> Table:
    """The table of Han's thesis: one row per target (and threshold)."""
    table = FittedTable(title=f"yes/no benchmark · {summary.name} · run {summary.run_id}")
    columns = ["target", "n", "accuracy", "balanced", "majority", "yes/no/?", "errors"]
    columns += [
        "precision",
        "recall",
        "F1",
        "MAP",
        "MRR",
        f"hit@{summary.k}",
        f"nDCG@{summary.k}",
        "retrieved",
    ]
    for column in columns:
        table.add_column(column, justify="left" if column == "target" else "right")
    for row in summary.rows:
        answers = "/".join(str(row.answers.get(d, 0)) for d in ("yes", "no", "unparsed"))
        table.add_row(
            row.row + (" [red]one answer[/]" if row.one_answer else ""),
            str(row.n),
            fmt(row.accuracy),
            fmt(row.balanced_accuracy),
            fmt(row.majority_baseline),
            answers,
            str(row.errors),
            *(
                fmt(v)
                for v in (row.precision, row.recall, row.f1, row.map, row.mrr, row.hit_at_k, row.ndcg_at_k)
            ),
            fmt(row.mean_retrieved, 1),
        )
    return table


def one_answer_warnings(summary: BenchmarkSummary) -> list[str]:
    """One line per target that gives the same answer to almost every question."""
    return [
        f"warning: {row.row} answers '{row.one_answer}' to {row.answers[row.one_answer]} of {row.n} "
        f"questions: its accuracy ({fmt(row.accuracy)}) is the share of that gold answer "
        f"(majority baseline {fmt(row.majority_baseline)}, balanced accuracy {fmt(row.balanced_accuracy)})"
        for row in summary.rows
        if row.one_answer
    ]


def _share_cell(n: int, share: float | None) -> str:
    return f"{n} ({share:.0%})" if share is not None else str(n)


def labels_table(table: LabelTable) -> Table:
    """Reichenpfader et al.'s Table 2 layout: per persona, the answers clinicians judged."""
    view = FittedTable(title="human labels (shares of labelled answers)")
    for column in ("persona", "asked", "labelled", "correct", "partially correct", "incorrect", "no answer"):
        view.add_column(column, justify="left" if column == "persona" else "right")
    for row in [*table.personas, table.total]:
        view.add_row(
            row.group,
            str(row.questions),
            str(row.labelled),
            _share_cell(row.correct, row.correct_share),
            _share_cell(row.partially_correct, row.partially_correct_share),
            _share_cell(row.incorrect, row.incorrect_share),
            str(row.no_answer),
            end_section=row is table.personas[-1],
        )
    return view


def gate_table(result: GateResult) -> Table:
    """Every check of a release policy: the figures, the threshold, and what was found."""
    verdict = "[green]PASS[/]" if result.passed else "[red]FAIL[/]"
    table = FittedTable(title=f"release gate {result.policy}: {verdict}")
    for column in ("rule", "metric", "group", "n", "mean", "interval", "threshold", "result"):
        table.add_column(column, justify="right" if column in ("rule", "n", "mean") else "left")
    for check in sorted(result.checks, key=lambda c: (c.passed, c.rule)):
        threshold = " ".join(
            part
            for part in (
                f">= {check.min:g}" if check.min is not None else "",
                f"<= {check.max:g}" if check.max is not None else "",
                f"({check.basis})",
            )
            if part
        )
        table.add_row(
            str(check.rule),
            check.figure,
            check.group,
            str(check.n),
            fmt(check.mean),
            f"{fmt(check.ci_low)} – {fmt(check.ci_high)}",
            threshold,
            f"[yellow]allowed[/]: {check.why}"
            if check.allowed
            else "[green]met[/]"
            if check.passed
            else f"[yellow]{check.why}[/]"
            if check.decision == "undecided"
            else f"[red]{check.why}[/]",
        )
    return table


def calibration_table(summary: CalibrationSummary, by: str) -> Table:
    """Mean calibrated probability of each level and the review queue, per group."""
    table = FittedTable(
        title=f"calibrated {summary.label} ({summary.method} on {' + '.join(summary.scores)}, "
        f"α={summary.alpha}) per {by}"
    )
    for column in (by, "n", *(f"P({lv})" for lv in summary.levels), "to review"):
        table.add_column(column, justify="left" if column == by else "right")
    for g in summary.groups:
        if g.by == by or g.by == "total":
            table.add_row(g.group, str(g.n), *(fmt(g.shares[lv]) for lv in summary.levels), str(g.review))
    return table
