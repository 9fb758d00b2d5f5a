"""Gold relevance of a QAP-derived probe: the knowledge-base chunks that hold the QAP's answer."""

from __future__ import annotations

import re

from simpop.models import QAP, Chunk

SHINGLE = 3  # words per shingle
MIN_CONTAINMENT = 0.5
_WORD = re.compile(r"\w+")


def shingles(text: str, size: int = SHINGLE) -> set[tuple[str, ...]]:
    """The set of ``size``-word windows of ``text``, case-folded (the text itself if shorter)."""
    words = _WORD.findall(text.casefold())
    if len(words) < size:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def containment(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    """Shared shingles over the smaller set's size: 1.0 when one text lies inside the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def source_documents(qap: QAP, chunks: list[Chunk]) -> set[str]:
    """Ids of the documents a QAP comes from: its ``doc_id``, alone or as a ``_``-separated part
    of a document id (``4_MPlus_Health_Topics_QA_0000158_Cataract`` for ``0000158``)."""
    if not qap.doc_id:
        return set()
    return {
        c.doc_id for c in chunks if c.doc_id == qap.doc_id or qap.doc_id in re.split(r"[_\-\s]", c.doc_id)
    }


def gold_chunk_ids(qap: QAP, chunks: list[Chunk], threshold: float = MIN_CONTAINMENT) -> list[str]:
    """Chunks of the QAP's source documents (all chunks when none is found) whose text and the
    QAP's answer overlap by at least ``threshold`` shingle containment, in knowledge-base order."""
    documents = source_documents(qap, chunks)
    candidates = [c for c in chunks if c.doc_id in documents] if documents else chunks
    answer = shingles(qap.answer)
    return [c.id for c in candidates if containment(shingles(c.text), answer) >= threshold]
