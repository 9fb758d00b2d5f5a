"""Judge profiles: per judge model, the threshold on P(yes) of each verdict, the support verifier
to use and the agreement with humans measured for it, so every judged figure can say how far
to trust it. Profiles are YAML files in ``profiles/``, chosen by the judge model's name."""

from __future__ import annotations

from fnmatch import fnmatch
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Protocol

from pydantic import Field, PrivateAttr, field_validator

from simpop.config import read_yaml, validate
from simpop.errors import ConfigError
from simpop.models import Record, Validation

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
LLM_VERDICTS = ("supported", "relevant", "addressed")  # decided by the LLM judge in every run
MIN_KAPPA = 0.6  # a judged figure whose judge agrees less with people is shown as not validated


class PeopleAgreement(Record):
    """A verdict's agreement with people, on labelled data the judge was not fitted or tuned on."""

    kappa: float = Field(ge=-1, le=1)
    kappa_interval: tuple[float, float] | None = None
    data: str = Field(description="the labelled data and how it was held out")


class HeldOutAgreement(Protocol):
    kappa: float
    kappa_interval: tuple[float, float] | None
    data: str


def validation(judge: str, held: HeldOutAgreement | None) -> Validation:
    """How far a figure ``judge`` decides can be trusted: validated by a held-out kappa of at
    least ``MIN_KAPPA`` with people; none measured (``held`` None) is not validated."""
    if held is None:
        return Validation(judge=judge, validated=False)
    return Validation(
        judge=judge,
        kappa=held.kappa,
        kappa_interval=held.kappa_interval,
        data=held.data,
        validated=held.kappa >= MIN_KAPPA,
    )


class JudgeProfile(Record):
    """What simpop knows about one judge model."""

    name: str
    models: list[str] = Field(description="judge model names it is for (shell-style patterns)")
    thresholds: dict[str, Annotated[float, Field(ge=0, le=1)]] = Field(
        {}, description="verdict → threshold on P(yes); 0.5 for a verdict not listed"
    )
    verifier: str | None = Field(None, description="support verifier file beside the profile")
    safety: dict[str, str] = Field(
        {}, description="verdict → safety classifier file beside the profile (decides it without an LLM call)"
    )
    agreement: str = Field(NOT_MEASURED, description="the measured agreement, as a reader sees it")
    held_out: dict[str, PeopleAgreement] = Field(
        {}, description="verdict → the LLM judge's held-out agreement with people (its weakest data set)"
    )
    _folder: Path = PrivateAttr(FOLDER)  # where its files are

    @field_validator("thresholds", "safety", "held_out")
    @classmethod
    def _known_verdicts(cls, value: dict[str, object]) -> dict[str, object]:
        unknown = next((verdict for verdict in value if verdict not in VERDICTS), None)
        if unknown is not None:
            raise ValueError(f"unknown verdict '{unknown}' (known: {', '.join(VERDICTS)})")
        return value

    def threshold(self, verdict: str) -> float:
        return self.thresholds.get(verdict, 0.5)

    def verifier_path(self) -> Path | None:
        return self._folder / self.verifier if self.verifier else None

    def safety_paths(self) -> dict[str, Path]:
        return {verdict: self._folder / file for verdict, file in self.safety.items()}

    def llm_validation(self) -> dict[str, Validation]:
        """Per verdict the LLM judge decides, its held-out agreement with people, or none (not
        validated: no human check)."""
        found = {}
        for verdict in LLM_VERDICTS:
            verifier = verdict == "supported" and self.verifier is not None
            judge = f"{'support verifier on the ' if verifier else ''}LLM judge, profile {self.name}"
            found[verdict] = validation(judge, self.held_out.get(verdict))
        return found


DEFAULT = JudgeProfile(name="uncalibrated", models=["*"])


def read_profile(file: Path) -> JudgeProfile:
    """One profile file, read within the YAML limits of a user's file; a bad field or a file it
    names that is not beside it is a ConfigError naming the profile and the field."""
    profile = validate(JudgeProfile, read_yaml(file), str(file))
    profile._folder = file.parent
    named = [("verifier", profile.verifier), *((f"safety.{v}", name) for v, name in profile.safety.items())]
    for field, name in named:
        if name is not None and not (file.parent / name).is_file():
            raise ConfigError(f"{file}: field '{field}': {file.parent / name}: file not found")
    return profile


@lru_cache(maxsize=4)
def profiles(folder: Path = FOLDER) -> tuple[JudgeProfile, ...]:
    """The profiles in ``folder`` (the built-in ones by default)."""
    return tuple(read_profile(file) for file in sorted(folder.glob("*.yaml")))


def profile_for(model: str) -> JudgeProfile:
    """The profile of judge ``model`` (its name, or a path ending in it): the first whose
    patterns match, else the uncalibrated default (threshold 0.5, no verifier)."""
    name = Path(model).name.removesuffix(".gguf").lower()
    for profile in profiles():
        if any(fnmatch(name, pattern.lower()) for pattern in profile.models):
            return profile
    return DEFAULT
