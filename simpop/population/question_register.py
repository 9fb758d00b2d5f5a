"""Which of the LLM's wordings a persona would use: the question itself carries the persona.

The writer is asked for three times as many questions as cells and writes a spread of
wordings; asked in the prompt for plainer or more precise words, the built-in 1.5B wrote
questions of the same reading grade at every health-literacy level (issue 41: low 3.1,
medium 3.2, high 4.0). So each persona keeps the usable wordings nearest its register:

- low health literacy: the lowest reading grade (``readability``: Flesch-Kincaid, or the
  Wiener Sachtextformel for German) first;
- high health literacy: the highest first;
- a learner (CEFR A1-B1): the lowest estimated CEFR level first (English); in a language
  without a CEFR estimate, the lowest reading grade first;
- the others: those nearest the middle grade of the candidates first.

A language without a reading-grade formula keeps the order written.
"""

from __future__ import annotations

import statistics

from simpop.models import Persona
from simpop.population.language_level import level_score
from simpop.population.message_style import LEARNER_LEVELS
from simpop.population.readability import GRADES, reading_grade


def register_order(
    texts: list[str | None], persona: Persona, grades: list[float | None] | None = None
) -> list[float]:
    """A sort key per candidate: lower is nearer the persona's register (0 everywhere where
    no register applies, so the order written stays). ``grades``: the candidates' reading
    grades where the fidelity checks computed them already."""
    language = persona.language
    if language not in GRADES:
        return [0.0] * len(texts)
    learner = persona.language_level in LEARNER_LEVELS
    if learner and language == "en":
        levels = [level_score(t) if t else None for t in texts]
        return [level if level is not None else 99.0 for level in levels]
    if grades is None:
        grades = [reading_grade(t, language) if t else None for t in texts]
    known = [g for g in grades if g is not None]
    if not known:
        return [0.0] * len(texts)
    if persona.health_literacy == "low" or learner:
        return [g if g is not None else 99.0 for g in grades]
    if persona.health_literacy == "high":
        return [-g if g is not None else 99.0 for g in grades]
    middle = statistics.median(known)
    return [abs(g - middle) if g is not None else 99.0 for g in grades]
