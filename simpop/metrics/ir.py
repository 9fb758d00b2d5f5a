"""Retrieval metrics of one ranked list against a set of gold (relevant) ids.

Definitions follow Manning, Raghavan & Schütze, *Introduction to Information Retrieval*
(2008), ch. 8, and Järvelin & Kekäläinen (2002) for nDCG, with binary relevance:

- precision = |retrieved ∩ gold| / |retrieved|; recall = |retrieved ∩ gold| / |gold|;
  F1 = 2PR / (P + R).
- average precision (eq. 8.7 per query) = (1/|gold|) · Σ over relevant items retrieved at
  rank k of precision@k. Relevant items never retrieved contribute 0, so AP ∈ [0, 1]; MAP is
  its mean over questions. (Han's thesis reports MAP above 1, which this definition cannot.)
- reciprocal rank = 1 / rank of the first relevant item (0 if none); MRR is its mean.
- hit@k = 1 if a relevant item is in the top k; nDCG@k = DCG@k / IDCG@k with
  DCG = Σ_i rel_i / log2(i + 1) over ranks i = 1..k, IDCG the DCG of min(|gold|, k) hits.

Edge cases: an id retrieved twice counts once, at its first rank. With no gold ids every
metric is undefined (``None``) and the question is left out of the averages. With gold ids
but nothing retrieved every metric is 0: the bot found nothing it needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from simpop.metrics.metric import Case, Measure, Metric, Scorers, metric
from simpop.models import Score

RETRIEVAL = "retrieval"
DEFAULT_K = 5
# one gold chunk among top_k retrieved: precision can reach 1/top_k at best, F1 2/(1 + top_k)
TOP_K_CEILING = (
    "at most |gold| / top_k when fewer contexts are gold than are retrieved (1/3 with one gold and top_k 3)"
)
NAMES = ("precision", "recall", "f1", "average_precision", "reciprocal_rank", "hit@k", "ndcg@k")


def _unique(ranked: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    return [i for i in ranked if not (i in seen or seen.add(i))]


def precision(ranked: Sequence[str], gold: set[str]) -> float:
    ranked = _unique(ranked)
    return sum(i in gold for i in ranked) / len(ranked) if ranked else 0.0


def recall(ranked: Sequence[str], gold: set[str]) -> float:
    return sum(i in gold for i in _unique(ranked)) / len(gold)


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def average_precision(ranked: Sequence[str], gold: set[str]) -> float:
    hits, total = 0, 0.0
    for rank, item in enumerate(_unique(ranked), start=1):
        if item in gold:
            hits += 1
            total += hits / rank
    return total / len(gold)


def reciprocal_rank(ranked: Sequence[str], gold: set[str]) -> float:
    return next((1.0 / rank for rank, item in enumerate(_unique(ranked), start=1) if item in gold), 0.0)


def hit_at_k(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return float(any(item in gold for item in _unique(ranked)[:k]))


def ndcg_at_k(ranked: Sequence[str], gold: set[str], k: int) -> float:
    dcg = sum(
        1.0 / math.log2(rank + 1) for rank, item in enumerate(_unique(ranked)[:k], start=1) if item in gold
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return dcg / ideal


def retrieval_metrics(
    ranked: Sequence[str], gold: Sequence[str], k: int = DEFAULT_K
) -> dict[str, float | None]:
    """Every metric of ``NAMES`` for one question (``hit@k``/``ndcg@k`` with ``k`` filled in)."""
    names = [n.replace("@k", f"@{k}") for n in NAMES]
    gold_set = set(gold)
    if not gold_set:
        return dict.fromkeys(names, None)
    p, r = precision(ranked, gold_set), recall(ranked, gold_set)
    values = (
        p,
        r,
        f1(p, r),
        average_precision(ranked, gold_set),
        reciprocal_rank(ranked, gold_set),
        hit_at_k(ranked, gold_set, k),
        ndcg_at_k(ranked, gold_set, k),
    )
    return dict(zip(names, values, strict=True))


NO_CONTEXTS = "no_contexts"  # the bot reports none (an http bot without contexts_path): not measured


@metric
class Retrieval(Metric):
    """The ranked context ids of a response against its probe's gold ids (probes that have them);
    not measured where the bot reports no contexts at all."""

    name = RETRIEVAL
    shown = frozenset()
    measures = (
        Measure("retrieval.precision", "precision", table="retrieval", rank=0, ceiling=TOP_K_CEILING),
        Measure("retrieval.recall", "recall", table="retrieval", rank=1),
        Measure("retrieval.f1", "F1", ceiling=TOP_K_CEILING),
        Measure("retrieval.average_precision", "average precision", table="retrieval", column="AP", rank=2),
        Measure("retrieval.reciprocal_rank", "reciprocal rank", table="retrieval", column="RR", rank=3),
        Measure("retrieval.hit@5", "hit@5", table="retrieval", column="hit@5", rank=4),
        Measure("retrieval.ndcg@5", "nDCG@5", table="retrieval", column="nDCG@5", rank=5),
    )

    def applies(self, case: Case) -> bool:
        return case.probe.gold_ids is not None

    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        return [
            Score(
                **c.probe.cell_ids(),
                metric=RETRIEVAL,
                value=None,
                values=retrieval_metrics([x.id for x in c.response.contexts], c.probe.gold_ids or [])
                if scorers.contexts
                else {},
                excluded=NO_CONTEXTS if not scorers.contexts else None if c.probe.gold_ids else "no_gold",
            )
            for c in cases
        ]
