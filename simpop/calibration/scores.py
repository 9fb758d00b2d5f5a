"""The machine scores of labelled items: read from the label file or the run, or computed here
for a standalone file (embedding groundedness and answer relevancy, HCAT §3; the judge's support
verdict on the answer given the context, ASTRID Listing 1)."""

from __future__ import annotations

import asyncio

import numpy as np
from rich.progress import Progress

from simpop.calibration.labels import LabelledItem
from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judge_eval import judge_verdicts
from simpop.llm import open_llm
from simpop.metrics.judge import Judge
from simpop.metrics.sentences import split_sentences
from simpop.models import EmbeddingConfig, LLMConfig

EMBEDDING_SCORES = ("groundedness", "answer_relevancy")
JUDGE_SCORES = ("faithfulness",)
COMPUTABLE = (*EMBEDDING_SCORES, *JUDGE_SCORES)


def resolve(name: str, available: set[str]) -> str | None:
    """The stored name of score ``name``: itself, or a run's ``embedding.`` metric of that name."""
    return next((n for n in (name, f"embedding.{name}") if n in available), None)


def score_matrix(items: list[LabelledItem], names: list[str]) -> tuple[np.ndarray, list[bool]]:
    """One row per item with every score in ``names`` (resolved), and which items had them all."""
    available = {k for item in items for k in item.scores}
    stored = [resolve(n, available) or n for n in names]
    keep = [all(s in item.scores for s in stored) for item in items]
    rows = [[item.scores[s] for s in stored] for item, k in zip(items, keep, strict=True) if k]
    return np.array(rows, dtype=float).reshape(len(rows), len(names)), keep


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
    judge = Judge(client, model=llm.model, max_tokens=2048)
    try:
        verdicts = await judge_verdicts(judge, [(i.context, i.answer) for i in asked], progress)
    finally:
        await client.aclose()
        client.endpoint.close()
    for item, verdict in zip(asked, verdicts, strict=True):
        if verdict is not None:
            item.scores["faithfulness"] = float(verdict)


def fill_scores(
    items: list[LabelledItem],
    names: list[str],
    embedding: EmbeddingConfig,
    llm: LLMConfig,
    use_cache: bool = True,
    progress: Progress | None = None,
    computable: tuple[str, ...] = COMPUTABLE,
) -> list[str]:
    """Compute every score in ``names`` that no item carries yet (in place); the scores computed.
    Only ``computable`` ones may be computed: a run's own scores are never recomputed here."""
    available = {k for item in items for k in item.scores}
    missing = [n for n in names if resolve(n, available) is None]
    unknown = [n for n in missing if n not in computable]
    if unknown:
        raise ConfigError(
            f"--score {unknown[0]}: not in the labels and not computable here "
            f"(scores found: {', '.join(sorted(available)) or 'none'}; "
            f"computable: {', '.join(computable) or 'none for a run, which keeps its own scores'})"
        )
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
