"""Persona fidelity: is a simulated question believable before we blame the bot for it?

Reading grade (``readability``), length, embedding similarity to the seed question, and
near-duplicates within a group of probes written for the same persona, scenario and seed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

from rapidfuzz import fuzz, process
from rapidfuzz.distance import LCSseq

from simpop.embed import Embedder
from simpop.models import Fidelity
from simpop.population.out_of_role import out_of_role
from simpop.population.people_words import copies_phrase
from simpop.population.readability import reading_grade

NEAR_DUPLICATE = 90.0  # rapidfuzz ratio (0-100) at or above which two questions are one


def fold(text: str) -> str:
    return " ".join(text.lower().split())


def near_duplicates(texts: list[str | None], threshold: float = NEAR_DUPLICATE) -> list[int | None]:
    """For each text, the index of the first earlier text it (nearly) repeats, else ``None``."""
    kept: list[tuple[int, str]] = []
    result: list[int | None] = []
    for index, text in enumerate(texts):
        if not text:
            result.append(None)
            continue
        folded = fold(text)
        twin = next((i for i, k in kept if fuzz.ratio(folded, k) >= threshold), None)
        if twin is None:
            kept.append((index, folded))
        result.append(twin)
    return result


def distinct_ratio(texts: list[str], threshold: float = NEAR_DUPLICATE) -> float | None:
    """Distinct questions (near-duplicates counted once) over all questions."""
    if not texts:
        return None
    kept: list[str] = []
    for folded in (fold(t) for t in texts if t):
        # the count near_duplicates gives, comparing in rapidfuzz's C loop rather than with a
        # Python call per pair (a persona of 15k messages: seconds, not minutes)
        if process.extractOne(folded, kept, scorer=fuzz.ratio, score_cutoff=threshold) is None:
            kept.append(folded)
    distinct = len(kept) + sum(1 for t in texts if not t)
    return round(distinct / len(texts), 3)


_THE_BOT = re.compile(
    r"\b(?:chat ?bot|(?:the|this|you,?) bot|virtual assistant|ai assistant)\b", re.IGNORECASE
)
ECHO_WORDS = 6  # a run of this many words copied from the prompt is an echo, not a question
REPEATS = 3  # a sentence said this often is a generation loop
TEMPLATE_SHARE = 0.8  # this share of an example's words, in order, makes a probe a copy of it
TEMPLATE_MIN_WORDS = 5  # shorter examples are too plain to be copied recognisably
LEAK_RATIO = 90.0  # rapidfuzz partial ratio of a probe sentence inside the persona or prompt text
LEAK_MIN_WORDS = 6


def _words(text: str) -> list[str]:
    return re.findall(r"(?:[^\W_]|')+", text.lower())


def split_sentences(text: str) -> list[str]:
    """The text's sentences (split after . ! or ?), blank ones left out."""
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def _word_runs(text: str, n: int) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@lru_cache(maxsize=512)
def _source_runs(source: str) -> frozenset[tuple[str, ...]]:
    """A prompt's runs of ``ECHO_WORDS`` words, once per prompt (its group's every candidate is
    checked against it, twice)."""
    return frozenset(_word_runs(source, ECHO_WORDS))


@lru_cache(maxsize=512)
def _folded_source(source: str) -> str:
    return fold(source)


def copies_template(text: str, example: str) -> bool:
    """The probe is the example with a word or two swapped ("Could you explain to me what
    breast cancer is, please?" from "Could you explain to me what asthma is, please?")."""
    shape = _words(example)
    if len(shape) < TEMPLATE_MIN_WORDS:
        return False
    return LCSseq.similarity(shape, _words(text)) >= TEMPLATE_SHARE * len(shape)


def leaks(text: str, source: str) -> bool:
    """A sentence of the probe comes (nearly) word for word from ``source`` (the persona's
    description or the prompt): "I am a 61-year-old retired warehouse worker ..."."""
    folded_source = _folded_source(source)
    for sentence in split_sentences(text):
        if (
            len(_words(sentence)) >= LEAK_MIN_WORDS
            and fuzz.partial_ratio(fold(sentence), folded_source) >= LEAK_RATIO
        ):
            return True
    return False


def foreign_script(text: str) -> bool:
    """Letters of a script other than Latin (a small model slips into Chinese mid-sentence)."""
    return any(ch.isalpha() and not unicodedata.name(ch, "LATIN").startswith("LATIN") for ch in text)


def flaw(
    text: str,
    examples: Sequence[str],
    prompt: str,
    persona: str = "",
    one_question: bool = False,
) -> str | None:
    """Why a generated question is not a patient's question, if it is not: a copy of one of
    the scenario's examples, a sentence of the persona's description or of the prompt (the
    seed question left out of it: a patient may use the leaflet's words), a loop of repeated
    sentences, letters of another script; with ``one_question``, more than the one question
    sentence asked for, or the chatbot the prompt speaks of (a patient asking a seed's question
    asks about the condition, not about "the chatbot")."""
    folded = fold(text)
    if foreign_script(text):
        return "slips into another script"
    stepped_out = out_of_role(text, persona)
    if stepped_out:
        return stepped_out
    if one_question and len([s for s in split_sentences(text) if _words(s)]) > 1:
        return "writes more than the one question asked for"
    if one_question and _THE_BOT.search(text):
        return "speaks of the chatbot (the prompt's wording)"
    if any(fuzz.ratio(folded, fold(e)) >= NEAR_DUPLICATE or copies_template(text, e) for e in examples):
        return "copies an example of the prompt"
    if persona and leaks(text, persona):
        return "copies the persona's description"
    if not _source_runs(prompt).isdisjoint(_word_runs(text, ECHO_WORDS)) or leaks(text, prompt):
        return "echoes the prompt"
    sentences = [fold(s) for s in split_sentences(text)]
    if sentences and max(sentences.count(s) for s in sentences) >= REPEATS:
        return "repeats itself"
    return None


def check_group(
    texts: list[str | None],
    seed_text: str | None,
    embedder: Embedder,
    min_similarity: float | None,
    examples: Sequence[str] = (),
    prompt: str = "",
    persona: str = "",
    meaning: Callable[[list[str]], list[str | None]] | None = None,
    one_question: bool = False,
    catalogue: str | None = None,
    language: str = "en",
) -> list[Fidelity | None]:
    """Fidelity of each question of one group. Invalid: a question that does not ask its
    seed's question (``meaning`` gives the reason; below ``min_similarity``, for probes that
    must keep it), that has a ``flaw``, or that copies the ``catalogue`` phrase of its topic
    (one the persona would not use)."""
    similarities: list[float | None] = [None] * len(texts)
    present = [i for i, t in enumerate(texts) if t]
    if seed_text and present:
        vectors = embedder.embed([seed_text, *(texts[i] or "" for i in present)])
        for i, vector in zip(present, vectors[1:], strict=True):
            similarities[i] = round(float(vector @ vectors[0]), 4)
    drift: list[str | None] = [None] * len(texts)
    if meaning is not None and present:
        for i, reason in zip(present, meaning([texts[i] or "" for i in present]), strict=True):
            drift[i] = reason
    twins = near_duplicates(texts)
    result: list[Fidelity | None] = []
    for text, similarity, twin, drifted in zip(texts, similarities, twins, drift, strict=True):
        if not text:
            result.append(None)
            continue
        reason = flaw(text, examples, prompt, persona, one_question)
        if reason is None and catalogue and copies_phrase(text, catalogue):
            reason = f"copies the catalogue's wording '{catalogue}'"
        if reason is None and drifted:
            reason = f"meaning drifted: {drifted}"
        if (
            reason is None
            and min_similarity is not None
            and similarity is not None
            and similarity < min_similarity
        ):
            reason = f"meaning drifted: similarity {similarity:.2f} < {min_similarity:g}"
        result.append(
            Fidelity(
                reading_grade=reading_grade(text, language),
                words=len(text.split()),
                seed_similarity=similarity,
                duplicate_of=twin,
                valid=reason is None,
                reason=reason,
            )
        )
    return result


def usable(checks: list[Fidelity | None]) -> list[int]:
    """Indices of the valid, distinct candidates, in the order written."""
    return [i for i, c in enumerate(checks) if c is not None and c.valid and c.duplicate_of is None]


def same_words(text: str | None, seed: str | None) -> bool:
    """The text is the seed question word for word (case and punctuation aside)."""
    return bool(text and seed) and _words(text or "") == _words(seed or "")


def most_usable(
    checks: list[Fidelity | None],
    n: int,
    last: set[int] = frozenset(),
    order: Sequence[float] | None = None,
) -> list[int]:
    """Indices of ``n`` candidates to keep: valid, distinct ones first (those in ``last``, such
    as copies of the seed, after the others; then by ``order``, lowest first), then the rest,
    each in the order written."""
    good = sorted(usable(checks), key=lambda i: (i in last, order[i] if order else 0.0))
    return (good + [i for i in range(len(checks)) if i not in good])[:n]
