"""Agreement with human labels measured out of sample: grouped k-fold cross-validation (no
answer's statements in both the training and the test folds; scikit-learn's ``GroupKFold``),
thresholds and verifiers fitted on the training folds only, and intervals from a bootstrap
over answers (the cluster bootstrap: Field & Welsh, 2007)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from pydantic import Field

from simpop.aggregate import ece, reliability
from simpop.binary_figures import cohen_kappa, roc_auc
from simpop.models import Record

Interval = tuple[float, float]
T = TypeVar("T")


@dataclass(frozen=True)
class Predictor:
    """P(yes) of feature rows, and the threshold that turns it into verdicts."""

    probability: Callable[[np.ndarray], np.ndarray]
    threshold: float

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = self.probability(x)
        return p, p >= self.threshold


Fit = Callable[[np.ndarray, np.ndarray], Predictor]  # fitted on training rows and labels


def best_threshold(p: np.ndarray, y: np.ndarray) -> float:
    """The threshold on ``p`` with the highest Cohen's kappa against ``y`` (ties: nearest 0.5)."""
    candidates = np.unique(np.concatenate([np.round(p, 4), [0.5]]))
    scored = []
    for t in candidates:
        predicted = p >= t
        kappa = cohen_kappa(y, predicted)
        scored.append((round(float(kappa), 6), -abs(float(t) - 0.5), float(t)))
    return max(scored)[2]


def threshold_fit(column: int = 0) -> Fit:
    """Column ``column`` as P(yes) (a judge's, or a similarity), at the threshold with the best
    kappa on the training rows."""

    def fit(x: np.ndarray, y: np.ndarray) -> Predictor:
        return Predictor(lambda rows: rows[:, column], best_threshold(x[:, column], y))

    return fit


class LogisticModel(Record):
    """Standardise, then a logistic regression (Cox, 1958): the fitted state of the support
    verifier and the safety classifiers, kept as JSON (no pickle)."""

    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = (x - np.array(self.mean)) / np.array(self.scale)
        return 1 / (1 + np.exp(-(z @ np.array(self.coef) + self.intercept)))

    def shape_problem(self, width: int) -> str | None:
        """What keeps it from scoring rows of ``width`` features ("field 'coef': ..."), if anything."""
        for name in ("coef", "mean", "scale"):
            values: list[float] = getattr(self, name)
            if len(values) != width:
                return f"field '{name}': {len(values)} values, expected {width} (one per feature)"
            if not all(np.isfinite(values)):
                return f"field '{name}': a value that is not a finite number"
        if not all(self.scale):
            return "field 'scale': a zero (a feature cannot be divided by it)"
        if not np.isfinite(self.intercept):
            return "field 'intercept': not a finite number"
        return None


def fit_logistic(x: np.ndarray, y: np.ndarray, c: float, max_iter: int) -> dict[str, Any]:
    """``LogisticModel``'s fields fitted on rows ``x`` and labels ``y``: features standardised (a
    constant one left as it is), classes weighted to balance, inverse regularisation ``c``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=max_iter)
    model.fit((x - scaler.mean_) / scale, y)
    return {
        "mean": scaler.mean_.tolist(),
        "scale": scale.tolist(),
        "coef": model.coef_[0].tolist(),
        "intercept": float(model.intercept_[0]),
    }


class Agreement(Record):
    """How far one judge agrees with the human labels, every figure out of fold."""

    judge: str
    items: int
    groups: int = Field(description="answers (the unit folds and the bootstrap keep together)")
    folds: int
    auc: float | None
    auc_interval: Interval | None
    accuracy: float
    accuracy_interval: Interval
    kappa: float
    kappa_interval: Interval
    thresholds: list[float] = Field(description="the threshold chosen on each training fold")
    ece: float = Field(description="expected calibration error of the out-of-fold P(yes)")
    reliability: list[tuple[float, float, int]] = Field(
        description="per bin of P(yes): mean predicted, observed share supported, items"
    )


def folds(groups: list[str], k: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    """Train and test indices of ``k`` folds, every group whole in one test fold."""
    from sklearn.model_selection import GroupKFold

    k = min(k, len(set(groups)))
    x = np.zeros((len(groups), 1))
    return list(GroupKFold(n_splits=k).split(x, groups=groups))


def out_of_fold(
    x: np.ndarray, y: np.ndarray, groups: list[str], fit: Fit, k: int = 5
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Each item's P(yes) and verdict from a model fitted without its group, and the threshold
    chosen on each fold's training rows."""
    p = np.zeros(len(y))
    verdict = np.zeros(len(y), dtype=bool)
    thresholds = []
    for train, test in folds(groups, k):
        predict = fit(x[train], y[train])
        p[test], verdict[test] = predict(x[test])
        thresholds.append(predict.threshold)
    return p, verdict, thresholds


def _figures(y: np.ndarray, p: np.ndarray, verdict: np.ndarray) -> tuple[float | None, float, float]:
    auc = roc_auc(y, p) if 0 < np.count_nonzero(y) < len(y) else None
    return auc, float(np.mean(verdict == y)), cohen_kappa(y, verdict)


def group_resamples(groups: list[str], reps: int = 1000, seed: int = 0) -> Iterator[np.ndarray]:
    """Item indices of ``reps`` bootstrap resamples of whole groups (the cluster bootstrap)."""
    names = sorted(set(groups))
    members = {g: np.flatnonzero(np.array(groups) == g) for g in names}
    rng = np.random.default_rng(seed)
    for _ in range(reps):
        yield np.concatenate([members[names[i]] for i in rng.integers(0, len(names), len(names))])


def agreement(
    judge: str,
    y: np.ndarray,
    p: np.ndarray,
    verdict: np.ndarray,
    groups: list[str],
    thresholds: list[float],
    reps: int = 1000,
    seed: int = 0,
) -> Agreement:
    """ROC AUC, accuracy and Cohen's kappa of out-of-fold predictions, each with a 95%
    percentile interval from ``reps`` resamples of whole groups."""
    auc, accuracy, kappa = _figures(y, p, verdict)
    samples = [
        _figures(y[picked], p[picked], verdict[picked]) for picked in group_resamples(groups, reps, seed)
    ]
    names = sorted(set(groups))

    def interval(column: int) -> Interval | None:
        values = [s[column] for s in samples if s[column] is not None]
        if not values:
            return None
        low, high = np.percentile(values, [2.5, 97.5])
        return (float(low), float(high))

    two = np.column_stack([1 - p, p])
    return Agreement(
        judge=judge,
        items=len(y),
        groups=len(names),
        folds=len(thresholds),
        auc=auc,
        auc_interval=interval(0) if auc is not None else None,
        accuracy=accuracy,
        accuracy_interval=interval(1) or (accuracy, accuracy),
        kappa=kappa,
        kappa_interval=interval(2) or (kappa, kappa),
        thresholds=thresholds,
        ece=ece(two, y.astype(int), bins=5),
        reliability=reliability(two, y.astype(int), bins=5),
    )


def at_profile_and_fitted(
    label: str, y: np.ndarray, p: np.ndarray, groups: list[str], threshold: float
) -> list[Agreement]:
    """A judge's P(yes) ``p`` at the profile's ``threshold`` (the verdict a run gives, nothing
    fitted) and at a threshold fitted out of fold."""
    fixed = agreement(f"{label} · profile threshold", y, p, p >= threshold, groups, [threshold])
    fitted_p, verdict, thresholds = out_of_fold(p.reshape(-1, 1), y, groups, threshold_fit(0))
    return [fixed, agreement(f"{label} · fitted threshold", y, fitted_p, verdict, groups, thresholds)]


def balanced(items: list[T], is_yes: Callable[[T], bool], limit: int | None, seed: int = 0) -> list[T]:
    """At most ``limit`` items drawn at random, up to half of them labelled yes (all there are
    where fewer); all of them without a limit."""
    if limit is None or limit >= len(items):
        return items
    rng = np.random.default_rng(seed)
    yes = [i for i in items if is_yes(i)]
    no = [i for i in items if not is_yes(i)]
    take = min(len(yes), limit // 2)
    return [yes[i] for i in rng.permutation(len(yes))[:take]] + [
        no[i] for i in rng.permutation(len(no))[: limit - take]
    ]
