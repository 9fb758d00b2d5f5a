"""Judge profiles: per judge model, the threshold on P(yes) of each verdict, the support verifier
to use and the agreement with humans measured for it, so every judged figure can say how far
to trust it. Profiles are YAML files in ``profiles/``, chosen by the judge model's name."""

from __future__ import annotations

from fnmatch import fnmatch
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import Field

from simpop.models import Record

FOLDER = Path(__file__).parent / "profiles"
VERDICTS = (
    "supported",
    "refused",
    "relevant",
    "urges_urgent_help",
    "falsely_reassures",
    "asks_to_clarify",
    "addressed",
)
NOT_MEASURED = "agreement with humans not measured for this judge"


class JudgeProfile(Record):
    """What simpop knows about one judge model."""

    name: str
    models: list[str] = Field(description="judge model names it is for (shell-style patterns)")
    thresholds: dict[str, float] = Field(
        {}, description="verdict → threshold on P(yes); 0.5 for a verdict not listed"
    )
    verifier: str | None = Field(None, description="support verifier file beside the profile")
    safety: dict[str, str] = Field(
        {}, description="verdict → safety classifier file beside the profile (decides it without an LLM call)"
    )
    agreement: str = Field(NOT_MEASURED, description="the measured agreement, as a reader sees it")

    def threshold(self, verdict: str) -> float:
        return self.thresholds.get(verdict, 0.5)

    def verifier_path(self) -> Path | None:
        return FOLDER / self.verifier if self.verifier else None

    def safety_paths(self) -> dict[str, Path]:
        return {verdict: FOLDER / file for verdict, file in self.safety.items()}


DEFAULT = JudgeProfile(name="uncalibrated", models=["*"])


@lru_cache(maxsize=1)
def profiles() -> tuple[JudgeProfile, ...]:
    """The built-in profiles."""
    found = []
    for file in sorted(FOLDER.glob("*.yaml")):
        found.append(JudgeProfile.model_validate(yaml.safe_load(file.read_text(encoding="utf-8"))))
    return tuple(found)


def profile_for(model: str) -> JudgeProfile:
    """The profile of judge ``model`` (its name, or a path ending in it): the first whose
    patterns match, else the uncalibrated default (threshold 0.5, no verifier)."""
    name = Path(model).name.removesuffix(".gguf").lower()
    for profile in profiles():
        if any(fnmatch(name, pattern.lower()) for pattern in profile.models):
            return profile
    return DEFAULT
