"""HCAT's two-stage calibration on K-QA's physician support judgements, over many random splits:
how far coverage on held-out statements stays from 1 − α, and what calibration does to ECE.

    python bench/calibration_kqa.py [--splits 20] [--data data/kqa-nli]

Scores: embedding groundedness and the built-in judge's support verdicts (from the LLM cache
when judge-eval or calibrate ran before; otherwise the judge runs, a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from simpop.calibration.calibrate import calibrate
from simpop.calibration.scores import score_matrix
from simpop.evaluation.label_scores import fill_scores
from simpop.labels.files import load_label_file, read_scale
from simpop.models import EmbeddingConfig, LLMConfig

FIGURES = ("auc_after", "ece_before", "ece_after")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--data", type=Path, default=Path("data/kqa-nli"))
    args = parser.parse_args()
    items = load_label_file(args.data)
    scale, items, y = read_scale(items, "supported")
    fill_scores(items, ["groundedness", "faithfulness"], embedding=EmbeddingConfig(), llm=LLMConfig())
    print(f"{len(items)} statements, {sum(y)} supported; {args.splits} random stratified 40/30/30 splits")
    print(
        f"{'score':<14}{'method':<10}{'alpha':>6}{'AUC':>7}{'ECE raw':>9}{'ECE cal':>9}{'coverage':>10}"
        f"{'min–max':>13}{'singletons':>12}"
    )
    for score in ("groundedness", "faithfulness"):
        x, keep = score_matrix(items, [score])
        labels = [v for v, k in zip(y, keep, strict=True) if k]
        for method in ("platt", "isotonic"):
            for alpha in (0.1, 0.2):
                runs = [
                    calibrate(x, labels, scale, [score], method, alpha, "kqa", seed=s)[0].evaluation
                    for s in range(args.splits)
                ]
                cov = np.array([e.coverage for e in runs])
                single = np.mean([e.set_sizes.get(1, 0) / e.test_items for e in runs])
                auc, ece_raw, ece_cal = (np.mean([getattr(e, f) for e in runs]) for f in FIGURES)
                print(
                    f"{score:<14}{method:<10}{alpha:>6}{auc:>7.3f}{ece_raw:>9.3f}{ece_cal:>9.3f}"
                    f"{cov.mean():>10.3f}{f'{cov.min():.3f}–{cov.max():.3f}':>13}{single:>12.3f}"
                )


if __name__ == "__main__":
    main()
