"""Which CEFR level does a message read at, and is it in the persona's language?

- **level**: a ridge regression of the CEFR level (1 = A1 … 6 = C2) on words per sentence,
  the shares of words outside the 1,000 / 2,000 / 4,000 / 8,000 most frequent English words
  (wordfreq) and mean word length, fitted on CEFR-SP's Wiki-Auto training sentences (Arase et
  al., EMNLP 2022; experts' labels). On its held-out test split: Spearman 0.68, 45% exact and
  92% within one level (``bench/language_level.py`` refits it and prints these).
- **grammar slips**: learner errors typical of a Spanish speaker's English (Swan & Smith,
  *Learner English*, 2001): "I have 45 years", "the doctor say", "I not understand", "want
  know", "I am worry", "explain me", "is possible" without a subject, Spanish words.
- **language**: the language whose 5,000 most frequent words cover most of the message.
- **rare words**: the share of words outside the language's 4,000 most frequent, in any
  language wordfreq covers. No labelled German (or French, Italian) text with CEFR levels and a
  licence that allows shipping it was found, so for those languages this band is the only
  measure of vocabulary level: the CEFR estimate is English's alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache, partial
from importlib.metadata import version

from simpop.lookup_cache import cached_table

LEVELS = ("A1", "A2", "B1", "B2", "C1", "C2")
BANDS = (1000, 2000, 4000, 8000)
RARE_BAND = 4000
# fitted by bench/language_level.py on CEFR-SP Wiki-Auto train (mean of the two annotators)
INTERCEPT = 0.7294
COEFFICIENTS = (0.0709, 0.2100, 0.2187, 0.9189, 2.5552, 0.2437)
LANGUAGES = ("en", "es", "de", "fr", "it", "pt", "nl")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
_SLIPS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\bhave \d+ years\b",  # age with "have"
        r"\b(?:he|she|it|my \w+|the doctor|doctor) (?:have|say|tell|go|want|need|know|think|feel|not)\b",
        r"\b(?:i|you|we|they) not (?!only\b)\w+",  # negation without "do"
        r"\b(?:want|need|like) (?:know|ask|go|see|understand|have|to know about)\b(?<!to know about)",
        r"\bam (?:worry|scare|confuse|interest|preoccupate)\b",
        r"\b(?:say|explain|tell to) me\b(?! (?:about|what|how|if|why|when|where|whether|the|a|more))",
        r"(?:^|[.?!]\s+)is (?:possible|normal|dangerous|necessary)\b",
        r"\bpeople is\b",
        r"\bin internet\b",
    )
]
SPANISH_WORDS = {
    "el",
    "la",
    "mi",
    "por",
    "favor",
    "gracias",
    "médico",
    "enfermedad",
    "pecho",
    "ojo",
    "ojos",
    "señor",
}


@lru_cache(maxsize=None)
def _top(language: str, n: int) -> frozenset[str]:
    # wordfreq unpacks its whole list each time: kept on disk once built
    table = cached_table(f"wordfreq-{language}-{n}", version("wordfreq"), partial(_top_list, language, n))
    return frozenset(table)


def _top_list(language: str, n: int) -> list[str]:
    from wordfreq import top_n_list  # only to build the table: importing it takes 0.1-0.2 s

    return top_n_list(language, n)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def level_features(text: str, ignore: frozenset[str] = frozenset()) -> list[float] | None:
    """Words per sentence, the shares of words outside each frequency band, mean word length
    (``ignore``: words left out, such as the topic's name)."""
    words = [w for w in _words(text) if w not in ignore]
    if not words:
        return None
    sentences = max(1, len(_SENTENCE_END.findall(text.strip())))
    outside = [sum(w not in _top("en", n) for w in words) / len(words) for n in BANDS]
    return [len(words) / sentences, *outside, sum(map(len, words)) / len(words)]


def level_score(text: str, ignore: frozenset[str] = frozenset()) -> float | None:
    """The estimated CEFR level as a number from 1 (A1) to 6 (C2)."""
    features = level_features(text, ignore)
    if features is None:
        return None
    score = INTERCEPT + sum(c * f for c, f in zip(COEFFICIENTS, features, strict=True))
    return min(6.0, max(1.0, score))


def level_name(score: float) -> str:
    return LEVELS[int(round(score)) - 1]


def grammar_slips(text: str) -> int:
    """Learner errors found (each pattern and each Spanish word counts once per match)."""
    slips = sum(len(pattern.findall(text)) for pattern in _SLIPS)
    return slips + sum(1 for w in _words(text) if w in SPANISH_WORDS)


def language_of(text: str, candidates: tuple[str, ...] = LANGUAGES) -> str | None:
    """The candidate language whose 5,000 most frequent words cover most of the text's words."""
    words = _words(text)
    if not words:
        return None
    coverage = {lang: sum(w in _top(lang, 5000) for w in words) / len(words) for lang in candidates}
    return max(coverage, key=coverage.__getitem__)


@dataclass(frozen=True)
class LanguageProfile:
    """The language figures of a persona's messages."""

    level: float | None
    slips_per_100_words: float | None
    in_language: float | None  # share of messages identified as the persona's language
    rare_words: float | None = None  # share of words outside the language's 4,000 most frequent


def language_profile(
    texts: list[str], language: str = "en", ignore: frozenset[str] = frozenset()
) -> LanguageProfile:
    english = language == "en"
    scores = [s for s in (level_score(t, ignore) for t in texts) if s is not None] if english else []
    every = [w for t in texts for w in _words(t)]
    words = len(every)
    common = _top(language, RARE_BAND) if language in LANGUAGES else None
    identified = [language_of(t) for t in texts]
    known = [lang for lang in identified if lang is not None]
    return LanguageProfile(
        level=round(sum(scores) / len(scores), 2) if scores else None,
        slips_per_100_words=(
            round(100 * sum(grammar_slips(t) for t in texts) / words, 2) if words and english else None
        ),
        in_language=round(sum(lang == language for lang in known) / len(known), 3) if known else None,
        rare_words=round(sum(w not in common for w in every) / words, 3) if words and common else None,
    )
