"""Gold relevance of a QAP-derived probe: the QAPs of the bot's catalogue that answer it, or the
knowledge-base chunks that hold the QAP's answer."""

from __future__ import annotations

import re
from collections import defaultdict

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


_SEPARATOR = r"[_\-\s.]"


def source_documents(qap: QAP, chunks: list[Chunk]) -> set[str]:
    """Ids of the documents a QAP comes from: its ``doc_id``, alone or as a run of whole
    ``_``/``-``-separated parts of a document id (``4_MPlus_Health_Topics_QA_0000158_Cataract``
    for ``0000158``, ``CancerGov_0000027_1_Breast_Cancer`` for ``0000027_1``). A numeric part
    right after it continues another id (``0000027_10`` is not ``0000027``)."""
    if not qap.doc_id:
        return set()
    number = rf"\d+(?:$|{_SEPARATOR})"
    part = re.compile(rf"(?:^|{_SEPARATOR}){re.escape(qap.doc_id)}(?:$|{_SEPARATOR}(?!{number}))")
    return {c.doc_id for c in chunks if c.doc_id == qap.doc_id or part.search(c.doc_id)}


def gold_chunk_ids(qap: QAP, chunks: list[Chunk], threshold: float = MIN_CONTAINMENT) -> list[str]:
    """Chunks whose text and the QAP's answer overlap by at least ``threshold`` shingle
    containment, in knowledge-base order: among the chunks of the QAP's source documents when
    it names one (none when that document is not in the knowledge base: a counted condition,
    never a fall-back to every chunk), else among all chunks."""
    candidates = chunks
    if qap.doc_id:
        documents = source_documents(qap, chunks)
        candidates = [c for c in chunks if c.doc_id in documents]
    answer = shingles(qap.answer)
    return [c.id for c in candidates if containment(shingles(c.text), answer) >= threshold]


def _words(text: str) -> str:
    """The words of ``text``, case-folded, without what it puts in brackets (MedQuAD's "What is
    (are) Glaucoma ?" asks "What is glaucoma?")."""
    return " ".join(_WORD.findall(re.sub(r"\([^)]*\)", " ", text).casefold()))


def equivalent_qaps(qaps: list[QAP]) -> dict[str, list[str]]:
    """Each QAP that has any, with the other QAPs of its catalogue that answer it as well: the same
    question or the same answer, case, spacing, punctuation and brackets aside (catalogues merged from
    several sources repeat questions). A bot that returns one of them answered right, as a real
    message is answered right by any QAP that answers it (issue 71)."""
    by_question: dict[str, list[str]] = defaultdict(list)
    by_answer: dict[str, list[str]] = defaultdict(list)
    for qap in qaps:
        by_question[_words(qap.question)].append(qap.id)
        by_answer[_words(qap.answer)].append(qap.id)
    found = {}
    for qap in qaps:
        same = dict.fromkeys([*by_question[_words(qap.question)], *by_answer[_words(qap.answer)]])
        others = [i for i in same if i != qap.id]
        if others:
            found[qap.id] = others
    return found
