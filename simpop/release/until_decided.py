"""A run that stops once its release decision is made (issue 72): the plan's cells are run in
rounds (a round's new cells of one persona, scenario and seed are written by one LLM call);
after each round the policy is decided on every rule group's confidence sequence
(``simpop.report.gate``, a sequential run's basis), and the next round goes where the decision
is still open (``simpop.sequential.allocation``). The run stops once the gate's outcome is known
(a rule failed, or every rule passed with every pair tested; ``stop: every-rule``: once each
rule is passed or failed), or when the budget (cells, minutes) or the plan is spent.

Each round's cells are recorded (``rounds.jsonl``) before any of them is run, and each rule's
standing once the round is decided, so a killed run resumes the round it was in and then chooses
the same next rounds from the same records: the same cells, the same decision."""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, replace

from rich.progress import Progress

from simpop.llm.client import yes_no_mode
from simpop.models import RunConfig, RunSummary
from simpop.report.gate import gate, planned_groups, sequential_policy
from simpop.report.gate_checks import GateResult
from simpop.report.policy import Policy
from simpop.run.assembly import RunParts, run_parts
from simpop.run.execute import explain_shown, run_stages, summary_of
from simpop.run.invocations import Invocations
from simpop.run.plan import RunInputs
from simpop.sequential.allocation import Standing, Unit, badness, next_round
from simpop.sequential.decision import rule_decision
from simpop.sequential.rounds import ROUNDS_FILE, GateRound, RuleStanding, chosen_units, in_order, rounds_log
from simpop.store import SUMMARY_FILE, RunStore, load_run


def standings(result: GateResult, policy: Policy) -> list[RuleStanding]:
    """Each rule's decision after a round, from its groups' checks."""
    found = []
    for number, rule in enumerate(policy.rules, start=1):
        checks = [c for c in result.checks if c.rule == number and c.metric == rule.metric]
        found.append(
            RuleStanding(
                rule=number,
                metric=rule.metric,
                decision=rule_decision([c.decision for c in checks]),
                n=sum(c.n for c in checks),
                undecided=[c.group for c in checks if c.decision == "undecided"],
                failed=[c.group for c in checks if c.decision == "failed"],
                bounds={
                    c.group: (c.ci_low, c.ci_high)
                    for c in checks
                    if c.ci_low is not None and c.ci_high is not None
                },
            )
        )
    return found


def open_groups(result: GateResult, policy: Policy, grid: Counter[str]) -> list[Standing]:
    """The undecided groups of the undecided rules, for the next round's allocation: their
    values so far, and their pairs' shares of the plan's cells."""
    open_rules = {s.rule for s in standings(result, policy) if s.decision == "undecided"}
    found = []
    for check in result.checks:
        if check.rule in open_rules and check.decision == "undecided" and check.mean is not None:
            rule = policy.rules[check.rule - 1]
            total = sum(grid[p] for p in check.pairs) or 1
            bad = check.n * badness(check.mean, rule.min)
            found.append(Standing(check.n, bad, {p: grid[p] / total for p in check.pairs}))
    return found


SEVERITY = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def decided(last: GateRound, stop: str, every_pair_tested: bool) -> bool:
    """Whether the run may stop after ``last``: once a rule failed (``stop: verdict``) or every
    rule is failed or passed; a rule passes only once every pair of the plan was tested."""
    found = [s.decision if s.decision != "passed" or every_pair_tested else "undecided" for s in last.rules]
    if stop == "verdict" and "failed" in found:
        return True
    return all(d != "undecided" for d in found)


@dataclass(frozen=True)
class Plan:
    """What a sequential run chooses its rounds from, fixed before the first: the plan's cells
    (as units), each pair's cells, and each pair's rank by its scenario's (or case's) severity."""

    units: list[Unit]
    grid: Counter[str]
    priority: dict[str, int]

    @classmethod
    def of(cls, inputs: RunInputs) -> Plan:
        units = [
            Unit((c.persona_id, c.scenario_id, c.cell_id)) for c in [*inputs.cells, *inputs.conversations]
        ]
        severity = {sid: s.severity for sid, s in inputs.scenarios.items()}
        severity |= {cid: case.severity for cid, case in inputs.cases.items()}
        priority = {u.pair: SEVERITY[severity[u.key[1]]] for u in units if u.key[1] in severity}
        return cls(units, Counter(u.pair for u in units), priority)


async def execute_until_decided(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    policy: Policy,
    name: str,
    *,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> RunSummary:
    """Run ``config`` in rounds until ``policy`` is decided (or the budget is spent) and write
    ``summary.json`` of the cells it ran."""
    assert config.gate is not None and config.gate.sequential
    plan = Plan.of(inputs)
    log = rounds_log(store.directory / ROUNDS_FILE)
    parts: RunParts | None = None
    invocations = Invocations(
        store,
        usage=lambda: parts.llm.usage if parts is not None else None,
        yes_no=lambda: yes_no_mode(parts.judge_llm) if parts is not None else None,
    )
    ran = _restricted(inputs, chosen_units(in_order(log)))
    result: GateResult | None = None  # the last round's gate (resumed: read from the records)
    with invocations:
        with progress if progress is not None else nullcontext():
            async with run_parts(store, config, use_cache, inputs.languages) as parts:
                while True:
                    history = in_order(log)
                    if not history or history[-1].stage == "decided":
                        if history and result is None:
                            result = last_gate(store, policy, name)
                        seconds = invocations.seconds(invocations.this(False))
                        new = next_units(config, plan, history, seconds, policy, result)
                        if not new:
                            break
                        log.append(
                            GateRound(
                                round=history[-1].round + 1 if history else 0,
                                stage="chosen",
                                units=[u.key for u in new],
                                cells=len(chosen_units(history)) + len(new),
                                planned=len(plan.units),
                                groups=None if history else plan_groups_of(inputs, policy, config.gate.error),
                            )
                        )
                        continue
                    ran = _restricted(inputs, chosen_units(history))
                    await run_stages(store, config, ran, parts, progress)
                    this = invocations.this(False)
                    store.write(SUMMARY_FILE, summary_of(store, config, ran, parts, invocations, this))
                    result = last_gate(store, policy, name)
                    log.append(
                        GateRound(
                            round=history[-1].round,
                            stage="decided",
                            cells=len(chosen_units(history)),
                            rules=standings(result, policy),
                            seconds=round(invocations.seconds(this), 1),
                        )
                    )
                await explain_shown(config, ran, parts, progress)
        this = invocations.this(finished=True)
        summary = summary_of(store, config, ran, parts, invocations, this)
        store.write(SUMMARY_FILE, summary)
        invocations.end(this)
    return summary


def plan_groups_of(inputs: RunInputs, policy: Policy, error: float) -> int:
    """The rule groups the plan can have, as the sequential run decides the policy."""
    literacy = {p.id: p.health_literacy for p in inputs.personas}
    cells = [
        (c.persona_id, c.scenario_id, literacy.get(c.persona_id))
        for c in [*inputs.cells, *inputs.conversations]
    ]
    return planned_groups(sequential_policy(policy, error), cells)


def last_gate(store: RunStore, policy: Policy, name: str) -> GateResult:
    """The policy decided on the records on disk (a sequential run's: on its sequences)."""
    return gate(load_run(store.directory), policy, name)


def next_units(
    config: RunConfig,
    plan: Plan,
    history: list[GateRound],
    seconds: float,
    policy: Policy,
    result: GateResult | None,
) -> list[Unit]:
    """The next round's cells: none once the run may stop (decided, the budget or the plan
    spent); untested pairs first, then where the decision is open (``result``, the last round's)."""
    assert config.gate is not None
    budget = config.gate.budget
    chosen = chosen_units(history)
    room = (budget.cells or len(plan.units)) - len(chosen)
    tested = {u.pair for u in chosen}
    if (history and decided(history[-1], config.gate.stop, tested >= set(plan.grid))) or room <= 0:
        return []
    if budget.minutes is not None and seconds >= budget.minutes * 60:
        return []
    taken = set(chosen)
    left = [u for u in plan.units if u not in taken]
    still_open = open_groups(result, policy, plan.grid) if result is not None else []
    size, seed = config.gate.round_units, config.seed + len(history)
    return next_round(left, still_open, size, seed, tested, plan.priority)[:room]


def _restricted(inputs: RunInputs, units: list[Unit]) -> RunInputs:
    """The run's inputs with the cells and conversations of ``units`` only (in the plan's order)."""
    keys = {u.key[2] for u in units}
    cells = [c for c in inputs.cells if c.cell_id in keys]
    return replace(inputs, cells=cells, conversations=[c for c in inputs.conversations if c.cell_id in keys])
