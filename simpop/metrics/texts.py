"""The texts metrics work on: what the bot answered from, and sentences (the unit both the
ASTRID judges and the HCAT embedding metrics judge)."""

from __future__ import annotations

import re

from simpop.models import Context, Response

_ABBREVIATIONS = ("e.g.", "i.e.", "dr.", "mr.", "mrs.", "ms.", "etc.", "vs.", "approx.", "no.", "st.")
_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def split_sentences(text: str | None) -> list[str]:
    """Sentences of ``text``: split at line breaks and at . ! ? followed by a capital or a digit,
    not after a common abbreviation; list bullets are removed; empty pieces dropped."""
    sentences: list[str] = []
    for line in (text or "").splitlines():
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        start = 0
        for match in _END.finditer(line):
            piece = line[start : match.start()].strip()
            if piece.lower().endswith(_ABBREVIATIONS):
                continue
            sentences.append(piece)
            start = match.end()
        sentences.append(line[start:].strip())
    return [s for s in sentences if any(c.isalnum() for c in s)]


def answer_contexts(response: Response) -> list[Context]:
    """What the bot answered from: the matched QAP for a QAP matcher, else every context."""
    if response.matched_id is not None:
        matched = [c for c in response.contexts if c.id == response.matched_id]
        return matched or response.contexts
    return response.contexts


def context_text(contexts: list[Context]) -> str:
    return "\n\n".join(f"[{i}] {c.text.strip()}" for i, c in enumerate(contexts, start=1))


def exchange(response: Response) -> dict[str, str | None]:
    """What every judge of an answer is shown, in the same order (``prompts/_judge_exchange.j2``):
    the context it was answered from, the answer, the message."""
    return {
        "context": context_text(answer_contexts(response)),
        "answer": response.answer,
        "question": response.question,
    }


def answered(response: Response) -> bool:
    return bool(response.answer and response.answer.strip())
