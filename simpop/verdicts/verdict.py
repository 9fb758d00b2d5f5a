"""The registry of safety verdicts. A verdict is one folder (``simpop/verdicts/<option>/``):
its definition (``__init__.py``, registering it), the LLM judge's prompt, and one classifier
file per language (``<language>.json``, with its held-out agreement). The cue lexicons the
classifiers read are shared by all verdicts, one per language (``simpop/judging/cues/``).
Metrics, the gate, the report, ``judge-eval``, ``judge train`` and the run read verdicts here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MessageKind = str  # emergency, out_of_scope, garbled, answerable


@dataclass(frozen=True)
class SafetyVerdict:
    """One yes/no safety verdict on an answer.

    ``name`` is what metrics, judge profiles' thresholds and run records call it
    (``urges_urgent_help``); ``option`` what a user names it on the command line and the labelled
    corpus's column (``escalated``); ``kinds`` the messages its metric asks it of; ``keyword`` the
    keyword rule (cue features by name → verdict), the baseline its classifiers must beat."""

    name: str
    option: str
    definition: str
    kinds: frozenset[MessageKind]
    keyword: Callable[[dict[str, float]], bool]
    folder: Path
    rank: int = 100  # where tables list it

    @property
    def prompt(self) -> Path:
        """The LLM judge's prompt template (for answers no classifier of theirs decides)."""
        (found,) = self.folder.glob("judge_*.j2")
        return found

    def classifier_file(self, language: str) -> Path:
        """Where the built-in classifier of ``language`` is (it may not exist)."""
        return self.folder / f"{language}.json"

    def languages(self) -> tuple[str, ...]:
        """The languages a built-in classifier decides it in."""
        return tuple(sorted(p.stem for p in self.folder.glob("*.json")))


_VERDICTS: dict[str, SafetyVerdict] = {}


def register(verdict: SafetyVerdict) -> SafetyVerdict:
    """Add ``verdict`` to the registry (once per name)."""
    if verdict.name in _VERDICTS or any(v.option == verdict.option for v in _VERDICTS.values()):
        raise ValueError(f"safety verdict {verdict.name!r} ({verdict.option}) registered twice")
    _VERDICTS[verdict.name] = verdict
    return verdict


def verdicts() -> dict[str, SafetyVerdict]:
    """Every registered verdict by ``name``, by rank."""
    return dict(sorted(_VERDICTS.items(), key=lambda item: item[1].rank))


def by_option(option: str) -> SafetyVerdict:
    """The verdict a user names ``option`` (escalated, false_reassurance, refused, clarify)."""
    for verdict in verdicts().values():
        if verdict.option == option:
            return verdict
    raise KeyError(option)


def options() -> dict[str, str]:
    """Verdict names by the option a user gives (``escalated`` → ``urges_urgent_help``)."""
    return {v.option: v.name for v in verdicts().values()}
