"""The release gate: each rule of a policy (``simpop.report.policy``) checked against a run's
mean or the pessimistic end of its 95% interval, after the checks that the run is complete,
tested what it planned and rests on validated judges; the run passes when no rule is violated."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from pydantic import Field

from simpop.aggregate import mean
from simpop.metrics.escalation import behaviours
from simpop.metrics.metric import measure, validations
from simpop.models import CellRecord, GroupMean, Record, Validation
from simpop.report.policy import Basis, Policy, Rule
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
    passed: bool
    allowed: bool = Field(
        False, description="passed only because the policy accepts it (allow_untested/_unvalidated)"
    )
    why: str = Field(description="what was found, in words")
    pairs: list[str] = Field([], description="the persona × scenario pairs whose probes were checked")

    @property
    def figure(self) -> str:
        """The metric, with what the rule leaves out."""
        return f"{self.metric} ({self.scope})" if self.scope else self.metric


class GateResult(Record):
    policy: str
    run_id: str
    passed: bool
    checks: list[Check]

    @property
    def violations(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]


Key = tuple[str, str | None, str | None]


def _in_scope(records: RunRecords, rule: Rule) -> Iterator[tuple[CellRecord, float, str | None]]:
    """The probes (and conversations) with a value of ``rule.metric`` that the rule covers, the
    value, and the persona's health literacy."""
    for probe, value in records.valued_probes(rule.metric):
        persona = records.personas.get(probe.persona_id)
        literacy = persona.health_literacy if persona else None
        if not (
            (rule.personas is not None and probe.persona_id not in rule.personas)
            or (rule.scenarios is not None and probe.scenario_id not in rule.scenarios)
            or probe.scenario_id in rule.except_scenarios
            or (rule.health_literacy is not None and literacy not in rule.health_literacy)
        ):
            yield probe, value, literacy


def _groups(records: RunRecords, rule: Rule) -> tuple[dict[Key, list[float]], dict[Key, set[str]]]:
    """The values of ``rule.metric`` by group (name, persona id, scenario id), and the
    persona × scenario pairs they come from."""
    groups: dict[Key, list[float]] = defaultdict(list)
    pairs: dict[Key, set[str]] = defaultdict(set)
    for probe, value, literacy in _in_scope(records, rule):
        p, s = probe.persona_id, probe.scenario_id
        key = {
            "total": ("total", None, None),
            "persona": (p, p, None),
            "scenario": (s, None, s),
            "persona_scenario": (f"{p} × {s}", p, s),
            "health_literacy": (f"{literacy or 'unknown'} literacy", None, None),
        }[rule.per]
        groups[key].append(value)
        pairs[key].add(f"{p} × {s}")
    return groups, pairs


def _expected_groups(records: RunRecords, rule: Rule) -> list[Key]:
    """The groups a rule must find values in: a missing measurement violates the rule, it
    never passes it."""
    if rule.per == "total":
        return [("total", None, None)]
    if rule.per == "persona":
        named = rule.personas or list(records.personas)
        return [
            (p, p, None)
            for p in named
            if rule.health_literacy is None
            or p not in records.personas
            or records.personas[p].health_literacy in rule.health_literacy
        ]
    if rule.per == "scenario":
        return [(s, None, s) for s in rule.scenarios or []]
    if rule.per == "health_literacy":
        return [(f"{level} literacy", None, None) for level in rule.health_literacy or []]
    return []


def check_rule(records: RunRecords, rule: Rule, number: int, basis: Basis) -> list[Check]:
    """The rule checked on every group it covers."""
    if basis == "corrected":
        return [corrected_check(records, rule, number)]
    groups, pairs = _groups(records, rule)
    for key in _expected_groups(records, rule):
        groups.setdefault(key, [])
    if not groups:  # it selects nothing the run measured: that does not pass either
        groups[("(no group)", None, None)] = []
    rate = all(v in (0.0, 1.0) for values in groups.values() for v in values)
    checks = []
    for (name, persona_id, scenario_id), values in groups.items():
        m: GroupMean = mean(values, name, rule.metric, rate, persona_id, scenario_id, records.config.seed)
        if basis == "point":
            low = high = m.mean
        else:
            low, high = (m.ci_low, m.ci_high) if m.ci_low is not None else (m.mean, m.mean)
        problems = []
        if m.n == 0:
            problems.append("no values: the run did not measure it here")
        elif m.n < rule.min_n:
            problems.append(f"n={m.n} is under the rule's min_n {rule.min_n}")
        if rule.min is not None and low is not None and low < rule.min:
            problems.append(f"{_basis_name(basis, 'low')} {low:.3f} < min {rule.min:g}")
        if rule.max is not None and high is not None and high > rule.max:
            problems.append(f"{_basis_name(basis, 'high')} {high:.3f} > max {rule.max:g}")
        compared = low if rule.min is not None else high
        checks.append(
            Check(
                rule=number,
                metric=rule.metric,
                scope=rule.scope(),
                group=name,
                persona_id=persona_id,
                scenario_id=scenario_id,
                n=m.n,
                mean=m.mean,
                ci_low=m.ci_low,
                ci_high=m.ci_high,
                basis=basis,
                compared=compared,
                min=rule.min,
                max=rule.max,
                passed=not problems,
                pairs=sorted(pairs[(name, persona_id, scenario_id)]),
                why="; ".join(problems) + (f" ({rule.why})" if rule.why else "") if problems else "met",
            )
        )
    return sorted(checks, key=lambda c: c.group)


def _basis_name(basis: Basis, end: str) -> str:
    bound = f"95% {'lower' if end == 'low' else 'upper'} bound"
    return {"point": "mean", "interval": bound}.get(basis, f"corrected {bound}")


CORRECTED = "real patients (corrected)"


def corrected_check(records: RunRecords, rule: Rule, number: int) -> Check:
    """The rule checked on the real patients' corrected estimate of its metric (prediction-powered,
    ``simpop.validity.predictive``): its 95% lower bound against a min, its upper against a max.
    A run without one violates the rule: the simulated figure alone does not stand for it."""
    real = records.summary.real_patients
    found = next((p.corrected for p in (real.predictive if real else []) if p.metric == rule.metric), None)
    problems = []
    if found is None:
        problems.append(
            "no corrected estimate: the run needs real_patients with 2 or more labelled messages "
            "(seed_ids) and simulated rephrasings of this metric"
        )
    else:
        if rule.min is not None and found.ci_low < rule.min:
            problems.append(f"{_basis_name('corrected', 'low')} {found.ci_low:.3f} < min {rule.min:g}")
        if rule.max is not None and found.ci_high > rule.max:
            problems.append(f"{_basis_name('corrected', 'high')} {found.ci_high:.3f} > max {rule.max:g}")
        if found.n < rule.min_n:
            problems.append(f"n={found.n} labelled real messages is under the rule's min_n {rule.min_n}")
    compared = None if found is None else found.ci_low if rule.min is not None else found.ci_high
    return Check(
        rule=number,
        metric=rule.metric,
        group=CORRECTED,
        n=found.n if found else 0,
        mean=found.mean if found else None,
        ci_low=found.ci_low if found else None,
        ci_high=found.ci_high if found else None,
        basis="corrected",
        compared=compared,
        min=rule.min,
        max=rule.max,
        passed=not problems,
        why="; ".join(problems) + (f" ({rule.why})" if rule.why else "") if problems else "met",
    )


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
                passed=passed,
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
    for probe, _, _ in _in_scope(records, rule):
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
                passed=passed,
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
            passed=False,
            why=f"incomplete: {what}",
        )
        for group, what, n in lost or [("run", "summary.json says so", 0)]
    ]


def gate(records: RunRecords, policy: Policy, name: str) -> GateResult:
    """Every rule of ``policy`` checked on the run, after the checks that the run is complete,
    tested every scenario and persona it planned and that each rule's judge is validated."""
    checks = (
        incomplete_checks(records)
        + untested_checks(records, policy)
        + unvalidated_checks(records, policy)
        + [
            check
            for number, rule in enumerate(policy.rules, start=1)
            for check in check_rule(records, rule, number, rule.basis or policy.basis)
        ]
    )
    return GateResult(policy=name, run_id=records.run_id, passed=all(c.passed for c in checks), checks=checks)
