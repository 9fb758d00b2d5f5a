"""The ``simpop`` command: parse, call the library, print."""

from __future__ import annotations

import asyncio
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from simpop import __version__
from simpop.config import apply_llm_env, load_personas, load_run_config
from simpop.errors import SimpopError
from simpop.models import (
    CALIBRATION_METHODS,
    BenchmarkSummary,
    CalibrationSummary,
    EmbeddingConfig,
    JudgeSummary,
    LabelTable,
    LLMConfig,
    LLMUsage,
    RunConfig,
    RunSummary,
    TopicStrata,
)
from simpop.report.gate import GateResult
from simpop.report.records import RunRecords, run_directory

if TYPE_CHECKING:
    from simpop.calibration.calibrate import Calibrator
    from simpop.calibration.workflow import LabelSource
from simpop.store import SUMMARY_FILE, RunStore, write_text_atomic

# Tables stay readable when the output is piped or captured (rich would use 80 columns).
console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)


class UserError(click.ClickException):
    """Bad input: one line on stderr, exit status 2."""

    exit_code = 2


class SimpopGroup(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except SimpopError as error:
            raise UserError(str(error)) from None


def _scenario_choice(value: str) -> list[str] | str:
    if value.strip() in ("all", "none"):
        return "all" if value.strip() == "all" else []
    return _ids(value) or []


def _ids(value: str | None) -> list[str] | None:
    return [part.strip() for part in value.split(",") if part.strip()] if value else None


class RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:.1f}/s" if task.speed else "–/s", style="progress.data.speed")


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description:<22}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err_console,
    )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def accuracy_table(summary: RunSummary) -> Table:
    assert summary.accuracy is not None
    rows, total = summary.accuracy.personas, summary.accuracy.total
    table = Table(title=f"QAP-match accuracy · {summary.target} · run {summary.run_id}")
    for column in ("persona", "n", "correct", "no answer", "accuracy", "95% CI (Wilson)"):
        table.add_column(column, justify="left" if column == "persona" else "right")
    for row in [*rows, total]:
        ci = f"{row.ci_low:.3f} – {row.ci_high:.3f}" if row.ci_low is not None else "–"
        table.add_row(
            row.group,
            str(row.n),
            str(row.correct),
            str(row.no_answer),
            _fmt(row.accuracy),
            ci,
            end_section=row is rows[-1] if rows else False,
            style="bold" if row is total else None,
        )
    return table


RETRIEVAL_COLUMNS = {
    "retrieval.precision": "precision",
    "retrieval.recall": "recall",
    "retrieval.average_precision": "AP",
    "retrieval.reciprocal_rank": "RR",
    "retrieval.hit@5": "hit@5",
    "retrieval.ndcg@5": "nDCG@5",
    "answer_similarity": "answer sim.",
}
SAFETY_COLUMNS = {
    "safe_behaviour": "safe behaviour",
    "faithfulness": "CF",
    "refusal.accuracy": "RA",
    "refusal.over_refusal": "over-refusal",
    "refusal.unsafe_compliance": "unsafe compliance",
    "context_relevance": "CR",
    "escalation.escalated": "escalated",
    "escalation.false_reassurance": "false reassurance",
    "clarification": "clarified",
    "sub_questions.fully_addressed": "all questions addressed",
    "embedding.groundedness": "groundedness",
    "embedding.answer_relevancy": "answer relevancy",
}


def metrics_table(summary: RunSummary, columns: dict[str, str], title: str) -> Table | None:
    """Per persona: each metric's mean with its n (probes with a value) below it; None when
    the run has none of ``columns``."""
    shown = [m for m in columns if any(g.metric == m and g.n for g in summary.metrics)]
    if not shown:
        return None
    cells = {(g.group, g.metric): g for g in summary.metrics}
    groups = list(dict.fromkeys(g.group for g in summary.metrics))
    table = Table(title=f"{title} · {summary.target} · run {summary.run_id}")
    table.add_column("persona")
    for metric in shown:
        table.add_column(columns[metric], justify="right")
    for group in groups:
        table.add_row(
            group,
            *(f"{_fmt(cells[(group, m)].mean, 2)}\n[dim]n={cells[(group, m)].n}[/]" for m in shown),
            end_section=True,
            style="bold" if group == "total" else None,
        )
    return table


def judge_line(judge: JudgeSummary) -> str:
    errors = ", ".join(f"{n} {metric}" for metric, n in sorted(judge.errors.items())) or "none"
    return (
        f"judge {judge.model}: {judge.judged} probes judged; judge errors: {errors}; "
        f"{judge.no_information} answers with no informative sentence (CF undefined)"
    )


def fidelity_table(summary: RunSummary) -> Table:
    """Per persona: how believable its simulated questions are."""
    assert summary.fidelity is not None
    table = Table(title=f"persona fidelity · run {summary.run_id}")
    columns = ["persona", "literacy", "planned", "valid", "duplicates", "invalid", "distinct"]
    columns += ["reading grade", "words", "seed sim.", "noisy", "WER"]
    for column in columns:
        table.add_column(column, justify="left" if column in ("persona", "literacy") else "right")
    for row in summary.fidelity.personas:
        table.add_row(
            row.persona_id,
            row.health_literacy,
            str(row.planned),
            _fmt(row.valid_share, 2),
            _fmt(row.duplicate_share, 2),
            str(row.invalid),
            _fmt(row.distinct_ratio, 2),
            _fmt(row.mean_reading_grade, 1),
            _fmt(row.mean_words, 1),
            _fmt(row.mean_seed_similarity, 2),
            str(row.noisy),
            _fmt(row.noisy_wer, 2),
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


def _usage_line(usage: LLMUsage) -> str:
    return (
        f"LLM: {usage.requests} calls, {usage.cache_hits} cache hits, "
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens, "
        f"{usage.retries} retries, {usage.failures} failures"
    )


def benchmark_table(summary: BenchmarkSummary) -> Table:
    """The table of Han's thesis: one row per target (and threshold)."""
    table = Table(title=f"yes/no benchmark · {summary.name} · run {summary.run_id}")
    columns = ["target", "n", "accuracy", "unparsed", "errors", "precision", "recall", "F1", "MAP", "MRR"]
    columns += [f"hit@{summary.k}", f"nDCG@{summary.k}", "retrieved"]
    for column in columns:
        table.add_column(column, justify="left" if column == "target" else "right")
    for row in summary.rows:
        table.add_row(
            row.row,
            str(row.n),
            _fmt(row.accuracy),
            str(row.unparsed),
            str(row.errors),
            *(
                _fmt(v)
                for v in (row.precision, row.recall, row.f1, row.map, row.mrr, row.hit_at_k, row.ndcg_at_k)
            ),
            _fmt(row.mean_retrieved, 1),
        )
    return table


CALIBRATOR_OPTION = click.option(
    "--calibrator",
    "calibrator_file",
    type=click.Path(path_type=Path),
    help="Calibrator from simpop calibrate: add calibrated probabilities and a review queue.",
)


@click.group(cls=SimpopGroup)
@click.version_option(__version__, prog_name="simpop")
def cli() -> None:
    """Simulate patient populations to stress-test a medical question-answering chatbot."""


@cli.command()
@click.argument("config_file", metavar="CONFIG", type=click.Path(path_type=Path))
@click.option("--personas", "persona_ids", help="Comma-separated persona ids (default: all).")
@click.option(
    "--variants", type=click.IntRange(0, 50), help="Question variants per QAP and persona (0: none)."
)
@click.option(
    "--scenarios",
    "scenario_ids",
    help="Comma-separated scenario ids, 'all' (the default) or 'none'.",
)
@click.option("--probes", type=click.IntRange(1, 50), help="Probes per scenario and persona.")
@click.option(
    "--topics",
    type=click.IntRange(0, 500),
    help="Knowledge-base chunks sampled by topic per HCAT question type (0: none).",
)
@click.option("--limit", type=click.IntRange(1), help="Use only the first N QAPs.")
@click.option("--seed", type=int, help="Run seed (LLM sampling seeds derive from it).")
@click.option("--concurrency", type=click.IntRange(1, 256), help="LLM and target requests in flight.")
@click.option("--resume", "resume_id", metavar="RUN_ID", help="Finish an interrupted run.")
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
@click.option("--no-judge", is_flag=True, help="Skip the LLM judges (triad, safe behaviour).")
@click.option(
    "--policy",
    "policy_file",
    type=click.Path(path_type=Path),
    help="Release policy YAML: gate the run at the end (exit 1 when a rule is violated).",
)
@CALIBRATOR_OPTION
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Folder of run directories.",
)
def run(
    config_file: Path,
    persona_ids: str | None,
    variants: int | None,
    scenario_ids: str | None,
    probes: int | None,
    topics: int | None,
    limit: int | None,
    seed: int | None,
    concurrency: int | None,
    resume_id: str | None,
    no_cache: bool,
    no_judge: bool,
    policy_file: Path | None,
    calibrator_file: Path | None,
    out: Path,
) -> None:
    """Generate patient questions, ask the target, score the answers: CONFIG is a run config."""
    from simpop.calibration.calibrate import read_calibrator
    from simpop.pipeline import execute, load_inputs
    from simpop.population.plan import builtin_ids
    from simpop.report.gate import load_policy

    if policy_file is not None:
        load_policy(policy_file)  # a bad policy fails before the run, not after it
    calibrator = read_calibrator(calibrator_file) if calibrator_file is not None else None

    if resume_id:
        store = RunStore.open(out, resume_id)
        config = store.config()
        if any(v is not None for v in (persona_ids, variants, scenario_ids, probes, topics, limit, seed)):
            err_console.print(
                "note: --personas/--variants/--scenarios/--probes/--topics/--limit/--seed are taken from "
                "the run being resumed"
            )
    else:
        config = load_run_config(config_file)
        update = {
            "persona_ids": _ids(persona_ids) or config.persona_ids,
            "variants": config.variants if variants is None else variants,
            "scenarios": _scenario_choice(scenario_ids) if scenario_ids else config.scenarios,
            "probes": probes or config.probes,
            "topics": config.topics.model_copy(
                update={"questions": config.topics.questions if topics is None else topics}
            ),
            "limit": limit or config.limit,
            "scoring": config.scoring.model_copy(update={"judges": config.scoring.judges and not no_judge}),
            "seed": config.seed if seed is None else seed,
            "llm": apply_llm_env(config.llm, dict(os.environ)),
        }
        config = RunConfig.model_validate(config.model_dump() | update)
    if concurrency:
        config = config.model_copy(update={"llm": config.llm.model_copy(update={"concurrency": concurrency})})
    inputs = load_inputs(config)  # bad personas or QAPs fail before a run directory is made
    if not resume_id:
        if inputs.repeated:
            err_console.print(
                f"note: {inputs.repeated} QAPs repeat the question of an earlier QAP; "
                "only the first of each is used as a seed"
            )
        no_gold = sum(1 for gold in inputs.gold.values() if gold == [])
        if no_gold:
            err_console.print(f"note: {no_gold} seed QAPs have no gold chunk in the knowledge base")
        if not inputs.cells:
            raise UserError(
                "nothing to run: no variants (--variants 0), no scenarios (--scenarios none) "
                "and no topic questions (--topics 0)"
            )
        # pin personas and scenarios, so a resume plans the same cells even if files are added
        scenario_ids = [s for s in inputs.scenarios if s not in builtin_ids()]
        config = config.model_copy(
            update={"persona_ids": [p.id for p in inputs.personas], "scenarios": scenario_ids}
        )
        store = RunStore.create(out, config)
    err_console.print(f"run {store.run_id} → {store.directory}")
    try:
        summary = asyncio.run(execute(store, config, inputs, use_cache=not no_cache, progress=_progress()))
    except KeyboardInterrupt:
        raise UserError(
            f"interrupted; finish with: simpop run {config_file} --resume {store.run_id} --out {out}"
        ) from None
    if summary.fidelity is not None:
        console.print(fidelity_table(summary))
        for warning in summary.fidelity.warnings:
            console.print(f"[yellow]warning:[/] {warning}")
    if summary.accuracy is not None:
        console.print(accuracy_table(summary))
    for columns, title in (
        (RETRIEVAL_COLUMNS, "retrieval and similarity (means)"),
        (SAFETY_COLUMNS, "safety and faithfulness (rates and means)"),
    ):
        table = metrics_table(summary, columns, title)
        if table is not None:
            console.print(table)
    if summary.judge is not None:
        console.print(judge_line(summary.judge))
    console.print(_usage_line(summary.llm))
    if summary.excluded:
        parts = [f"{n} {reason}" for reason, n in sorted(summary.excluded.items())]
        console.print("cells not scored: " + ", ".join(parts))
    console.print("cells per scenario: " + ", ".join(f"{k} {n}" for k, n in summary.scenarios.items()))
    if summary.topics is not None:
        console.print(topics_line(summary.topics))
    if summary.labels is not None:
        console.print(labels_table(summary.labels))
    console.print(f"records: {store.directory}/ ({summary.planned_cells} cells, {summary.duration_s:.1f}s)")
    if calibrator is None and policy_file is None:
        return
    from simpop.report.records import load_run

    records = load_run(store.directory)
    if calibrator is not None and calibrator_file is not None:
        _apply_calibrator(records, calibrator, calibrator_file)
    if policy_file is not None and not _gate(records, policy_file, None).passed:
        raise SystemExit(1)


@cli.group()
def benchmark() -> None:
    """Benchmarks with gold answers: compare targets on a fixed dataset."""


@benchmark.command("yesno")
@click.argument("config_file", metavar="CONFIG", type=click.Path(path_type=Path))
@click.option("--limit", type=click.IntRange(1), help="Use only the first N yes/no questions.")
@click.option("--concurrency", type=click.IntRange(1, 256), help="Requests in flight.")
@click.option("--resume", "resume_id", metavar="RUN_ID", help="Finish an interrupted benchmark.")
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("runs"), show_default=True)
def benchmark_yesno(
    config_file: Path,
    limit: int | None,
    concurrency: int | None,
    resume_id: str | None,
    no_cache: bool,
    out: Path,
) -> None:
    """Yes/no accuracy and retrieval metrics of each target in CONFIG (Han's thesis table)."""
    from simpop.benchmark import load_benchmark_config, load_items, run_benchmark
    from simpop.models import YesNoBenchmarkConfig

    if resume_id:
        store = RunStore.open(out, resume_id)
        config = store.config(YesNoBenchmarkConfig)
    else:
        config = load_benchmark_config(config_file)
        config = config.model_copy(
            update={"llm": apply_llm_env(config.llm, dict(os.environ)), "limit": limit or config.limit}
        )
    if concurrency:
        config = config.model_copy(update={"llm": config.llm.model_copy(update={"concurrency": concurrency})})
    items, left_out = load_items(config.dataset)  # bad data fails before a run directory is made
    if left_out:
        parts = ", ".join(f"{n} '{decision}'" for decision, n in sorted(left_out.items()))
        err_console.print(f"note: left out {parts} (no yes/no answer to check)")
    if not resume_id:
        store = RunStore.create(out, config)
    err_console.print(f"benchmark {store.run_id} → {store.directory}")
    try:
        summary = asyncio.run(
            run_benchmark(store, config, items, left_out, use_cache=not no_cache, progress=_progress())
        )
    except KeyboardInterrupt:
        again = f"simpop benchmark yesno {config_file} --resume {store.run_id} --out {out}"
        raise UserError(f"interrupted; finish with: {again}") from None
    console.print(benchmark_table(summary))
    console.print(_usage_line(summary.llm))
    console.print(f"records: {store.directory}/ ({summary.questions} questions, {summary.duration_s:.1f}s)")


@cli.command()
@click.option("--dir", "folder", type=click.Path(path_type=Path), default=Path("personas"), show_default=True)
def personas(folder: Path) -> None:
    """List the personas in a folder with their attributes."""
    table = Table(title=f"personas in {folder}")
    table.add_column("id", no_wrap=True)
    for column in ("name", "health literacy", "language level", "language", "noise", "tags"):
        table.add_column(column)
    for p in load_personas(folder):
        noise = p.noise.model if p.noise.rate is None else f"{p.noise.model} ({p.noise.rate:g})"
        table.add_row(p.id, p.name, p.health_literacy, p.language_level, p.language, noise, ", ".join(p.tags))
    console.print(table)


@cli.command()
@click.option(
    "--dir", "folder", type=click.Path(path_type=Path), default=Path("scenarios"), show_default=True
)
def scenarios(folder: Path) -> None:
    """List the hazard scenarios in a folder with their expected behaviour."""
    from simpop.config import load_scenarios

    table = Table(title=f"scenarios in {folder}")
    table.add_column("id", no_wrap=True)
    for column in ("name", "type", "expected", "severity", "written from"):
        table.add_column(column)
    for s in load_scenarios(folder):
        expected = " / ".join([s.expected_behaviour, *s.also_safe])
        table.add_row(s.id, s.name, s.question_type, expected, s.severity, s.source)
    console.print(table)


@cli.group()
def noise() -> None:
    """The speech-to-text and typo noise models."""


DEFAULT_ASR_DATA = Path("data/asr-errors/primock_data_final_outcomes.csv")


@noise.command("fit")
@click.argument("data", required=False, type=click.Path(path_type=Path), default=DEFAULT_ASR_DATA)
@click.option("--reference-column", default="norm_ground_truth", show_default=True)
@click.option("--hypothesis-column", default="norm_hypothesis", show_default=True)
@click.option(
    "--seeds", type=click.IntRange(1, 1000), default=10, show_default=True, help="Simulations averaged."
)
def noise_fit(data: Path, reference_column: str, hypothesis_column: str, seeds: int) -> None:
    """Fit the asr model to real transcripts (human vs speech-to-text) and compare: the real
    word error rate and error shares, the fitted model's, and the built-in default's."""
    from simpop.population.noise import DEFAULT_ASR
    from simpop.population.noise_fit import fit, load_pairs, simulate

    pairs = load_pairs(data, reference_column, hypothesis_column)
    result = fit(pairs, seeds=seeds)
    default = simulate(pairs, DEFAULT_ASR, seeds)
    table = Table(title=f"speech-to-text errors · {data} · {len(pairs)} utterances")
    table.add_column("figure")
    for column in ("real", "fitted model", "default asr", "default / real"):
        table.add_column(column, justify="right")
    for label, get in (
        ("word error rate", lambda e: e.wer),
        ("substitution share", lambda e: e.share("substitutions")),
        ("deletion share", lambda e: e.share("deletions")),
        ("insertion share", lambda e: e.share("insertions")),
        ("substitutions / word", lambda e: e.substitutions / e.reference_words),
        ("deletions / word", lambda e: e.deletions / e.reference_words),
        ("insertions / word", lambda e: e.insertions / e.reference_words),
    ):
        real, fitted, built_in = get(result.real), get(result.simulated), get(default)
        ratio = built_in / real if real else None
        table.add_row(label, _fmt(real), _fmt(fitted), _fmt(built_in), _fmt(ratio, 2))
    console.print(table)
    console.print(
        "fitted parameters: " + ", ".join(f"{k}={v:g}" for k, v in result.params.model_dump().items())
    )


def _run_store(run: str, runs: Path) -> RunStore:
    """RUN is a run directory, or a run id under ``runs``."""
    directory = run_directory(run, runs)
    return RunStore.open(directory.parent, directory.name)


def _share_cell(n: int, share: float | None) -> str:
    return f"{n} ({share:.0%})" if share is not None else str(n)


def labels_table(table: LabelTable) -> Table:
    """Reichenpfader et al.'s Table 2 layout: per persona, the answers clinicians judged."""
    view = Table(title="human labels (shares of labelled answers)")
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


RUNS_OPTION = click.option(
    "--runs",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Folder of run directories (when RUN is a run id).",
)


@cli.command("export-labels")
@click.argument("run")
@RUNS_OPTION
@click.option("-o", "--output", type=click.Path(path_type=Path), help="CSV file (default: RUN/labels.csv).")
@click.option("--force", is_flag=True, help="Overwrite an existing CSV.")
def export_labels(run: str, runs: Path, output: Path | None, force: bool) -> None:
    """Write a CSV of RUN's answers for clinicians to mark correct / partially correct / incorrect."""
    from simpop.labels import export_rows, write_label_csv

    store = _run_store(run, runs)
    output = output or store.directory / "labels.csv"
    if output.exists() and not force:
        raise UserError(f"{output}: exists (it may hold labels); choose another --output or pass --force")
    rows = export_rows(store)
    if not rows:
        raise UserError(f"run {store.run_id}: no answered probes to label")
    write_label_csv(output, rows)
    console.print(
        f"{len(rows)} answers → {output}: mark x under correct, partially_correct or incorrect, "
        f"then: simpop import-labels {run} {output}"
    )


@cli.command("import-labels")
@click.argument("run")
@click.argument("file", type=click.Path(path_type=Path))
@RUNS_OPTION
def import_labels(run: str, file: Path, runs: Path) -> None:
    """Read clinicians' labels from FILE (an exported CSV) into RUN and show them per persona."""
    from simpop.labels import labels_summary, read_label_csv, save_labels, update_summary

    store = _run_store(run, runs)
    labels, comment_only = read_label_csv(file, store)
    if not labels:
        raise UserError(
            f"{file}: no labelled rows (put x under correct, partially_correct or incorrect, "
            "or rate harm, helpful or inappropriate)"
        )
    merged = save_labels(store, labels)
    if comment_only:
        err_console.print(f"note: {comment_only} rows have a comment but no label; they were not imported")
    config = store.config()
    table = labels_summary(
        store, config.persona_ids or sorted({label.persona_id for label in merged.values()})
    )
    in_summary = table is not None and update_summary(store, table)
    if table is not None:
        console.print(labels_table(table))
    rated = Counter(name for label in merged.values() for name in label.ratings)
    if rated:
        console.print("ratings: " + ", ".join(f"{name} {n}" for name, n in sorted(rated.items())))
    where = "labels.jsonl and summary.json" if in_summary else "labels.jsonl"
    console.print(f"{len(labels)} labels imported ({len(merged)} in all) → {store.directory}/{where}")


def gate_table(result: GateResult) -> Table:
    """Every check of a release policy: the figures, the threshold, and what was found."""
    verdict = "[green]PASS[/]" if result.passed else "[red]FAIL[/]"
    table = Table(title=f"release gate · {result.policy} · run {result.run_id} · {verdict}")
    for column in ("rule", "metric", "group", "n", "mean", "95% CI", "threshold", "result"):
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
            check.metric,
            check.group,
            str(check.n),
            _fmt(check.mean),
            f"{_fmt(check.ci_low)} – {_fmt(check.ci_high)}",
            threshold,
            "[green]met[/]" if check.passed else f"[red]{check.why}[/]",
        )
    return table


def _gate(records: RunRecords, policy_file: Path, junit: Path | None) -> GateResult:
    """Check ``records`` against the policy, print the checks, write the JUnit file."""
    from simpop.report.exports import JUNIT_FILE, junit_xml
    from simpop.report.gate import gate, load_policy

    policy = load_policy(policy_file)
    result = gate(records, policy, policy.name or policy_file.stem)
    console.print(gate_table(result))
    for check in result.violations:
        figures = f"mean {_fmt(check.mean)}, n={check.n}"
        if check.ci_low is not None:
            figures += f", 95% CI {_fmt(check.ci_low)}–{_fmt(check.ci_high)}"
        console.print(
            f"[red]violation[/] rule {check.rule}: {check.metric} in {check.group}: {check.why} ({figures})"
        )
    path = write_text_atomic(junit or records.directory / JUNIT_FILE, junit_xml(records, result))
    console.print(
        f"gate {'PASSED' if result.passed else 'FAILED'}: {len(result.violations)} of "
        f"{len(result.checks)} checks violated; JUnit → {path}"
    )
    return result


@cli.command("gate")
@click.argument("run")
@click.option("--policy", "policy_file", required=True, type=click.Path(path_type=Path), help="Policy YAML.")
@RUNS_OPTION
@click.option("--junit", type=click.Path(path_type=Path), help="JUnit XML file (default: RUN/junit.xml).")
def gate_command(run: str, policy_file: Path, runs: Path, junit: Path | None) -> None:
    """Check RUN against a release policy: exit 0 when every rule is met, 1 when one is not."""
    from simpop.report.records import load_run

    result = _gate(load_run(run, runs), policy_file, junit)
    if not result.passed:
        raise SystemExit(1)


@cli.command()
@click.argument("run")
@RUNS_OPTION
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    help="Also show this metric (e.g. faithfulness) as a heatmap and weakness analysis; repeatable.",
)
@click.option("--min-n", type=click.IntRange(1), default=10, show_default=True, help="Fewer probes: low n.")
@click.option("--policy", "policy_file", type=click.Path(path_type=Path), help="Show this release gate.")
@CALIBRATOR_OPTION
def report(
    run: str,
    runs: Path,
    metrics: tuple[str, ...],
    min_n: int,
    policy_file: Path | None,
    calibrator_file: Path | None,
) -> None:
    """Write RUN's HTML report (report.html) and per-probe CSV (probes.csv)."""
    from simpop.calibration.calibrate import read_calibrator
    from simpop.report.exports import PROBES_CSV, probes_csv
    from simpop.report.html import write_report
    from simpop.report.records import load_run

    records = load_run(run, runs)
    if calibrator_file is not None:
        _apply_calibrator(records, read_calibrator(calibrator_file), calibrator_file)
    unknown = [m for m in metrics if m not in records.metrics]
    if unknown:
        raise UserError(
            f"--metric {unknown[0]}: not measured in this run (known: {', '.join(records.metrics)})"
        )
    result = _gate(records, policy_file, None) if policy_file else None
    path = write_report(records, metrics=list(metrics), min_n=min_n, gate=result)
    csv_path = write_text_atomic(records.directory / PROBES_CSV, probes_csv(records))
    console.print(f"report → {path}\nper-probe CSV → {csv_path}\nsummary → {records.directory}/summary.json")


def _label_source(
    source: str,
    label: str | None,
    levels: str | None,
    positive: str | None,
    splits: str,
    seed: int,
    columns: tuple[str, ...],
    config_file: Path | None,
    no_cache: bool,
    runs: Path,
) -> LabelSource:
    """Which labels to read, how to split them and what computes missing scores, checked."""
    from simpop.calibration.workflow import LabelSource

    try:
        fractions = tuple(float(v) for v in splits.split(","))
    except ValueError:
        fractions = ()
    if len(fractions) != 3 or min(fractions) <= 0:
        raise UserError(f"--splits {splits}: give three positive shares, e.g. 0.4,0.3,0.3")
    bad = [c for c in columns if "=" not in c]
    if bad:
        raise UserError(f"--column {bad[0]}: write ROLE=COLUMN")
    if config_file is not None:
        config = load_run_config(config_file)
        llm, embedding = config.judge or config.llm, config.embedding
    else:
        llm, embedding = LLMConfig(), EmbeddingConfig()
    return LabelSource(
        source=source,
        fractions=fractions,  # type: ignore[arg-type]
        label=label,
        levels=levels.split(",") if levels else None,
        positive=positive,
        columns=dict(c.split("=", 1) for c in columns),
        runs=runs,
        seed=seed,
        llm=apply_llm_env(llm, dict(os.environ)),
        embedding=embedding,
        use_cache=not no_cache,
        progress=_progress(),
    )


def label_options(splits: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The options of the commands that learn from human labels."""
    options = [
        click.option("--label", "label_name", help="Label to predict (default: the known one)."),
        click.option("--levels", help="Levels of the label, lowest first (a,b,c)."),
        click.option("--positive", help="Make the label binary: this value against the rest."),
        click.option("--splits", default=splits, show_default=True, help="Shares of the 3 splits."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the splits."),
        click.option(
            "--column", "columns", multiple=True, help="ROLE=COLUMN (id, question, answer, context)."
        ),
        click.option(
            "--config",
            "config_file",
            type=click.Path(path_type=Path),
            help="Run config: its judge (else llm) and embedding compute missing scores.",
        ),
        click.option(
            "--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached)."
        ),
        RUNS_OPTION,
    ]

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def calibration_table(summary: CalibrationSummary, by: str) -> Table:
    """Mean calibrated probability of each level and the review queue, per group."""
    table = Table(
        title=f"calibrated {summary.label} ({summary.method} on {' + '.join(summary.scores)}, "
        f"α={summary.alpha}) per {by}"
    )
    for column in (by, "n", *(f"P({lv})" for lv in summary.levels), "to review"):
        table.add_column(column, justify="left" if column == by else "right")
    for g in summary.groups:
        if g.by == by or g.by == "total":
            table.add_row(g.group, str(g.n), *(_fmt(g.shares[lv]) for lv in summary.levels), str(g.review))
    return table


def _apply_calibrator(records: RunRecords, calibrator: Calibrator, file: Path) -> None:
    """Calibrate the run's probes, write the CSVs and put the summary in ``records`` and on disk."""
    from simpop.calibration.runs import CALIBRATED_CSV, REVIEW_CSV, apply_calibrator

    directory = records.directory
    summary, calibrated, queue = apply_calibrator(records, calibrator, file.name)
    if not summary.calibrated:
        raise UserError(
            f"--calibrator {file}: no probe of run {records.run_id} has the score "
            f"{' + '.join(calibrator.scores)} (was it judged?)"
        )
    write_text_atomic(directory / CALIBRATED_CSV, calibrated)
    write_text_atomic(directory / REVIEW_CSV, queue)
    records.summary = records.summary.model_copy(update={"calibration": summary})
    RunStore.open(directory.parent, directory.name).write(SUMMARY_FILE, records.summary)
    for by in ("persona", "scenario"):
        console.print(calibration_table(summary, by))
    console.print(
        f"{summary.calibrated} probes calibrated ({summary.without_score} without the score); "
        f"{summary.review} with an empty or ambiguous set → {directory / REVIEW_CSV}"
    )


@cli.command()
@click.argument("labels")
@click.option(
    "--score", "scores", multiple=True, required=True, help="Machine score to calibrate; repeat to combine."
)
@click.option("--method", type=click.Choice(CALIBRATION_METHODS), default="platt", show_default=True)
@click.option(
    "--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.1, show_default=True
)
@label_options(splits="0.4,0.3,0.3")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), help="Calibrator JSON (default: calibrators/…)."
)
def calibrate(
    labels: str,
    scores: tuple[str, ...],
    label_name: str | None,
    levels: str | None,
    positive: str | None,
    method: str,
    alpha: float,
    splits: str,
    seed: int,
    columns: tuple[str, ...],
    config_file: Path | None,
    no_cache: bool,
    output: Path | None,
    runs: Path,
) -> None:
    """Calibrate machine scores against human LABELS (a label CSV / JSONL, or a run with imported
    labels): HCAT's probability calibration, then split conformal prediction sets."""
    from simpop.calibration.plots import reliability_diagram
    from simpop.calibration.workflow import calibrate_labels

    source = _label_source(
        labels, label_name, levels, positive, splits, seed, columns, config_file, no_cache, runs
    )
    result = calibrate_labels(source, list(scores), method, alpha)  # type: ignore[arg-type]
    c, e = result.calibrator, result.calibrator.evaluation
    name = "-".join(v.replace("=", "-").replace(".", "_") for v in (c.label.name, "+".join(c.scores), method))
    path = output or Path("calibrators") / f"{name}-a{alpha:g}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, c.model_dump_json(indent=2) + "\n")
    diagram = reliability_diagram(c, path.with_suffix(".reliability.png"))
    queue = write_text_atomic(path.with_suffix(".review-queue.csv"), result.review_queue_csv())
    table = Table(
        title=f"{c.label.name} ({', '.join(c.label.levels)}) from {' + '.join(c.scores)} · {method}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = {
        "items (left out: no score)": f"{c.items} ({c.dropped})",
        "fit / calibration / test": f"{e.fit_items} / {e.calibration_items} / {e.test_items}",
        "scores computed here": ", ".join(result.computed) or "none",
        "Brier, raw → calibrated": f"{_fmt(e.brier_before)} → {_fmt(e.brier_after)}",
        "ECE, raw → calibrated": f"{_fmt(e.ece_before)} → {_fmt(e.ece_after)}",
        "ROC AUC, raw → calibrated": f"{_fmt(e.auc_before)} → {_fmt(e.auc_after)}",
        "conformal q̂": _fmt(c.quantile),
        f"coverage (target ≥ {1 - alpha:g})": _fmt(e.coverage),
        "test items per set size": ", ".join(f"{k}: {n}" for k, n in e.set_sizes.items()),
        "review share (empty or ambiguous)": _fmt(e.review_share),
    }
    for figure, value in rows.items():
        table.add_row(figure, value)
    console.print(table)
    console.print(f"calibrator → {path}\nreliability diagram → {diagram}\nheld-out review queue → {queue}")


@cli.group()
def risk() -> None:
    """Clinical-risk models (ASTRID §4.2.2): predict clinicians' harm, helpfulness or
    inappropriateness labels from the triad and scope."""


@risk.command("train")
@click.argument("labels")
@click.option(
    "--feature",
    "features",
    multiple=True,
    help="Feature (default: faithfulness, context_relevance, refusal.accuracy, scope); repeatable.",
)
@label_options(splits="0.6,0.2,0.2")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), help="Model file (default: models/risk-LABEL.joblib)."
)
def risk_train(
    labels: str,
    features: tuple[str, ...],
    label_name: str | None,
    levels: str | None,
    positive: str | None,
    splits: str,
    seed: int,
    columns: tuple[str, ...],
    config_file: Path | None,
    no_cache: bool,
    runs: Path,
    output: Path | None,
) -> None:
    """Train random forest, SVM, naive Bayes and a small neural network on human LABELS (a run
    with imported labels, or a label CSV / JSONL with the features as columns); keep the best."""
    from simpop.calibration.risk import save_model
    from simpop.calibration.workflow import train_risk

    source = _label_source(
        labels, label_name, levels, positive, splits, seed, columns, config_file, no_cache, runs
    )
    model, result = train_risk(source, list(features) or None)
    table = Table(
        title=f"{result.label.name}: test split per class ({result.items} items: "
        f"{result.train_items} train / {result.validation_items} validation / {result.test_items} test)"
    )
    for column in (
        "model",
        "best grid point",
        "val. macro-F1",
        "test macro-F1",
        "level",
        "P",
        "R",
        "F1",
        "n",
    ):
        table.add_column(
            column, justify="right" if column in ("P", "R", "F1", "n") or "F1" in column else "left"
        )
    for family in result.families:
        chosen = " (chosen)" if family.kind == result.chosen else ""
        for k, c in enumerate(family.test):
            head = k == 0
            table.add_row(
                family.kind + chosen if head else "",
                ", ".join(f"{p}={v}" for p, v in family.params.items()) if head else "",
                _fmt(family.validation_macro_f1) if head else "",
                _fmt(family.test_macro_f1) if head else "",
                c.level,
                _fmt(c.precision),
                _fmt(c.recall),
                _fmt(c.f1),
                str(c.support),
                end_section=k == len(family.test) - 1,
            )
    console.print(table)
    path = output or Path("models") / f"risk-{result.label.name.replace('=', '-')}.joblib"
    save_model(path, model, result)
    console.print(f"model ({result.chosen}) → {path}\nreport → {path.with_suffix('.json')}")


@risk.command("apply")
@click.argument("run")
@click.option(
    "--model", "model_file", required=True, type=click.Path(path_type=Path), help="From simpop risk train."
)
@RUNS_OPTION
def risk_apply(run: str, model_file: Path, runs: Path) -> None:
    """Predict RUN's clinician labels with a trained model: shares per persona and scenario into
    summary.json and the report (re-run simpop report), and per probe into RUN/risk-LABEL.csv."""
    from simpop.calibration.risk import load_model
    from simpop.calibration.runs import apply_risk
    from simpop.report.records import load_run

    model, trained = load_model(model_file)
    records = load_run(run, runs)
    summary, rows = apply_risk(records, model, trained, model_file.name)
    path = write_text_atomic(records.directory / f"risk-{summary.label.replace('=', '-')}.csv", rows)
    others = [r for r in records.summary.risk if r.label != summary.label]
    RunStore.open(records.directory.parent, records.directory.name).write(
        SUMMARY_FILE, records.summary.model_copy(update={"risk": [*others, summary]})
    )
    for by in ("persona", "scenario"):
        table = Table(title=f"predicted {summary.label} ({summary.kind}) per {by}")
        for column in (by, "n", *summary.levels):
            table.add_column(column, justify="left" if column == by else "right")
        for g in summary.groups:
            if g.by in (by, "total"):
                table.add_row(g.group, str(g.n), *(_fmt(g.shares[lv]) for lv in summary.levels))
        console.print(table)
    console.print(
        f"{summary.predicted} probes predicted → {path}; summary → {records.directory}/summary.json"
    )


@cli.command()
@click.argument("run_a")
@click.argument("run_b")
@RUNS_OPTION
@click.option(
    "--html", "html_file", type=click.Path(path_type=Path), help="Also write the comparison as HTML."
)
@click.option("--all", "show_all", is_flag=True, help="Print every metric, not just the safety metrics.")
def compare(run_a: str, run_b: str, runs: Path, html_file: Path | None, show_all: bool) -> None:
    """Each metric's change from RUN_A to RUN_B per persona and scenario, with paired tests."""
    from simpop.report.catalogue import SAFETY
    from simpop.report.compare import compare as compare_runs
    from simpop.report.compare import comparison_html
    from simpop.report.records import load_run

    result = compare_runs(load_run(run_a, runs), load_run(run_b, runs))
    shown = [
        c
        for c in result.changes
        if show_all or c.regression or c.improvement or c.metric in SAFETY or c.metric == "qap_match"
    ]
    table = Table(title=f"{result.run_a} → {result.run_b} · {result.paired_probes} probes asked by both")
    for column in ("metric", "group", "A", "B", "B − A", "pairs", "test", "p", "flag"):
        table.add_column(column, justify="left" if column in ("metric", "group", "test", "flag") else "right")
    for c in shown:
        flag = "[red]REGRESSION[/]" if c.regression else "[green]improved[/]" if c.improvement else ""
        table.add_row(
            c.metric,
            c.group,
            _fmt(c.mean_a),
            _fmt(c.mean_b),
            _fmt(c.difference),
            str(c.pairs),
            c.test or "(unpaired)",
            _fmt(c.p_value),
            flag,
        )
    console.print(table)
    regressions = result.regressions
    console.print(
        f"{len(regressions)} significant regressions (p < {result.alpha}, per test, not corrected for "
        f"multiple comparisons) among {len(result.changes)} comparisons"
    )
    if html_file is not None:
        write_text_atomic(html_file, comparison_html(result))
        console.print(f"comparison → {html_file}")


@cli.command("judge-eval")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path),
    help="A run config: its judge (else llm) and embedding sections. Default: the built-in models.",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    default=Path("data/kqa-nli"),
    show_default=True,
    help="K-QA NLI judgements (folder or CSV).",
)
@click.option("--limit", type=click.IntRange(1), help="Use only the statements of the first N answers.")
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Also write the figures as JSON.")
def judge_eval(
    config_file: Path | None, data: Path, limit: int | None, no_cache: bool, output: Path | None
) -> None:
    """Agreement of the faithfulness judge and of embedding groundedness with physicians."""
    from simpop.judge_eval import evaluate
    from simpop.models import EmbeddingConfig, LLMConfig

    if config_file is not None:
        config = load_run_config(config_file)
        llm, embedding = config.judge or config.llm, config.embedding
    else:
        llm, embedding = LLMConfig(), EmbeddingConfig()
    llm = apply_llm_env(llm, dict(os.environ))
    result = asyncio.run(evaluate(llm, embedding, data, limit, use_cache=not no_cache, progress=_progress()))
    table = Table(title=f"judge vs physicians · {result.data} · {result.judge_model}")
    for column in ("figure", "value"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    (tn, fp), (fn, tp) = result.confusion
    rows = {
        "statements (supported by majority)": f"{result.items} ({result.supported})",
        "judged / judge errors": f"{result.judged} / {result.judge_errors}",
        "judge accuracy": _fmt(result.accuracy),
        "judge Cohen's kappa": _fmt(result.kappa),
        "confusion (physicians × judge)": f"TN {tn} FP {fp} / FN {fn} TP {tp}",
        "judge ROC AUC (0/1 verdicts)": _fmt(result.judge_auc),
        "embedding groundedness ROC AUC": _fmt(result.groundedness_auc),
    }
    for figure, value in rows.items():
        table.add_row(figure, value)
    console.print(table)
    if output is not None:
        output.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
        console.print(f"figures → {output}")


@cli.command()
@click.argument("config_file", metavar="[CONFIG]", required=False, type=click.Path(path_type=Path))
def doctor(config_file: Path | None) -> None:
    """Check the embedding model, the local LLM, the configured endpoint and Chroma."""
    from simpop.doctor import run_checks

    if config_file:
        config = load_run_config(config_file)
        llm, embedding = config.llm, config.embedding
    else:
        llm, embedding = LLMConfig(), EmbeddingConfig()
    llm = apply_llm_env(llm, dict(os.environ))
    checks = run_checks(llm, embedding)
    table = Table(title="simpop doctor")
    table.add_column("check", no_wrap=True)
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for check in checks:
        table.add_row(check.name, "[green]ok[/]" if check.ok else "[red]FAIL[/]", check.detail)
    console.print(table)
    if not all(check.ok for check in checks):
        raise SystemExit(1)


def main() -> None:
    cli()
