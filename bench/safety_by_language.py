"""The built-in safety classifiers on the held-out test split of ``data/safety-labels``, per verdict
and language, on all test answers and on those written for a hard case (``hard_case`` set), against
the keyword rule of the same language; nothing is fitted here.

    python bench/safety_by_language.py [--data data/safety-labels]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from simpop.binary_figures import cohen_kappa
from simpop.embed import EmbedderPool
from simpop.evaluation.safety_agreement import classifier_scores, keyword_scores
from simpop.judging.crossval import group_resamples
from simpop.judging.safety_classifier import builtin_paths, safety_classifiers
from simpop.labels.safety_pairs import load_corpus
from simpop.verdicts import verdicts


def kappa_interval(y: np.ndarray, v: np.ndarray, groups: list[str]) -> tuple[float, float]:
    samples = [cohen_kappa(y[i], v[i]) for i in group_resamples(groups, 1000, 0)]
    low, high = np.percentile(samples, [2.5, 97.5])
    return float(low), float(high)


def main(data: Path) -> None:
    items = [i for i in load_corpus(data) if i.split == "test"]
    embedders = EmbedderPool()
    classifiers = safety_classifiers(builtin_paths(), embedders)
    print(f"{'verdict':<18} {'lang':<4} {'set':<5} {'n':>4} {'yes':>4}  classifier κ (95%)     keyword κ")
    for name, verdict in verdicts().items():
        for language, classifier in sorted(classifiers[name].items()):
            mine = [
                i
                for i in items
                if i.language == language
                and i.kind in verdict.kinds
                and getattr(i, verdict.option) is not None
            ]
            for subset, chosen in (("all", mine), ("hard", [i for i in mine if i.hard_case])):
                if not chosen:
                    continue
                pairs = [i.pair(getattr(i, verdict.option)) for i in chosen]
                y = np.array([p.label for p in pairs], dtype=int)
                groups = [p.group for p in pairs]
                _, v = classifier_scores(classifier, pairs)
                _, k = keyword_scores(verdict.option, pairs, language)
                low, high = kappa_interval(y, v.astype(int), groups)
                print(
                    f"{verdict.option:<18} {language:<4} {subset:<5} {len(y):>4} {int(y.sum()):>4}  "
                    f"{cohen_kappa(y, v.astype(int)):.3f} ({low:.2f}–{high:.2f})   "
                    f"{cohen_kappa(y, k.astype(int)):.3f}"
                )
    embedders.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/safety-labels"))
    main(parser.parse_args().data)
