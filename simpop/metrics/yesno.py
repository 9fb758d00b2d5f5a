"""Yes/no answers (Han, Evaluation of RAG in medical QA; PubMedQA's reasoning-required setting)."""

from __future__ import annotations

import re
from typing import Literal

Decision = Literal["yes", "no"]
_LEADING = re.compile(r"^[\s\W_]*(?:answer\s*[:\-]\s*)?[\s\W_]*(yes|no)\b", re.IGNORECASE)
# the other decision offered next: "Yes\nNo, ...", "Yes/No", "yes or no", "Yes and no"
_BOTH = re.compile(r"^[^\S\n]*[^\w\n]*(?:\n|/|\bor\b|\band\b)[\s\W_]*(yes|no)\b", re.IGNORECASE)


def parse_yes_no(answer: str | None) -> Decision | None:
    """The decision an answer leads with: 'Yes.', '**No**, because', '"yes"', 'Answer: no'.
    ``None`` when it does not start with yes or no (after punctuation and markup), or offers
    both ('Yes\nNo, ...', 'Yes/No', 'yes or no')."""
    if not answer:
        return None
    match = _LEADING.match(answer)
    if not match:
        return None
    decision = match.group(1).lower()
    other = _BOTH.match(answer[match.end() :])
    return None if other and other.group(1).lower() != decision else decision  # type: ignore[return-value]


def yes_no_correct(answer: str | None, gold: Decision) -> float | None:
    """1.0 right, 0.0 wrong, ``None`` unparseable (counted apart, and as not correct in accuracy)."""
    decision = parse_yes_no(answer)
    return None if decision is None else float(decision == gold)
