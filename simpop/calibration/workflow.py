"""``simpop calibrate`` as a function: labelled items in, scores read or computed, the two-stage
calibrator fitted and judged, and the held-out items it would send to a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn.pipeline import Pipeline

from simpop.calibration.apply import labelled_items, labelled_run
from simpop.calibration.calibrate import Calibrator, calibrate
from simpop.calibration.conformal import needs_review, set_text
from simpop.calibration.probability import Method
from simpop.calibration.risk import RiskReport, feature_names, train
from simpop.calibration.scores import ScoreFiller, score_matrix
from simpop.errors import ConfigError
from simpop.labels.files import (
    COMPUTABLE,
    SCALES,
    LabelledItem,
    LabelScale,
    missing_scores,
    read_scale,
    resolve,
)
from simpop.spreadsheet import csv_text


@dataclass
class LabelSource:
    """Where labelled items come from, which label to learn, how to split them and what
    computes a score a label file lacks."""

    source: str
    fractions: tuple[float, float, float]
    label: str | None = None
    levels: list[str] | None = None
    positive: str | None = None
    columns: dict[str, str] = field(default_factory=dict)
    runs: Path = Path("runs")
    seed: int = 0
    filler: ScoreFiller | None = None

    def read(self) -> tuple[LabelScale, list[LabelledItem], list[int]]:
        """The label's scale, the items that carry it and their level indices."""
        items = labelled_items(self.source, self.runs, self.columns)
        return read_scale(items, self.label or default_label(items), self.levels, self.positive)

    def compute(self, items: list[LabelledItem], names: list[str]) -> list[str]:
        """Compute the scores in ``names`` no item of a label file carries (in place); the ones
        computed. A run's items keep the run's own scores: a run's CF is not the file judge's."""
        if labelled_run(self.source, self.runs) or self.filler is None:
            return missing_scores(items, names, ())  # [] when nothing is missing, else the error
        return self.filler(items, names, COMPUTABLE)


@dataclass
class Calibrated:
    """A fitted calibrator and its test split: items, scores, probabilities and prediction sets."""

    calibrator: Calibrator
    computed: list[str]
    test_items: list[LabelledItem]
    test_labels: list[int]
    test_scores: np.ndarray
    probabilities: np.ndarray
    sets: list[list[int]]

    def review_queue_csv(self) -> str:
        """The held-out items whose prediction set is empty or ambiguous, with their true label."""
        c = self.calibrator
        levels = c.label.levels
        header = [
            "id",
            *c.scores,
            "label",
            *(f"p_{lv}" for lv in levels),
            "prediction_set",
            "question",
            "answer",
            "context",
        ]
        rows = [
            [
                item.id,
                *(f"{v:.4f}" for v in row),
                levels[y],
                *(f"{p:.4f}" for p in probs),
                set_text(s, levels),
                item.question,
                item.answer,
                item.context,
            ]
            for item, y, row, probs, s in zip(
                self.test_items,
                self.test_labels,
                self.test_scores,
                self.probabilities,
                self.sets,
                strict=True,
            )
            if needs_review(s)
        ]
        return csv_text(header, rows)


def default_label(items: list[LabelledItem]) -> str:
    """The one known label (verdict, harm, helpful, inappropriate, supported) the items carry."""
    found = [name for name in SCALES if any(name in i.labels for i in items)]
    if len(found) != 1:
        columns = found or sorted({k for i in items for k in i.labels if k not in i.scores})
        raise ConfigError(f"give --label (label columns: {', '.join(columns) or 'none'})")
    return found[0]


def train_risk(labels: LabelSource, features: list[str] | None = None) -> tuple[Pipeline, RiskReport]:
    """Train ASTRID's clinical-risk classifiers of the label on the labelled items."""
    scale, items, y = labels.read()
    names = feature_names(features)
    available = {k for item in items for k in item.scores}
    computable = [n for n in names if resolve(n, available) is None and n in COMPUTABLE]
    if computable:
        labels.compute(items, computable)
    return train(items, y, scale, names, labels.source, labels.fractions, labels.seed)


def calibrate_labels(
    labels: LabelSource, scores: list[str], method: Method = "platt", alpha: float = 0.1
) -> Calibrated:
    """Fit and judge a two-stage calibrator of the label from ``scores``."""
    scale, carrying, y = labels.read()
    computed = labels.compute(carrying, scores)
    for item in carrying:  # a score cell that is filled in but holds no number is an error, not a gap
        bad = next((n for n in scores if n not in item.scores and item.labels.get(n)), None)
        if bad is not None:
            value = item.labels[bad]
            raise ConfigError(
                f"{labels.source}: item '{item.id}', column '{bad}': '{value}' is not a finite number"
            )
    x, keep = score_matrix(carrying, scores)
    kept_items = [i for i, k in zip(carrying, keep, strict=True) if k]
    kept_y = [v for v, k in zip(y, keep, strict=True) if k]
    dropped = len(carrying) - len(kept_items)
    calibrator, test_idx, p, sets = calibrate(
        x, kept_y, scale, scores, method, alpha, labels.source, dropped, labels.fractions, labels.seed
    )
    return Calibrated(
        calibrator=calibrator,
        computed=computed,
        test_items=[kept_items[i] for i in test_idx],
        test_labels=[kept_y[i] for i in test_idx],
        test_scores=x[test_idx],
        probabilities=p,
        sets=sets,
    )


def parse_splits(text: str) -> tuple[float, float, float]:
    """Three positive shares written ``a,b,c``."""
    try:
        fractions = tuple(float(v) for v in text.split(","))
    except ValueError:
        fractions = ()
    if len(fractions) != 3 or min(fractions) <= 0:
        raise ConfigError(f"--splits {text}: give three positive shares, e.g. 0.4,0.3,0.3")
    return fractions  # type: ignore[return-value]


def parse_columns(pairs: tuple[str, ...]) -> dict[str, str]:
    """``ROLE=COLUMN`` pairs as a mapping."""
    bad = [c for c in pairs if "=" not in c]
    if bad:
        raise ConfigError(f"--column {bad[0]}: write ROLE=COLUMN")
    return dict(c.split("=", 1) for c in pairs)
