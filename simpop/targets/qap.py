"""The predefined question-answer-pair matcher of Reichenpfader et al.

Every QAP question is embedded (the vectors are kept in the embedding cache). A patient question
gets the answer of the QAP whose question is most similar (the argmax of cosine similarity; the
paper's eq. 2 says argmin, a slip), and no answer when the best similarity is under the
threshold or the question has fewer than ``min_words`` words.

The paper kept the vectors in Chroma. Its HNSW index only approximates the nearest neighbours,
and at the size of a QAP set (tens to thousands) an exact search of every QAP is faster than a
query to it, so the matcher searches them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from simpop.config import load_qaps
from simpop.models import QAP, Answer, Context, Exchange, TargetSettings
from simpop.targets.target import BotResources, Target, target

if TYPE_CHECKING:
    from simpop.embed import Embedder


class QAPTargetConfig(TargetSettings):
    """The predefined-QAP matcher of Reichenpfader et al."""

    kind: Literal["qap"]
    qaps: Path
    threshold: float = Field(0.5, ge=-1.0, le=1.0)
    min_words: int = Field(3, ge=0)
    top_k: int = Field(3, gt=0)

    def own_qaps(self) -> Path:
        return self.qaps

    def shortest_question(self) -> int:
        return max(1, self.min_words)


def matchable(qaps: list[QAP]) -> list[QAP]:
    """The QAPs a matcher can return: the first of each distinct question, in file order.

    A QAP whose question repeats an earlier one (ignoring case and spacing) can never be the
    most similar, so it is left out of the index rather than tie-broken at random.
    """
    seen: set[str] = set()
    kept = []
    for qap in qaps:
        key = " ".join(qap.question.casefold().split())
        if key not in seen:
            seen.add(key)
            kept.append(qap)
    return kept


class QAPMatcher(Target):
    """Answers with the best-matching predefined QAP, or not at all."""

    def __init__(
        self, config: QAPTargetConfig, qaps: list[QAP], embedder: Embedder, name: str = "qap"
    ) -> None:
        self.config = config
        self.name = name
        self.embedder = embedder
        self.qaps = matchable(qaps)
        self.vectors = embedder.embed([qap.question for qap in self.qaps])

    def match(self, question: str) -> Answer:
        words = question.split()
        if len(words) < self.config.min_words:
            return Answer(text=None, no_answer_reason=f"fewer than {self.config.min_words} words")
        similarities = self.vectors @ self.embedder.embed([question])[0]
        top = np.argsort(-similarities, kind="stable")[: self.config.top_k]  # ties: the earlier QAP
        ranked = [(self.qaps[i], float(similarities[i])) for i in top]
        contexts = [
            Context(id=qap.id, text=qap.question + "\n" + qap.answer, score=sim) for qap, sim in ranked
        ]
        best_qap, best = ranked[0]
        if best < self.config.threshold:
            return Answer(
                text=None,
                similarity=best,
                contexts=contexts,
                no_answer_reason=f"best similarity {best:.3f} under threshold {self.config.threshold:g}",
            )
        return Answer(text=best_qap.answer, matched_id=best_qap.id, similarity=best, contexts=contexts)

    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer:
        """The best-matching QAP's answer to this message alone: a matcher has no memory."""
        return await asyncio.to_thread(self.match, question)


@target(QAPTargetConfig)
def qap_matcher(config: QAPTargetConfig, run: BotResources) -> Target:
    return QAPMatcher(config, load_qaps(config.qaps), run.embedder, name=run.name)
