"""Answer-to-reference similarity: the cosine of sentence embeddings, no LLM needed.

Semantic answer similarity (Risch et al., "Semantic Answer Similarity for Evaluating Question
Answering Models", 2021) with a bi-encoder: cos(e(answer), e(reference)) for unit vectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simpop.metrics.metric import Case, Measure, Metric, Scorers, metric
from simpop.models import Score

if TYPE_CHECKING:
    from simpop.embed import Embedder

ANSWER_SIMILARITY = "answer_similarity"


async def answer_similarity(answers: list[str], references: list[str], embedder: Embedder) -> list[float]:
    """The cosine similarity of each answer to its reference answer, pairwise."""
    if not answers:
        return []
    vectors = await embedder.aembed([*answers, *references])
    a, b = vectors[: len(answers)], vectors[len(answers) :]
    return [float(x) for x in np.einsum("ij,ij->i", a, b)]


@metric
class AnswerSimilarity(Metric):
    """For a probe written from one seed QAP: the answer against that QAP's answer."""

    name = ANSWER_SIMILARITY
    shown = frozenset()
    measures = (
        Measure(ANSWER_SIMILARITY, "answer similarity", table="retrieval", column="answer sim.", rank=10),
    )

    def applies(self, case: Case) -> bool:
        return case.source == "qap"

    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        asked = [c for c in cases if c.response.answer]
        values = await answer_similarity(
            [c.response.answer or "" for c in asked], [c.reference or "" for c in asked], scorers.embedder
        )
        found = {c.probe.cell_id: v for c, v in zip(asked, values, strict=True)}
        return [
            Score(**c.probe.cell_ids(), metric=self.name, value=round(found[c.probe.cell_id], 6))
            if c.probe.cell_id in found
            else Score(**c.probe.cell_ids(), metric=self.name, value=None, excluded="no_answer")
            for c in cases
        ]
