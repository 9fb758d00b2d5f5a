"""Answer-to-reference similarity: the cosine of sentence embeddings, no LLM needed.

Semantic answer similarity (Risch et al., "Semantic Answer Similarity for Evaluating Question
Answering Models", 2021) with a bi-encoder: cos(e(answer), e(reference)) for unit vectors.
"""

from __future__ import annotations

import numpy as np

from simpop.embed import Embedder


def answer_similarity(answers: list[str], references: list[str], embedder: Embedder) -> list[float]:
    """The cosine similarity of each answer to its reference answer, pairwise."""
    if not answers:
        return []
    a = embedder.embed(answers)
    b = embedder.embed(references)
    return [float(x) for x in np.einsum("ij,ij->i", a, b)]
