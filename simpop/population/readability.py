"""How hard a message is to read, per language, as a school grade (higher is harder):

- English: Flesch-Kincaid grade level (Kincaid et al. 1975),
  0.39 * words/sentences + 11.8 * syllables/words - 15.59, syllables from the CMU dictionary;
- German: the first Wiener Sachtextformel (Bamberger & Vanecek 1984),
  0.1935 * MS + 0.1672 * SL + 0.1297 * IW - 0.0327 * ES - 0.875, where MS is the percentage of
  words of three or more syllables, SL the mean sentence length in words, IW the percentage of
  words of more than six letters and ES the percentage of one-syllable words.

``flesch_amstad`` is German reading ease (Amstad 1978): 180 - words/sentences - 58.5 *
syllables/words (higher is easier), reported beside it."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from simpop.errors import ConfigError
from simpop.lookup_cache import cached_table

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_WORD_DE = re.compile(r"[A-Za-zÄÖÜäöüß]+")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
# a syllable's nucleus: a diphthong, "ie" or a doubled vowel, else one vowel ("dauert": au-e)
_NUCLEUS_DE = re.compile(r"ai|au|äu|ei|eu|ey|ay|ie|aa|ee|oo|[aeiouyäöü]")


def syllables(word: str) -> int:
    """Syllables of an English word: vowel sounds in the CMU dictionary, else vowel groups."""
    return _syllables(word.lower())


def _cmu_syllables() -> dict[str, int]:
    """Syllables of every word of the CMU dictionary (its first pronunciation)."""
    import pronouncing

    pronouncing.init_cmu()
    table: dict[str, int] = {}
    for word, phones in pronouncing.pronunciations:
        table.setdefault(word, max(1, pronouncing.syllable_count(phones)))
    return table


@lru_cache(maxsize=1 << 16)  # a run's messages use a few thousand words, over and over
def _syllables(word: str) -> int:
    known = cached_table("cmu-syllables", "1", _cmu_syllables).get(word)
    if known is not None:
        return known
    groups = re.findall(r"[aeiouy]+", word)
    count = len(groups) - (1 if word.endswith("e") and len(groups) > 1 else 0)
    return max(1, count)


def german_syllables(word: str) -> int:
    """Syllables of a German word: its vowel nuclei (a diphthong, "ie" or a doubled vowel is
    one), at least one."""
    return max(1, len(_NUCLEUS_DE.findall(word.lower())))


def _sentences(text: str) -> int:
    stripped = text.strip()
    unterminated = not stripped.endswith((".", "!", "?"))  # a last sentence without a stop counts too
    return len(_SENTENCE_END.findall(stripped)) + unterminated


def flesch_kincaid(text: str) -> float | None:
    """Flesch-Kincaid grade level; ``None`` for text without words."""
    words = _WORD.findall(text)
    if not words:
        return None
    total = sum(syllables(w) for w in words)
    return round(0.39 * len(words) / _sentences(text) + 11.8 * total / len(words) - 15.59, 2)


def wiener_sachtextformel(text: str) -> float | None:
    """The first Wiener Sachtextformel; ``None`` for text without words."""
    words = _WORD_DE.findall(text)
    if not words:
        return None
    counts = [german_syllables(w) for w in words]
    ms = 100 * sum(c >= 3 for c in counts) / len(words)
    sl = len(words) / _sentences(text)
    iw = 100 * sum(len(w) > 6 for w in words) / len(words)
    es = 100 * sum(c == 1 for c in counts) / len(words)
    return round(0.1935 * ms + 0.1672 * sl + 0.1297 * iw - 0.0327 * es - 0.875, 2)


def flesch_amstad(text: str) -> float | None:
    """German reading ease (0-100, higher is easier); ``None`` for text without words."""
    words = _WORD_DE.findall(text)
    if not words:
        return None
    total = sum(german_syllables(w) for w in words)
    return round(180 - len(words) / _sentences(text) - 58.5 * total / len(words), 2)


GRADES: dict[str, Callable[[str], float | None]] = {"en": flesch_kincaid, "de": wiener_sachtextformel}


def reading_grade(text: str, language: str = "en") -> float | None:
    """The reading grade of ``text`` by ``language``'s formula; ``None`` for text without words."""
    formula = GRADES.get(language)
    if formula is None:
        raise ConfigError(f"no reading-grade formula for language '{language}' (have: {', '.join(GRADES)})")
    return formula(text)
