"""ASTRID's clinical-risk experiment (§4.2.2): from the triad (conversational faithfulness,
context relevance, refusal accuracy) and scope, predict clinicians' labels of an answer's harm,
helpfulness or inappropriateness. Random forest, SVM, Gaussian naive Bayes and a small neural
network are each tuned by grid search on a training split, chosen on a validation split and
judged per class on a test split, all stratified."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import joblib
import numpy as np
from pydantic import Field
from sklearn.base import BaseEstimator
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.metrics import f1_score, precision_recall_fscore_support
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from simpop.calibration.calibrate import split
from simpop.errors import ConfigError
from simpop.labels.files import LabelledItem, LabelScale, resolve
from simpop.models import Record

FEATURES = ("faithfulness", "context_relevance", "refusal.accuracy", "scope")
ALIASES = {
    "cf": "faithfulness",
    "cr": "context_relevance",
    "ra": "refusal.accuracy",
    "refusal_accuracy": "refusal.accuracy",
    "in_scope": "scope",
}


def families(seed: int) -> dict[str, tuple[BaseEstimator, dict[str, list[Any]]]]:
    """The four classifiers of ASTRID §4.2.2 and the grid each is tuned over."""
    return {
        "random_forest": (
            RandomForestClassifier(random_state=seed),
            {"n_estimators": [100], "max_depth": [2, 4, None], "class_weight": [None, "balanced"]},
        ),
        "svm": (
            SVC(random_state=seed),
            {"C": [0.1, 1.0, 10.0], "kernel": ["linear", "rbf"], "class_weight": [None, "balanced"]},
        ),
        "naive_bayes": (GaussianNB(), {"var_smoothing": [1e-9, 1e-6, 1e-3]}),
        "neural_network": (
            MLPClassifier(max_iter=2000, random_state=seed),
            {"hidden_layer_sizes": [(8,), (16, 8)], "alpha": [1e-4, 1e-2]},
        ),
    }


class ClassScores(Record):
    """Precision, recall and F1 of one label level on the test split."""

    level: str
    precision: float
    recall: float
    f1: float
    support: int


class FamilyResult(Record):
    """One classifier family: its best grid point, validation and test figures."""

    kind: str
    params: dict[str, Any]
    validation_macro_f1: float
    test_macro_f1: float
    test: list[ClassScores]


class RiskReport(Record):
    """What ``simpop risk train`` found; saved beside the model."""

    source: str
    label: LabelScale
    features: list[str]
    items: int
    train_items: int
    validation_items: int
    test_items: int
    chosen: str = Field(description="the family with the best validation macro-F1")
    families: list[FamilyResult]


def feature_names(names: list[str] | None) -> list[str]:
    return [ALIASES.get(n.lower(), n) for n in (names or FEATURES)]


def feature_matrix(items: list[LabelledItem], features: list[str]) -> np.ndarray:
    """One row per item; a feature an item lacks (CF of a refusal, say) is NaN, imputed later."""
    available = {k for item in items for k in item.scores}
    stored = []
    for name in features:
        found = resolve(name, available)
        if found is None:
            raise ConfigError(
                f"feature '{name}': no item has it (scores found: {', '.join(sorted(available)) or 'none'})"
            )
        stored.append(found)
    return np.array([[item.scores.get(s, np.nan) for s in stored] for item in items], dtype=float)


def _pipeline(model: BaseEstimator) -> Pipeline:
    return Pipeline(
        [
            ("impute", SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True)),
            ("scale", StandardScaler()),
            ("model", model),
        ]
    )


def _class_scores(y: np.ndarray, predicted: np.ndarray, levels: list[str]) -> list[ClassScores]:
    p, r, f, n = precision_recall_fscore_support(
        y, predicted, labels=list(range(len(levels))), zero_division=0
    )
    return [
        ClassScores(level=lv, precision=float(p[k]), recall=float(r[k]), f1=float(f[k]), support=int(n[k]))
        for k, lv in enumerate(levels)
    ]


def train(
    items: list[LabelledItem],
    y: list[int],
    scale: LabelScale,
    features: list[str],
    source: str,
    fractions: tuple[float, float, float] = (0.6, 0.2, 0.2),
    seed: int = 0,
) -> tuple[Pipeline, RiskReport]:
    """Tune each family on train (scored on validation), choose the best on validation, judge
    all on test; the chosen pipeline is refitted on train + validation."""
    x = feature_matrix(items, features)
    labels = np.array(y)
    train_idx, val_idx, test_idx = split(y, fractions, seed)
    fit_idx = np.concatenate([train_idx, val_idx])
    folds = PredefinedSplit(np.r_[np.full(len(train_idx), -1), np.zeros(len(val_idx), dtype=int)])
    results, fitted = [], {}
    for kind, (model, grid) in families(seed).items():
        search = GridSearchCV(
            _pipeline(model),
            {f"model__{k}": v for k, v in grid.items()},
            scoring="f1_macro",
            cv=folds,
            refit=True,
            error_score=0.0,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", UserWarning)
            search.fit(x[fit_idx], labels[fit_idx])
        predicted = search.best_estimator_.predict(x[test_idx])
        fitted[kind] = search.best_estimator_
        results.append(
            FamilyResult(
                kind=kind,
                params={k.removeprefix("model__"): v for k, v in search.best_params_.items()},
                validation_macro_f1=float(search.best_score_),
                test_macro_f1=float(
                    f1_score(
                        labels[test_idx],
                        predicted,
                        average="macro",
                        labels=list(range(len(scale.levels))),
                        zero_division=0,
                    )
                ),
                test=_class_scores(labels[test_idx], predicted, scale.levels),
            )
        )
    chosen = max(results, key=lambda r: r.validation_macro_f1).kind
    report = RiskReport(
        source=source,
        label=scale,
        features=features,
        items=len(items),
        train_items=len(train_idx),
        validation_items=len(val_idx),
        test_items=len(test_idx),
        chosen=chosen,
        families=results,
    )
    return fitted[chosen], report


def save_model(path: Path, model: Pipeline, report: RiskReport) -> None:
    """The model and its report in one joblib file (a pickle: load only files you trust), and
    the report as JSON beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    joblib.dump({"model": model, "report": report.model_dump(mode="json")}, path)
    path.with_suffix(".json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")


def load_model(path: Path) -> tuple[Pipeline, RiskReport]:
    """A model saved by ``simpop risk train``."""
    if not path.is_file():
        raise ConfigError(f"{path}: risk model not found (train one with simpop risk train)")
    try:
        saved = joblib.load(path)
        return saved["model"], RiskReport.model_validate(saved["report"])
    except Exception as error:  # a pickle can fail in any way; the user needs the file named
        raise ConfigError(f"{path}: not a simpop risk model ({type(error).__name__})") from None
