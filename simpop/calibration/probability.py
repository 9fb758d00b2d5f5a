"""Stage 1 of HCAT's calibration (§5.1): machine scores to calibrated class probabilities, by
logistic (Platt), isotonic or ordinal (proportional-odds) regression; and the measures of how
well probabilities are calibrated (Brier score, expected calibration error, reliability)."""

from __future__ import annotations

import numpy as np
from pydantic import Field
from scipy.optimize import minimize
from scipy.special import expit, softmax
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from simpop.errors import ConfigError
from simpop.models import CalibrationMethod, Record

Method = CalibrationMethod
PLATT_C = 100.0  # weak L2: Platt (1999) fits two parameters by maximum likelihood


class Mapping(Record):
    """A fitted stage-1 map from score vectors to probabilities over ``levels``."""

    method: Method
    levels: list[str]
    weights: list[list[float]] = Field(
        [], description="platt: one row per class (one row if binary); ordinal: one row"
    )
    intercepts: list[float] = Field([], description="platt: per row; ordinal: the K − 1 cut points")
    knots_x: list[float] = Field([], description="isotonic: the step function's knots")
    knots_y: list[float] = []

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(Y = level | x) for each row of ``x`` (n × scores), one column per level."""
        x = np.asarray(x, dtype=float)
        if not len(x):
            return np.zeros((0, len(self.levels)))
        x = x.reshape(len(x), -1)
        if self.method == "isotonic":
            p = np.interp(x[:, 0], self.knots_x, self.knots_y)
            return np.column_stack([1 - p, p])
        w = np.array(self.weights)
        if self.method == "ordinal":
            below = expit(np.array(self.intercepts)[None, :] - (x @ w[0])[:, None])
            cumulative = np.hstack([np.zeros((len(x), 1)), below, np.ones((len(x), 1))])
            return np.clip(np.diff(cumulative, axis=1), 0.0, 1.0)
        z = x @ w.T + np.array(self.intercepts)
        if len(self.levels) == 2:
            p = expit(z[:, 0])
            return np.column_stack([1 - p, p])
        return softmax(z, axis=1)


def fit_platt(x: np.ndarray, y: np.ndarray, levels: list[str]) -> Mapping:
    """Logistic regression of the label on the scores (Platt, 1999; multinomial for > 2 classes)."""
    model = LogisticRegression(C=PLATT_C, max_iter=5000).fit(x, y)
    if list(model.classes_) != list(range(len(levels))):
        raise ConfigError("platt: every label level needs at least one item in the fitting split")
    return Mapping(
        method="platt", levels=levels, weights=model.coef_.tolist(), intercepts=model.intercept_.tolist()
    )


def fit_isotonic(x: np.ndarray, y: np.ndarray, levels: list[str]) -> Mapping:
    """The non-decreasing step function of one score closest to the binary label (Zadrozny &
    Elkan, 2002)."""
    if len(levels) != 2 or x.shape[1] != 1:
        raise ConfigError(
            "isotonic calibration needs a binary label and a single score (use platt or ordinal)"
        )
    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x[:, 0], y)
    return Mapping(
        method="isotonic",
        levels=levels,
        knots_x=model.X_thresholds_.tolist(),
        knots_y=model.y_thresholds_.tolist(),
    )


def fit_ordinal(x: np.ndarray, y: np.ndarray, levels: list[str]) -> Mapping:
    """Proportional-odds regression (McCullagh, 1980): P(Y ≤ k | x) = σ(θ_k − w·x), fitted by
    maximum likelihood with increasing cut points θ."""
    k, d = len(levels), x.shape[1]
    if k < 2:
        raise ConfigError("ordinal calibration needs at least two label levels")

    def unpack(params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cuts = params[d] + np.concatenate([[0.0], np.cumsum(np.exp(params[d + 1 :]))])
        return params[:d], cuts

    def nll(params: np.ndarray) -> float:
        w, cuts = unpack(params)
        below = expit(cuts[None, :] - (x @ w)[:, None])
        cumulative = np.hstack([np.zeros((len(x), 1)), below, np.ones((len(x), 1))])
        p = cumulative[np.arange(len(y)), y + 1] - cumulative[np.arange(len(y)), y]
        return float(-np.log(np.clip(p, 1e-12, None)).sum())

    start = np.concatenate([np.zeros(d), [-1.0], np.zeros(k - 2)])
    result = minimize(nll, start, method="L-BFGS-B")
    w, cuts = unpack(result.x)
    return Mapping(method="ordinal", levels=levels, weights=[w.tolist()], intercepts=cuts.tolist())


FITTERS = {"platt": fit_platt, "isotonic": fit_isotonic, "ordinal": fit_ordinal}


def fit(method: Method, x: np.ndarray, y: np.ndarray, levels: list[str]) -> Mapping:
    """Fit ``method`` on scores ``x`` (n × d) and label indices ``y`` into ``levels``."""
    return FITTERS[method](np.asarray(x, dtype=float).reshape(len(x), -1), np.asarray(y), levels)


def brier(p: np.ndarray, y: np.ndarray) -> float:
    """Brier (1950) score: the mean squared difference between predicted probabilities and the
    outcome; for a binary label the usual mean of (p₁ − y)², else summed over classes."""
    onehot = np.eye(p.shape[1])[y]
    if p.shape[1] == 2:
        return float(np.mean((p[:, 1] - onehot[:, 1]) ** 2))
    return float(np.mean(((p - onehot) ** 2).sum(axis=1)))


def auc(p: np.ndarray, y: np.ndarray) -> float | None:
    """ROC AUC of P(Y = 1) for a binary label; macro one-vs-rest for more classes; ``None``
    when a class is missing."""
    if len(set(y.tolist())) != p.shape[1]:
        return None
    if p.shape[1] == 2:
        return float(roc_auc_score(y, p[:, 1]))
    return float(roc_auc_score(y, p, multi_class="ovr", labels=list(range(p.shape[1]))))
