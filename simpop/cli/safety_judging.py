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
from simpop.verdicts import by_option, options

if TYPE_CHECKING:
    from simpop.evaluation.safety_agreement import SafetyEvaluation
    from simpop.labels.safety_pairs import LabelledPair
    from simpop.models import EmbeddingConfig, LLMConfig

SAFETY_CHOICES = tuple(options())
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


def file_language(pairs: list[LabelledPair], language: str | None) -> str:
    """``language``, else the language most of the file's answers are in."""
    from collections import Counter

    from simpop.judging.answer_language import answer_language

    if language is not None:
        return language
    return Counter(answer_language(p.answer) for p in pairs).most_common(1)[0][0]


def labelled_sets(
    judge: str, data: Path, labels: Path | None, columns: dict[str, str], language: str | None
) -> list[tuple[str, list[LabelledPair], str]]:
    """(language, pairs, where) to evaluate on: a team's labelled file in its language, else the
    corpus's test split of the messages the judge is asked about, per language (or ``language``)."""
    from simpop.errors import ConfigError
    from simpop.labels.safety_pairs import load_corpus, load_team_labels, pairs_for

    if labels is not None:
        pairs = load_team_labels(labels, columns)
        return [(file_language(pairs, language), pairs, str(labels))]
    kinds = by_option(judge).kinds
    items = load_corpus(data)
    found = []
    for each in sorted({i.language for i in items} if language is None else {language}):
        pairs = pairs_for(items, judge, {"test"}, kinds, each)
        if pairs:
            found.append((each, pairs, f"{data} '{each}' test split ({', '.join(sorted(kinds))})"))
    if not found:
        raise ConfigError(f"{data}: no '{language}' answers labelled {judge} in the test split")
    return found


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
    language: str | None = None,
) -> None:
    """``judge-eval --judge NAME`` for a safety judge or safe behaviour."""
    from simpop.calibration.workflow import parse_columns

    if len(data) > 1 or len(models) > 1:
        raise click.UsageError("a safety judge takes one --data and one --model")
    judge_llm = llm.model_copy(update={"model": models[0]}) if models else llm
    corpus = data[0] if data else Path("data/safety-labels")
    if which == "safe_behaviour":
        safe_behaviour_eval(judge_llm, embedding, corpus, not no_llm, no_cache, output, language)
    else:
        mapped = parse_columns(columns)
        safety_eval(
            which, judge_llm, embedding, corpus, labels, mapped, not no_llm, no_cache, output, limit, language
        )


def safe_behaviour_eval(
    llm: LLMConfig,
    embedding: EmbeddingConfig,
    data: Path,
    with_llm: bool,
    no_cache: bool,
    output: Path | None,
    language: str | None = None,
) -> None:
    """Safe behaviour derived from each scorer's verdicts, per kind of message and language, on
    the test split."""
    from simpop.evaluation.safety_agreement import evaluate_safe_behaviour
    from simpop.labels.safety_pairs import load_corpus

    tested = [i for i in load_corpus(data) if i.split == "test"]
    results = []
    for each in sorted({i.language for i in tested} if language is None else {language}):
        items = [i for i in tested if i.language == each]
        results += asyncio.run(
            evaluate_safe_behaviour(
                items,
                f"{data} '{each}' test split",
                llm,
                embedding,
                with_llm,
                not no_cache,
                progress_bars(),
                each,
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
    language: str | None = None,
) -> None:
    """A safety judge's agreement with the labels, one table per language; a language with no
    classifier is said so, and its answers are scored by the keyword rule and the LLM alone."""
    from simpop.evaluation.safety_agreement import evaluate_safety
    from simpop.judging.crossval import balanced

    results = []
    for each, pairs, where in labelled_sets(judge, data, labels, columns, language):
        if limit is not None and limit < len(pairs):
            pairs = balanced(pairs, lambda p: p.label, limit)
            where += f", {len(pairs)} drawn at random (up to half yes)"
        if each not in by_option(judge).languages():
            console.print(
                f"[yellow]warning: {where}: the answers are in '{each}', which no {judge} classifier "
                f"is for (have: {', '.join(by_option(judge).languages())}); a run judges them with the "
                "LLM judge, not validated[/]"
            )
        result = asyncio.run(
            evaluate_safety(
                judge, pairs, where, llm, embedding, with_llm, not no_cache, progress_bars(), each
            )
        )
        print_evaluation(result)
        results.append(result)
    if output is not None:
        output.write_text("".join(rows_json(r) for r in results), encoding="utf-8")
        console.print(f"figures → {output}")


def safety_train(
    judge: str,
    labels: Path,
    llm: LLMConfig,
    embedding: EmbeddingConfig,
    columns: dict[str, str],
    output: Path,
    language: str | None = None,
) -> None:
    """Fit a safety judge of one language's answers: on the corpus (a folder holding it) with
    features chosen on its dev split and agreement on its test split; on a team's file out of
    fold."""
    from simpop.evaluation.safety_training import train_on_corpus, train_on_file
    from simpop.judging.profile import profile_for
    from simpop.judging.safety_cues import check_language
    from simpop.labels.safety_pairs import load_team_labels

    if (labels / "safety-labels.jsonl").is_file() if labels.is_dir() else False:
        language = language or "en"
        check_language(language)
        model, evaluation, candidates = train_on_corpus(judge, labels, embedding, language)
        for blocks, c, kappa, auc in candidates:
            console.print(f"[dim]dev: {' + '.join(blocks):<27} C {c:<5} kappa {kappa:.3f}, AUC {fmt(auc)}[/]")
    else:
        language = file_language(load_team_labels(labels, columns), language)
        check_language(language)
        model, evaluation = train_on_file(judge, labels, columns, embedding, profile_for(llm.model), language)
    print_evaluation(evaluation)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    console.print(
        f"{judge} classifier fitted on {model.items} answers (threshold {model.threshold:.2f}, "
        f"features {' + '.join(model.blocks)}, C {model.c}) → {output}\n"
        f"to use it, add to the run config:\n  scoring:\n    safety_classifiers:\n      {judge}: {output}"
    )
