"""The words a person uses for a seed's topic, where a catalogue prints it otherwise: MedQuAD's
focus "Kidney Stones in Adults" is "kidney stones" in a patient's mouth, "Age-related Macular
Degeneration (AMD)" is "age-related macular degeneration". And a check for a message that copies
the catalogue's phrase, which a patient with less than high health literacy would not write."""

from __future__ import annotations

import re

from simpop.models import Persona

# who a leaflet is for, or what kind of page it is: not part of what a patient has
_QUALIFIER = re.compile(
    r"\s*(?:,\s*|\s+-\s+|\s+)(?:in|for|among|of)\s+(?:adults?|children|child|kids|teens|teenagers|adolescents|"
    r"infants|babies|newborns|women|men|older adults|the elderly|seniors|pregnancy|pregnant women)\s*$"
    r"|\s*,\s*(?:adult|childhood|infant|general information|overview|an overview)\s*$"
    r"|\s+-\s+(?:overview|general information|an overview)\s*$",
    re.IGNORECASE,
)
_PARENTHESES = re.compile(r"\s*\([^)]*\)")
_KEEP_CASE = re.compile(
    r"^(?:[A-Z0-9][A-Z0-9/-]+s?|[A-Z][a-z]*'s?|[A-Z][a-z]+')$"
)  # AMD, HIV/AIDS, Parkinson's, Graves'
MIN_CATALOGUE_WORDS = 3


def spoken_topic(topic: str) -> str:
    """``topic`` as a person says it: no catalogue qualifier or bracket, lower case except
    acronyms and possessive names."""
    text = _PARENTHESES.sub("", topic).strip()
    while (stripped := _QUALIFIER.sub("", text).strip()) != text and stripped:
        text = stripped
    head, comma, tail = text.partition(", ")
    if comma and len(tail.split()) <= 3:  # a catalogue's inversion: "Leukemia, Adult Acute"
        text = f"{tail} {head}"
    words = [w if _KEEP_CASE.match(w) else w.lower() for w in text.split()]
    return " ".join(words) or topic


def catalogue_phrase(topic: str | None) -> str | None:
    """The catalogue's phrase for ``topic`` where a person says something else and it has at
    least three words ("Kidney Stones in Adults"), else None."""
    if not topic or len(topic.split()) < MIN_CATALOGUE_WORDS:
        return None
    return topic if spoken_topic(topic) != topic.lower().strip() else None


def would_not_say(topic: str | None, persona: Persona) -> str | None:
    """The catalogue phrase of ``topic`` that ``persona`` would not write (high health literacy
    may), else None."""
    return None if persona.health_literacy == "high" else catalogue_phrase(topic)


def _phrase(phrase: str) -> re.Pattern[str]:
    """``phrase`` word for word, any case, any punctuation between words, a bracket optional."""
    words = re.findall(r"[\w'-]+", _PARENTHESES.sub("", phrase))
    return re.compile(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b(?:\s*\([^)]*\))?", re.IGNORECASE)


def copies_phrase(text: str, phrase: str) -> bool:
    """``text`` holds ``phrase`` word for word (any case, any punctuation between words)."""
    return _phrase(phrase).search(text) is not None


def in_peoples_words(question: str, topic: str | None) -> str:
    """``question`` with its topic phrase (any case) in a person's words."""
    if not topic:
        return question
    return _phrase(topic).sub(lambda _: spoken_topic(topic), question, count=1)
