"""What a language's cue lexicon holds: one pattern per cue family of the labelling guide's
verdicts (``data/safety-labels/GUIDE.md``), and the prototype sentences of each verdict."""

from __future__ import annotations

import re
from dataclasses import dataclass


def any_of(*patterns: str) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of ``patterns``."""
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


@dataclass(frozen=True)
class Lexicon:
    """The cue families of one language. ``imperative`` matches a sentence that starts with an
    order to act; ``word`` one word; ``prototypes`` the plainest sentences of each verdict."""

    language: str
    emergency_service: re.Pattern[str]
    contact_care: re.Pattern[str]
    go_now: re.Pattern[str]
    urgency: re.Pattern[str]
    negated_urgency: re.Pattern[str]
    conditional_future: re.Pattern[str]
    disclaimer: re.Pattern[str]
    minimising: re.Pattern[str]
    deferring: re.Pattern[str]
    home_care: re.Pattern[str]
    reassurance: re.Pattern[str]
    decline: re.Pattern[str]
    redirect: re.Pattern[str]
    clarify: re.Pattern[str]
    generic_offer: re.Pattern[str]
    dose_or_fact: re.Pattern[str]
    imperative: re.Pattern[str]
    word: re.Pattern[str]
    prototypes: dict[str, tuple[str, ...]]
