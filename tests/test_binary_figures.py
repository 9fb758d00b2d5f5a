import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from simpop.binary_figures import cohen_kappa, roc_auc


def test_roc_auc_by_hand_with_a_tie():
    # yes scores 0.9, 0.4; no scores 0.4, 0.1: pairs (0.9>0.4) (0.9>0.1) (0.4=0.4: half) (0.4>0.1)
    assert roc_auc(np.array([1, 1, 0, 0]), np.array([0.9, 0.4, 0.4, 0.1])) == pytest.approx(3.5 / 4)
    # every no above every yes
    assert roc_auc(np.array([True, False]), np.array([0.2, 0.8])) == 0.0


def test_roc_auc_needs_both_labels():
    with pytest.raises(ValueError, match="both labels"):
        roc_auc(np.array([1, 1]), np.array([0.2, 0.8]))


def test_cohen_kappa_by_hand():
    # 10 pairs: agree 8 (4 yes-yes, 4 no-no); rater a says yes 5 times, b 5 times
    a = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    b = np.array([1, 1, 1, 1, 0, 1, 0, 0, 0, 0])
    # p_o = 0.8, p_e = 0.5 * 0.5 + 0.5 * 0.5 = 0.5: (0.8 - 0.5) / 0.5
    assert cohen_kappa(a, b) == pytest.approx(0.6)
    assert cohen_kappa(a, a == 0) == pytest.approx(-1.0)
    # one and the same answer throughout, or one rater constant: no agreement beyond chance
    assert cohen_kappa(np.ones(4), np.ones(4, dtype=bool)) == 0.0
    assert cohen_kappa(a, np.zeros(10)) == 0.0


def test_both_agree_with_scikit_learn_on_random_labels_with_ties():
    rng = np.random.default_rng(7)
    for _ in range(50):
        y = rng.integers(0, 2, 40)
        y[:2] = [0, 1]
        p = np.round(rng.random(40), 1)  # coarse: many ties
        v = p >= 0.5
        assert roc_auc(y, p) == pytest.approx(roc_auc_score(y, p), abs=1e-12)
        assert cohen_kappa(y, v) == pytest.approx(cohen_kappa_score(y, v), abs=1e-12)
