"""Commands that look at simpop's parts: personas, scenarios, the noise models, the yes/no
benchmark, and the environment (doctor)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import click

from simpop.cli.common import (
    ALLOW_PLUGINS_OPTION,
    RUNS_OPTION,
    UserError,
    cli,
    config_models,
    console,
    err_console,
    progress_bars,
)
from simpop.cli.tables import (
    FittedTable,
    benchmark_table,
    fmt,
    one_answer_warnings,
    realism_table,
    separability_table,
    usage_line,
)
from simpop.config import apply_llm_env, load_personas
from simpop.doctor import CHECKS, run_checks
from simpop.store import RunStore


@cli.command()
@click.option("--dir", "folder", type=click.Path(path_type=Path), default=Path("personas"), show_default=True)
def personas(folder: Path) -> None:
    """List the personas in a folder with their attributes."""
    found = load_personas(folder)
    table = FittedTable(title=f"{len(found)} personas (from {folder}/)")
    table.add_column("id", no_wrap=True)
    for column in ("name", "health literacy", "language level", "language", "noise", "tags"):
        table.add_column(column)
    for p in found:
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

    found = load_scenarios(folder)
    table = FittedTable(title=f"{len(found)} hazard scenarios (from {folder}/)")
    table.add_column("id", no_wrap=True)
    for column in ("name", "type", "expected", "severity", "written from"):
        table.add_column(column)
    for s in found:
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
    table = FittedTable(title=f"speech-to-text errors · {data} · {len(pairs)} utterances")
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
        table.add_row(label, fmt(real), fmt(fitted), fmt(built_in), fmt(ratio, 2))
    console.print(table)
    console.print(
        "fitted parameters: " + ", ".join(f"{k}={v:g}" for k, v in result.params.model_dump().items())
    )


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
    from simpop.models import YesNoBenchmarkConfig
    from simpop.run.yes_no_benchmark import load_benchmark_config, load_items, run_benchmark

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
            run_benchmark(store, config, items, left_out, use_cache=not no_cache, progress=progress_bars())
        )
    except KeyboardInterrupt:
        again = f"simpop benchmark yesno {config_file} --resume {store.run_id} --out {out}"
        raise UserError(f"interrupted; finish with: {again}") from None
    console.print(benchmark_table(summary))
    for line in one_answer_warnings(summary):
        err_console.print(line)
    console.print(usage_line(summary.llm))
    console.print(f"records: {store.directory}/ ({summary.questions} questions, {summary.duration_s:.1f}s)")


@cli.command()
@click.argument("config_file", metavar="[CONFIG]", required=False, type=click.Path(path_type=Path))
@click.option(
    "--skip",
    multiple=True,
    type=click.Choice(CHECKS),
    help="Leave out a check (repeatable), e.g. local-llm where every call goes to an endpoint.",
)
def doctor(config_file: Path | None, skip: tuple[str, ...]) -> None:
    """Check the embedding model, the local LLM, the configured endpoint and Chroma."""
    llm, embedding = config_models(config_file, judge=False)
    checks = run_checks(llm, embedding, frozenset(skip))
    table = FittedTable(title="simpop doctor")
    table.add_column("check", no_wrap=True)
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for check in checks:
        status = "[dim]skipped[/]" if check.ok is None else "[green]ok[/]" if check.ok else "[red]FAIL[/]"
        table.add_row(check.name, status, check.detail)
    console.print(table)
    if any(check.ok is False for check in checks):
        raise SystemExit(1)


@cli.command("fidelity")
@click.argument("run")
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
@click.option(
    "--real",
    type=click.Path(path_type=Path),
    help="JSONL or CSV of real patients' messages (field 'message', 'text' or 'question'; default: the "
    "run's real_patients file, else MeQSum).",
)
def fidelity_command(run: str, runs: Path, real: Path | None) -> None:
    """How RUN's simulated patients write, per persona, beside real patients' messages."""
    from simpop.population.fidelity_summary import fidelity_summary
    from simpop.store import load_run

    records = load_run(run, runs)
    if real is None and records.config.real_patients is not None and records.config.real_patients.is_file():
        real = records.config.real_patients  # the run's own real patients, labelled or not
    personas = records.summary.personas
    summary = fidelity_summary(personas, list(records.probes.values()), real)
    typical = {p.id for p in personas if p.typical}
    console.print(realism_table(summary, typical, f"how patients write · {records.run_id}"))
    console.print(
        "words: median length; story: tells their own or a relative's story; no ?: without a question "
        "mark; 2+ ?: two or more questions; grade: Flesch-Kincaid of the whole message (German: Wiener "
        "Sachtextformel; the literacy warning below compares the questions alone); CEFR: estimated level "
        "(English only); slips: learner grammar slips per 100 words"
        + ("; * meant to be typical" if typical else "")
    )
    from simpop.population.fidelity_summary import persona_texts
    from simpop.population.realism import real_messages
    from simpop.population.separability import realism_tests

    texts = persona_texts(personas, list(records.probes.values()))
    tests, warnings = realism_tests(texts, {p.id: p.language for p in personas}, typical, real_messages(real))
    console.print(
        separability_table(tests, typical, f"told apart from real messages? · {summary.reference_name}")
    )
    console.print(
        "stock: share of messages holding a sentence that stands verbatim in 3+ messages of the run; "
        "AUC: a logistic regression telling them from real ones on function words and shape alone, out of "
        "fold (0.5: cannot; 1.0: always; 95% interval); distinct-1/2 and self-BLEU beside as many real "
        "messages (real in brackets)"
    )
    for warning in summary.warnings + warnings:
        console.print(f"[yellow]warning[/] {warning}")
