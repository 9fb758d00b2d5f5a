"""The machine scores of labelled items, by name: as stored in a run (``embedding.groundedness``)
or in a label file (``groundedness``), as one matrix."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from simpop.labels.files import LabelledItem, resolve

# computes the named scores no item carries yet, in place, among those it may compute; returns
# the ones computed (``simpop.evaluation.label_scores.fill_scores`` with the models to use)
ScoreFiller = Callable[[list[LabelledItem], list[str], tuple[str, ...]], list[str]]


def score_matrix(items: list[LabelledItem], names: list[str]) -> tuple[np.ndarray, list[bool]]:
    """One row per item with every score in ``names`` (resolved), and which items had them all."""
    available = {k for item in items for k in item.scores}
    stored = [resolve(n, available) or n for n in names]
    keep = [all(s in item.scores for s in stored) for item in items]
    rows = [[item.scores[s] for s in stored] for item, k in zip(items, keep, strict=True) if k]
    return np.array(rows, dtype=float).reshape(len(rows), len(names)), keep
