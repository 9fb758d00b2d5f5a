"""``simpop run``: plan, generate, ask, score and summarise a run, then print what it found."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from simpop.cli.common import (
    ALLOW_PLUGINS_OPTION,
    CALIBRATOR_OPTION,
    GATE_FAILED,
    INCOMPLETE,
    UserError,
    cli,
    console,
    err_console,
    ids,
    progress_bars,
    scenario_choice,
)
from simpop.cli.interrupt import run_interruptibly
from simpop.cli.labels import apply_calibrator_file
from simpop.cli.report import check_gate
from simpop.cli.run_setup import (
    execution,
    policy_and_calibrator,
    run_store,
    sequential_gate,
    with_sequential_gate,
)
from simpop.cli.run_summary import print_summary
from simpop.config import with_options
from simpop.models.registry import plugins_allowed
from simpop.run.components import load_run_config
from simpop.store import RunStore, load_run

if TYPE_CHECKING:
    from simpop.models import RunConfig, RunSummary
    from simpop.report.policy import Policy
    from simpop.run.plan import RunInputs


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
    "--conversations",
    "conversation_ids",
    help="Comma-separated conversation case ids, 'all' or 'none' (the default: the config's).",
)
@click.option(
    "--topics",
    type=click.IntRange(0, 500),
    help="Knowledge-base chunks sampled by topic per HCAT question type (0: none).",
)
@click.option(
    "--limit", type=click.IntRange(1), help="Use only the first N QAPs (and N personas in conversations)."
)
@click.option("--seed", type=int, help="Run seed (LLM sampling seeds derive from it).")
@click.option("--concurrency", type=click.IntRange(1, 256), help="LLM and target requests in flight.")
@click.option("--resume", "resume_id", metavar="RUN_ID", help="Finish an interrupted run.")
@click.option(
    "--retry-failed",
    is_flag=True,
    help="With --resume: do again what failed (probes, answers, verdicts, conversations); keep the rest.",
)
@click.option("--no-cache", is_flag=True, help="Ignore cached LLM replies (new replies are still cached).")
@click.option(
    "--no-judge",
    is_flag=True,
    help="Skip every judged metric: the triad and the safety verdicts (safe behaviour).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan, the LLM calls to expect and about how long; call nothing.",
)
@click.option(
    "--policy",
    "policy_file",
    type=click.Path(path_type=Path),
    help="Release policy YAML: gate the run at the end (exit 1 when a rule is violated).",
)
@click.option(
    "--until-decided",
    is_flag=True,
    help="With --policy: run in rounds and stop once every rule is passed or failed (a sequential gate).",
)
@CALIBRATOR_OPTION
@ALLOW_PLUGINS_OPTION
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
    conversation_ids: str | None,
    topics: int | None,
    limit: int | None,
    seed: int | None,
    concurrency: int | None,
    resume_id: str | None,
    retry_failed: bool,
    no_cache: bool,
    no_judge: bool,
    dry_run: bool,
    policy_file: Path | None,
    until_decided: bool,
    calibrator_file: Path | None,
    out: Path,
) -> None:
    """Generate patient questions, ask the target, score the answers: CONFIG is a run config."""
    options = RunOptions(
        config_file, resume_id, retry_failed, no_cache, dry_run, policy_file, calibrator_file, out
    )
    chosen = {
        "persona_ids": ids(persona_ids, "--personas"),
        "variants": variants,
        "scenarios": scenario_choice(scenario_ids, "--scenarios"),
        "probes": probes,
        "conversations": scenario_choice(conversation_ids, "--conversations"),
        "topics": topics,
        "limit": limit,
        "seed": seed,
    }
    check_options(options)
    config, store, started = configured(options, chosen, no_judge, concurrency, until_decided)
    options = sequential_gate(config, options)
    policy, calibrator = policy_and_calibrator(options.policy_file, calibrator_file)
    prepared = prepare(options, config, started, policy)
    if prepared is None:  # a dry run: the plan was printed
        return
    config, inputs, plan = prepared
    store = run_store(options, store, config, inputs)
    err_console.print(f"run {store.run_id} → {store.directory}")
    summary = run_interruptibly(
        execution(store, config, inputs, policy, options, progress_bars(plan)),
        lambda: err_console.print(
            f"interrupted: the records written so far are kept in {store.directory}; finish with: "
            f"simpop run {config_file} --resume {store.run_id} --out {out}",
            soft_wrap=True,
        ),
    )
    print_summary(summary, store)
    finish(options, config, summary, store, calibrator)


@dataclass(frozen=True)
class RunOptions:
    """The options of ``simpop run`` that are not settings of the run config."""

    config_file: Path
    resume_id: str | None
    retry_failed: bool
    no_cache: bool
    dry_run: bool
    policy_file: Path | None
    calibrator_file: Path | None
    out: Path


def check_options(options: RunOptions) -> None:
    """Options that cannot work together or cannot be written to: one line, before anything."""
    out = options.out
    if out.is_symlink() and not out.exists():  # a link to nowhere, or one that leads back to itself
        raise UserError(f"--out {out}: a symlink to no folder (or a symlink loop)")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is a file, not a folder of runs")
    if options.retry_failed and not options.resume_id:
        raise UserError("--retry-failed: only with --resume RUN_ID (the run whose failed cells to do again)")


@dataclass(frozen=True)
class Started:
    """What reading the config found that the run announces."""

    plugin_files: dict[str, str]
    moved: list[str]  # endpoints a resumed run follows to where the config has them now
    named_embedding: bool  # the config names its embedding model (no choice per language)


def configured(
    options: RunOptions, chosen: dict[str, Any], no_judge: bool, concurrency: int | None, until_decided: bool
) -> tuple[RunConfig, RunStore | None, Started]:
    """The run config: CONFIG with the command's options, or the resumed run's own (with the
    endpoints of CONFIG now); the resumed run's store."""
    # a dry run looks at a config without running its code, unless the user allows it
    loaded = load_run_config(options.config_file, with_plugins=not options.dry_run or plugins_allowed())
    if until_decided:  # the config's sequential gate
        loaded = with_sequential_gate(loaded)
    named_embedding = "model" in loaded.embedding.model_fields_set
    store, moved = None, []
    if options.resume_id:
        from simpop.run.resume_config import resumed_config

        store = RunStore.open(options.out, options.resume_id)
        config, moved = resumed_config(store.config(), loaded, options.config_file, dict(os.environ))
        if any(v is not None for v in chosen.values()):
            err_console.print(
                "note: --personas/--variants/--scenarios/--probes/--conversations/--topics/--limit/--seed "
                "are taken from the run being resumed"
            )
    else:
        config = with_options(loaded, dict(os.environ), **chosen, judges=not no_judge)
    if concurrency:
        config = config.model_copy(update={"llm": config.llm.model_copy(update={"concurrency": concurrency})})
    return config, store, Started(loaded.plugin_files, moved, named_embedding)


def prepare(
    options: RunOptions, config: RunConfig, started: Started, policy: Policy | None
) -> tuple[RunConfig, RunInputs, dict[str, float | None]] | None:
    """The inputs, checked with the policy's ids and the endpoints before anything is printed;
    then the notes and the plan (None after a dry run's plan), with the LLM seconds it gives
    each stage (none on a resumed run: the progress lines then use each stage's own rate)."""
    from simpop.run.language_checks import language_notes, with_embedding_for_languages
    from simpop.run.plan import load_inputs
    from simpop.run.preflight import check_endpoints

    if not options.resume_id:
        config = with_embedding_for_languages(config, started.named_embedding)
    inputs = load_inputs(config)  # bad personas or QAPs fail before a run directory is made
    if not inputs.cells and not inputs.conversations and not inputs.real:  # a dry run's plan too
        raise UserError(
            "nothing to run: no variants (--variants 0), no scenarios (--scenarios none), "
            "no topic questions (--topics 0) and no conversations"
        )
    check_metrics(options, config)
    if (
        policy is not None and options.policy_file is not None
    ):  # and so do ids the policy names that nothing has
        from simpop.report.policy_ids import check_policy_ids, input_ids

        check_policy_ids(policy, options.policy_file, input_ids(config, inputs))
    # and so does an endpoint that is not there or an unset ${VAR} (a dry run calls nothing)
    slow = [] if options.dry_run else check_endpoints(config)
    for file, digest in started.plugin_files.items():
        err_console.print(f"plugin: {file} (sha256 {digest}) imported: its code runs as you")
    for change in started.moved:
        err_console.print(
            f"note: resumed with the endpoint of {options.config_file} now: {change}", soft_wrap=True
        )
    for note in language_notes(config, inputs.personas):
        err_console.print(f"note: {note}", soft_wrap=True, highlight=False)
    plan: dict[str, float | None] = {}
    if options.dry_run or not options.resume_id:
        from simpop.run.estimate import estimate, estimate_lines, time_servers

        found = estimate(config, inputs, use_cache=not options.no_cache)
        if not options.dry_run:  # the run's own servers, timed now: the estimate is at today's pace
            found = time_servers(found)
        lines = estimate_lines(found)
        if inputs.real:
            lines.append(
                f"  real patients: {len(inputs.real)} messages to the bot, scored as the cells are "
                "(records of their own; no LLM call but the judges')"
            )
        if options.dry_run:
            console.print("\n".join(lines), soft_wrap=True, highlight=False)
            return None
        err_console.print("\n".join(lines), soft_wrap=True, highlight=False)
        plan = {stage.stage: stage.seconds for stage in found.stages}
    for note in slow:
        err_console.print(f"note: {note}")
    if not options.resume_id:
        plan_notes(config, inputs)
    return config, inputs, plan


def check_metrics(options: RunOptions, config: RunConfig) -> None:
    """Every metric the config names is registered (a plugin's too, once imported)."""
    from simpop.metrics import selected

    try:
        selected(config.metrics, config.scoring.judges)
    except ValueError as error:
        hint = (
            " (its plugins were not imported: --allow-plugins imports them)"
            if config.plugins and not config.plugin_files
            else ""
        )
        raise UserError(f"{options.config_file}: field 'metrics': {error}{hint}") from None


def plan_notes(config: RunConfig, inputs: RunInputs) -> None:
    """What a new run's plan leaves out, and how a sequential one spends it."""
    gate = config.gate
    if gate is not None and gate.sequential:
        planned = len(inputs.cells) + len(inputs.conversations)
        most = min(gate.budget.cells or planned, planned)
        until = "a rule fails or every rule passes" if gate.stop == "verdict" else "every rule is decided"
        err_console.print(
            f"note: sequential gate: rounds of {gate.round_units} cells (persona × scenario pairs not yet "
            f"tested first, the most severe first) until {until}, at most {most} of the "
            f"{planned} cells and conversations above"
            + (f" or {gate.budget.minutes:g} minutes" if gate.budget.minutes else "")
            + "; the plan's times are its most",
            soft_wrap=True,
        )
    if not config.target.reports_contexts() and any(inputs.gold.values()):
        err_console.print(
            "note: the bot reports no contexts (target.contexts_path): retrieval is not measured",
            soft_wrap=True,
        )
    if inputs.qaps and config.target.own_qaps() is not None and not inputs.own_seeds:
        err_console.print(
            f"note: no seed of {config.seeds} is one of the target's QAPs (by id): no QAP-match "
            "accuracy; the answers get the embedding metrics",
            soft_wrap=True,
        )
    if inputs.repeated:
        err_console.print(
            f"note: {inputs.repeated} QAPs repeat the question of an earlier QAP; "
            "only the first of each is used as a seed"
        )
    if inputs.equivalents:
        err_console.print(
            f"note: {len(inputs.equivalents)} seed QAPs have equivalents in the bot's catalogue (the "
            "same question or answer); a match to one counts as right (summary.json: seed_equivalents)",
            soft_wrap=True,
        )
    no_gold = sum(1 for gold in inputs.gold.values() if gold == [])
    if no_gold:
        err_console.print(
            f"note: {no_gold} seed QAPs have no gold chunk in the knowledge base; "
            "their retrieval is not scored (summary.json: seeds_without_gold)"
        )


def finish(
    options: RunOptions, config: RunConfig, summary: RunSummary, store: RunStore, calibrator: Any
) -> None:
    """What was not tested, what failed, the gate; the exit status says which."""
    from simpop.run.completeness import failure_lines, incomplete_reason

    config_file, out, policy_file = options.config_file, options.out, options.policy_file
    calibrator_file = options.calibrator_file
    for group in summary.untested:
        console.print(f"[red]not tested:[/] {group.name} '{group.id}': {group.why}")
    gate = f"--policy {policy_file}" if policy_file else "--policy policies/release.yaml"
    console.print(f"next: simpop report {store.directory}   ·   simpop gate {store.directory} {gate}")
    retry = f"simpop run {config_file} --resume {store.run_id} --retry-failed --out {out}"
    warnings = failure_lines(summary.stages, config.failures)
    for line in warnings:
        console.print(f"[yellow]warning:[/] {line}")
    if warnings and not summary.incomplete:
        console.print(f"to do the failed cells again once the cause is fixed: {retry}", soft_wrap=True)
    passed = True
    if calibrator is not None or policy_file is not None:
        records = load_run(store.directory)
        if calibrator is not None and calibrator_file is not None:
            apply_calibrator_file(records, calibrator, calibrator_file)
        if policy_file is not None:
            passed = check_gate(records, policy_file, None).passed
    if summary.incomplete:
        err_console.print(
            f"run incomplete: {incomplete_reason(summary.stages, config.failures)}; "
            f"fix the cause, then do the failed cells again: {retry}",
            soft_wrap=True,
        )
        raise SystemExit(INCOMPLETE)
    if not passed:
        raise SystemExit(GATE_FAILED)
