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
from dataclasses import dataclass

import numpy as np

PRIOR = 1.0  # pseudo-counts of a Beta(1, 1) prior on each rate


@dataclass(frozen=True)
class Reply:
    """What the bot did with one message: whether it answered, and the similarity it reported."""

    answered: bool
    similarity: float | None = None


@dataclass(frozen=True)
class Predictor:
    """P(right | reply): a rate for unanswered messages; for answered ones a logistic curve in
    the similarity where the bot reports one (else a rate)."""

    unanswered: float
    answered: float
    slope: float | None = None
    intercept: float | None = None
    n: int = 0

    def __call__(self, reply: Reply) -> float:
        if not reply.answered:
            return self.unanswered
        if self.slope is None or reply.similarity is None:
            return self.answered
        return 1.0 / (1.0 + math.exp(-(self.intercept + self.slope * reply.similarity)))

    def predict(self, replies: list[Reply]) -> np.ndarray:
        return np.array([self(r) for r in replies])


def _rate(values: list[float]) -> float:
    return (sum(values) + PRIOR) / (len(values) + 2 * PRIOR)


def fit_predictor(replies: list[Reply], right: list[float]) -> Predictor:
    """Fitted on the simulated cells' replies and outcomes (1 right, 0 not)."""
    if len(replies) != len(right) or not replies:
        raise ValueError("a predictor needs one outcome per reply, and at least one")
    answered = [(r.similarity, y) for r, y in zip(replies, right, strict=True) if r.answered]
    unanswered = [y for r, y in zip(replies, right, strict=True) if not r.answered]
    scored = [(s, y) for s, y in answered if s is not None]
    slope = intercept = None
    if len(scored) == len(answered) and len({y for _, y in scored}) == 2 and len({s for s, _ in scored}) > 1:
        from sklearn.linear_model import LogisticRegression

        x = np.array([[s] for s, _ in scored])
        model = LogisticRegression(C=1.0).fit(x, np.array([y for _, y in scored]))
        slope, intercept = float(model.coef_[0][0]), float(model.intercept_[0])
    return Predictor(
        # no answer is rarely right; with no unanswered cell to go on, never
        unanswered=float(np.mean(unanswered)) if unanswered else 0.0,
        answered=_rate([y for _, y in answered]),
        slope=slope,
        intercept=intercept,
        n=len(replies),
    )
