"""Fit the CEFR level estimator of ``simpop/population/language_level.py`` on CEFR-SP's
Wiki-Auto training sentences and report it on the held-out test sentences.

    python bench/language_level.py

Prints the intercept and coefficients to paste into the module, and the test figures
(Spearman's rho, exact and within-one-level accuracy).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.linear_model import Ridge

from simpop.population.language_level import level_features, level_score

DATA = Path(__file__).parent.parent / "data" / "cefr-sp-wikiauto"


def load(name: str) -> tuple[list[str], np.ndarray]:
    texts, levels = [], []
    for line in (DATA / f"{name}.tsv").read_text(encoding="utf-8").splitlines():
        text, a, b = line.split("\t")
        if level_features(text) is not None:
            texts.append(text)
            levels.append((int(a) + int(b)) / 2)
    return texts, np.array(levels)


def main() -> None:
    train_texts, train_levels = load("train")
    model = Ridge(alpha=1.0).fit([level_features(t) for t in train_texts], train_levels)
    print(f"INTERCEPT = {model.intercept_:.4f}")
    print("COEFFICIENTS = (" + ", ".join(f"{c:.4f}" for c in model.coef_) + ")")
    test_texts, test_levels = load("test")
    predicted = np.array([level_score(t) for t in test_texts])
    rounded, gold = np.clip(np.round(predicted), 1, 6), np.round(test_levels + 1e-9)
    print(
        f"test: n={len(test_texts)} spearman={spearmanr(predicted, test_levels)[0]:.3f} "
        f"exact={np.mean(rounded == gold):.3f} within_one={np.mean(abs(rounded - gold) <= 1):.3f}"
    )


if __name__ == "__main__":
    main()
