"""HCAT's double calibration (§5) end to end: stratified fit / calibration / test splits, a
stage-1 mapping fitted on the first, the conformal threshold set on the second, and both
judged on the third; the result is a calibrator saved as JSON and applied to new items."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from pydantic import Field, ValidationError
from sklearn.model_selection import train_test_split

from simpop.aggregate import ece, reliability
from simpop.calibration.conformal import (
    conformal_quantile,
    coverage,
    needs_review,
    nonconformity,
    prediction_sets,
)
from simpop.calibration.probability import Mapping, Method, auc, brier, fit
from simpop.errors import ConfigError
from simpop.labels.files import LabelScale
from simpop.models import Record
from simpop.textfiles import not_a_file, read_text

SCHEMA_VERSION = "1"
Bin = tuple[float, float, int]


class Evaluation(Record):
    """How the calibrator did on the held-out test split (and the raw score, where it is a
    probability already: one score in [0, 1] for a binary label)."""

    fit_items: int
    calibration_items: int
    test_items: int
    brier_before: float | None
    brier_after: float
    ece_before: float | None
    ece_after: float
    auc_before: float | None
    auc_after: float | None
    reliability_before: list[Bin] = Field([], description="per bin: mean predicted, observed, count")
    reliability_after: list[Bin] = []
    coverage: float = Field(description="share of test items whose label is in their prediction set")
    set_sizes: dict[int, int] = Field(description="test items per prediction-set size")
    review_share: float = Field(description="share of test items with an empty or ambiguous set")


class Calibrator(Record):
    """A saved two-stage calibrator: ``simpop calibrate`` writes it, ``--calibrator`` applies it."""

    schema_version: str = SCHEMA_VERSION
    source: str = Field(description="the labels it was fitted on")
    label: LabelScale
    scores: list[str] = Field(description="the machine scores it maps, in this order")
    mapping: Mapping
    alpha: float
    quantile: float = Field(description="q̂: a label is in the set when 1 − P(label) ≤ q̂")
    items: int = Field(description="labelled items with every score")
    dropped: int = Field(description="labelled items missing a score, left out")
    seed: int
    evaluation: Evaluation

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, list[list[int]]]:
        """Calibrated probabilities (one column per level) and prediction sets of score rows."""
        p = self.mapping.probabilities(x)
        return p, prediction_sets(p, self.quantile)


def split(y: list[int], fractions: tuple[float, float, float], seed: int) -> tuple[np.ndarray, ...]:
    """Stratified, disjoint fit / calibration / test indices in the given proportions."""
    index = np.arange(len(y))
    labels = np.array(y)
    fit_share, cal_share, test_share = (f / sum(fractions) for f in fractions)
    try:
        fit_idx, rest = train_test_split(index, train_size=fit_share, stratify=labels, random_state=seed)
        cal_idx, test_idx = train_test_split(
            rest, train_size=cal_share / (cal_share + test_share), stratify=labels[rest], random_state=seed
        )
    except ValueError as error:
        raise ConfigError(
            f"too few labelled items for stratified fit / calibration / test splits ({error})"
        ) from None
    return fit_idx, cal_idx, test_idx


def _raw_probabilities(x: np.ndarray, levels: list[str]) -> np.ndarray | None:
    if len(levels) != 2 or x.shape[1] != 1 or x.min() < 0 or x.max() > 1:
        return None
    return np.column_stack([1 - x[:, 0], x[:, 0]])


def calibrate(
    x: np.ndarray,
    y: list[int],
    scale: LabelScale,
    scores: list[str],
    method: Method,
    alpha: float,
    source: str,
    dropped: int = 0,
    fractions: tuple[float, float, float] = (0.4, 0.3, 0.3),
    seed: int = 0,
) -> tuple[Calibrator, np.ndarray, np.ndarray, list[list[int]]]:
    """Fit stage 1 on the fit split, set q̂ on the calibration split, judge on the test split.
    Returns the calibrator, the test indices, their probabilities and prediction sets."""
    if method == "ordinal" and not scale.ordered:
        raise ConfigError(
            f"--method ordinal: label '{scale.name}' has unordered classes (give --levels to order them)"
        )
    labels = np.array(y)
    fit_idx, cal_idx, test_idx = split(y, fractions, seed)
    mapping = fit(method, x[fit_idx], labels[fit_idx], scale.levels)
    quantile = conformal_quantile(nonconformity(mapping.probabilities(x[cal_idx]), labels[cal_idx]), alpha)
    p_test = mapping.probabilities(x[test_idx])
    sets = prediction_sets(p_test, quantile)
    y_test = labels[test_idx]
    raw = _raw_probabilities(x[test_idx], scale.levels)
    sizes = Counter(len(s) for s in sets)
    evaluation = Evaluation(
        fit_items=len(fit_idx),
        calibration_items=len(cal_idx),
        test_items=len(test_idx),
        brier_before=brier(raw, y_test) if raw is not None else None,
        brier_after=brier(p_test, y_test),
        ece_before=ece(raw, y_test) if raw is not None else None,
        ece_after=ece(p_test, y_test),
        auc_before=auc(raw, y_test) if raw is not None else None,
        auc_after=auc(p_test, y_test),
        reliability_before=reliability(raw, y_test) if raw is not None else [],
        reliability_after=reliability(p_test, y_test),
        coverage=coverage(sets, y_test),
        set_sizes=dict(sorted(sizes.items())),
        review_share=float(np.mean([needs_review(s) for s in sets])),
    )
    calibrator = Calibrator(
        source=source,
        label=scale,
        scores=scores,
        mapping=mapping,
        alpha=alpha,
        quantile=quantile,
        items=len(y),
        dropped=dropped,
        seed=seed,
        evaluation=evaluation,
    )
    return calibrator, test_idx, p_test, sets


def read_calibrator(path: Path) -> Calibrator:
    """A calibrator file written by ``simpop calibrate``."""
    if not path.is_file():
        raise ConfigError(f"{path}: {not_a_file(path, 'calibrator file')} (write one with simpop calibrate)")
    try:
        return Calibrator.model_validate_json(read_text(path))
    except ValidationError as error:
        where = ".".join(str(part) for part in error.errors()[0]["loc"]) or "file"
        raise ConfigError(
            f"{path}, field '{where}': not a simpop calibrator ({error.errors()[0]['msg']})"
        ) from None
