"""``simpop report``, ``gate`` and ``compare``: what a finished run shows, whether it passes a
release policy, and how it differs from another run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from simpop.cli.common import (
    ALLOW_PLUGINS_OPTION,
    CALIBRATOR_OPTION,
    GATE_FAILED,
    INCOMPLETE,
    OUTPUT_FILE,
    RUNS_OPTION,
    UserError,
    cli,
    console,
)
from simpop.cli.labels import apply_calibrator_file
from simpop.cli.tables import FittedTable, fmt, gate_table
from simpop.store import RunRecords, load_run
from simpop.textfiles import write_text_atomic

if TYPE_CHECKING:
    from simpop.report.gate import GateResult


def check_gate(records: RunRecords, policy_file: Path, junit: Path | None) -> GateResult:
    """Check ``records`` against the policy, print the checks, write the JUnit file."""
    from simpop.report.exports import JUNIT_FILE, junit_xml
    from simpop.report.gate import gate
    from simpop.report.policy import load_policy
    from simpop.report.policy_ids import check_policy_ids, run_ids

    policy = load_policy(policy_file, set(records.metrics))
    check_policy_ids(policy, policy_file, run_ids(records))
    result = gate(records, policy, policy.name or policy_file.stem)
    console.print(gate_table(result))
    if records.config.gate is not None and records.config.gate.sequential:
        from simpop.sequential.rounds import ROUNDS_FILE, rounds_lines, rounds_of

        for line in rounds_lines(rounds_of(records.directory / ROUNDS_FILE), records.config.gate.error):
            console.print(line, soft_wrap=True)
    for check in result.violations:
        figures = f"mean {fmt(check.mean)}, n={check.n}"
        if check.ci_low is not None:
            what = "confidence sequence" if check.basis == "sequence" else "95% CI"
            figures += f", {what} {fmt(check.ci_low)}–{fmt(check.ci_high)}"
        console.print(
            f"[red]violation[/] rule {check.rule}: {check.figure} in {check.group}: {check.why} ({figures})"
        )
    path = write_text_atomic(junit or records.directory / JUNIT_FILE, junit_xml(records, result))
    console.print(
        f"gate {'PASSED' if result.passed else 'FAILED'}: {len(result.violations)} of "
        f"{len(result.checks)} checks violated; JUnit → {path}"
    )
    if records.summary.incomplete:
        console.print("[red]the run is incomplete[/]: its figures cannot pass a gate (exit status 3)")
    return result


def gate_exit(records: RunRecords, result: GateResult) -> None:
    """Exit 3 for an incomplete run whatever its checks say, 1 for a failed gate."""
    if records.summary.incomplete:
        raise SystemExit(INCOMPLETE)
    if not result.passed:
        raise SystemExit(GATE_FAILED)


CONVERSATION_HEADLINES = (
    "conversation.outcome_met",
    "conversation.escalated_by_turn",
    "conversation.false_reassurance",
)


@cli.command("gate")
@click.argument("run")
@click.option("--policy", "policy_file", required=True, type=click.Path(path_type=Path), help="Policy YAML.")
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
@click.option("--junit", type=OUTPUT_FILE, help="JUnit XML file (default: RUN/junit.xml).")
def gate_command(run: str, policy_file: Path, runs: Path, junit: Path | None) -> None:
    """Check RUN against a release policy: exit 0 when every rule is met, 1 when one is not, 3
    when the run is incomplete."""
    records = load_run(run, runs)
    gate_exit(records, check_gate(records, policy_file, junit))


@cli.command()
@click.argument("run")
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
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

    records = load_run(run, runs)
    if calibrator_file is not None:
        apply_calibrator_file(records, read_calibrator(calibrator_file), calibrator_file)
    unknown = [m for m in metrics if m not in records.metrics]
    if unknown:
        raise UserError(
            f"--metric {unknown[0]}: not measured in this run (known: {', '.join(records.metrics)})"
        )
    result = check_gate(records, policy_file, None) if policy_file else None
    path = write_report(records, metrics=list(metrics), min_n=min_n, gate=result)
    csv_path = write_text_atomic(records.directory / PROBES_CSV, probes_csv(records))
    console.print(f"report → {path}\nper-probe CSV → {csv_path}\nsummary → {records.directory}/summary.json")


@cli.command()
@click.argument("run_a")
@click.argument("run_b")
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
@click.option("--html", "html_file", type=OUTPUT_FILE, help="Also write the comparison as HTML.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Print every comparison, not only the safety table's figures, the headline ones and those "
    "that changed significantly.",
)
def compare(run_a: str, run_b: str, runs: Path, html_file: Path | None, show_all: bool) -> None:
    """Each metric's change from RUN_A to RUN_B per persona and scenario, with paired tests."""
    from simpop.report.compare import compare as compare_runs
    from simpop.report.compare import comparison_html

    result = compare_runs(load_run(run_a, runs), load_run(run_b, runs))
    from simpop.metrics import columns

    safety = columns("safety")
    shown = [
        c
        for c in result.changes
        if show_all
        or c.regression
        or c.improvement
        or c.metric in safety
        or c.metric in ("qap_match", *CONVERSATION_HEADLINES)
    ]
    table = FittedTable(
        title=f"{result.run_a} → {result.run_b} · {result.paired_probes} probes asked by both"
    )
    for column in ("metric", "group", "A", "B", "B − A", "pairs", "test", "p", "flag"):
        table.add_column(column, justify="left" if column in ("metric", "group", "test", "flag") else "right")
    for c in shown:
        flag = "[red]REGRESSION[/]" if c.regression else "[green]improved[/]" if c.improvement else ""
        table.add_row(
            c.metric,
            c.group,
            fmt(c.mean_a),
            fmt(c.mean_b),
            fmt(c.difference),
            str(c.pairs),
            c.how,
            fmt(c.p_value),
            flag,
        )
    console.print(table)
    console.print("A, B: means over the probes both runs asked where there are any, else over each run's own")
    tested = sum(c.test is not None for c in result.changes)
    hidden = "" if show_all else f" ({len(shown)} shown; --all prints every one)"
    if not tested:
        console.print(
            f"no paired test: no probe was asked by both runs (the same personas, seeds and --seed ask "
            f"the same ones); {len(result.changes)} comparisons of means only{hidden}"
        )
    else:
        console.print(
            f"{len(result.regressions)} significant regressions (p < {result.alpha}, per test, not corrected "
            f"for multiple comparisons) in {tested} paired tests of {len(result.changes)} comparisons{hidden}"
        )
    for run, only in ((result.run_a, result.only_a), (result.run_b, result.only_b)):
        if only:
            console.print(f"[yellow]not compared, only in {run}:[/] {', '.join(only)}")
    if html_file is not None:
        write_text_atomic(html_file, comparison_html(result))
        console.print(f"comparison → {html_file}")


@cli.command("sweep-threshold")
@click.argument("run")
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
def sweep_threshold_command(run: str, runs: Path) -> None:
    """At each threshold of RUN's QAP matcher: answerable questions matched correctly, and
    questions it must not answer (decline, escalate) answered anyway."""
    from simpop.report.threshold import run_sweep

    records = load_run(run, runs)
    try:
        result = run_sweep(records)
    except ValueError as error:
        raise UserError(str(error)) from None
    table = FittedTable(title=f"QAP matcher threshold · run {records.run_id}")
    for column in ("threshold", "matched correctly", "matched wrongly", "unanswerable answered", "J"):
        table.add_column(column, justify="right")
    best = result.suggested
    for row in result.rows:
        mark = " ◀ suggested" if best is not None and row.threshold == best.threshold else ""
        mark += " (now)" if result.current is not None and abs(row.threshold - result.current) < 1e-9 else ""
        table.add_row(
            f"{row.threshold:.2f}{mark}",
            fmt(row.correct),
            fmt(row.wrong),
            fmt(row.answered_unanswerable),
            fmt(row.youden),
        )
    console.print(table)
    console.print(
        f"{result.answerable} answerable questions (written from the bot's QAPs), "
        f"{result.unanswerable} it must not answer (scenarios expecting decline or escalate)"
    )
    if best is None:
        console.print("no suggestion: the run needs both kinds of question (variants and scenarios)")
    else:
        console.print(
            f"suggested threshold {best.threshold:.2f} (Youden's J {best.youden:.3f}); "
            f"set it as target.threshold in {records.config.name}'s config"
        )
