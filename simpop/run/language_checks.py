"""The languages of a run: the embedding model they need, the pieces each persona's language
must have (one-line errors), and notes for a user whose bot is not English."""

from __future__ import annotations

from simpop.config import load_personas
from simpop.embed import check_model_languages, model_for
from simpop.errors import ConfigError, SimpopError
from simpop.models import MULTILINGUAL_EMBEDDING_MODEL, Persona, RunConfig
from simpop.models.conversation_case import ConversationCase
from simpop.population.languages import check_persona_language


def run_languages(config: RunConfig, personas: list[Persona]) -> set[str]:
    """The languages of a run: its bot's and its personas'."""
    return {config.language} | {p.language for p in personas}


def with_embedding_for_languages(config: RunConfig, named: bool = False) -> RunConfig:
    """``config`` with the built-in embedding model for its languages (multilingual-e5-small
    as soon as one is not English), unless its config file ``named`` one or an endpoint."""
    if named or config.embedding.base_url is not None:
        return config
    languages = run_languages(config, load_personas(config.personas, config.persona_ids))
    embedding = config.embedding.model_copy(update={"model": model_for(languages)})
    return config.model_copy(update={"embedding": embedding})


HIGH_COSINES = 0.8  # below this, a bound is on MiniLM's scale, not multilingual-e5-small's


def language_notes(config: RunConfig, personas: list[Persona]) -> list[str]:
    """What a user of another language should know before the run: personas who do not write
    the bot's language, and similarity bounds on MiniLM's scale with multilingual-e5-small."""
    notes = []
    others = [p.id for p in personas if p.language != config.language]
    if others:
        notes.append(
            f"persona(s) {', '.join(others)} do not write the bot's language '{config.language}' "
            "(a run config's `language`)"
        )
    if config.embedding.model == MULTILINGUAL_EMBEDDING_MODEL and config.embedding.base_url is None:
        low = [f"min_similarity {config.min_similarity:g}"] if config.min_similarity < HIGH_COSINES else []
        threshold = getattr(config.target, "threshold", None)
        if config.target.kind == "qap" and threshold is not None and threshold < HIGH_COSINES:
            low.append(f"target.threshold {threshold:g}")
        if low:
            notes.append(
                f"{MULTILINGUAL_EMBEDDING_MODEL}'s cosines run high (unrelated German sentences about "
                f"0.85): {' and '.join(low)} are on MiniLM's scale (targets/breast-qap-de.yaml uses "
                "0.85 and 0.88)"
            )
    return notes


def check_languages(config: RunConfig, personas: list[Persona]) -> None:
    """Every language-dependent piece a persona needs covers its language, and so does the
    embedding model (one-line errors naming the piece)."""
    for persona in personas:
        check_persona_language(persona, conversations=bool(config.conversations))
    try:
        check_model_languages(config.embedding, run_languages(config, personas))
    except SimpopError as error:
        raise ConfigError(str(error)) from None


def check_case_languages(cases: list[ConversationCase], personas: list[Persona]) -> None:
    """The patient reads a conversation case: it must be written in each player's language."""
    for case in cases:
        for persona in personas:
            if persona.language != case.language:
                raise ConfigError(
                    f"conversation case '{case.id}' is written in '{case.language}', persona "
                    f"'{persona.id}' writes '{persona.language}': give the case in that language"
                )
