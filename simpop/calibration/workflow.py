"""``simpop calibrate`` as a function: labelled items in, scores read or computed, the two-stage
calibrator fitted and judged, and the held-out items it would send to a person."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.progress import Progress
from sklearn.pipeline import Pipeline

from simpop.calibration.calibrate import Calibrator, calibrate
from simpop.calibration.conformal import needs_review, set_text
from simpop.calibration.labels import SCALES, LabelledItem, LabelScale, read_scale
from simpop.calibration.probability import Method
from simpop.calibration.risk import RiskReport, feature_names, train
from simpop.calibration.runs import labelled_items, to_csv
from simpop.calibration.scores import COMPUTABLE, fill_scores, resolve, score_matrix
from simpop.errors import ConfigError
from simpop.models import EmbeddingConfig, LLMConfig


@dataclass
class Calibrated:
    """A fitted calibrator and its test split: items, probabilities and prediction sets."""

    calibrator: Calibrator
    computed: list[str]
    test_items: list[LabelledItem]
    test_labels: list[int]
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
                score_matrix(self.test_items, c.scores)[0],
                self.probabilities,
                self.sets,
                strict=True,
            )
            if needs_review(s)
        ]
        return to_csv(header, rows)


def default_label(items: list[LabelledItem]) -> str:
    """The one known label (verdict, harm, helpful, inappropriate, supported) the items carry."""
    found = [name for name in SCALES if any(name in i.labels for i in items)]
    if len(found) != 1:
        columns = found or sorted({k for i in items for k in i.labels if k not in i.scores})
        raise ConfigError(f"give --label (label columns: {', '.join(columns) or 'none'})")
    return found[0]


def labelled_scale(
    source: str,
    label: str | None,
    levels: list[str] | None,
    positive: str | None,
    columns: dict[str, str] | None,
    runs: Path,
) -> tuple[LabelScale, list[LabelledItem], list[int]]:
    """The items of ``source`` that carry the label, its scale and their level indices."""
    items = labelled_items(source, runs, columns)
    return read_scale(items, label or default_label(items), levels, positive)


def train_risk(
    source: str,
    features: list[str] | None = None,
    *,
    label: str | None = None,
    levels: list[str] | None = None,
    positive: str | None = None,
    fractions: tuple[float, float, float] = (0.6, 0.2, 0.2),
    seed: int = 0,
    columns: dict[str, str] | None = None,
    runs: Path = Path("runs"),
    llm: LLMConfig | None = None,
    embedding: EmbeddingConfig | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> tuple[Pipeline, RiskReport]:
    """Train ASTRID's clinical-risk classifiers of ``label`` on ``source``'s labelled items."""
    scale, items, y = labelled_scale(source, label, levels, positive, columns, runs)
    names = feature_names(features)
    available = {k for item in items for k in item.scores}
    computable = [n for n in names if resolve(n, available) is None and n in COMPUTABLE]
    if computable:
        fill_scores(
            items, computable, embedding or EmbeddingConfig(), llm or LLMConfig(), use_cache, progress
        )
    return train(items, y, scale, names, source, fractions, seed)


def calibrate_labels(
    source: str,
    scores: list[str],
    *,
    label: str | None = None,
    levels: list[str] | None = None,
    positive: str | None = None,
    method: Method = "platt",
    alpha: float = 0.1,
    fractions: tuple[float, float, float] = (0.4, 0.3, 0.3),
    seed: int = 0,
    columns: dict[str, str] | None = None,
    runs: Path = Path("runs"),
    llm: LLMConfig | None = None,
    embedding: EmbeddingConfig | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> Calibrated:
    """Fit and judge a two-stage calibrator of label ``label`` from ``scores`` on ``source``."""
    scale, carrying, y = labelled_scale(source, label, levels, positive, columns, runs)
    computed = fill_scores(
        carrying, scores, embedding or EmbeddingConfig(), llm or LLMConfig(), use_cache, progress
    )
    x, keep = score_matrix(carrying, scores)
    kept_items = [i for i, k in zip(carrying, keep, strict=True) if k]
    kept_y = [v for v, k in zip(y, keep, strict=True) if k]
    calibrator, test_idx, p, sets = calibrate(
        x, kept_y, scale, scores, method, alpha, source, len(carrying) - len(kept_items), fractions, seed
    )
    return Calibrated(
        calibrator=calibrator,
        computed=computed,
        test_items=[kept_items[i] for i in test_idx],
        test_labels=[kept_y[i] for i in test_idx],
        probabilities=p,
        sets=sets,
    )
