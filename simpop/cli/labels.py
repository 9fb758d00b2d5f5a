"""Human labels: the clinicians' labelling round trip (``export-labels``, ``import-labels``), and
what is learnt from labels: calibrated machine scores (``calibrate``) and clinical-risk models
(``risk``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from simpop.cli.common import (
    ALLOW_PLUGINS_OPTION,
    OUTPUT_FILE,
    RUNS_OPTION,
    UserError,
    cli,
    config_models,
    console,
    err_console,
    progress_bars,
    run_store,
)
from simpop.cli.tables import FittedTable, calibration_table, fmt, labels_table
from simpop.models import CALIBRATION_METHODS
from simpop.store import SUMMARY_FILE, RunRecords, RunStore
from simpop.textfiles import write_text_atomic

if TYPE_CHECKING:
    from simpop.calibration.calibrate import Calibrator
    from simpop.calibration.risk import RiskReport
    from simpop.calibration.workflow import LabelSource


@cli.command("export-labels")
@click.argument("run")
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
@click.option("-o", "--output", type=OUTPUT_FILE, help="CSV file (default: RUN/labels.csv).")
@click.option("--force", is_flag=True, help="Overwrite an existing CSV.")
def export_labels(run: str, runs: Path, output: Path | None, force: bool) -> None:
    """Write a CSV of RUN's answers for clinicians to mark correct / partially correct / incorrect."""
    from simpop.labels.clinicians import export_rows, write_label_csv

    store = run_store(run, runs)
    output = output or store.directory / "labels.csv"
    if output.exists() and not force:
        raise UserError(f"{output}: exists (it may hold labels); choose another --output or pass --force")
    rows = export_rows(store)
    if not rows:
        raise UserError(f"run {store.run_id}: no answered probes to label")
    write_label_csv(output, rows)
    none = sum(not row["answer"] for row in rows)
    console.print(
        f"{len(rows)} answers{f' ({none} of them no answer: is that right?)' if none else ''} → {output}: "
        f"mark x under correct, partially_correct or incorrect, then: simpop import-labels {run} {output}"
    )


@cli.command("import-labels")
@click.argument("run")
@click.argument("file", type=click.Path(path_type=Path))
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
def import_labels(run: str, file: Path, runs: Path) -> None:
    """Read clinicians' labels from FILE (an exported CSV) into RUN and show them per persona."""
    from simpop.labels.clinicians import labels_summary, read_label_csv, save_labels, update_summary

    store = run_store(run, runs)
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
    in_summary = update_summary(store, table)
    if table is not None:
        console.print(labels_table(table))
    rated = Counter(name for label in merged.values() for name in label.ratings)
    if rated:
        console.print("ratings: " + ", ".join(f"{name} {n}" for name, n in sorted(rated.items())))
    where = "labels.jsonl and summary.json" if in_summary else "labels.jsonl"
    console.print(f"{len(labels)} labels imported ({len(merged)} in all) → {store.directory}/{where}")


def label_source(
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
    from simpop.calibration.workflow import LabelSource, parse_columns, parse_splits
    from simpop.evaluation.label_scores import fill_scores

    fractions, roles = parse_splits(splits), parse_columns(columns)
    llm, embedding = config_models(config_file)
    filler = partial(
        fill_scores, embedding=embedding, llm=llm, use_cache=not no_cache, progress=progress_bars()
    )
    return LabelSource(
        source=source,
        fractions=fractions,
        label=label,
        levels=levels.split(",") if levels else None,
        positive=positive,
        columns=roles,
        runs=runs,
        seed=seed,
        filler=filler,
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
        ALLOW_PLUGINS_OPTION,
    ]

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def apply_calibrator_file(records: RunRecords, calibrator: Calibrator, file: Path) -> None:
    """Calibrate the run's probes, write the CSVs and put the summary in ``records`` and on disk."""
    from simpop.calibration.apply import CALIBRATED_CSV, REVIEW_CSV, apply_calibrator

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
@click.option("-o", "--output", type=OUTPUT_FILE, help="Calibrator JSON (default: calibrators/…).")
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
    from simpop.calibration.reliability import reliability_diagram
    from simpop.calibration.workflow import calibrate_labels

    source = label_source(
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
    table = FittedTable(
        title=f"{c.label.name} ({', '.join(c.label.levels)}) from {' + '.join(c.scores)} · {method}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = {
        "items (left out: no score)": f"{c.items} ({c.dropped})",
        "fit / calibration / test": f"{e.fit_items} / {e.calibration_items} / {e.test_items}",
        "scores computed here": ", ".join(result.computed) or "none",
        "Brier, raw → calibrated": f"{fmt(e.brier_before)} → {fmt(e.brier_after)}",
        "ECE, raw → calibrated": f"{fmt(e.ece_before)} → {fmt(e.ece_after)}",
        "ROC AUC, raw → calibrated": f"{fmt(e.auc_before)} → {fmt(e.auc_after)}",
        "conformal q̂": fmt(c.quantile),
        f"coverage (target ≥ {1 - alpha:g})": fmt(e.coverage),
        "test items per set size": ", ".join(f"{k}: {n}" for k, n in e.set_sizes.items()),
        "review share (empty or ambiguous)": fmt(e.review_share),
    }
    for figure, value in rows.items():
        table.add_row(figure, value)
    console.print(table)
    console.print(f"calibrator → {path}\nreliability diagram → {diagram}\nheld-out review queue → {queue}")


@cli.group()
def risk() -> None:
    """Clinical-risk models (ASTRID §4.2.2): predict clinicians' harm, helpfulness or
    inappropriateness labels from the triad and scope."""


def families_table(result: RiskReport) -> FittedTable:
    """Each model family's best grid point and its test figures per class."""
    table = FittedTable(
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
                fmt(family.validation_macro_f1) if head else "",
                fmt(family.test_macro_f1) if head else "",
                c.level,
                fmt(c.precision),
                fmt(c.recall),
                fmt(c.f1),
                str(c.support),
                end_section=k == len(family.test) - 1,
            )
    return table


@risk.command("train")
@click.argument("labels")
@click.option(
    "--feature",
    "features",
    multiple=True,
    help="Feature (default: faithfulness, context_relevance, refusal.accuracy, scope); repeatable.",
)
@label_options(splits="0.6,0.2,0.2")
@click.option("-o", "--output", type=OUTPUT_FILE, help="Model file (default: models/risk-LABEL.joblib).")
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

    source = label_source(
        labels, label_name, levels, positive, splits, seed, columns, config_file, no_cache, runs
    )
    model, result = train_risk(source, list(features) or None)
    console.print(families_table(result))
    path = output or Path("models") / f"risk-{result.label.name.replace('=', '-')}.joblib"
    save_model(path, model, result)
    console.print(f"model ({result.chosen}) → {path}\nreport → {path.with_suffix('.json')}")


@risk.command("apply")
@click.argument("run")
@click.option(
    "--model", "model_file", required=True, type=click.Path(path_type=Path), help="From simpop risk train."
)
@RUNS_OPTION
@ALLOW_PLUGINS_OPTION
def risk_apply(run: str, model_file: Path, runs: Path) -> None:
    """Predict RUN's clinician labels with a trained model: shares per persona and scenario into
    summary.json and the report (re-run simpop report), and per probe into RUN/risk-LABEL.csv."""
    from simpop.calibration.apply import apply_risk
    from simpop.calibration.risk import load_model
    from simpop.store import load_run

    model, trained = load_model(model_file)
    records = load_run(run, runs)
    summary, rows = apply_risk(records, model, trained, model_file.name)
    path = write_text_atomic(records.directory / f"risk-{summary.label.replace('=', '-')}.csv", rows)
    others = [r for r in records.summary.risk if r.label != summary.label]
    RunStore.open(records.directory.parent, records.directory.name).write(
        SUMMARY_FILE, records.summary.model_copy(update={"risk": [*others, summary]})
    )
    for by in ("persona", "scenario"):
        table = FittedTable(title=f"predicted {summary.label} ({summary.kind}) per {by}")
        for column in (by, "n", *summary.levels):
            table.add_column(column, justify="left" if column == by else "right")
        for g in summary.groups:
            if g.by in (by, "total"):
                table.add_row(g.group, str(g.n), *(fmt(g.shares[lv]) for lv in summary.levels))
        console.print(table)
    console.print(
        f"{summary.predicted} probes predicted → {path}; summary → {records.directory}/summary.json"
    )
