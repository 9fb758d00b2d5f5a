"""Question variants in a persona's voice (Reichenpfader et al., Algorithm 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model
from rapidfuzz import fuzz

from simpop.llm import LLMClient
from simpop.models import QAP, Persona
from simpop.prompts import load_prompt

LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian"}
NEAR_DUPLICATE = 90.0  # rapidfuzz ratio (0-100) at or above which two variants are one question

_NUMBERING = re.compile(r"^\s*(?:[-*\u2022]+|\(?\d+[.)\]:]|[a-z][.)])\s*", re.IGNORECASE)


@lru_cache(maxsize=None)
def variations_model(n: int) -> type[BaseModel]:
    """The reply schema: exactly ``n`` question strings."""
    question = Annotated[str, StringConstraints(min_length=1, max_length=400)]
    return create_model(
        "QuestionVariations",
        __config__=ConfigDict(extra="forbid"),
        questions=(list[question], Field(min_length=n, max_length=n)),
    )


def clean_variant(text: str) -> str:
    """Strip list numbering, bullets, quotes and surrounding blanks."""
    text = _NUMBERING.sub("", text.strip())
    return text.strip().strip("\"'\u201c\u201d").strip()


@dataclass(frozen=True)
class Variant:
    """One generated variation at its index; ``duplicate_of`` names the kept index it repeats."""

    index: int
    text: str | None
    duplicate_of: int | None = None


def deduplicate(texts: list[str], threshold: float = NEAR_DUPLICATE) -> list[Variant]:
    """Keep the first of exact and near duplicates (case-insensitive); blanks are kept as None."""
    kept: list[tuple[int, str]] = []
    result = []
    for index, raw in enumerate(texts):
        text = clean_variant(raw)
        if not text:
            result.append(Variant(index, None))
            continue
        folded = " ".join(text.lower().split())
        twin = next((i for i, k in kept if fuzz.ratio(folded, k) >= threshold), None)
        if twin is None:
            kept.append((index, folded))
        result.append(Variant(index, text, twin))
    return result


def variant_messages(persona: Persona, qap: QAP, n: int) -> list[dict[str, str]]:
    system = load_prompt("patient_system").render(
        vignette=persona.vignette.strip(),
        language_name=LANGUAGE_NAMES.get(persona.language, persona.language),
        language_level=persona.language_level,
        health_literacy=persona.health_literacy,
    )
    task = load_prompt("question_variants").render(question=qap.question, n=n)
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def prompt_id() -> str:
    """The versions of the prompts that produce variants, recorded on every probe."""
    return "+".join(load_prompt(name).id for name in ("patient_system", "question_variants"))


async def generate_variants(llm: LLMClient, persona: Persona, qap: QAP, n: int, seed: int) -> list[Variant]:
    """Exactly ``n`` variants of ``qap``'s question as ``persona`` would ask it."""
    reply = await llm.structured(variant_messages(persona, qap, n), variations_model(n), seed=seed)
    return deduplicate(reply.questions)
