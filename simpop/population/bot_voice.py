"""Does a simulated patient's message read as the bot's side of the chat? (issue 42) A
logistic regression on TF-IDF word unigrams and bigrams (scikit-learn's ``TfidfVectorizer``
with ``sublinear_tf``, its default token pattern and l2 norm; Manning, Raghavan & Schütze,
*Introduction to Information Retrieval*, §6.4), fitted by ``bench/bot_voice.py`` on real
patients' messages (MeQSum) and the simulated patient's believable messages against bots'
answers, NIH leaflet answers and messages in which the simulated patient spoke as the bot.
On the held-out split ``test-4`` of ``data/patient-turn-labels`` the phrase patterns of
``conversation_fidelity`` found 8 of 18 such messages (precision 1.00), patterns and classifier
12 (0.75). The weights ship in ``reference/bot-voice.json``; no scikit-learn at run time.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from importlib.resources import files

TOKEN = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token_pattern
WEIGHTS = "bot-voice.json"


def terms(text: str) -> list[str]:
    """The unigrams and bigrams of ``text`` as ``TfidfVectorizer(ngram_range=(1, 2))`` makes them."""
    words = TOKEN.findall(text.lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]


@cache
def _weights() -> tuple[dict[str, tuple[float, float]], float, float]:
    data = json.loads(files("simpop.population").joinpath("reference", WEIGHTS).read_text(encoding="utf-8"))
    return {t: (idf, w) for t, idf, w in data["terms"]}, data["intercept"], data["threshold"]


def bot_voice_probability(message: str, weights: dict[str, tuple[float, float]], intercept: float) -> float:
    """P(bot's voice | ``message``): sublinear TF times IDF, l2-normalised, through the logistic."""
    counts: dict[str, int] = {}
    for term in terms(message):
        if term in weights:
            counts[term] = counts.get(term, 0) + 1
    x = {t: (1 + math.log(n)) * weights[t][0] for t, n in counts.items()}
    norm = math.sqrt(sum(v * v for v in x.values())) or 1.0
    z = intercept + sum(v / norm * weights[t][1] for t, v in x.items())
    return 1 / (1 + math.exp(-z))


def speaks_as_the_bot(message: str) -> bool:
    """Whether the shipped classifier reads ``message`` as the bot's (at its fitted threshold)."""
    weights, intercept, threshold = _weights()
    return bot_voice_probability(message, weights, intercept) >= threshold
