"""The predefined question-answer-pair matcher of Reichenpfader et al.

Every QAP question is embedded into a persistent Chroma collection (cosine space). A patient
question gets the answer of the QAP whose question is most similar (the argmax of cosine
similarity; the paper's eq. 2 says argmin, a slip), and no answer when the best similarity is
under the threshold or the question has fewer than ``min_words`` words.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from simpop.config import load_qaps
from simpop.models import QAP, Answer, Context, Exchange, TargetSettings
from simpop.paths import cache_dir
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


def qap_fingerprint(qaps: list[QAP], model_id: str) -> str:
    """Changes when any QAP question or id, or the embedding model, changes."""
    digest = hashlib.sha256(model_id.encode())
    for qap in qaps:
        digest.update(f"\x00{qap.id}\x00{qap.question}".encode())
    return digest.hexdigest()[:16]


class QAPMatcher(Target):
    """Answers with the best-matching predefined QAP, or not at all."""

    def __init__(
        self,
        config: QAPTargetConfig,
        qaps: list[QAP],
        embedder: Embedder,
        index_dir: Path | None = None,
        name: str = "qap",
    ) -> None:
        self.config = config
        self.name = name
        self.embedder = embedder
        from simpop.targets.chroma import open_chroma

        self.qaps = {qap.id: qap for qap in matchable(qaps)}
        self.client = open_chroma(index_dir or cache_dir() / "chroma")
        self.collection = self._index(list(self.qaps.values()))

    def _index(self, qaps: list[QAP]):
        """The collection for these QAPs and this model, built only if it is not there yet."""
        from simpop.targets.chroma import build_collection

        return build_collection(
            self.client,
            f"qap-{qap_fingerprint(qaps, self.embedder.model_id)}",
            ids=[qap.id for qap in qaps],
            texts=[qap.question for qap in qaps],
            embed=self.embedder.embed,
        )

    def match(self, question: str) -> Answer:
        from simpop.targets.chroma import nearest

        words = question.split()
        if len(words) < self.config.min_words:
            return Answer(text=None, no_answer_reason=f"fewer than {self.config.min_words} words")
        ranked = nearest(
            self.collection, self.embedder.embed([question])[0], self.config.top_k, len(self.qaps)
        )
        contexts = [
            Context(id=qap_id, text=self.qaps[qap_id].question + "\n" + self.qaps[qap_id].answer, score=sim)
            for qap_id, sim, _ in ranked
        ]
        best_id, best, _ = ranked[0]
        if best < self.config.threshold:
            return Answer(
                text=None,
                similarity=best,
                contexts=contexts,
                no_answer_reason=f"best similarity {best:.3f} under threshold {self.config.threshold:g}",
            )
        return Answer(text=self.qaps[best_id].answer, matched_id=best_id, similarity=best, contexts=contexts)

    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer:
        """The best-matching QAP's answer to this message alone: a matcher has no memory."""
        return await asyncio.to_thread(self.match, question)


@target(QAPTargetConfig)
def qap_matcher(config: QAPTargetConfig, run: BotResources) -> Target:
    return QAPMatcher(config, load_qaps(config.qaps), run.embedder, name=run.name)
