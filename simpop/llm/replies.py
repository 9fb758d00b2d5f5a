"""What an LLM reply says: a structured reply's schema and validity, a one-token yes/no
reply's probability of yes (from its first token's log-probabilities)."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

TOP_LOGPROBS = 10  # first-token alternatives asked for: enough for yes/Yes/YES and no/No/NO
YES_WORDS = frozenset({"yes", "true"})
NO_WORDS = frozenset({"no", "false"})
NO_LOGPROBS = ""  # an endpoint's reply without log-probabilities (never cached)
LOGPROB_PROBES = 3  # replies without log-probabilities, in a row from the first, before the fallback
NEITHER = "-"  # cached when neither yes nor no was among the alternatives


@lru_cache(maxsize=None)
def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The request's ``response_format`` asking for a reply that matches ``schema``."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
    }


def yes_probability(first_token: list[tuple[str, float]]) -> float | None:
    """P(yes) from a one-token answer's alternatives (token, log-probability): the yes tokens'
    probability mass over the yes and no tokens' mass, whatever their case and spacing; None
    when neither is among them."""
    mass = {True: 0.0, False: 0.0}
    for token, logprob in first_token:
        word = token.strip().lower()
        if word in YES_WORDS or word in NO_WORDS:
            mass[word in YES_WORDS] += math.exp(logprob)
    total = mass[True] + mass[False]
    return mass[True] / total if total > 0 else None


def content(response: Any) -> str:
    """A reply's text."""
    return response.choices[0].message.content or ""


def yes_probability_text(response: Any) -> str:
    """P(yes) of a one-token reply as text for the cache."""
    logprobs = response.choices[0].logprobs
    if logprobs is None or not logprobs.content:
        return NO_LOGPROBS
    first = [(t.token, t.logprob) for t in logprobs.content[0].top_logprobs or []]
    if not first:
        first = [(logprobs.content[0].token, logprobs.content[0].logprob)]
    p = yes_probability(first)
    return NEITHER if p is None else repr(p)


def valid(schema: type[BaseModel], reply: str) -> bool:
    """Whether ``reply`` is JSON that matches ``schema``."""
    try:
        schema.model_validate_json(reply)
    except ValidationError:
        return False
    return True
