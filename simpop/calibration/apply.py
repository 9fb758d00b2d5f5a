"""Calibration and risk on a run: its labelled probes as items, and a calibrator's probabilities,
prediction sets and review queue for every probe it can score."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.pipeline import Pipeline

from simpop.calibration.calibrate import Calibrator
from simpop.calibration.conformal import needs_review, set_text
from simpop.calibration.risk import RiskReport, feature_matrix
from simpop.calibration.scores import score_matrix
from simpop.errors import ConfigError
from simpop.labels.clinicians import LABELS_FILE, asked, load_labels
from simpop.labels.files import LabelledItem, load_label_file, resolve
from simpop.models import CalibrationSummary, PredictedGroup, Probe, RiskSummary
from simpop.spreadsheet import csv_text
from simpop.store import SUMMARY_FILE, RunRecords, RunStore, load_run

CALIBRATED_CSV = "calibrated.csv"
REVIEW_CSV = "review-queue.csv"
IN_SCOPE = ("answer", "clarify", "address_all")


def in_scope(probe: Probe) -> float:
    """ASTRID's scope feature: 1 when the bot should answer from its knowledge base, 0 when it
    should decline or send the patient to urgent care."""
    return float(probe.expected_behaviour in IN_SCOPE)


def probe_item(records: RunRecords, cell: str) -> LabelledItem:
    """A probe of the run as an item: its texts, its scores (and scope), no labels yet."""
    probe, response = records.probes[cell], records.responses[cell]
    return LabelledItem(
        id=cell,
        question=response.question or "",
        answer=response.answer or "",
        context="\n".join(c.text for c in response.contexts),
        scores={**records.values.get(cell, {}), "scope": in_scope(probe)},
        persona=probe.persona_id,
        scenario=probe.scenario_id,
    )


def asked_items(records: RunRecords) -> list[LabelledItem]:
    """Every probe the bot was asked, as an unlabelled item."""
    return [probe_item(records, c) for c, r in records.responses.items() if c in records.probes and asked(r)]


def run_items(records: RunRecords) -> list[LabelledItem]:
    """The run's probes that people labelled (``simpop import-labels``), with their verdict,
    their ratings and every score the run gave them."""
    store = RunStore.open(records.directory.parent, records.directory.name)
    items = []
    for cell, label in load_labels(store).items():
        if cell not in records.probes or cell not in records.responses:
            continue
        item = probe_item(records, cell)
        item.labels = ({"verdict": label.label} if label.label else {}) | label.ratings
        items.append(item)
    return items


def predicted_groups(
    items: list[LabelledItem], shares: np.ndarray, levels: list[str], review: list[bool] | None = None
) -> list[PredictedGroup]:
    """Mean of each level's share (a probability or a 0/1 prediction) in total, per persona and
    per scenario, with the review-queue count when ``review`` is given."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        groups[("total", "total")].append(index)
        groups[("persona", item.persona or "?")].append(index)
        groups[("scenario", item.scenario or "?")].append(index)
    return [
        PredictedGroup(
            group=group,
            by=by,  # type: ignore[arg-type]
            n=len(index),
            shares={level: round(float(shares[index, k].mean()), 4) for k, level in enumerate(levels)},
            review=None if review is None else sum(review[i] for i in index),
        )
        for (by, group), index in groups.items()
    ]


def apply_calibrator(
    records: RunRecords, calibrator: Calibrator, name: str
) -> tuple[CalibrationSummary, str, str]:
    """The calibration summary of every asked probe with the calibrator's scores, the per-probe
    CSV (probabilities and prediction set) and the review-queue CSV."""
    items = asked_items(records)
    x, keep = score_matrix(items, calibrator.scores)
    scored = [i for i, k in zip(items, keep, strict=True) if k]
    p, sets = calibrator.predict(x)
    review = [needs_review(s) for s in sets]
    levels = calibrator.label.levels
    header = [
        "cell_id",
        "persona",
        "scenario",
        *calibrator.scores,
        *(f"p_{lv}" for lv in levels),
        "prediction_set",
    ]
    rows, queue = [], []
    for item, values, probs, pset, flagged in zip(scored, x, p, sets, review, strict=True):
        row = [
            item.id,
            item.persona or "",
            item.scenario or "",
            *(f"{v:.4f}" for v in values),
            *(f"{v:.4f}" for v in probs),
            set_text(pset, levels),
        ]
        rows.append(row)
        if flagged:
            queue.append([*row, item.question, item.answer])
    summary = CalibrationSummary(
        calibrator=name,
        label=calibrator.label.name,
        levels=levels,
        method=calibrator.mapping.method,
        scores=calibrator.scores,
        alpha=calibrator.alpha,
        quantile=calibrator.quantile,
        calibrated=len(scored),
        without_score=len(items) - len(scored),
        review=sum(review),
        groups=predicted_groups(scored, p, levels, review) if scored else [],
    )
    return summary, csv_text(header, rows), csv_text([*header, "question", "answer"], queue)


def labelled_run(source: str, runs: Path) -> Path | None:
    """The run directory ``source`` names (its directory, its id in ``runs`` or its labels.jsonl),
    or ``None`` for a label file."""
    path = Path(source)
    if path.is_file() and path.name == LABELS_FILE and (path.parent / SUMMARY_FILE).is_file():
        return path.parent
    if path.is_dir() and (path / SUMMARY_FILE).is_file():
        return path
    if not path.exists() and (runs / source).is_dir():
        return runs / source
    return None


def labelled_items(source: str, runs: Path, columns: dict[str, str] | None = None) -> list[LabelledItem]:
    """The labelled items of ``source``: a run with imported labels, or a standalone CSV / JSONL
    label file."""
    run = labelled_run(source, runs)
    if run is None:
        return load_label_file(Path(source), columns)
    if columns:
        raise ConfigError("--column: a run's labels have no columns to map")
    items = run_items(load_run(run))
    if not items:
        raise ConfigError(f"{run}: no labels imported (simpop export-labels, then simpop import-labels)")
    return items


def apply_risk(
    records: RunRecords, model: Pipeline, report: RiskReport, name: str
) -> tuple[RiskSummary, str]:
    """The predicted label of every asked probe, as shares per persona and scenario, and a CSV."""
    items = asked_items(records)
    missing = [f for f in report.features if resolve(f, set(records.metrics) | {"scope"}) is None]
    if missing or not items:
        raise ConfigError(
            f"run {records.run_id} has no values of {missing[0] if missing else 'any feature'} "
            f"(the model needs {', '.join(report.features)}; was the run judged?)"
        )
    predicted = model.predict(feature_matrix(items, report.features))
    levels = report.label.levels
    onehot = np.eye(len(levels))[predicted]
    summary = RiskSummary(
        model=name,
        kind=report.chosen,
        label=report.label.name,
        levels=levels,
        features=report.features,
        predicted=len(items),
        groups=predicted_groups(items, onehot, levels),
    )
    rows = [
        [i.id, i.persona or "", i.scenario or "", levels[k]] for i, k in zip(items, predicted, strict=True)
    ]
    return summary, csv_text(["cell_id", "persona", "scenario", f"predicted_{report.label.name}"], rows)
