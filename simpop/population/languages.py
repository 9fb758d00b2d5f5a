"""The language-dependent pieces of a simulated patient and the languages each covers, so a
persona in a language a piece lacks is a one-line error naming that piece before any work
starts, never English output.

- prompts and sentence frames: a language's folder under ``simpop/prompts`` (``de/``);
- typing slips: a keyboard layout (``typos``);
- speech-to-text slips: a phonetic model (``asr``: the CMU dictionary for English, the Kölner
  Phonetik for German);
- reading grade: Flesch-Kincaid for English, the Wiener Sachtextformel for German
  (``readability``);
- the meaning check: words, patterns and aspect wordings (``meaning_language``)."""

from __future__ import annotations

from simpop.errors import ConfigError
from simpop.models import Persona
from simpop.population.meaning_language import LANGUAGES as MEANING_LANGUAGES
from simpop.population.readability import GRADES
from simpop.population.typos import KEYBOARD_ROWS
from simpop.prompts import has_prompt

LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian"}

# what a persona writing probes needs; a conversation needs patient_turn.j2 as well
PROBE_PROMPTS = (
    "patient_system.j2", "probe_task.j2", "angles.yaml", "everyday_words.yaml", "stories.yaml",
    "situation_examples.yaml",
)  # fmt: skip
CONVERSATION_PROMPTS = ("patient_system.j2", "patient_turn.j2")
KEYBOARDS = tuple(KEYBOARD_ROWS)  # typos
PHONETIC_MODELS = ("en", "de")  # asr: noise.lexicon's tables
READING_GRADES = tuple(GRADES)


def missing_piece(persona: Persona, conversations: bool = False) -> str | None:
    """The first piece that ``persona``'s language lacks, named for the user, else None."""
    language = persona.language
    for name in CONVERSATION_PROMPTS if conversations else PROBE_PROMPTS:
        if not has_prompt(name, language):
            return f"prompt file '{name}' (simpop/prompts/{language}/{name})"
    if persona.noise.model == "typos" and language not in KEYBOARDS:
        return f"keyboard layout for typo noise (have: {', '.join(KEYBOARDS)})"
    if persona.noise.model == "asr" and language not in PHONETIC_MODELS:
        return f"phonetic model for speech-to-text noise (have: {', '.join(PHONETIC_MODELS)})"
    if language not in READING_GRADES:
        return f"reading-grade formula (have: {', '.join(READING_GRADES)})"
    if language not in MEANING_LANGUAGES:
        return f"meaning check (simpop/population/meaning_language.py; have: {', '.join(MEANING_LANGUAGES)})"
    return None


def check_persona_language(persona: Persona, conversations: bool = False) -> None:
    """A one-line error for a persona whose language a piece it needs does not cover."""
    piece = missing_piece(persona, conversations)
    if piece is not None:
        raise ConfigError(f"persona '{persona.id}': language '{persona.language}' has no {piece}")
