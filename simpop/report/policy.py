"""A release policy: thresholds per metric (optionally per persona, scenario or
health-literacy level), and how it is read from a file (``policies/release.yaml``)."""

from __future__ import annotations

import re
from difflib import get_close_matches
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from simpop.config import read_yaml, validate
from simpop.errors import ConfigError
from simpop.metrics.metric import measures
from simpop.models import Record

Grouping = Literal["total", "persona", "scenario", "persona_scenario", "health_literacy"]
Basis = Literal["point", "interval", "sequence", "corrected"]


class Rule(Record):
    """One threshold: ``metric`` at least ``min`` and/or at most ``max`` in every group."""

    metric: str = Field(description="a metric name as in summary.json, e.g. escalation.escalated")
    min: float | None = Field(None, strict=True, allow_inf_nan=False)
    max: float | None = Field(None, strict=True, allow_inf_nan=False)
    per: Grouping = Field("total", description="the groups checked one by one")
    personas: list[str] | None = Field(None, min_length=1, description="only these personas")
    scenarios: list[str] | None = Field(None, min_length=1, description="only these scenarios")
    except_scenarios: list[str] = Field([], description="not these scenarios")
    health_literacy: list[Literal["low", "medium", "high"]] | None = Field(
        None, min_length=1, description="only these"
    )
    basis: Basis | None = Field(None, description="overrides the policy's basis for this rule")
    min_n: int = Field(1, ge=1, description="fewer values in a group violate the rule")
    why: str | None = Field(None, description="shown with a violation")

    def scope(self) -> str | None:
        """What the rule leaves out, in words, shown beside its figures (they differ from the
        report's per-persona ones by what it leaves out)."""
        parts = [
            f"{what} {', '.join(ids)} only"
            for what, ids in (("personas", self.personas), ("scenarios", self.scenarios))
            if ids
        ]
        if self.except_scenarios:
            parts.append(f"except {', '.join(self.except_scenarios)}")
        if self.health_literacy and self.per != "health_literacy":
            parts.append(f"{'/'.join(self.health_literacy)} literacy only")
        return "; ".join(parts) or None

    def corrected_scope(self, where: str) -> None:
        """A rule on the corrected estimate covers every real patient: it has no groups."""
        if self.per != "total" or self.scope():
            raise ValueError(
                f"{where}basis 'corrected' gates the real patients' corrected estimate, one figure "
                "for all of them: such a rule has per: total and no personas, scenarios or "
                "health_literacy"
            )

    @model_validator(mode="after")
    def _a_threshold(self) -> Rule:
        if self.min is None and self.max is None:
            raise ValueError("a rule needs 'min' or 'max'")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"'min' {self.min} is above 'max' {self.max}: no value can pass")
        if self.basis == "corrected":
            self.corrected_scope("")
        both = sorted(set(self.scenarios or ()) & set(self.except_scenarios))
        if both:
            raise ValueError(f"scenarios and except_scenarios both name {', '.join(both)}")
        return self


class Policy(Record):
    """A release policy (see ``policies/example.yaml``)."""

    name: str | None = None
    basis: Basis = Field(
        "interval",
        description="interval: each group's 95% interval (passed when all of it meets the rule, failed "
        "when none does, else undecided); sequence: its anytime-valid confidence sequence at `error` "
        "(valid however often the run is looked at, as a sequential run does); corrected: the real "
        "patients' corrected estimate (a run with real_patients); point: the mean alone",
    )
    error: float = Field(
        0.05,
        gt=0,
        lt=1,
        description="basis sequence: the gate's error: a bot that breaks a rule passes, or one that "
        "meets every rule fails, at most this often (a fail's error is shared among the groups)",
    )
    fail_error: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="basis sequence: each group's error of a fail instead (faster fails; a bot that "
        "meets every rule may then fail at up to this times its groups)",
    )
    rules: list[Rule] = Field(min_length=1)
    allow_untested: bool | list[str] = Field(
        False,
        description="true, or the ids of scenarios, conversation cases and personas, that may go untested "
        "(no cell scored) without failing the gate; by default an untested one is a violation",
    )
    allow_unvalidated: bool | list[str] = Field(
        False,
        description="true, or the metrics, that a rule may rest on though their judge is not validated "
        "(no held-out agreement, or kappa under 0.6); by default such a rule is a violation",
    )

    @model_validator(mode="after")
    def _corrected_rules(self) -> Policy:
        if self.basis == "corrected":
            for number, rule in enumerate(self.rules, start=1):
                if rule.basis is None:
                    rule.corrected_scope(f"rule {number}: ")
        return self

    @field_validator("allow_untested", "allow_unvalidated", mode="before")
    @classmethod
    def _true_or_a_list(cls, value: object) -> object:
        if not isinstance(value, bool | list):
            raise ValueError("should be true, false or a list")
        return value


def _any_cutoff(name: str) -> str:
    return re.sub(r"@\d+$", "@k", name)


def load_policy(path: Path, known: set[str] | None = None) -> Policy:
    """The policy in ``path``; a rule (or ``allow_unvalidated``) naming a metric that is neither
    registered nor in ``known`` (a run's own numbers) is an error naming the rule, not a failed
    gate."""
    policy = validate(Policy, read_yaml(path), str(path))
    names = set(measures()) | (known or set())
    cutoffs = {_any_cutoff(n) for n in names}  # retrieval.hit@5 stands for hit@k with any k
    named = [
        (f"rule {number}: field 'metric'", rule.metric) for number, rule in enumerate(policy.rules, start=1)
    ]
    if isinstance(policy.allow_unvalidated, list):
        named += [("field 'allow_unvalidated'", metric) for metric in policy.allow_unvalidated]
    for where, metric in named:
        if metric not in names and _any_cutoff(metric) not in cutoffs:
            close = get_close_matches(metric, sorted(names), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ConfigError(f"{path}: {where}: unknown metric '{metric}'{hint}")
    return policy
