"""What the support verifier sees of a statement and the context it should rest on, beside the
judge's P(yes): how close it comes to the context in meaning (best cosine similarity of
all-MiniLM-L6-v2 embeddings to a context sentence, as HCAT's groundedness) and in words (share
of its content words in the context, fuzzy token overlap with the closest sentence), and the
two ways a close paraphrase still says something else — numbers the context does not have,
and a negation the closest sentence lacks (or the reverse)."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz

FEATURES = (
    "judge_p",
    "best_similarity",
    "top3_similarity",
    "word_overlap",
    "best_sentence_overlap",
    "unmatched_numbers",
    "negation_mismatch",
    "log_words",
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "without", "cannot", "neither"})


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def stem(word: str) -> str:
    """A crude stem: the first five letters, so 'infections' meets 'infection'."""
    return word[:5]


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (``stop_words.txt``: importing scikit-learn for them
    took 1.8 s of a cached re-run)."""
    return frozenset((Path(__file__).parent / "stop_words.txt").read_text(encoding="utf-8").split())


def content_stems(text: str) -> set[str]:
    skip = stop_words() | NEGATIONS
    return {stem(w) for w in words(text) if w not in skip and len(w) > 2}


def numbers(text: str) -> set[str]:
    return {n.replace(",", ".").rstrip("0").rstrip(".") or "0" for n in _NUMBER.findall(text)}


def negated(text: str) -> bool:
    return any(w in NEGATIONS or w.endswith("n't") for w in words(text))


def word_overlap(statement: str, context: str) -> float:
    """Share of the statement's content-word stems found in the context (1 when it has none)."""
    mine = content_stems(statement)
    return len(mine & content_stems(context)) / len(mine) if mine else 1.0


def unmatched_numbers(statement: str, context: str) -> float:
    """1 when the statement has a number the context does not, else 0."""
    return float(bool(numbers(statement) - numbers(context)))


def feature_row(
    statement: str,
    context: str,
    sentences: list[str],
    similarities: np.ndarray,
    judge_p: float,
) -> list[float]:
    """The features of one statement, in ``FEATURES`` order; ``similarities`` holds its cosine
    similarity to each of the context's ``sentences``."""
    order = np.argsort(-similarities)
    best = sentences[int(order[0])]
    return [
        judge_p,
        float(similarities[order[0]]),
        float(np.mean(similarities[order[:3]])),
        word_overlap(statement, context),
        fuzz.token_set_ratio(statement.lower(), best.lower()) / 100,
        unmatched_numbers(statement, context),
        float(negated(statement) != negated(best)),
        math.log1p(len(words(statement))),
    ]
