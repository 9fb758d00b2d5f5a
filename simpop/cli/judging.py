"""Commands about the judge: how far it agrees with physicians (``judge-eval``) and fitting its
support verifier on a team's own labels (``judge train``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from simpop.cli.common import cli, config_models, console, progress_bars
from simpop.cli.tables import FittedTable, fmt
from simpop.models import QWEN_0_5B, QWEN_1_5B

if TYPE_CHECKING:
    from simpop.judging.crossval import Agreement


def interval(value: float | None, bounds: tuple[float, float] | None) -> str:
    if value is None:
        return "–"
    return fmt(value) if bounds is None else f"{value:.3f} [dim]({bounds[0]:.2f}–{bounds[1]:.2f})[/]"


def agreement_table(title: str, rows: list[Agreement]) -> Table:
    """One row per judge: out-of-fold ROC AUC, accuracy and kappa with 95% bootstrap intervals,
    the thresholds chosen on the training folds, and calibration (ECE, reliability bins)."""
    table = FittedTable(title=title)
    for column in ("judge", "ROC AUC", "accuracy", "Cohen's kappa", "threshold", "ECE", "reliability"):
        table.add_column(column, justify="left" if column in ("judge", "reliability") else "right")
    for row in rows:
        thresholds = f"{min(row.thresholds):.2f}–{max(row.thresholds):.2f}" if row.thresholds else "–"
        bins = " ".join(f"{predicted:.1f}→{observed:.1f}" for predicted, observed, _ in row.reliability)
        table.add_row(
            row.judge,
            interval(row.auc, row.auc_interval),
            interval(row.accuracy, row.accuracy_interval),
            interval(row.kappa, row.kappa_interval),
            thresholds,
            fmt(row.ece),
            bins,
        )
    return table


FOOTNOTE = (
    "[dim]Out of fold: {folds}-fold cross-validation grouped by answer (no answer in two folds); "
    "thresholds and verifiers fitted on the training folds; intervals: 95% bootstrap over answers; "
    "reliability: mean P(yes) → share supported, per fifth of the scale.[/]"
)


@cli.command("judge-eval")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path),
    help="A run config: evaluate its judge (else llm) and embedding model.",
)
@click.option(
    "--model",
    "models",
    multiple=True,
    help=f"A built-in judge model to evaluate (repeatable; default: {QWEN_0_5B} and {QWEN_1_5B}).",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    default=Path("data/kqa-nli"),
    show_default=True,
    help="K-QA NLI judgements (folder or CSV).",
)
@click.option("--limit", type=click.IntRange(5), help="Use only the statements of the first N answers.")
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Also write the figures as JSON.")
@click.option("--diagram", type=click.Path(path_type=Path), help="Also draw the reliability diagram (PNG).")
def judge_eval(
    config_file: Path | None,
    models: tuple[str, ...],
    data: Path,
    limit: int | None,
    no_cache: bool,
    output: Path | None,
    diagram: Path | None,
) -> None:
    """Agreement of the support judge, its verifier and embedding groundedness with physicians."""
    from simpop.run.agreement import evaluate

    llm, embedding = config_models(config_file)
    if config_file is not None and models:
        raise click.UsageError("give --config or --model, not both")
    configs = (
        [llm]
        if config_file is not None
        else [llm.model_copy(update={"model": m}) for m in models or (QWEN_0_5B, QWEN_1_5B)]
    )
    result = asyncio.run(
        evaluate(configs, embedding, data, limit, use_cache=not no_cache, progress=progress_bars())
    )
    title = (
        f"support judges vs physicians · {result.data} · {result.items} statements "
        f"({result.supported} supported) on {result.answers} answers"
    )
    console.print(agreement_table(title, result.rows))
    console.print(FOOTNOTE.format(folds=result.rows[0].folds if result.rows else 5))
    failed = {m: n for m, n in result.judge_errors.items() if n}
    if failed:
        console.print(f"[yellow]judge errors (counted as P(yes) 0.5): {failed}[/]")
    if output is not None:
        output.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
        console.print(f"figures → {output}")
    if diagram is not None:
        from simpop.judging.diagram import reliability_figure

        console.print(f"reliability diagram → {reliability_figure(result.rows, diagram)}")


@cli.group()
def judge() -> None:
    """The judge's support verifier."""


@judge.command("train")
@click.argument("labels", type=click.Path(path_type=Path))
@click.option(
    "--config", "config_file", type=click.Path(path_type=Path), help="A run config: its judge (else llm)."
)
@click.option("--label", default="supported", show_default=True, help="The yes/no label to fit.")
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="ROLE=NAME",
    help="Read role answer (the statement) or context from another column.",
)
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), default=Path("verifier.json"), show_default=True
)
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
def judge_train(
    labels: Path,
    config_file: Path | None,
    label: str,
    columns: tuple[str, ...],
    output: Path,
    no_cache: bool,
) -> None:
    """Fit the support verifier on LABELS: statements, the context each should rest on, and a
    yes/no 'supported' label (CSV or JSONL; K-QA's NLI file as it is)."""
    from simpop.calibration.workflow import parse_columns
    from simpop.run.judge_training import train_verifier

    llm, embedding = config_models(config_file)
    model, rows = asyncio.run(
        train_verifier(
            labels,
            llm,
            embedding,
            label,
            parse_columns(columns),
            use_cache=not no_cache,
            progress=progress_bars(),
        )
    )
    console.print(agreement_table(f"judge {llm.model} vs {labels} (out of fold)", rows))
    console.print(FOOTNOTE.format(folds=rows[0].folds))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    console.print(
        f"verifier fitted on all {model.items} statements (threshold {model.threshold:.2f}) → {output}\n"
        f"to use it, add to the run config:\n  scoring:\n    verifier: {output}"
    )
