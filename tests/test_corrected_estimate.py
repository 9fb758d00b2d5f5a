"""Real patients' figure corrected by a few labels (issue 71 part 3): prediction-powered
inference on synthetic populations with a known truth."""

from __future__ import annotations

import numpy as np
import pytest

from simpop.validity.corrected import corrected, labelled_only


def population(rng: np.random.Generator, strata: int = 40, size: int = 2000, bias: float = 0.3):
    """Real messages in strata (seed FAQs) whose real accuracy ``p`` is mostly near 0 or 1, and
    a simulation that overstates every stratum by ``bias`` (the 0.92 against 0.59 of issue 71)."""
    p = rng.beta(0.3, 0.3, strata)
    simulated = np.clip(p + bias + rng.normal(0, 0.05, strata), 0, 1)
    stratum = rng.integers(0, strata, size)
    y = (rng.random(size) < p[stratum]).astype(float)
    return y, simulated[stratum]


def test_the_corrected_interval_covers_the_truth_and_is_narrower_than_the_labels_alone():
    rng = np.random.default_rng(7)
    covered = covered_alone = 0
    ratios, tunings, biased = [], [], []
    runs = 1000
    for _ in range(runs):
        y, f = population(rng)
        truth = y.mean()  # the figure of the whole real population
        labelled = rng.choice(len(y), 50, replace=False)
        found = corrected(y[labelled], f[labelled], f)
        alone = labelled_only(y[labelled])
        covered += found.ci_low <= truth <= found.ci_high
        covered_alone += alone.ci_low <= truth <= alone.ci_high
        ratios.append(alone.width / found.width)
        tunings.append(found.tuning)
        biased.append(f.mean() - truth)
    assert np.mean(biased) > 0.2  # the simulation alone is far off
    assert covered / runs >= 0.93 and covered_alone / runs >= 0.93
    # the gain is the share of the outcomes' spread the predictions explain; here the simulation
    # saturates (every stratum over 0.7 reads 1.0): issue 71's 1.5x is a figure for real data
    assert np.median(ratios) >= 1.3
    assert np.median(tunings) > 0.5


def test_predictions_that_say_nothing_cost_next_to_nothing():
    rng = np.random.default_rng(3)
    ratios = []
    for _ in range(300):
        y = (rng.random(2000) < 0.6).astype(float)
        f = rng.random(2000)  # unrelated to the outcome
        labelled = rng.choice(2000, 50, replace=False)
        found = corrected(y[labelled], f[labelled], f)
        ratios.append(labelled_only(y[labelled]).width / found.width)
    assert 0.85 <= np.median(ratios) <= 1.15


def test_hand_computed_values():
    # y = (1, 0, 1, 1), f = (1, 0, 0, 1), predictions of the population (1, 0, 0, 1, 1, 1)
    y, f, f_all = np.array([1, 0, 1, 1.0]), np.array([1, 0, 0, 1.0]), np.array([1, 0, 0, 1, 1, 1.0])
    found = corrected(y, f, f_all)
    # var of all 10 predictions (six 1s, four 0s... f and f_all): 0.2667; cov(y, f) = 1/6
    # lambda = (1/6) / ((1 + 4/6) * 0.26667) = 0.375
    assert found.tuning == pytest.approx(0.375, abs=1e-3)
    rectified = y - 0.375 * f  # (0.625, 0, 1, 0.625)
    mean = 0.375 * (4 / 6) + rectified.mean()
    assert found.mean == pytest.approx(mean)
    variance = 0.375**2 * np.var(f_all, ddof=1) / 6 + np.var(rectified, ddof=1) / 4
    assert found.ci_high == pytest.approx(min(1.0, mean + 1.959964 * variance**0.5), abs=1e-4)


def test_too_few_labels_or_no_population_is_an_error():
    with pytest.raises(ValueError, match="two or more"):
        corrected(np.array([1.0]), np.array([1.0]), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="no prediction"):
        corrected(np.array([1.0, 0.0]), np.array([1.0, 0.0]), np.array([]))


def test_every_label_alike_keeps_the_labels_own_interval():
    found = corrected(np.ones(30), np.full(30, 0.9), np.full(500, 0.9))
    alone = labelled_only(np.ones(30))
    assert found.ci_low <= alone.ci_low and found.ci_high == 1.0


def test_the_predictor_reads_a_reply_by_what_such_replies_meant_on_the_simulated_cells():
    from simpop.validity.predictor import Reply, fit_predictor

    # six answered (four right), two not answered (neither right); no similarity reported
    replies = [Reply(True)] * 6 + [Reply(False)] * 2
    predictor = fit_predictor(replies, [1, 1, 1, 1, 0, 0, 0, 0])
    assert predictor(Reply(True)) == pytest.approx((4 + 1) / (6 + 2))  # a Beta(1, 1) prior
    assert predictor(Reply(False)) == 0.0
    # with a similarity, a logistic curve: rising with it
    scored = [Reply(True, s) for s in (0.9, 0.85, 0.8, 0.62, 0.6, 0.55)]
    curve = fit_predictor(scored, [1, 1, 1, 0, 1, 0])
    assert curve.weights[0] > 0 and curve(Reply(True, 0.95)) > curve(Reply(True, 0.5))
    assert fit_predictor([Reply(True)] * 3, [1, 1, 1])(Reply(False)) == 0.0  # never seen: never right


def test_predictions_from_replies_cover_and_narrow_when_unanswered_messages_are_wrong():
    """Real messages whose replies tell most of their outcome (a bot that answers 60 %, right
    on 70 % of those): the corrected interval from 50 labels covers the real figure and is
    narrower than the labels alone, whatever the simulation got wrong about the level."""
    from simpop.validity.predictor import Reply, fit_predictor

    rng = np.random.default_rng(11)
    simulated = [Reply(bool(a)) for a in rng.random(200) < 0.9]  # the simulation answers more
    predictor = fit_predictor(simulated, [float(r.answered and rng.random() < 0.95) for r in simulated])
    covered, ratios = 0, []
    for _ in range(400):
        answered = rng.random(1000) < 0.6
        y = (answered & (rng.random(1000) < 0.7)).astype(float)
        f = predictor.predict([Reply(bool(a)) for a in answered])
        labelled = rng.choice(1000, 50, replace=False)
        rest = np.setdiff1d(np.arange(1000), labelled)
        found = corrected(y[labelled], f[labelled], f[rest])
        covered += found.ci_low <= y.mean() <= found.ci_high
        ratios.append(labelled_only(y[labelled]).width / found.width)
    assert abs(f.mean() - y.mean()) > 0.1  # the prediction alone is off
    assert covered / 400 >= 0.92
    assert np.median(ratios) >= 1.15
