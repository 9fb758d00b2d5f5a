"""Retrieval over a knowledge base indexed in Chroma: top-k or a similarity threshold."""

from __future__ import annotations

from pathlib import Path

from simpop.embed import Embedder
from simpop.knowledge import chunks_fingerprint, load_chunks
from simpop.models import Context, KnowledgeBaseConfig, RetrievalConfig
from simpop.paths import cache_dir
from simpop.targets.chroma import build_collection, nearest, open_chroma


class Retriever:
    """Chunks ranked by cosine similarity to a text.

    The collection is named by a fingerprint of the chunks (so of the documents and the
    splitter settings) and the embedding model: it is built once and re-used until one of
    them changes. ``threshold`` mode keeps every chunk at least that similar (Han's thesis),
    up to ``max_chunks``.
    """

    def __init__(
        self,
        knowledge_base: KnowledgeBaseConfig,
        retrieval: RetrievalConfig,
        embedder: Embedder,
        index_dir: Path | None = None,
    ) -> None:
        self.retrieval = retrieval
        self.embedder = embedder
        chunks = load_chunks(knowledge_base)
        self.chunks = {chunk.id: chunk for chunk in chunks}
        self.client = open_chroma(index_dir or cache_dir() / "chroma", knowledge_base.chroma)
        self.collection = build_collection(
            self.client,
            f"kb-{chunks_fingerprint(chunks, embedder.model_id)}",
            ids=[c.id for c in chunks],
            texts=[c.text for c in chunks],
            embed=embedder.embed,
            metadatas=[{"doc_id": c.doc_id, "title": c.title} for c in chunks],
        )

    def search(self, text: str) -> list[Context]:
        """The retrieved chunks for ``text``, most similar first, with their similarity."""
        vector = self.embedder.embed([text])[0]
        if self.retrieval.mode == "top_k":
            ranked = nearest(self.collection, vector, self.retrieval.k, len(self.chunks))
        else:
            n = self.retrieval.max_chunks or len(self.chunks)
            ranked = [
                r
                for r in nearest(self.collection, vector, n, len(self.chunks))
                if r[1] >= self.retrieval.threshold
            ]
        return [Context(id=chunk_id, text=chunk_text, score=score) for chunk_id, score, chunk_text in ranked]
