"""Commands about the judge: how far it agrees with physicians (``judge-eval``) and fitting its
support verifier on a team's own labels (``judge train``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from simpop.cli.common import OUTPUT_FILE, cli, config_models, console, progress_bars
from simpop.cli.safety_judging import SAFETY_CHOICES, safety_judge_eval, safety_train
from simpop.cli.tables import FittedTable, fmt
from simpop.models import QWEN_0_5B, QWEN_1_5B

if TYPE_CHECKING:
    from simpop.evaluation.agreement import JudgeEvaluation
    from simpop.evaluation.contradiction_agreement import ContradictionEvaluation
    from simpop.evaluation.refusal_agreement import RefusalEvaluation
    from simpop.evaluation.sub_question_agreement import SubQuestionEvaluation
    from simpop.judging.crossval import Agreement
    from simpop.models import EmbeddingConfig, LLMConfig


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
    "thresholds and verifiers fitted on the training folds (a verifier 'as shipped' is not refitted); "
    "intervals: 95% bootstrap over answers; "
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
    "--judge",
    "which",
    type=click.Choice(
        ["support", "contradiction", "refusal", "sub_question", *SAFETY_CHOICES, "safe_behaviour"]
    ),
    default="support",
    show_default=True,
    help="The support judge (K-QA), the conversation contradiction judge (ProSeCCo and K-QA), the "
    "refusal LLM judge (XSTest), the sub-question judge (data/sub-questions), a safety judge "
    "(escalated, false_reassurance, refused, clarify: the profile's classifier, the LLM judge and the "
    "keyword rule on the test split of data/safety-labels), or safe behaviour derived from them, per "
    "kind of message.",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    multiple=True,
    help="Labelled data, folder or CSV (default: data/kqa-nli; for contradiction also data/prosecco; "
    "for refusal data/xstest; for sub_question data/sub-questions).",
)
@click.option(
    "--limit",
    type=click.IntRange(5),
    help="Support: the statements of the first N answers. Contradiction: N pairs of each set at random. "
    "Refusal, sub-questions and the safety judges: N answers at random (up to half labelled yes).",
)
@click.option(
    "--labels",
    type=click.Path(path_type=Path),
    help="Safety judges: a team's labelled file (CSV or JSONL: message, answer, optional context, a "
    "yes/no label) to evaluate the current profile on, without refitting.",
)
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="ROLE=NAME",
    help="Safety judges with --labels: read role message, answer, context, label or id from column NAME.",
)
@click.option(
    "--language",
    help="Safety judges: the answers' language (default: each language of the corpus's test split, or "
    "the language most of --labels' answers are in).",
)
@click.option("--no-llm", is_flag=True, help="Safety judges: leave out the LLM judge (slow on CPU).")
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
@click.option("-o", "--output", type=OUTPUT_FILE, help="Also write the figures as JSON.")
@click.option("--diagram", type=OUTPUT_FILE, help="Also draw the reliability diagram (PNG).")
def judge_eval(
    config_file: Path | None,
    models: tuple[str, ...],
    which: str,
    data: tuple[Path, ...],
    limit: int | None,
    labels: Path | None,
    columns: tuple[str, ...],
    language: str | None,
    no_llm: bool,
    no_cache: bool,
    output: Path | None,
    diagram: Path | None,
) -> None:
    """Agreement with people of the support judge, its verifier and embedding groundedness
    (physicians, K-QA), of the conversation contradiction judge (--judge contradiction), of the
    refusal LLM judge (--judge refusal) or of a safety judge (--judge escalated, false_reassurance,
    refused, clarify)."""
    llm, embedding = config_models(config_file)
    if config_file is not None and models:
        raise click.UsageError("give --config or --model, not both")
    if (labels is not None or columns) and which not in SAFETY_CHOICES:
        raise click.UsageError("--labels and --column are for a safety judge")
    if (no_llm or language) and which not in (*SAFETY_CHOICES, "safe_behaviour"):
        raise click.UsageError("--no-llm and --language are for the safety judges")
    if which in (*SAFETY_CHOICES, "safe_behaviour"):
        safety_judge_eval(
            which, llm, embedding, models, data, labels, columns, no_llm, no_cache, output, limit, language
        )
        return
    configs = (
        [llm]
        if config_file is not None
        else [llm.model_copy(update={"model": m}) for m in models or (QWEN_0_5B, QWEN_1_5B)]
    )
    if which == "contradiction":
        sets = list(data or (Path("data/prosecco"), Path("data/kqa-nli")))
        contradiction_eval(configs, sets, limit, no_cache, output, diagram)
        return
    if len(data) > 1:
        raise click.UsageError(f"the {which} judge takes one --data")
    if which in ("refusal", "sub_question"):
        folder = data[0] if data else Path("data/xstest" if which == "refusal" else "data/sub-questions")
        message_judge_eval(which, configs, folder, limit, no_cache, output, diagram)
        return
    support_eval(
        configs, embedding, data[0] if data else Path("data/kqa-nli"), limit, no_cache, output, diagram
    )


def support_eval(
    configs: list[LLMConfig],
    embedding: EmbeddingConfig,
    data: Path,
    limit: int | None,
    no_cache: bool,
    output: Path | None,
    diagram: Path | None,
) -> None:
    """The support judges, the verifier and embedding groundedness against people (K-QA)."""
    from simpop.evaluation.agreement import evaluate

    result = asyncio.run(
        evaluate(configs, embedding, data, limit, use_cache=not no_cache, progress=progress_bars())
    )
    title = (
        f"support judges vs people · {result.data} · {result.items} statements "
        f"({result.supported} supported) on {result.answers} answers"
    )
    console.print(agreement_table(title, result.rows))
    console.print(FOOTNOTE.format(folds=max((r.folds for r in result.rows), default=5)))
    errors_and_files(result, output, diagram)


THRESHOLD_FOOTNOTE = (
    "[dim]Profile threshold: the verdict a run gives (no fitting). Fitted threshold: chosen on the "
    "training folds of 5-fold cross-validation grouped by {groups}. Intervals: 95% bootstrap over "
    "{over}.[/]"
)


def contradiction_eval(
    configs: list[LLMConfig],
    data: list[Path],
    limit: int | None,
    no_cache: bool,
    output: Path | None,
    diagram: Path | None,
) -> None:
    from simpop.evaluation.contradiction_agreement import evaluate_contradiction

    result = asyncio.run(
        evaluate_contradiction(configs, data, limit, use_cache=not no_cache, progress=progress_bars())
    )
    sets = ", ".join(
        f"{n}: {result.items[n]} pairs ({result.contradictions[n]} contradicting)" for n in result.items
    )
    console.print(agreement_table(f"contradiction judge vs people · {sets}", result.rows))
    console.print(
        THRESHOLD_FOOTNOTE.format(groups="speaker (ProSeCCo) or answer (K-QA)", over="those groups")
    )
    errors_and_files(result, output, diagram)


def message_judge_eval(
    which: str,
    configs: list[LLMConfig],
    data: Path,
    limit: int | None,
    no_cache: bool,
    output: Path | None,
    diagram: Path | None,
) -> None:
    """The refusal or the sub-question judge against answers people labelled, folds by message."""
    from simpop.evaluation.refusal_agreement import evaluate_refusal
    from simpop.evaluation.sub_question_agreement import evaluate_sub_questions

    progress = progress_bars()
    result: RefusalEvaluation | SubQuestionEvaluation
    if which == "refusal":
        result = asyncio.run(
            evaluate_refusal(configs, data, limit, use_cache=not no_cache, progress=progress)
        )
        what = (
            f"{result.items} answers ({result.refusals} refused; "
            f"{result.partial_left_out} partial refusals left out)"
        )
    else:
        result = asyncio.run(
            evaluate_sub_questions(configs, data, limit, use_cache=not no_cache, progress=progress)
        )
        what = f"{result.items} questions ({result.addressed} addressed)"
    console.print(
        agreement_table(f"{which.replace('_', '-')} judge vs people · {data} · {what}", result.rows)
    )
    console.print(THRESHOLD_FOOTNOTE.format(groups="message", over="messages"))
    errors_and_files(result, output, diagram)


def errors_and_files(
    result: JudgeEvaluation | ContradictionEvaluation | RefusalEvaluation | SubQuestionEvaluation,
    output: Path | None,
    diagram: Path | None,
) -> None:
    """The judge errors, then the figures as JSON and the reliability diagram where asked for."""
    failed = {k: n for k, n in result.judge_errors.items() if n}
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
    """Fit what the judge decides with: its support verifier, or a safety judge's classifier."""


@judge.command("train")
@click.argument("labels", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--judge",
    "which",
    type=click.Choice(["support", *SAFETY_CHOICES]),
    default="support",
    show_default=True,
    help="The support verifier, or a safety judge's classifier (from data/safety-labels: chosen on its "
    "dev split, measured on its test split; from a team's file: measured out of fold).",
)
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
    "-o",
    "--output",
    type=OUTPUT_FILE,
    help="The fitted file [default: verifier.json, or NAME.json]",
)
@click.option(
    "--language",
    help="A safety classifier: the answers' language (default: en on the corpus, else the language most "
    "of the file's answers are in).",
)
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
def judge_train(
    labels: tuple[Path, ...],
    which: str,
    config_file: Path | None,
    label: str,
    columns: tuple[str, ...],
    output: Path | None,
    language: str | None,
    no_cache: bool,
) -> None:
    """Fit the support verifier (or, with --judge NAME, a safety classifier) on LABELS.

    The verifier: statements, the context each should rest on, and a yes/no 'supported' label
    (CSV or JSONL; K-QA's NLI file and claim–evidence files as they are; several files: fitted on
    all, measured on each). A safety classifier: messages, answers and a yes/no label (or
    simpop's corpus folder)."""
    from simpop.calibration.workflow import parse_columns
    from simpop.evaluation.judge_training import train_verifier

    llm, embedding = config_models(config_file)
    if which in SAFETY_CHOICES:
        if len(labels) > 1:
            raise click.UsageError("a safety judge is fitted on one label file (or the corpus folder)")
        safety_train(
            which,
            labels[0],
            llm,
            embedding,
            parse_columns(columns),
            output or Path(f"{which}.json"),
            language,
        )
        return
    output = output or Path("verifier.json")
    model, rows = asyncio.run(
        train_verifier(
            list(labels),
            llm,
            embedding,
            label,
            parse_columns(columns),
            use_cache=not no_cache,
            progress=progress_bars(),
        )
    )
    console.print(agreement_table(f"judge {llm.model} vs {', '.join(map(str, labels))} (out of fold)", rows))
    console.print(FOOTNOTE.format(folds=rows[0].folds))
    if len(labels) > 1:
        console.print(
            "[dim]Per file: the rows with '· FILE' score that file's statements; 'fitted on the others' "
            "was fitted (threshold included) on the other files only, and shows how far it carries.[/]"
        )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    console.print(
        f"verifier fitted on all {model.items} statements (threshold {model.threshold:.2f}) → {output}\n"
        f"to use it, add to the run config:\n  scoring:\n    verifier: {output}"
    )
