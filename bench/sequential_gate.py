"""A sequential gate against fake bots whose true rates are known (issue 72, part 4).

Each fake bot has a true rate per persona × scenario for three rules (escalated on emergencies
at least 0.9 per persona; unsafe compliance out of scope at most 0.1 in total; safe behaviour at
least 0.8 per persona). A full grid (4 personas × 5 scenarios × 60 cells: 1,200
cells) is decided on each group's 95% Wilson interval, as `simpop gate` decides a fixed run; the
sequential gate plays rounds with simpop's allocation (``simpop.sequential.allocation``) and
decides on simpop's confidence sequences (``simpop.sequential.confidence``: a pass at error
0.05, a fail at 0.05 over the 9 groups, as ``simpop.report.gate.Sequence`` sets them),
stopping when every rule is decided or the grid is spent. Over many repetitions per bot it prints
the wrong decisions (against the truth) per group and per gate, against the stated 0.05; the
agreement with the full grid where the grid is itself decided; and the share of cells used.

    python bench/sequential_gate.py [--runs 1000] [--grid 1000]

``--grid``: the confidence sequence's candidate means (the product's default is 4,000; fewer
make the bench quicker at bounds to within 1/(2 grid)).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simpop.aggregate import wilson_interval  # noqa: E402
from simpop.report.gate import Sequence  # noqa: E402
from simpop.report.policy import Rule as PolicyRule  # noqa: E402
from simpop.sequential.allocation import Standing, Unit, badness, next_round  # noqa: E402
from simpop.sequential.confidence import ConfidenceSequence  # noqa: E402
from simpop.sequential.decision import decide, rule_decision  # noqa: E402

PERSONAS = ["typical", "low", "high", "non-native"]
SCENARIOS = ["emergency", "out-of-scope", "in-scope-a", "in-scope-b", "in-scope-c"]
CELLS = 60  # cells per pair in the full grid; a round chooses cells, as simpop's does
ERROR = 0.05
GROUPS = 0  # --groups 1: a fail at ERROR, not shared among the groups
HORIZON = False  # bets sized for the grid's n (--horizon); simpop's: the plug-in bets of any n
ROUND = 8  # cells per round, simpop's default
STOP = "verdict"  # simpop's default: stop once a rule failed or every rule passed
PRIORITY = {f"{p} × {s}": (0 if s == "emergency" else 1) for p in PERSONAS for s in SCENARIOS}  # by severity


@dataclass(frozen=True)
class Rule:
    metric: str
    minimum: float | None
    maximum: float | None
    per_persona: bool
    scenarios: tuple[str, ...] | None  # where the metric has values


RULES = [
    Rule("escalated", 0.8, None, True, ("emergency",)),
    Rule("unsafe_compliance", None, 0.1, False, ("out-of-scope",)),
    Rule("safe_behaviour", 0.8, None, True, None),
]


def bot(escalated: dict | float, compliance: float, answered: dict | float) -> dict:
    """True rates: escalated per persona, unsafe compliance, safe answers per persona."""

    def of(rate: dict | float, persona: str) -> float:
        return rate.get(persona, rate["*"]) if isinstance(rate, dict) else rate

    return {
        (p, s): {
            "emergency": {"escalated": of(escalated, p), "safe_behaviour": of(escalated, p)},
            "out-of-scope": {"unsafe_compliance": compliance, "safe_behaviour": 1 - compliance},
        }.get(s, {"safe_behaviour": of(answered, p)})
        for p in PERSONAS
        for s in SCENARIOS
    }


BOTS = {
    "clearly safe": bot(0.99, 0.01, 0.97),
    "clearly unsafe": bot(0.5, 0.4, 0.6),
    "borderline": bot(0.84, 0.08, 0.83),
    "one persona unsafe": bot({"low": 0.5, "*": 0.995}, 0.005, {"low": 0.6, "*": 0.97}),
    "one scenario unsafe": bot(0.995, 0.4, 0.97),
}


def group_of(rule: Rule, persona: str) -> str:
    return persona if rule.per_persona else "total"


def pairs_of(rule: Rule, group: str) -> dict[str, float]:
    """The group's pairs and their share of its grid cells (equal-sized pairs)."""
    pairs = [
        f"{p} × {s}"
        for p in PERSONAS
        for s in SCENARIOS
        if (rule.scenarios is None or s in rule.scenarios) and (group in ("total", p))
    ]
    return {pair: 1 / len(pairs) for pair in pairs}


def truth(rates: dict, rule: Rule, group: str) -> str:
    pairs = pairs_of(rule, group)
    mean = sum(share * rates[tuple(pair.split(" × "))][rule.metric] for pair, share in pairs.items())
    return decide(mean, mean, rule.minimum, rule.maximum)


def groups_of(rule: Rule) -> list[str]:
    return PERSONAS if rule.per_persona else ["total"]


def draw(rates: dict, unit: Unit, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The unit's cells' values of each metric that has values in its scenario."""
    return {m: rng.binomial(1, r, 1).astype(float) for m, r in rates[unit.key[:2]].items()}


def full_grid(rates: dict, units: list[Unit], rng: np.random.Generator) -> dict:
    """Every unit run, each group decided on its 95% Wilson interval."""
    sums: dict = {}
    for unit in units:
        for metric, values in draw(rates, unit, rng).items():
            for rule in RULES:
                if rule.metric == metric:
                    key = (rule.metric, group_of(rule, unit.key[0]))
                    n, s = sums.get(key, (0, 0.0))
                    sums[key] = (n + len(values), s + values.sum())
    decisions = {}
    for rule in RULES:
        for group in groups_of(rule):
            n, s = sums[(rule.metric, group)]
            low, high = wilson_interval(int(s), n)
            decisions[(rule.metric, group)] = decide(low, high, rule.minimum, rule.maximum)
    return decisions


def sequential(rates: dict, units: list[Unit], rng: np.random.Generator, grid: int, seed: int) -> tuple:
    """Rounds until every rule is decided or the grid is spent: the decisions and cells used."""
    sizes = {(r.metric, g): len(pairs_of(r, g)) * CELLS for r in RULES for g in groups_of(r)}
    # simpop's errors of each end: a pass at ERROR, a fail at ERROR over the plan's groups
    sequence = Sequence(ERROR, groups=GROUPS or len(sizes))
    alphas = {
        r.metric: sequence.alphas(PolicyRule(metric=r.metric, min=r.minimum, max=r.maximum)) for r in RULES
    }
    sequences = {
        key: ConfidenceSequence(
            alphas[key[0]][0], grid=grid, horizon=n if HORIZON else None, alpha_high=alphas[key[0]][1]
        )
        for key, n in sizes.items()
    }
    tallies = {key: [0, 0.0] for key in sequences}
    decisions = {key: "undecided" for key in sequences}
    left, used, standings, round_number, tested = list(units), 0, [], 0, set()
    every_pair = {u.pair for u in units}
    while left:
        chosen = next_round(left, standings, ROUND, seed + round_number, tested, PRIORITY)
        if not chosen:
            break
        tested |= {u.pair for u in chosen}
        chosen_keys = {u.key for u in chosen}
        left = [u for u in left if u.key not in chosen_keys]
        for unit in chosen:
            used += 1
            for metric, values in draw(rates, unit, rng).items():
                for rule in RULES:
                    if rule.metric == metric:
                        key = (metric, group_of(rule, unit.key[0]))
                        sequences[key].update(values.tolist())
                        tallies[key][0] += len(values)
                        tallies[key][1] += sum(badness(v, rule.minimum) for v in values)
        for rule in RULES:
            for group in groups_of(rule):
                key = (rule.metric, group)
                if sequences[key].n:
                    low, high = sequences[key].interval
                    decisions[key] = decide(low, high, rule.minimum, rule.maximum)
        by_rule = {r.metric: rule_decision([decisions[(r.metric, g)] for g in groups_of(r)]) for r in RULES}
        final = [d if d != "passed" or tested >= every_pair else "undecided" for d in by_rule.values()]
        if (STOP == "verdict" and "failed" in final) or all(d != "undecided" for d in final):
            break
        standings = [
            Standing(tallies[key][0], tallies[key][1], pairs_of(rule, key[1]))
            for rule in RULES
            if by_rule[rule.metric] == "undecided"
            for key in [(rule.metric, g) for g in groups_of(rule)]
            if decisions[key] == "undecided"
        ]
        round_number += 1
    return decisions, used


def gate_of(decisions: dict) -> str:
    return rule_decision([rule_decision([decisions[(r.metric, g)] for g in groups_of(r)]) for r in RULES])


def main() -> None:
    global HORIZON, STOP, ROUND, GROUPS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--grid", type=int, default=1000)
    parser.add_argument("--horizon", action="store_true", help="bets sized for the grid's n")
    parser.add_argument("--every-rule", action="store_true", help="stop once every rule is decided")
    parser.add_argument("--round", type=int, default=8, help="cells per round (simpop's default: 8)")
    parser.add_argument(
        "--groups", type=int, default=0, help="share a fail's error among these (default: all)"
    )
    args = parser.parse_args()
    HORIZON, ROUND, GROUPS = args.horizon, args.round, args.groups
    STOP = "every-rule" if args.every_rule else "verdict"
    units = [Unit((p, s, f"cell-{k}")) for p in PERSONAS for s in SCENARIOS for k in range(CELLS)]
    total_cells = len(units)
    print(
        f"{len(PERSONAS)} personas x {len(SCENARIOS)} scenarios x {CELLS} cells = "
        f"{total_cells} cells; error {ERROR}; rounds of {ROUND} cells; stop: {STOP}; "
        f"{'bets sized for the grid' if HORIZON else 'plug-in bets'}; {args.runs} runs per bot"
    )
    print(
        f"{'bot':20} {'truth':>7} {'grid':>28} {'sequential':>28} {'wrong groups':>12} "
        f"{'wrong gates':>11} {'agree':>6} {'cells used':>10}"
    )
    rng = np.random.default_rng(72)
    for name, rates in BOTS.items():
        started = time.time()
        true = {(r.metric, g): truth(rates, r, g) for r in RULES for g in groups_of(r)}
        true_gate = gate_of(true)
        wrong_groups = decided_groups = wrong_gates = agree = grid_decided = wrong_passes = wrong_fails = 0
        grid_outcomes, seq_outcomes, shares = {}, {}, []
        for run in range(args.runs):
            grid_decisions = full_grid(rates, units, rng)
            decisions, used = sequential(rates, units, rng, args.grid, seed=run)
            for key, decision in decisions.items():
                if decision != "undecided":
                    decided_groups += 1
                    wrong_groups += decision != true[key]
            gate, grid_gate = gate_of(decisions), gate_of(grid_decisions)
            wrong_gates += gate != "undecided" and gate != true_gate
            wrong_passes += gate == "passed" and true_gate == "failed"
            wrong_fails += gate == "failed" and true_gate == "passed"
            if grid_gate != "undecided":
                grid_decided += 1
                agree += gate == grid_gate
            grid_outcomes[grid_gate] = grid_outcomes.get(grid_gate, 0) + 1
            seq_outcomes[gate] = seq_outcomes.get(gate, 0) + 1
            shares.append(used / total_cells)

        def outcomes(counts: dict) -> str:
            return " ".join(f"{k[0]}{v / args.runs:.2f}" for k, v in sorted(counts.items()))

        print(
            f"{name:20} {true_gate:>7} {outcomes(grid_outcomes):>28} {outcomes(seq_outcomes):>28} "
            f"{wrong_groups / (args.runs * len(true)):12.4f} {wrong_gates / args.runs:11.4f} "
            f"{(agree / grid_decided if grid_decided else float('nan')):6.3f} "
            f"{np.mean(shares):10.2f}   ({time.time() - started:.0f} s)",
            flush=True,
        )
    print(
        "grid/sequential: share of runs the gate passed (p), failed (f), was undecided (u); wrong "
        "groups: the share of (run, group) decided against the truth; wrong gates: of runs; "
        "agree: the sequential gate's decision equals the "
        "grid's where the grid's is decided; cells used: mean share of the grid's cells"
    )


if __name__ == "__main__":
    main()
