"""Chroma collections: a local persistent store or a shared server, built once per content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.config import Settings

from simpop.errors import SimpopError
from simpop.models import ChromaServer

_COSINE = {"hnsw": {"space": "cosine"}}


def open_chroma(path: Path | None = None, server: ChromaServer | None = None) -> chromadb.ClientAPI:
    """A client of ``server`` if given, else of the persistent store at ``path``; no telemetry."""
    settings = Settings(anonymized_telemetry=False)
    if server is not None:
        try:
            return chromadb.HttpClient(host=server.host, port=server.port, settings=settings)
        except Exception as error:  # noqa: BLE001 - chromadb raises several kinds when unreachable
            raise SimpopError(f"cannot reach Chroma server {server.host}:{server.port} ({error})") from None
    assert path is not None
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=settings)


def build_collection(
    client: chromadb.ClientAPI,
    name: str,
    ids: list[str],
    texts: list[str],
    embed: Any,
    metadatas: list[dict[str, Any]] | None = None,
    batch: int = 1000,
) -> chromadb.Collection:
    """The cosine collection ``name`` holding ``ids``; embedded and added only when it is not
    complete already. ``name`` must change whenever the content or the embedding model does."""
    collection = client.get_or_create_collection(name, configuration=_COSINE, embedding_function=None)
    if collection.count() == len(ids):
        return collection
    if collection.count():  # a build that was interrupted: start again
        client.delete_collection(name)
        collection = client.create_collection(name, configuration=_COSINE, embedding_function=None)
    for start in range(0, len(ids), batch):
        end = start + batch
        vectors: np.ndarray = embed(texts[start:end])
        collection.add(
            ids=ids[start:end],
            embeddings=vectors,
            documents=texts[start:end],
            metadatas=metadatas[start:end] if metadatas else None,
        )
    return collection


def nearest(
    collection: chromadb.Collection, vector: np.ndarray, n: int, size: int | None = None
) -> list[tuple[str, float, str]]:
    """The ``n`` nearest items as (id, cosine similarity, text), most similar first (``size``:
    the collection's item count when the caller knows it, saving a round trip per query)."""
    n = min(n, collection.count() if size is None else size)
    if n == 0:
        return []
    found = collection.query(
        query_embeddings=vector.reshape(1, -1), n_results=n, include=["distances", "documents"]
    )
    return [
        (item_id, 1.0 - float(distance), text or "")
        for item_id, distance, text in zip(
            found["ids"][0], found["distances"][0], found["documents"][0], strict=True
        )
    ]
