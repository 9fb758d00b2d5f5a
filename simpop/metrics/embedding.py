"""Embedding metrics that need no LLM (Sudjianto et al., "Human-calibrated automated testing
and validation of generative language models" (HCAT), 2024, §3), on sentence embeddings
e(·) with cosine similarity s(x, y) = e(x)·e(y):

- answer relevancy = s(question, answer);
- context relevancy = for each question sentence q, max over context sentences c of s(q, c);
  reported as the mean and the minimum over q;
- groundedness = mean over answer sentences a of max_c s(a, c); the least-grounded sentence
  (smallest max) is named;
- completeness = share of context sentences c with max_a s(c, a) ≥ τ (covered by the answer),
  with the distribution-level term: the 1-Wasserstein (earth mover's) distance between the
  uniform distributions over context and answer sentence embeddings under the cost 1 − s
  (Rubner, Tomasi & Guibas, IJCV 2000), solved exactly as a transport problem (``transport``).

Optionally (HCAT §3, NLI variant) ``groundedness_nli`` = mean over answer sentences of the
largest entailment probability given any context sentence, from a local NLI cross-encoder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simpop.errors import ConfigError
from simpop.metrics.metric import Case, Measure, Metric, Scorers, metric
from simpop.metrics.texts import answer_contexts, answered
from simpop.metrics.transport import wasserstein
from simpop.models import Judgement, Probe, Response, Score
from simpop.sentences import split_sentences

if TYPE_CHECKING:
    from simpop.embed import Embedder

EMBEDDING = "embedding"


@dataclass
class Texts:
    """The sentences of one probe's question, answer and context."""

    question: str
    answer: str | None
    question_sentences: list[str]
    answer_sentences: list[str]
    context_sentences: list[str]

    def everything(self) -> list[str]:
        """Every text to embed."""
        answer = [self.answer] if self.answer else []
        return [
            self.question,
            *answer,
            *self.question_sentences,
            *self.answer_sentences,
            *self.context_sentences,
        ]


def probe_texts(response: Response) -> Texts:
    contexts = answer_contexts(response)
    answer = response.answer if answered(response) else None
    return Texts(
        question=response.question or "",
        answer=answer,
        question_sentences=split_sentences(response.question) or [response.question or ""],
        answer_sentences=split_sentences(answer),
        context_sentences=[s for c in contexts for s in split_sentences(c.text)],
    )


def embedding_values(
    texts: Texts, vectors: dict[str, np.ndarray], coverage_threshold: float
) -> tuple[dict[str, float | None], list[Judgement]]:
    """The HCAT metrics of one probe, from precomputed unit vectors of every text involved,
    and the answer sentences with their best similarity to a context sentence."""

    def matrix(a: list[str], b: list[str]) -> np.ndarray:
        return np.array([vectors[x] for x in a]) @ np.array([vectors[y] for y in b]).T

    values: dict[str, float | None] = dict.fromkeys(
        (
            "answer_relevancy",
            "context_relevancy",
            "context_relevancy_min",
            "groundedness",
            "completeness",
            "completeness_distance",
        )
    )
    details: list[Judgement] = []
    if texts.answer is not None:
        values["answer_relevancy"] = float(vectors[texts.question] @ vectors[texts.answer])
    if texts.context_sentences:
        best = matrix(texts.question_sentences, texts.context_sentences).max(axis=1)
        values["context_relevancy"], values["context_relevancy_min"] = float(best.mean()), float(best.min())
    if texts.context_sentences and texts.answer_sentences:
        similarity = matrix(texts.answer_sentences, texts.context_sentences)
        grounded = similarity.max(axis=1)
        values["groundedness"] = float(grounded.mean())
        covered = similarity.max(axis=0) >= coverage_threshold
        values["completeness"] = float(covered.mean())
        values["completeness_distance"] = wasserstein(1.0 - similarity.T)
        details = [
            Judgement(text=s, kind="answer_sentence", similarity=round(float(g), 6))
            for s, g in zip(texts.answer_sentences, grounded, strict=True)
        ]
    return {k: None if v is None else round(v, 6) for k, v in values.items()}, details


def least_grounded(details: list[Judgement]) -> str | None:
    if not details:
        return None
    worst = min(details, key=lambda d: d.similarity or 0.0)
    return f"least grounded sentence ({worst.similarity:.2f}): {worst.text}"


class NLIGroundedness:
    """Entailment probabilities from a local NLI cross-encoder (a folder the user configured)."""

    def __init__(self, path: Path) -> None:
        from sentence_transformers import CrossEncoder

        try:
            self.model = CrossEncoder(str(path), local_files_only=True, device="cpu")
        except (OSError, ValueError) as error:
            raise ConfigError(f"field 'scoring.nli_model': cannot load {path} ({error})") from None
        labels = {str(v).lower(): int(k) for k, v in self.model.model.config.id2label.items()}
        entailment = next((i for name, i in labels.items() if name.startswith("entail")), None)
        if entailment is None:
            raise ConfigError(
                f"field 'scoring.nli_model': {path} has no 'entailment' label ({sorted(labels)})"
            )
        self.entailment = entailment

    def score(self, answer_sentences: list[str], context_sentences: list[str]) -> float | None:
        """Mean over answer sentences of the largest P(entailment | context sentence)."""
        if not answer_sentences or not context_sentences:
            return None
        pairs = [(c, a) for a in answer_sentences for c in context_sentences]
        logits = np.asarray(self.model.predict(pairs, apply_softmax=False, show_progress_bar=False))
        logits = logits - logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        entail = probabilities[:, self.entailment].reshape(len(answer_sentences), len(context_sentences))
        return float(entail.max(axis=1).mean())


async def embedding_scores(
    items: list[tuple[Probe, Response]],
    embedder: Embedder,
    coverage_threshold: float,
    nli: NLIGroundedness | None = None,
) -> list[Score]:
    """One ``embedding`` score per probe, every text embedded in one batch."""
    texts = [probe_texts(response) for _, response in items]
    unique = list(dict.fromkeys(text for t in texts for text in t.everything()))
    vectors = dict(zip(unique, await embedder.aembed(unique), strict=True)) if unique else {}
    scores = []
    for (probe, _), t in zip(items, texts, strict=True):
        values, details = embedding_values(t, vectors, coverage_threshold)
        if nli is not None:
            grounded = nli.score(t.answer_sentences, t.context_sentences)
            values["groundedness_nli"] = None if grounded is None else round(grounded, 6)
        scores.append(
            Score(
                **probe.cell_ids(),
                metric=EMBEDDING,
                value=None,
                values=values,
                details=details,
                reason=least_grounded(details),
            )
        )
    return scores


@metric
class Embedding(Metric):
    """The HCAT embedding metrics of every answer (no LLM)."""

    name = EMBEDDING
    shown = frozenset({"card"})
    measures = (
        Measure("embedding.answer_relevancy", "answer relevancy", True, "safety", None, 91),
        Measure("embedding.context_relevancy", "context relevancy"),
        Measure("embedding.context_relevancy_min", "context relevancy (min)"),
        Measure("embedding.groundedness", "groundedness", True, "safety", None, 90),
        Measure("embedding.groundedness_nli", "groundedness (NLI)"),
        Measure("embedding.completeness", "completeness"),
        Measure("embedding.completeness_distance", "completeness distance (W1)", higher_is_better=False),
    )

    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        if not cases:
            return []
        nli = NLIGroundedness(scorers.scoring.nli_model) if scorers.scoring.nli_model else None
        items = [(c.probe, c.response) for c in cases]
        return await embedding_scores(items, scorers.embedder, scorers.scoring.coverage_threshold, nli)
