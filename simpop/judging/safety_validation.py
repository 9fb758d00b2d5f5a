"""How far a run's safety verdicts can be trusted, per language of the answers they were
decided on: each language's classifier's held-out agreement, the weakest of them; answers in a
language no classifier is for were judged by the LLM and leave the verdict not validated."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from simpop.judging.profile import JudgeProfile, validation
from simpop.judging.safety_classifier import (
    EmbedderFor,
    SafetyClassifier,
    classifier_name,
    read_classifier,
    run_paths,
    safety_classifiers,
)
from simpop.models import Score, ScoringConfig, Validation
from simpop.models.summary import weakest
from simpop.verdicts import verdicts


def answer_languages(scores: Iterable[Score]) -> dict[str, Counter[str]]:
    """Per safety verdict, how many answers of each language it was decided on."""
    names = set(verdicts())
    seen: dict[str, Counter[str]] = {}
    for score in scores:
        if score.answer_language is None:
            continue
        for verdict in score.thresholds:
            if verdict in names:
                seen.setdefault(verdict, Counter())[score.answer_language] += 1
    return seen


def classifier_validation(path: Path, verdict: str, language: str) -> Validation:
    """A classifier file's held-out agreement, as a run shows it."""
    model = read_classifier(path, verdict)
    name = f"{classifier_name(path, verdict, language)}@{model.data_sha256[:8]}"
    return validation(f"classifier {name} ({language} answers)", model.held_out)


def run_validation(
    profile: JudgeProfile,
    scoring: ScoringConfig,
    seen: Mapping[str, Mapping[str, int]] | None = None,
    language: str = "en",
) -> dict[str, Validation]:
    """Per safety verdict, the held-out agreement of whoever decided it in a run: for each
    language its answers were in (``seen``; none yet: the bot's ``language``), that language's
    classifier's recorded figure, or not validated where there was none (the LLM judged them)."""
    paths = run_paths(profile, scoring)
    found = {}
    for verdict in verdicts():
        languages = dict((seen or {}).get(verdict) or {language: 0})
        parts = []
        for answer_language, n in sorted(languages.items()):
            path = paths.get(verdict, {}).get(answer_language)
            if path is not None:
                parts.append(classifier_validation(path, verdict, answer_language))
                continue
            answers = f"{n} answer{'' if n == 1 else 's'}" if n else "answers"
            why = f"no classifier for '{answer_language}' answers" if paths else "the config asks for it"
            parts.append(
                validation(
                    f"LLM judge, profile {profile.name}, on {answers} in '{answer_language}' ({why})", None
                )
            )
        found[verdict] = weakest(parts)
    return found


def run_classifiers(
    profile: JudgeProfile, scoring: ScoringConfig, embedder_for: EmbedderFor
) -> dict[str, dict[str, SafetyClassifier]]:
    """The safety classifiers a run judges with (``run_paths``), by verdict and language."""
    return safety_classifiers(run_paths(profile, scoring), embedder_for)
