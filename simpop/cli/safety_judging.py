"""The safety judges in ``judge-eval`` and ``judge train``: their agreement with people on the
corpus's held-out test split or a team's labelled file, and fitting them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from simpop.cli.common import console, progress_bars
from simpop.cli.tables import FittedTable, fmt

if TYPE_CHECKING:
    from simpop.evaluation.safety_agreement import SafetyEvaluation
    from simpop.labels.safety_pairs import LabelledPair
    from simpop.models import EmbeddingConfig, LLMConfig

SAFETY_CHOICES = ("escalated", "false_reassurance", "refused", "clarify")
FOOTNOTE = (
    "[dim]Nothing fitted on these items. Intervals: 95% bootstrap over patient messages (a "
    "message's answers resampled together). Paired difference: kappa of the first scorer minus the "
    "other's on the same resamples.[/]"
)


def _interval(value: float | None, bounds: tuple[float, float] | None) -> str:
    if value is None:
        return "–"
    return fmt(value) if bounds is None else f"{value:.3f} [dim]({bounds[0]:.2f}–{bounds[1]:.2f})[/]"


def safety_table(result: SafetyEvaluation) -> Table:
    size = f"{result.items} answers, {result.groups} messages"
    table = FittedTable(title=f"{result.judge} judge vs people · {result.data} · {size}")
    for column in ("scorer", "n", "label yes", "verdict yes", "accuracy", "Cohen's kappa", "ROC AUC"):
        table.add_column(column, justify="left" if column == "scorer" else "right")
    for row in result.rows:
        table.add_row(
            row.scorer,
            str(row.n),
            fmt(row.label_rate, 2),
            fmt(row.verdict_rate, 2),
            _interval(row.accuracy, row.accuracy_interval),
            _interval(row.kappa, row.kappa_interval),
            _interval(row.auc, row.auc_interval),
        )
    return table


def print_evaluation(result: SafetyEvaluation) -> None:
    console.print(safety_table(result))
    for d in result.differences:
        console.print(
            f"kappa {d.scorer} − {d.versus}: {d.kappa_difference:+.3f} "
            f"[dim](95% {d.interval[0]:+.2f} to {d.interval[1]:+.2f})[/]"
        )
    if result.judge_errors:
        console.print(f"[yellow]LLM judge errors (counted as P(yes) 0.5): {result.judge_errors}[/]")
    console.print(FOOTNOTE)


def rows_json(result: SafetyEvaluation) -> str:
    """One object per scorer row; the first scorer's row carries its paired differences."""
    rows = [{"judge": result.judge, "data": result.data, **row.model_dump()} for row in result.rows]
    if rows:
        rows[0]["kappa_difference"] = {
            d.versus: d.model_dump(exclude={"scorer", "versus"}) for d in result.differences
        }
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def labelled_pairs(
    judge: str, data: Path, labels: Path | None, columns: dict[str, str]
) -> tuple[list[LabelledPair], str]:
    """A team's labelled file, else the corpus's test split of the messages the judge is asked about."""
    from simpop.evaluation.safety_agreement import APPLIES
    from simpop.labels.safety_pairs import load_corpus, load_team_labels, pairs_for

    if labels is not None:
        return load_team_labels(labels, columns), str(labels)
    kinds = APPLIES[judge]
    return pairs_for(
        load_corpus(data), judge, {"test"}, kinds
    ), f"{data} test split ({', '.join(sorted(kinds))})"


def safety_judge_eval(
    which: str,
    llm: LLMConfig,
    embedding: EmbeddingConfig,
    models: tuple[str, ...],
    data: tuple[Path, ...],
    labels: Path | None,
    columns: tuple[str, ...],
    no_llm: bool,
    no_cache: bool,
    output: Path | None,
    limit: int | None,
) -> None:
    """``judge-eval --judge NAME`` for a safety judge or safe behaviour."""
    from simpop.calibration.workflow import parse_columns

    if len(data) > 1 or len(models) > 1:
        raise click.UsageError("a safety judge takes one --data and one --model")
    judge_llm = llm.model_copy(update={"model": models[0]}) if models else llm
    corpus = data[0] if data else Path("data/safety-labels")
    if which == "safe_behaviour":
        safe_behaviour_eval(judge_llm, embedding, corpus, not no_llm, no_cache, output)
    else:
        mapped = parse_columns(columns)
        safety_eval(which, judge_llm, embedding, corpus, labels, mapped, not no_llm, no_cache, output, limit)


def safe_behaviour_eval(
    llm: LLMConfig,
    embedding: EmbeddingConfig,
    data: Path,
    with_llm: bool,
    no_cache: bool,
    output: Path | None,
) -> None:
    """Safe behaviour derived from each scorer's verdicts, per kind of message, on the test split."""
    from simpop.evaluation.safety_agreement import evaluate_safe_behaviour
    from simpop.labels.safety_pairs import load_corpus

    items = [i for i in load_corpus(data) if i.split == "test"]
    results = asyncio.run(
        evaluate_safe_behaviour(
            items, f"{data} test split", llm, embedding, with_llm, not no_cache, progress_bars()
        )
    )
    for result in results:
        print_evaluation(result)
    if output is not None:
        output.write_text("".join(rows_json(r) for r in results), encoding="utf-8")
        console.print(f"figures → {output}")


def safety_eval(
    judge: str,
    llm: LLMConfig,
    embedding: EmbeddingConfig,
    data: Path,
    labels: Path | None,
    columns: dict[str, str],
    with_llm: bool,
    no_cache: bool,
    output: Path | None,
    limit: int | None = None,
) -> None:
    from simpop.evaluation.safety_agreement import evaluate_safety
    from simpop.judging.crossval import balanced

    pairs, where = labelled_pairs(judge, data, labels, columns)
    if limit is not None and limit < len(pairs):
        pairs = balanced(pairs, lambda p: p.label, limit)
        where += f", {len(pairs)} drawn at random (up to half yes)"
    result = asyncio.run(
        evaluate_safety(judge, pairs, where, llm, embedding, with_llm, not no_cache, progress_bars())
    )
    print_evaluation(result)
    if output is not None:
        output.write_text(rows_json(result), encoding="utf-8")
        console.print(f"figures → {output}")


def safety_train(
    judge: str,
    labels: Path,
    llm: LLMConfig,
    embedding: EmbeddingConfig,
    columns: dict[str, str],
    output: Path,
) -> None:
    """Fit a safety judge: on the corpus (a folder holding it) with features chosen on its dev
    split and agreement on its test split; on a team's file out of fold."""
    from simpop.evaluation.safety_training import train_on_corpus, train_on_file
    from simpop.judging.profile import profile_for

    if (labels / "safety-labels.jsonl").is_file() if labels.is_dir() else False:
        model, evaluation, candidates = train_on_corpus(judge, labels, embedding)
        for blocks, c, kappa, auc in candidates:
            console.print(f"[dim]dev: {' + '.join(blocks):<27} C {c:<5} kappa {kappa:.3f}, AUC {fmt(auc)}[/]")
    else:
        model, evaluation = train_on_file(judge, labels, columns, embedding, profile_for(llm.model))
    print_evaluation(evaluation)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    console.print(
        f"{judge} classifier fitted on {model.items} answers (threshold {model.threshold:.2f}, "
        f"features {' + '.join(model.blocks)}, C {model.c}) → {output}\n"
        f"to use it, add to the run config:\n  scoring:\n    safety_classifiers:\n      {judge}: {output}"
    )
