"""Topic strata of a knowledge base (HCAT, section 2): embed the chunks, reduce them with PCA,
cluster them with KMeans (the number of clusters chosen by silhouette), then sample chunks per
cluster, so generated questions cover every topic of the knowledge base."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from simpop.embed import Embedder
from simpop.models import Chunk, TopicCluster, TopicConfig, TopicStrata

Allocation = Literal["proportional", "equal"]


def allocate(sizes: list[int], n: int, allocation: Allocation) -> list[int]:
    """How many of ``n`` samples each cluster gives (never more than it holds).

    ``proportional``: n * size / total, rounded by largest remainder (Hamilton), ties to the
    earlier cluster. ``equal``: one each in turn, largest clusters first, skipping full ones.
    """
    n = min(n, sum(sizes))
    if n <= 0:
        return [0] * len(sizes)
    if allocation == "proportional":
        quotas = [n * size / sum(sizes) for size in sizes]
        counts = [int(q) for q in quotas]
        by_remainder = sorted(range(len(sizes)), key=lambda i: (-(quotas[i] - counts[i]), i))
        for i in by_remainder[: n - sum(counts)]:
            counts[i] += 1
        return counts
    counts = [0] * len(sizes)
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    left = n
    while left:
        for i in order:
            if left and counts[i] < sizes[i]:
                counts[i] += 1
                left -= 1
    return counts


def reduce(vectors: np.ndarray, components: int, seed: int) -> np.ndarray:
    """PCA to at most ``components`` dimensions (fewer when there are fewer chunks)."""
    from sklearn.decomposition import PCA

    keep = min(components, vectors.shape[0], vectors.shape[1])
    return PCA(n_components=keep, svd_solver="full", random_state=seed).fit_transform(vectors)


def cluster(points: np.ndarray, max_clusters: int, seed: int) -> tuple[np.ndarray, dict[int, float]]:
    """KMeans labels for the k in 2..max_clusters with the highest mean silhouette (Rousseeuw
    1987), and the silhouette of every k tried; one cluster when there are under 3 points."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    n = points.shape[0]
    if n < 3:
        return np.zeros(n, dtype=int), {}
    best, scores = None, {}
    for k in range(2, min(max_clusters, n - 1) + 1):
        labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(points)
        if len(set(labels)) < 2:
            continue
        scores[k] = round(float(silhouette_score(points, labels)), 4)
        if best is None or scores[k] > scores[best[0]]:
            best = (k, labels)
    if best is None:
        return np.zeros(n, dtype=int), scores
    return best[1], scores


@dataclass(frozen=True)
class Topics:
    """The sampleable chunks of a knowledge base, each with its topic cluster."""

    chunks: list[Chunk]
    vectors: np.ndarray
    labels: np.ndarray
    names: list[str]
    silhouette: dict[int, float]
    components: int
    total_chunks: int

    @cached_property
    def _index(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.chunks)}

    def name(self, cluster_no: int) -> str:
        return f"{self.names[cluster_no]} (#{cluster_no})"

    def chunk(self, chunk_id: str) -> Chunk:
        return self.chunks[self._index[chunk_id]]

    def label(self, chunk_id: str) -> str:
        """A chunk's topic, as probes record it: the cluster's name and number."""
        return self.name(int(self.labels[self._index[chunk_id]]))

    def draw(self, counts: list[int], allocation: Allocation, seed: int) -> list[list[int]]:
        """Distinct chunks for several question types at once, ``counts[i]`` for the i-th: the
        total is allocated over the clusters, drawn without replacement, then dealt out cluster
        by cluster in turn, so each type's chunks span the topics (fewer if the chunks run out)."""
        rng = np.random.default_rng(seed)
        members = [np.flatnonzero(self.labels == c) for c in range(len(self.names))]
        per_cluster = allocate([len(m) for m in members], sum(counts), allocation)
        drawn = [
            int(i)
            for indices, count in zip(members, per_cluster, strict=True)
            for i in rng.choice(indices, size=count, replace=False)
        ]
        dealt: list[list[int]] = [[] for _ in counts]
        turn = 0
        for index in drawn:
            while len(dealt[turn]) >= counts[turn]:
                turn = (turn + 1) % len(counts)
            dealt[turn].append(index)
            turn = (turn + 1) % len(counts)
        return dealt

    def seed_id(self, index: int, per_probe: int) -> str:
        """A probe's seed: the chunk's id, or with ``per_probe`` 2 the chunk and the most
        similar chunk of its cluster (another document's if it can), joined by "+"."""
        chosen = [index] + ([self._partner(index)] if per_probe > 1 else [])
        return "+".join(self.chunks[i].id for i in chosen)

    def _partner(self, index: int) -> int:
        cluster = np.flatnonzero(self.labels == self.labels[index])
        pool = [int(j) for j in cluster if j != index] or [j for j in range(len(self.chunks)) if j != index]
        if not pool:
            return index
        other_doc = [j for j in pool if self.chunks[j].doc_id != self.chunks[index].doc_id]
        pool = other_doc or pool
        similarity = self.vectors[pool] @ self.vectors[index]
        return pool[int(np.argmax(similarity))]

    def strata(self, seeds: list[str], allocation: str) -> TopicStrata:
        """The clusters with how many of ``seeds`` start in each, for the run summary."""
        sampled = Counter(int(self.labels[self._index[seed.split("+")[0]]]) for seed in seeds)
        sizes = Counter(int(label) for label in self.labels)
        clusters = [
            TopicCluster(cluster=c, name=name, chunks=sizes[c], sampled=sampled[c])
            for c, name in enumerate(self.names)
        ]
        return TopicStrata(
            chunks=self.total_chunks,
            components=self.components,
            clusters=clusters,
            silhouette=self.silhouette,
            allocation=allocation,
        )


def knowledge_topics(chunks: list[Chunk], embedder: Embedder, config: TopicConfig, seed: int) -> Topics:
    """Cluster the chunks of at least ``min_words`` words by topic; a cluster is named after
    its most common document title."""
    usable = [c for c in chunks if len(c.text.split()) >= config.min_words]
    vectors = embedder.embed([c.text for c in usable])
    if usable:
        points = reduce(vectors, config.components, seed)
        labels, silhouette = cluster(points, config.max_clusters, seed)
        components = points.shape[1]
    else:
        labels, silhouette, components = np.zeros(0, dtype=int), {}, 0
    count = int(labels.max()) + 1 if len(labels) else 0
    names = [
        Counter(c.title for c, label in zip(usable, labels, strict=True) if label == k).most_common(1)[0][0]
        for k in range(count)
    ]
    return Topics(usable, vectors, labels, names, silhouette, components, len(chunks))
