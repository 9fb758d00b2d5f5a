"""How likely an answer is right, from what the bot did with the message (issue 71): fitted on
the simulated cells, where simpop knows what each message asks, and applied to real messages,
where it may not. It sees only the bot's reply (answered or not, and the similarity it reports),
never the message's label, so prediction-powered inference may use it (Angelopoulos et al.,
Science 2023): its mean over unlabelled real messages is the simulation's prediction of the
real figure, and a few labelled ones correct it (``simpop.validity.corrected``).

A bot's misses on real patients are mostly the messages it does not answer at all, or answers
with a low similarity; a prediction made from its replies to the real messages themselves keeps
that, where a prediction made from the simulated messages alone does not."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

PRIOR = 1.0  # pseudo-counts of a Beta(1, 1) prior on each rate


@dataclass(frozen=True)
class Reply:
    """What the bot did with one message: whether it answered, the similarity it reported, and
    how far that stands above the runner-up's (a retriever's best guess is surer the further
    ahead it is)."""

    answered: bool
    similarity: float | None = None
    margin: float | None = None

    def features(self) -> tuple[float, ...] | None:
        if self.similarity is None:
            return None
        return (self.similarity,) if self.margin is None else (self.similarity, self.margin)


def margin_of(scores: Iterable[float | None]) -> float | None:
    """How far the best of a reply's scores (its ranked contexts') stands above the runner-up."""
    ranked = sorted((s for s in scores if s is not None), reverse=True)
    return round(ranked[0] - ranked[1], 6) if len(ranked) > 1 else None


@dataclass(frozen=True)
class Predictor:
    """P(right | reply): a rate for unanswered messages; for answered ones a logistic model of
    the similarity (and margin) where the bot reports them, else a rate."""

    unanswered: float
    answered: float
    weights: tuple[float, ...] | None = None
    intercept: float = 0.0
    n: int = 0

    def __call__(self, reply: Reply) -> float:
        if not reply.answered:
            return self.unanswered
        x = reply.features()
        if self.weights is None or x is None or len(x) != len(self.weights):
            return self.answered
        return 1.0 / (
            1.0 + math.exp(-(self.intercept + sum(w * v for w, v in zip(self.weights, x, strict=True))))
        )

    def predict(self, replies: list[Reply]) -> np.ndarray:
        return np.array([self(r) for r in replies])


def _rate(values: list[float]) -> float:
    return (sum(values) + PRIOR) / (len(values) + 2 * PRIOR)


def fit_predictor(replies: list[Reply], right: list[float]) -> Predictor:
    """Fitted on replies and their outcomes (1 right, 0 not): the simulated cells', and where
    cross-fitted some labelled real messages'."""
    if len(replies) != len(right) or not replies:
        raise ValueError("a predictor needs one outcome per reply, and at least one")
    answered = [(r.features(), y) for r, y in zip(replies, right, strict=True) if r.answered]
    unanswered = [y for r, y in zip(replies, right, strict=True) if not r.answered]
    weights, intercept = None, 0.0
    shapes = {None if x is None else len(x) for x, _ in answered}
    if len(shapes) == 1 and None not in shapes and len({y for _, y in answered}) == 2:
        from sklearn.linear_model import LogisticRegression

        x = np.array([x for x, _ in answered])
        spread = x.std(axis=0)
        if spread.min() > 0:
            # standardised, so the penalty weighs a similarity (0.6-0.9) and a margin (0-0.2) alike
            centre = x.mean(axis=0)
            model = LogisticRegression(C=1.0).fit((x - centre) / spread, np.array([y for _, y in answered]))
            scaled = model.coef_[0] / spread
            weights = tuple(float(w) for w in scaled)
            intercept = float(model.intercept_[0] - (scaled * centre).sum())
    return Predictor(
        # no answer is rarely right; with no unanswered cell to go on, never
        unanswered=float(np.mean(unanswered)) if unanswered else 0.0,
        answered=_rate([y for _, y in answered]),
        weights=weights,
        intercept=intercept,
        n=len(replies),
    )


FOLDS = 5


def cross_fitted(
    simulated: list[tuple[Reply, float]],
    labelled: list[tuple[Reply, float]],
    unlabelled: list[Reply],
    folds: int = FOLDS,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Predictions of the labelled and the unlabelled real messages from a predictor fitted on the
    simulated cells and the labelled real messages of the other folds (cross-prediction-powered
    inference, Zrnic and Candès, PNAS 2024): a labelled message is never predicted by a model that
    saw its label, and the real labels teach the predictor what the simulation could not (a reply
    of the bot's that is wrong on real patients more often than on simulated ones). The
    unlabelled ones get the folds' mean prediction."""
    n = len(labelled)
    order = np.random.default_rng(seed).permutation(n)
    parts = [order[k::folds] for k in range(min(folds, n))]
    f_labelled, f_unlabelled = np.zeros(n), np.zeros(len(unlabelled))
    for part in parts:
        held = set(part.tolist())
        train = simulated + [labelled[i] for i in range(n) if i not in held]
        model = fit_predictor([r for r, _ in train], [y for _, y in train])
        f_labelled[part] = model.predict([labelled[i][0] for i in part])
        f_unlabelled += model.predict(unlabelled) / len(parts) if unlabelled else 0.0
    return f_labelled, f_unlabelled
