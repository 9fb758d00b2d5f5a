"""Real patients' messages as scaffolds of simulated ones (issue 71, retrieve-and-edit): a probe of
the real-shaped population is written from the seed's question and one real message that asks
something like it, so it takes that message's shape (a subject line, a story around the question,
several questions, the condition named late or as "this", misspellings, a closing) while it asks
the seed's question.

The scaffolds are MeQSum's (Ben Abacha and Demner-Fushman, ACL 2019; CC BY 4.0,
``reference/meqsum.jsonl``) dev half, split by message: its test half is never shown to the LLM,
so a bench can measure on it (``bench/predictive_validity.py``). English only."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from simpop.errors import ConfigError
from simpop.models import Persona
from simpop.population.message_style import register
from simpop.population.readability import reading_grade

POOL_FILE = Path(__file__).parent / "reference" / "meqsum.jsonl"
LANGUAGES = ("en",)
NEAREST = 8  # scaffolds whose question is nearest the seed's; the persona's register picks among them
SHOWN = 2  # real messages shown before a group's task
# reading grades of a register's scaffolds (MeQSum's messages: median grade 8)
GRADES = {"learner": (-99.0, 7.0), "plain": (-99.0, 7.0), "standard": (5.0, 11.0), "formal": (9.0, 99.0)}


def in_test_half(key: str) -> bool:
    """Whether a real message (by its id) is in the test half that nothing is tuned on."""
    return hashlib.sha256(f"simpop-split:{key}".encode()).digest()[0] % 2 == 0


@dataclass(frozen=True)
class Scaffold:
    """A real message and the question it asks (its expert summary)."""

    id: str
    message: str
    asks: str
    grade: float


@lru_cache(maxsize=1)
def pool() -> tuple[Scaffold, ...]:
    """The dev half's messages, as scaffolds."""
    rows = [json.loads(line) for line in POOL_FILE.read_text(encoding="utf-8").splitlines() if line]
    return tuple(
        Scaffold(r["id"], r["message"].strip(), r["summary"].strip(), reading_grade(r["message"]) or 0.0)
        for r in rows
        if not in_test_half(r["id"])
    )


@lru_cache(maxsize=1)
def pool_version() -> str:
    """The scaffolds' version (recorded in a probe's prompt id)."""
    return hashlib.sha256(POOL_FILE.read_bytes()).hexdigest()[:8]


@lru_cache(maxsize=1)
def _index():
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    return vectorizer, vectorizer.fit_transform([s.asks for s in pool()])


@lru_cache(maxsize=4096)
def nearest(question: str, k: int = NEAREST) -> tuple[Scaffold, ...]:
    """The ``k`` scaffolds whose question is nearest ``question`` by TF-IDF cosine of words and
    word pairs ("who makes", "treatment for"): the same kind of question, often on a nearby
    condition. Lexical, so the plan knows each cell's prompt without an embedding model."""
    vectorizer, matrix = _index()
    similarities = (matrix @ vectorizer.transform([question]).T).toarray().ravel()
    order = np.argsort(-similarities, kind="stable")[:k]
    return tuple(pool()[i] for i in order)


def check_scaffold_language(persona: Persona) -> None:
    """A one-line error for a persona whose language has no scaffolds."""
    if persona.language not in LANGUAGES:
        raise ConfigError(
            f"persona '{persona.id}': field 'language': the real-shaped population has real "
            f"messages to write from in {', '.join(LANGUAGES)} only, not '{persona.language}' "
            "(use `population: rephrase` for it)"
        )


def scaffolds_for(question: str, persona: Persona, seed: int, k: int = SHOWN) -> tuple[Scaffold, ...]:
    """The ``k`` scaffolds of one group of probes: among the nearest to its seed question, ones in
    the persona's register (by reading grade; any of them where too few are), drawn by the
    group's ``seed``."""
    check_scaffold_language(persona)
    near = nearest(question)
    low, high = GRADES[register(persona)]
    fitting = [s for s in near if low <= s.grade <= high]
    if len(fitting) < k:
        fitting += [s for s in near if s not in fitting][: k - len(fitting)]
    return tuple(random.Random(seed).sample(fitting, k))
