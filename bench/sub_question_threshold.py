"""The sub-question judge's agreement with people at thresholds fixed beforehand, on a labelled
folder (``data/sub-questions`` or one built from a run's answers the same way): the check of a
threshold fitted on one set on another it never saw.

    python bench/sub_question_threshold.py --data FOLDER --threshold 0.5 --threshold 0.8 [--model M]
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import numpy as np

from simpop.evaluation.agreement import opened_judge
from simpop.evaluation.sub_question_agreement import load_sub_questions, sub_question_probabilities
from simpop.judging.crossval import agreement
from simpop.models import QWEN_1_5B, LLMConfig


async def probabilities(model: str, folder: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    items = load_sub_questions(folder)
    async with opened_judge(LLMConfig(model=model)) as judge:
        found = await sub_question_probabilities(judge, items)
    p = np.array([0.5 if v is None else v for v in found])
    return np.array([i.addressed for i in items], dtype=int), p, [i.group for i in items]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--threshold", type=float, action="append", required=True)
    parser.add_argument("--model", default=QWEN_1_5B)
    args = parser.parse_args()
    y, p, groups = asyncio.run(probabilities(args.model, args.data))
    print(f"{args.data}: {len(y)} questions, {int(y.sum())} addressed, {len(set(groups))} messages")
    for threshold in args.threshold:
        a = agreement(f"at {threshold}", y, p, p >= threshold, groups, [threshold])
        kappa = (
            f"{a.kappa:.3f} ({a.kappa_interval[0]:.2f}–{a.kappa_interval[1]:.2f})"
            if a.kappa_interval
            else f"{a.kappa:.3f}"
        )
        print(
            f"threshold {threshold}: says addressed to {int((p >= threshold).sum())}; accuracy "
            f"{a.accuracy:.3f}; kappa {kappa}; ROC AUC {a.auc:.3f}"
        )


if __name__ == "__main__":
    main()
