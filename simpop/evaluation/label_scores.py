"""Scores for a standalone label file, computed with simpop's own scorers: embedding groundedness
and answer relevancy (HCAT §3) and the judge's support verdict on the answer given the context
(ASTRID Listing 1). Calibration reads the scores; it never computes them itself."""

from __future__ import annotations

import asyncio

import numpy as np
from rich.progress import Progress

from simpop.embed import Embedder
from simpop.evaluation.agreement import judge_probabilities
from simpop.labels.files import COMPUTABLE, LabelledItem, missing_scores
from simpop.llm import open_llm
from simpop.metrics.judge import Judge
from simpop.models import EmbeddingConfig, LLMConfig
from simpop.sentences import split_sentences

EMBEDDING_SCORES = ("groundedness", "answer_relevancy")


def _embedding_scores(items: list[LabelledItem], name: str, embedder: Embedder) -> None:
    if name == "answer_relevancy":
        pairs = {i.id: ([i.question], [i.answer]) for i in items if i.question and i.answer}
    else:
        pairs = {
            i.id: (split_sentences(i.answer) or [i.answer], split_sentences(i.context) or [i.context])
            for i in items
            if i.answer and i.context
        }
    texts = list(dict.fromkeys(t for a, b in pairs.values() for t in (*a, *b)))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True)) if texts else {}
    for item in items:
        if item.id in pairs:
            a, b = pairs[item.id]
            similarity = np.array([vectors[x] for x in a]) @ np.array([vectors[y] for y in b]).T
            item.scores[name] = round(float(similarity.max(axis=1).mean()), 6)


async def _judge_scores(
    items: list[LabelledItem], llm: LLMConfig, use_cache: bool, progress: Progress | None
):
    asked = [i for i in items if i.answer and i.context]
    client = open_llm(llm, use_cache=use_cache)
    judge = Judge(client, model=llm.model)
    try:
        found = await judge_probabilities(judge, [(i.context, i.answer) for i in asked], progress)
    finally:
        await client.aclose()
        client.endpoint.close()
    for item, p in zip(asked, found, strict=True):
        if p is not None:
            item.scores["faithfulness"] = p


def fill_scores(
    items: list[LabelledItem],
    names: list[str],
    computable: tuple[str, ...] = COMPUTABLE,
    *,
    embedding: EmbeddingConfig,
    llm: LLMConfig,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> list[str]:
    """Compute every score in ``names`` that no item carries yet (in place); the scores computed.
    Only ``computable`` ones may be computed: a run's own scores are never recomputed here."""
    missing = missing_scores(items, names, computable)
    if any(n in EMBEDDING_SCORES for n in missing):
        embedder = Embedder(embedding)
        try:
            for name in (n for n in missing if n in EMBEDDING_SCORES):
                _embedding_scores(items, name, embedder)
        finally:
            embedder.close()
    if "faithfulness" in missing:
        asyncio.run(_judge_scores(items, llm, use_cache, progress))
    return missing
