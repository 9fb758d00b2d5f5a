"""The support verifier: a logistic regression over the support judge's P(yes) and the features
of ``features`` (Cox, 1958; scikit-learn's ``LogisticRegression``), saved as a small JSON file of
its coefficients (no pickle), with the threshold its verdicts use and where it was trained."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import Field, ValidationError

from simpop.config import validation_problems
from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judging.crossval import LogisticModel, Predictor, best_threshold, fit_logistic
from simpop.judging.features import FEATURES, feature_row
from simpop.judging.profile import JudgeProfile
from simpop.textfiles import read_text


class VerifierModel(LogisticModel):
    """A fitted verifier: standardise, then a logistic regression."""

    features: list[str]
    threshold: float = Field(description="verdict 'supported' when P ≥ threshold")
    trained_on: str = Field(description="the labelled data it was fitted on")
    judge_model: str = Field(description="the judge whose P(yes) it was fitted with")
    items: int


def fit_verifier(x: np.ndarray, y: np.ndarray, trained_on: str, judge_model: str) -> VerifierModel:
    """Fit the verifier on features ``x`` (``FEATURES`` columns) and labels ``y`` (1 supported);
    its threshold is the one with the best kappa on these same items."""
    fitted = VerifierModel(
        **fit_logistic(x, y, c=1.0, max_iter=1000),
        features=list(FEATURES),
        threshold=0.5,
        trained_on=trained_on,
        judge_model=judge_model,
        items=len(y),
    )
    fitted.threshold = best_threshold(fitted.probability(x), y)
    return fitted


def verifier_fit(x: np.ndarray, y: np.ndarray) -> Predictor:
    """A verifier fitted on training folds, as cross-validation uses it."""
    model = fit_verifier(x, y, "training folds", "")
    return Predictor(model.probability, model.threshold)


def read_verifier(path: Path) -> VerifierModel:
    """A verifier file, checked against the features this simpop computes."""
    if not path.is_file():
        raise ConfigError(f"{path}: verifier file not found (make one with simpop judge train)")
    try:
        model = VerifierModel.model_validate_json(read_text(path))
    except ValidationError as error:
        raise ConfigError(f"{path}: not a simpop support verifier: {validation_problems(error)[0]}") from None
    if model.features != list(FEATURES):
        raise ConfigError(
            f"{path}: made for features {model.features}, this simpop computes {list(FEATURES)}"
        )
    problem = model.shape_problem(len(model.features))
    if problem is not None:
        raise ConfigError(f"{path}: not a simpop support verifier: {problem}")
    return model


def feature_matrix(
    embedder: Embedder, pairs: list[tuple[list[str], str, str]], judge_p: list[float]
) -> np.ndarray:
    """Features of each (context sentences, context, statement) with the judge's P(yes); a
    context with no sentence is one sentence."""
    pairs = [(sentences or [context], context, statement) for sentences, context, statement in pairs]
    texts = list(dict.fromkeys(t for sentences, _, s in pairs for t in (*sentences, s)))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True)) if texts else {}
    rows = []
    for (sentences, context, statement), p in zip(pairs, judge_p, strict=True):
        similarities = np.array([vectors[s] for s in sentences]) @ vectors[statement]
        rows.append(feature_row(statement, context, sentences, similarities, p))
    return np.array(rows, dtype=float)


class SupportVerifier:
    """A fitted verifier with the embedding model its features need."""

    def __init__(self, model: VerifierModel, embedder: Embedder) -> None:
        self.model = model
        self.embedder = embedder

    def probabilities(
        self, sentences: list[str], context: str, statements: list[str], judge_p: list[float]
    ) -> list[float]:
        """P(supported) of each statement against one context split into ``sentences``."""
        x = feature_matrix(self.embedder, [(sentences, context, s) for s in statements], judge_p)
        return [float(p) for p in self.model.probability(x)]


def support_verifier(profile: JudgeProfile, path: Path | None, embedder: Embedder) -> SupportVerifier | None:
    """The verifier in ``path``, else the judge profile's, else None (the judge alone)."""
    path = path or profile.verifier_path()
    return SupportVerifier(read_verifier(path), embedder) if path is not None else None
