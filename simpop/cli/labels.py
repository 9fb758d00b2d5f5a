"""``simpop export-labels`` and ``import-labels``: the clinicians' labelling round trip."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from simpop.cli.base import RUNS_OPTION, UserError, cli, console, err_console, run_store
from simpop.cli.tables import labels_table


@cli.command("export-labels")
@click.argument("run")
@RUNS_OPTION
@click.option("-o", "--output", type=click.Path(path_type=Path), help="CSV file (default: RUN/labels.csv).")
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
    in_summary = table is not None and update_summary(store, table)
    if table is not None:
        console.print(labels_table(table))
    rated = Counter(name for label in merged.values() for name in label.ratings)
    if rated:
        console.print("ratings: " + ", ".join(f"{name} {n}" for name, n in sorted(rated.items())))
    where = "labels.jsonl and summary.json" if in_summary else "labels.jsonl"
    console.print(f"{len(labels)} labels imported ({len(merged)} in all) → {store.directory}/{where}")
