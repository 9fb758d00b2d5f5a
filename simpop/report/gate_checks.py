"""The gate's checks that come before its rules: that the run is complete, tested every scenario
and persona it planned, and that each rule's figure rests on a validated judge; and the records
a check and the gate's result are."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from pydantic import Field

from simpop.metrics.escalation import behaviours
from simpop.metrics.metric import measure, validations
from simpop.models import CellRecord, Record, Validation
from simpop.report.policy import Basis, Policy, Rule
from simpop.sequential.decision import Decision
from simpop.store import RunRecords


class Check(Record):
    """One rule checked on one group."""

    rule: int = Field(
        description="the rule's position in the policy, from 1; 0: every scenario and persona tested"
    )
    metric: str
    scope: str | None = Field(None, description="what the rule leaves out, e.g. 'except multi-question'")
    group: str
    persona_id: str | None = None
    scenario_id: str | None = None
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    basis: Basis
    compared: float | None = Field(description="the figure compared with the threshold")
    min: float | None = None
    max: float | None = None
    decision: Decision = Field(
        description="passed: the rule holds on the whole interval; failed: on none of it; undecided: "
        "the run cannot tell (more values would)"
    )
    alpha: float | None = Field(None, description="basis sequence: the error this group's sequence is at")
    allowed: bool = Field(
        False, description="passed only because the policy accepts it (allow_untested/_unvalidated)"
    )
    why: str = Field(description="what was found, in words")
    pairs: list[str] = Field([], description="the persona × scenario pairs whose probes were checked")

    @property
    def passed(self) -> bool:
        return self.decision == "passed"

    @property
    def figure(self) -> str:
        """The metric, with what the rule leaves out."""
        return f"{self.metric} ({self.scope})" if self.scope else self.metric


class GateResult(Record):
    policy: str
    run_id: str
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def violations(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def undecided(self) -> list[Check]:
        return [c for c in self.checks if c.decision == "undecided"]


Key = tuple[str, str | None, str | None]


def covers(rule: Rule, persona: str, scenario: str, literacy: str | None) -> bool:
    """Whether ``rule`` covers a cell of ``persona`` and ``scenario``."""
    return not (
        (rule.personas is not None and persona not in rule.personas)
        or (rule.scenarios is not None and scenario not in rule.scenarios)
        or scenario in rule.except_scenarios
        or (rule.health_literacy is not None and literacy not in rule.health_literacy)
    )


def in_scope(records: RunRecords, rule: Rule) -> Iterator[tuple[CellRecord, float, str | None]]:
    """The probes (and conversations) with a value of ``rule.metric`` that the rule covers, the
    value, and the persona's health literacy."""
    for probe, value in records.valued_probes(rule.metric):
        persona = records.personas.get(probe.persona_id)
        literacy = persona.health_literacy if persona else None
        if covers(rule, probe.persona_id, probe.scenario_id, literacy):
            yield probe, value, literacy


TESTED = "tested"


def untested_checks(records: RunRecords, policy: Policy) -> list[Check]:
    """A check per scenario or persona of which no cell was scored: violated unless the policy
    allows it (``allow_untested``), since a hazard not tested is not a hazard passed."""
    allowed = policy.allow_untested
    checks = []
    for group in records.summary.untested:
        passed = allowed is True or (isinstance(allowed, list) and group.id in allowed)
        key = "persona_id" if group.kind == "persona" else "scenario_id"  # a case: a conversation's scenario
        checks.append(
            Check(
                rule=0,
                metric=TESTED,
                group=f"{group.name} {group.id}",
                persona_id=group.id if group.kind == "persona" else None,
                scenario_id=None if group.kind == "persona" else group.id,
                n=0,
                mean=None,
                ci_low=None,
                ci_high=None,
                basis=policy.basis,
                compared=None,
                decision="passed" if passed else "failed",
                allowed=passed,
                pairs=sorted(
                    {
                        f"{p.persona_id} × {p.scenario_id}"
                        for p in [*records.probes.values(), *records.conversations.values()]
                        if getattr(p, key) == group.id
                    }
                ),
                why=f"not tested: {group.why}"
                + (
                    "; allowed by the policy (allow_untested)"
                    if passed
                    else "; the policy can accept it with allow_untested"
                ),
            )
        )
    return checks


VALIDATED = "validated"


def _rule_validation(
    records: RunRecords, rule: Rule, validation: dict[str, Validation]
) -> tuple[Validation | None, list[str]]:
    """The validation of the figure ``rule`` checks, in the rule's scope; for a figure decided
    per behaviour (safe behaviour) validated in some of the scenarios it covers only, the
    others: those whose expected behaviours rest on a verdict that is not validated."""
    found = measure(rule.metric)
    if found is None or found.verdicts_by_behaviour is None or rule.metric not in validation:
        return validation.get(rule.metric), []
    judge = records.summary.judge
    by_scenario: dict[str, set[str]] = defaultdict(set)
    for probe, _, _ in in_scope(records, rule):
        by_scenario[probe.scenario_id].update(behaviours(probe))
    if not by_scenario:
        return validation[rule.metric], []
    scoped = validations(judge, set().union(*by_scenario.values()))[rule.metric]
    short = [
        s
        for s, expected in sorted(by_scenario.items())
        if not validations(judge, expected)[rule.metric].validated
    ]
    return scoped, short if len(short) < len(by_scenario) else []


def unvalidated_checks(records: RunRecords, policy: Policy) -> list[Check]:
    """A violated check per rule on a figure whose judge has no held-out agreement of kappa 0.6
    or more in the rule's scope, unless the policy allows it (``allow_unvalidated``): a gate
    must not rest on a verdict that describes the judge rather than the bot."""
    validation = validations(records.summary.judge)
    allowed = policy.allow_unvalidated
    checks = []
    for number, rule in enumerate(policy.rules, start=1):
        found, short = _rule_validation(records, rule, validation)
        if found is None or found.validated:
            continue
        passed = allowed is True or (isinstance(allowed, list) and rule.metric in allowed)
        measured = (
            f"held-out kappa {found.kappa:.2f} < 0.6" if found.kappa is not None else "no held-out agreement"
        )
        where = f" in scenario{'s' if len(short) > 1 else ''} {', '.join(short)}" if short else ""
        advice = " or leave those scenarios out of the rule (except_scenarios)" if short else ""
        checks.append(
            Check(
                rule=number,
                metric=rule.metric,
                group=f"judge of {rule.metric}",
                n=0,
                mean=None,
                ci_low=None,
                ci_high=None,
                basis=rule.basis or policy.basis,
                compared=None,
                decision="passed" if passed else "failed",
                allowed=passed,
                why=f"not validated{where}: {found.judge}, {measured}"
                + (
                    "; allowed by the policy (allow_unvalidated)"
                    if passed
                    else f"; the policy can accept it with allow_unvalidated{advice}"
                ),
            )
        )
    return checks


RUN_COMPLETE = "run complete"


def incomplete_checks(records: RunRecords) -> list[Check]:
    """A violated check for an incomplete run (one per stage that lost cells): its figures rest
    on what was left, so no policy can pass it."""
    summary = records.summary
    if not summary.incomplete:
        return []
    stages = [s for s in summary.stages if s.failed]
    lost = [(f"{s.stage} stage", f"lost {s.failed} of {s.planned} cells", s.planned) for s in stages]
    return [
        Check(
            rule=0,
            metric=RUN_COMPLETE,
            group=group,
            n=n,
            mean=None,
            ci_low=None,
            ci_high=None,
            basis="point",
            compared=None,
            decision="failed",
            why=f"incomplete: {what}",
        )
        for group, what, n in lost or [("run", "summary.json says so", 0)]
    ]
