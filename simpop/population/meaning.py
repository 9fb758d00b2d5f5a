"""Does a probe still ask its seed's question? Three checks that no target computes:

- **topic**: the probe names the seed's topic (its rarest word, or an everyday word for it);
- **patterns**: no second question, reversed relation or personalised scope (``drift_patterns``);
- **aspect**: with the topic's words masked, the probe asks about the same aspect of it
  (symptoms, diagnosis, treatment, ... from ``aspects.yaml``) as the seed, by embedding
  similarity to patients' wordings of each aspect.

A QAP matcher compares whole questions with each other; this check never sees the other
seeds, and masks the topic, so it does not repeat the matcher's decision (a probe the bot
misses for its own reasons is not removed by it). Its precision and recall on hand-labelled
probes are in `docs/measured.md` ("The meaning check").
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version

import numpy as np
import yaml

from simpop.embed import Embedder
from simpop.lookup_cache import cached_table
from simpop.population.drift_patterns import pattern_drift
from simpop.population.fidelity import split_sentences
from simpop.population.meaning_language import MeaningLanguage, meaning_language


@dataclass(frozen=True)
class Aspect:
    name: str
    qtypes: tuple[str, ...]
    questions: tuple[str, ...]


@lru_cache(maxsize=4)
def aspects(language: str = "en") -> tuple[Aspect, ...]:
    """The aspects and their wordings in ``language`` (``aspects.yaml``, ``aspects.de.yaml``)."""
    data = yaml.safe_load(meaning_language(language).aspects_file.read_text(encoding="utf-8"))
    return tuple(Aspect(name, tuple(a["qtypes"]), tuple(a["questions"])) for name, a in data.items())


def aspect_of_qtype(qtype: str | None) -> str | None:
    """The aspect a MedQuAD question type asks for."""
    if not qtype:
        return None
    return next((a.name for a in aspects() if qtype.lower() in a.qtypes), None)


def _stem(word: str) -> str:
    """A crude stem: the first six letters of a long word (diabetic, diabetes), else the word
    without a plural s."""
    if len(word) > 6:
        return word[:6]
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


_FREQUENCIES = threading.Lock()
ZIPF_WORDS = 100_000  # words of a language whose frequency is kept on disk


def _zipf_table(language: str) -> dict[str, float]:
    from wordfreq import top_n_list, zipf_frequency

    return {w: zipf_frequency(w, language) for w in top_n_list(language, ZIPF_WORDS)}


@lru_cache(maxsize=4)
def _zipfs(language: str) -> dict[str, float]:
    """The table, found once per process (its name reads wordfreq's installed version)."""
    return cached_table(
        f"wordfreq-zipf-{language}", f"{ZIPF_WORDS}-{version('wordfreq')}", lambda: _zipf_table(language)
    )


def _zipf(word: str, language: str = "en") -> float:
    """wordfreq's Zipf frequency of a word: from a table in the cache folder, built once
    (importing wordfreq and reading its list took 0.35 s of a cached re-run on two busy cores);
    wordfreq itself for a word the table lacks."""
    found = _zipfs(language).get(word)
    if found is None:
        from wordfreq import zipf_frequency

        found = zipf_frequency(word, language)
    return found


@lru_cache(maxsize=4096)
def topic_words(topic: str, language: str = "en") -> tuple[str, ...]:
    """The topic's content words, rarest (by the language's word frequency) first."""
    lang = meaning_language(language)
    words = [w for w in lang.word.findall(topic.lower()) if w not in lang.stop and len(w) > 1]
    # one thread at a time: wordfreq reads its word list on first use, once per caller racing it
    with _FREQUENCIES:
        return tuple(sorted(dict.fromkeys(words), key=lambda w: _zipf(w, language)))


def _lowered(everyday: dict[str, str] | None) -> dict[str, str]:
    """The lexicon looked up by lower-case term (German's terms are capitalised nouns)."""
    return {term.lower(): plain for term, plain in (everyday or {}).items()}


def _mentions(text_words: set[str], phrase: str, lang: MeaningLanguage) -> bool:
    words = [_stem(w) for w in lang.word.findall(phrase.lower()) if w not in lang.stop]
    return bool(words) and all(w in text_words for w in words)


def names_topic(text: str, topic: str, everyday: dict[str, str] | None = None, language: str = "en") -> bool:
    """The text names the topic: its rarest word, or an everyday word for the topic or that
    word ("cloudy eye" for "cataract")."""
    lang = meaning_language(language)
    words = topic_words(topic, language)
    if not words:
        return True
    present = {_stem(w) for w in lang.word.findall(text.lower())}
    rarest = words[0]
    if _stem(rarest) in present:
        return True
    lexicon = _lowered(everyday)
    plain = [lexicon.get(term) for term in (topic.lower(), rarest, rarest + "s") if lexicon.get(term)]
    return any(_mentions(present, p, lang) for p in plain)


def mask_topic(
    text: str, topic: str | None, everyday: dict[str, str] | None = None, language: str = "en"
) -> str:
    """The text with the topic's words (and everyday words for them) replaced by "it" (German:
    "es")."""
    if not topic:
        return text
    lang = meaning_language(language)
    words = topic_words(topic, language)
    lexicon = _lowered(everyday)
    phrases = [topic, *words, *(lexicon[t] for t in [topic.lower(), *words] if t in lexicon)]
    for phrase in sorted(set(phrases), key=len, reverse=True):
        text = lang.mask(text, phrase)
    text = re.sub(r"\(\s*are\s*\)", "", text)  # MedQuAD's "What is (are) X ?"
    return re.sub(rf"\b{lang.it}(?:\s+{lang.it}\b)+", lang.it, text, flags=re.IGNORECASE)


class AspectModel:
    """Embeddings of every aspect's wordings in one language, for one embedder."""

    def __init__(self, embedder: Embedder, language: str = "en") -> None:
        self.embedder = embedder
        self.language = meaning_language(language)
        found = aspects(language)
        self.names = [a.name for a in found]
        texts = [q for a in found for q in a.questions]
        self.owner = np.array([i for i, a in enumerate(found) for _ in a.questions])
        self.vectors = embedder.embed(texts)

    def scores(self, texts: list[str]) -> np.ndarray:
        """Per text and aspect: the best cosine to one of the aspect's wordings."""
        return self.scores_of(self.embedder.embed(texts))

    def scores_of(self, vectors: np.ndarray) -> np.ndarray:
        similarity = vectors @ self.vectors.T
        result = np.full((len(vectors), len(self.names)), -1.0)
        for index in range(len(self.names)):
            result[:, index] = similarity[:, self.owner == index].max(axis=1)
        return result


@dataclass(frozen=True)
class MeaningCheck:
    kept: bool
    reason: str | None
    seed_aspect: str | None
    probe_aspect: str | None


def check_meaning(
    model: AspectModel,
    seed: str,
    probes: list[str],
    topic: str | None = None,
    qtype: str | None = None,
    everyday: dict[str, str] | None = None,
    context: list[str] | None = None,
    margin: float | None = None,
) -> list[MeaningCheck]:
    """For each probe of one seed, in the model's language: does it ask the seed's question?
    ``context``: the rest of each probe's message (its story), where a question that says "it"
    may name the topic. ``margin``: the language's unless given."""
    lang = model.language
    margin = lang.margin if margin is None else margin
    masked = [mask_topic(t, topic, everyday, lang.code) for t in [seed, *probes]]
    vectors = model.embedder.embed(masked)
    scores = model.scores_of(vectors)
    seed_aspect = aspect_of_qtype(qtype) or model.names[int(scores[0].argmax())]
    own = model.names.index(seed_aspect)
    to_seed = vectors[1:] @ vectors[0]  # the seed is one more wording of its own aspect
    results = []
    for index, probe in enumerate(probes):
        row = scores[index + 1].copy()
        row[own] = max(row[own], float(to_seed[index]))
        best = int(row.argmax())
        probe_aspect = model.names[best]
        reason = None
        story = (context or [""] * len(probes))[index]
        if topic and not names_topic(probe, topic, everyday, lang.code):
            if not (story and names_topic(story, topic, everyday, lang.code) and lang.pronoun.search(probe)):
                reason = f"does not name the seed's topic ({topic})"
        if reason is None:
            reason = pattern_drift(masked[0], masked[index + 1], seed_aspect, lang.drift)
        if reason is None and best != own and row[own] < row[best] - margin:
            reason = f"asks about {probe_aspect.replace('_', ' ')}, not {seed_aspect.replace('_', ' ')}"
        elif reason is None and row[own] < lang.floor:
            aspect = seed_aspect.replace("_", " ")
            reason = f"does not clearly ask about {aspect} ({row[own]:.2f} < {lang.floor})"
        results.append(MeaningCheck(reason is None, reason, seed_aspect, probe_aspect))
    return results


def seed_aspect(model: AspectModel, source) -> str:
    """What a single-QAP source's question asks about its topic."""
    known = aspect_of_qtype(source.qtype)
    if known:
        return known
    scores = model.scores([mask_topic(source.questions[0], source.topic, language=model.language.code)])
    return model.names[int(scores[0].argmax())]


def drift_reasons(
    model: AspectModel,
    seed: str,
    topic: str | None,
    qtype: str | None,
    everyday: dict[str, str],
    probes: list[str],
    story_names_topic: bool = False,
) -> list[str | None]:
    """Why each probe of one seed does not ask the seed's question (``None``: it does).
    ``story_names_topic``: the story put before the question will name the topic, so "Is it
    passed down in the family?" may say "it"."""
    context = [topic or ""] * len(probes) if story_names_topic else None
    return [c.reason for c in check_meaning(model, seed, probes, topic, qtype, everyday, context)]


def names_topic_of(question: str, topic: str | None, everyday: dict[str, str], language: str = "en") -> bool:
    """The question names its topic (no story has to name it first)."""
    return not topic or names_topic(question, topic, everyday, language)


def drift_reasons_in_messages(
    model: AspectModel,
    seed: str,
    topic: str | None,
    qtype: str | None,
    everyday: dict[str, str],
    messages: list[str],
) -> list[str | None]:
    """Why each whole message does not ask the seed's question (``None``: it does). A message
    shaped like a real one asks it around a story, perhaps beside another question, so it asks
    it when one of its sentences does (or the whole message, a subject line with the body);
    the message must name the topic somewhere."""
    reasons: list[str | None] = []
    for message in messages:
        if not model.language.asks.search(message):
            reasons.append("asks nothing (no question or request in it)")
            continue
        if topic and not names_topic(message, topic, everyday, model.language.code):
            reasons.append(f"does not name the seed's topic ({topic})")
            continue
        parts = [s for s in split_sentences(message) if len(s.split()) >= 3]
        parts = [*parts, " ".join(message.split())]
        checks = check_meaning(model, seed, parts, topic, qtype, everyday, [message] * len(parts))
        reasons.append(None if any(c.kept for c in checks) else checks[-1].reason)
    return reasons
