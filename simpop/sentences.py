"""Sentences: the unit the ASTRID judges, the HCAT embedding metrics and the safety judges' cues
all work on, split one way so a sentence embedded by one is found in the embedding cache by the
others."""

from __future__ import annotations

import re

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
