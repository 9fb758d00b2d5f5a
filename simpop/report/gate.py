"""The release gate: each rule of a policy (``simpop.report.policy``) decided on a run's figures
(an interval for each: the 95% interval, an anytime-valid confidence sequence, or the real
patients' corrected estimate; or the mean alone), after the checks that the run is complete,
tested what it planned and rests on validated judges. A rule is passed where the whole interval
meets it, failed where none of it does, and undecided in between (issue 72); the run passes
when every check passed."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from simpop.aggregate import mean
from simpop.errors import SimpopError
from simpop.models import GroupMean
from simpop.report.gate_checks import (
    Check,
    GateResult,
    Key,
    covers,
    in_scope,
    incomplete_checks,
    untested_checks,
    unvalidated_checks,
)
from simpop.report.policy import Basis, Policy, Rule
from simpop.sequential.confidence import confidence_sequence
from simpop.sequential.decision import Decision, decide, still_needs
from simpop.sequential.rounds import ROUNDS_FILE, rounds_of
from simpop.store import RunRecords

Order = dict[str, int]  # a sequential run's cells: the round that chose each


@dataclass(frozen=True)
class Sequence:
    """How basis sequence decides: at ``error`` for a pass, at ``error / groups`` for a fail
    (``groups``: every group of every such rule, so a bot that meets every rule fails at most at
    ``error`` too); a sequential run's values in ``order``, and whether its plan has cells left."""

    error: float = 0.05
    groups: int = 1
    order: Order | None = None
    left: bool = False
    fail_error: float | None = None  # each group's error of a fail, not shared

    def alphas(self, rule: Rule) -> tuple[float, float]:
        """The errors of the sequence's lower and upper ends for ``rule``."""
        fail = self.fail_error if self.fail_error is not None else self.error / max(self.groups, 1)
        if rule.min is not None and rule.max is not None:
            return fail, fail
        return (self.error, fail) if rule.min is not None else (fail, self.error)


def _key(rule: Rule, persona: str, scenario: str, literacy: str | None) -> Key:
    """The group of a rule a cell of ``persona`` and ``scenario`` falls in."""
    return {
        "total": ("total", None, None),
        "persona": (persona, persona, None),
        "scenario": (scenario, None, scenario),
        "persona_scenario": (f"{persona} × {scenario}", persona, scenario),
        "health_literacy": (f"{literacy or 'unknown'} literacy", None, None),
    }[rule.per]


def planned_groups(policy: Policy, cells: list[tuple[str, str, str | None]]) -> int:
    """The groups the rules on basis sequence can have in a plan of (persona, scenario,
    literacy) cells: fixed before any value is seen, as a sequential run's errors must be."""
    return sum(
        len({_key(rule, *cell) for cell in cells if covers(rule, *cell)})
        for rule in policy.rules
        if (rule.basis or policy.basis) == "sequence"
    )


def _groups(
    records: RunRecords, rule: Rule, order: Order | None = None
) -> tuple[dict[Key, list[tuple[tuple[int, str], float]]], dict[Key, set[str]]]:
    """The values of ``rule.metric`` by group (name, persona id, scenario id), each with its
    place in a confidence sequence's order (the round that chose its cell, then the cell id:
    fixed before the value is seen), and the persona × scenario pairs they come from."""
    order = order or {}
    groups: dict[Key, list[tuple[tuple[int, str], float]]] = defaultdict(list)
    pairs: dict[Key, set[str]] = defaultdict(set)
    for probe, value, literacy in in_scope(records, rule):
        p, s = probe.persona_id, probe.scenario_id
        key = _key(rule, p, s, literacy)
        groups[key].append(((order.get(probe.cell_id, 0), probe.cell_id), value))
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


def rule_groups(
    records: RunRecords, rule: Rule, order: Order | None = None
) -> tuple[dict[Key, list[tuple[tuple[int, str], float]]], dict[Key, set[str]]]:
    """Every group a rule is checked on, with its values (none where the run measured none)."""
    groups, pairs = _groups(records, rule, order)
    for key in _expected_groups(records, rule):
        groups.setdefault(key, [])
    if not groups:  # it selects nothing the run measured: that does not pass either
        groups[("(no group)", None, None)] = []
    return groups, pairs


def check_rule(
    records: RunRecords, rule: Rule, number: int, basis: Basis, sequence: Sequence = Sequence()
) -> list[Check]:
    """The rule decided on every group it covers (with basis sequence as ``sequence`` says; in a
    sequential run whose plan has cells left, a group with no value yet is undecided)."""
    if basis == "corrected":
        return [corrected_check(records, rule, number)]
    groups, pairs = rule_groups(records, rule, sequence.order)
    rate = all(v in (0.0, 1.0) for values in groups.values() for _, v in values)
    checks = []
    for (name, persona_id, scenario_id), keyed in groups.items():
        values = [v for _, v in sorted(keyed)]
        m: GroupMean = mean(values, name, rule.metric, rate, persona_id, scenario_id, records.config.seed)
        low, high = _bounds(m, values, basis, sequence.alphas(rule))
        decision, why = _decision(m, low, high, rule, basis, sequence)
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
                ci_low=low if basis == "sequence" else m.ci_low,
                ci_high=high if basis == "sequence" else m.ci_high,
                basis=basis,
                compared=low if rule.min is not None else high,
                min=rule.min,
                max=rule.max,
                decision=decision,
                alpha=sequence.error if basis == "sequence" else None,
                pairs=sorted(pairs[(name, persona_id, scenario_id)]),
                why=why,
            )
        )
    return sorted(checks, key=lambda c: c.group)


def _decision(
    m: GroupMean, low: float | None, high: float | None, rule: Rule, basis: Basis, sequence: Sequence
) -> tuple[Decision, str]:
    """A group's decision on its interval, and what was found, in words."""
    decision: Decision = "failed" if m.n == 0 or low is None else decide(low, high, rule.min, rule.max)
    problems = []
    if m.n == 0 and sequence.left:
        decision = "undecided"
        problems.append("undecided: no values yet: the sequential run stopped before its cells")
    elif m.n == 0:
        problems.append("no values: the run did not measure it here")
    elif decision == "failed":
        assert low is not None and high is not None
        if rule.min is not None and high < rule.min:
            problems.append(f"{_bound_name(basis, 'high')} {high:.3f} < min {rule.min:g}")
        if rule.max is not None and low > rule.max:
            problems.append(f"{_bound_name(basis, 'low')} {low:.3f} > max {rule.max:g}")
    elif decision == "undecided":
        assert low is not None and high is not None
        problems.append(_undecided(m, basis, low, high, rule, sequence.error))
    if m.n and m.n < rule.min_n:
        decision = "failed" if decision == "failed" else "undecided"
        problems.append(f"n={m.n} is under the rule's min_n {rule.min_n}")
    why = "; ".join(problems) + (f" ({rule.why})" if rule.why else "") if problems else "met"
    if decision == "passed" and basis == "point" and m.ci_low is not None:
        shown = decide(m.ci_low, m.ci_high, rule.min, rule.max)  # type: ignore[arg-type]
        if shown != "passed":
            why = f"met by the mean only: its 95% interval {m.ci_low:.3f}–{m.ci_high:.3f} does not show it"
    return decision, why


def _bounds(
    m: GroupMean, values: list[float], basis: Basis, alphas: tuple[float, float]
) -> tuple[float | None, float | None]:
    """The interval a rule is decided on: the mean twice (point), the 95% interval, or the
    confidence sequence's interval, its ends at ``alphas`` (for values in [0, 1])."""
    if m.mean is None:
        return None, None
    if basis == "point":
        return m.mean, m.mean
    if basis == "sequence":
        if not all(0.0 <= v <= 1.0 for v in values):
            raise SimpopError(
                f"metric '{m.metric}' has values outside [0, 1]: basis 'sequence' bounds means of "
                "values in [0, 1] only (use basis: interval for it)"
            )
        return confidence_sequence(values, alphas[0], alpha_high=alphas[1])
    return (m.ci_low, m.ci_high) if m.ci_low is not None else (m.mean, m.mean)


def _undecided(m: GroupMean, basis: Basis, low: float, high: float, rule: Rule, alpha: float | None) -> str:
    assert m.mean is not None
    what = "confidence sequence" if basis == "sequence" else "95% interval"
    thresholds = " and ".join(
        f"{side} {value:g}" for side, value in (("min", rule.min), ("max", rule.max)) if value is not None
    )
    needs = still_needs(m.mean, m.n, rule.min, rule.max, alpha if basis == "sequence" else None)
    return f"undecided: its {what} {low:.3f}–{high:.3f} spans {thresholds}; {needs}"


def _bound_name(basis: Basis, end: str) -> str:
    if basis == "point":
        return "mean"
    bound = f"{'lower' if end == 'low' else 'upper'} bound"
    return {"interval": f"95% {bound}", "sequence": f"confidence sequence's {bound}"}.get(
        basis, f"corrected 95% {bound}"
    )


CORRECTED = "real patients (corrected)"


def corrected_check(records: RunRecords, rule: Rule, number: int) -> Check:
    """The rule decided on the real patients' corrected estimate of its metric (prediction-powered,
    ``simpop.validity.predictive``) and its 95% interval. A run without one fails the rule: the
    simulated figure alone does not stand for it."""
    real = records.summary.real_patients
    found = next((p.corrected for p in (real.predictive if real else []) if p.metric == rule.metric), None)
    problems = []
    decision: Decision = "failed"
    if found is None:
        problems.append(
            "no corrected estimate: the run needs real_patients with 2 or more labelled messages "
            "(seed_ids) and simulated rephrasings of this metric"
        )
    else:
        decision = decide(found.ci_low, found.ci_high, rule.min, rule.max)
        if decision == "failed":
            if rule.min is not None and found.ci_high < rule.min:
                problems.append(f"{_bound_name('corrected', 'high')} {found.ci_high:.3f} < min {rule.min:g}")
            if rule.max is not None and found.ci_low > rule.max:
                problems.append(f"{_bound_name('corrected', 'low')} {found.ci_low:.3f} > max {rule.max:g}")
        elif decision == "undecided":
            problems.append(
                f"undecided: the corrected 95% interval {found.ci_low:.3f}–{found.ci_high:.3f} spans the "
                "threshold; more labelled real messages would narrow it"
            )
        if found.n < rule.min_n:
            decision = "failed" if decision == "failed" else "undecided"
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
        decision=decision,
        why="; ".join(problems) + (f" ({rule.why})" if rule.why else "") if problems else "met",
    )


def sequential_policy(policy: Policy, error: float, fail_error: float | None = None) -> Policy:
    """The policy as a sequential run decides it: every rule on its confidence sequence at
    ``error`` (a fixed interval looked at after every round would not hold its 95%), but a rule
    on the real patients' corrected estimate."""
    rules = [r if r.basis == "corrected" else r.model_copy(update={"basis": None}) for r in policy.rules]
    return policy.model_copy(
        update={"basis": "sequence", "error": error, "fail_error": fail_error, "rules": rules}
    )


def run_order(records: RunRecords) -> tuple[Order | None, bool, int | None]:
    """A sequential run's cells by the round that chose them (``rounds.jsonl``; None for another
    run), whether its plan has cells it did not run (it stopped, or stopped for now, first), and
    its plan's groups (``planned_groups``)."""
    chosen = [r for r in rounds_of(records.directory / ROUNDS_FILE) if r.stage == "chosen"]
    if not chosen:
        return None, False, None
    left = max(r.planned for r in chosen) > max(r.cells for r in chosen)
    return {unit[2]: r.round for r in chosen for unit in r.units}, left, chosen[0].groups


def gate(records: RunRecords, policy: Policy, name: str) -> GateResult:
    """Every rule of ``policy`` checked on the run, after the checks that the run is complete,
    tested every scenario and persona it planned and that each rule's judge is validated. A
    sequential run (one with rounds) is decided as it was run: on confidence sequences, its
    values in the order its rounds chose them."""
    order, left, groups = run_order(records)
    gate_config = records.config.gate
    if order is not None and gate_config is not None and gate_config.sequential:
        policy = sequential_policy(policy, gate_config.error, gate_config.fail_error)
    if groups is None:  # a finished run of fixed size: the groups it has
        groups = sum(
            len(rule_groups(records, rule)[0])
            for rule in policy.rules
            if (rule.basis or policy.basis) == "sequence"
        )
    sequence = Sequence(policy.error, groups, order, left, policy.fail_error)
    checks = (
        incomplete_checks(records)
        + untested_checks(records, policy)
        + unvalidated_checks(records, policy)
        + [
            check
            for number, rule in enumerate(policy.rules, start=1)
            for check in check_rule(records, rule, number, rule.basis or policy.basis, sequence)
        ]
    )
    return GateResult(policy=name, run_id=records.run_id, checks=checks)
