"""One metric's predictive figures (issue 71): the simulated figure beside the real one, their
gap, the real figure predicted from the bot's replies to the real messages (no label used), and
the real figure corrected by a few labelled real messages (prediction-powered inference,
``simpop.validity.corrected``).

The corrected estimate takes its predictions from the bot's replies
(``simpop.validity.predictor``, fitted on the simulated cells) where the run has unlabelled real
messages to apply them to: the predictions then come from the real population itself, and the
estimate is unbiased whatever they are worth. Without unlabelled messages it falls back on each
labelled message's seed: the simulated figure of its seed is its prediction, and the simulated
cells stand for the population (unbiased only where the real messages ask the seeds about as
often as the plan does)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from simpop.aggregate import is_rate
from simpop.models import CorrectedFigure, GroupMean, Predictive
from simpop.validity.corrected import Estimate, corrected, labelled_only
from simpop.validity.predictor import Reply, cross_fitted, fit_predictor

MIN_SIMULATED = 10  # simulated cells a predictor is fitted on, at the fewest


@dataclass
class SimulatedValues:
    """The simulated rephrasings' values by metric: by seed, and with the bot's reply to each."""

    by_seed: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    replies: dict[str, list[tuple[Reply, float]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, name: str, seed: str, value: float, reply: Reply | None) -> None:
        self.by_seed[name][seed].append(value)
        if reply is not None:
            self.replies[name].append((reply, value))


@dataclass(frozen=True)
class RealValues:
    """One metric on the real messages: the labelled ones' seed, value and reply, and the replies
    to the messages it has no value for (unlabelled)."""

    labelled: list[tuple[str, float, Reply | None]]
    unlabelled: list[Reply]


def predictive(
    simulated: GroupMean,
    real: GroupMean,
    values: RealValues,
    by_seed: dict[str, list[float]],
    simulated_replies: list[tuple[Reply, float]],
) -> Predictive:
    """The metric's simulated and real figures, their gap, the prediction and the correction."""
    gap = None if simulated.mean is None or real.mean is None else round(simulated.mean - real.mean, 4)
    predicted, figure = None, None
    outcomes = [v for _, v in simulated_replies]
    if (
        len(simulated_replies) >= MIN_SIMULATED
        and is_rate(outcomes)
        and is_rate([v for _, v, _ in values.labelled])
    ):
        predictor = fit_predictor([r for r, _ in simulated_replies], outcomes)
        asked = [r for _, _, r in values.labelled if r is not None] + values.unlabelled
        predicted = round(float(predictor.predict(asked).mean()), 4) if asked else None
        labelled = [(r, v) for _, v, r in values.labelled if r is not None]
        if len(labelled) >= 2 and values.unlabelled:
            y = np.array([v for _, v in labelled])
            f, f_unlabelled = cross_fitted(simulated_replies, labelled, values.unlabelled)
            figure = _figure(corrected(y, f, f_unlabelled), labelled_only(y), "replies")
    if figure is None:
        figure = _by_seeds(values, by_seed)
    return Predictive(
        metric=real.metric, simulated=simulated, real=real, gap=gap, predicted=predicted, corrected=figure
    )


def _by_seeds(values: RealValues, by_seed: dict[str, list[float]]) -> CorrectedFigure | None:
    labelled = [(by_seed[s], v) for s, v, _ in values.labelled if by_seed.get(s)]
    if len(labelled) < 2:
        return None
    y = np.array([v for _, v in labelled])
    f = np.array([float(np.mean(sim)) for sim, _ in labelled])
    every = np.array([v for sim in by_seed.values() for v in sim])
    bounds = (
        (0.0, 1.0) if is_rate(y) else (float(min(y.min(), every.min())), float(max(y.max(), every.max())))
    )
    return _figure(corrected(y, f, every, bounds), labelled_only(y), "seeds")


def _figure(found: Estimate, alone: Estimate, predictions: str) -> CorrectedFigure:
    return CorrectedFigure(
        mean=round(found.mean, 4),
        ci_low=round(found.ci_low, 4),
        ci_high=round(found.ci_high, 4),
        n=found.n,
        tuning=found.tuning,
        predictions=predictions,
        narrower=round(alone.width / found.width, 2) if found.width > 0 else None,
    )
