"""Two runs side by side: each metric's change per persona, per scenario and in total, with a
paired test on the probes both runs asked (the same cell with the same question text):
McNemar's exact test for rates, a paired bootstrap for means. A significant change for the
worse is flagged as a regression."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from pydantic import Field
from scipy.stats import binomtest

from simpop.metrics import higher_is_better, worse
from simpop.models import Record
from simpop.store import RunRecords

ALPHA = 0.05
# a bootstrap of fewer pairs has too few distinct resamples to give a p-value
MIN_BOOTSTRAP_PAIRS = 5


class Change(Record):
    """One metric in one group of probes, in run A and run B."""

    metric: str
    group: str
    n_a: int = Field(description="probes of run A with a value")
    n_b: int
    mean_a: float | None = Field(description="over the paired probes when there are pairs, else over all")
    mean_b: float | None
    pairs: int = Field(description="probes with a value in both runs, asked with the same text")
    difference: float | None = Field(description="paired mean of B - A (unpaired when no pairs)")
    ci_low: float | None = Field(None, description="95% interval of the paired difference")
    ci_high: float | None = None
    test: str | None = Field(None, description="mcnemar-exact | paired-bootstrap")
    discordant: tuple[int, int] | None = Field(None, description="rates: pairs 1→0 and 0→1")
    p_value: float | None = None
    regression: bool = Field(False, description="significantly worse in B")
    improvement: bool = False

    @property
    def n(self) -> tuple[int, int]:
        """The probes each mean is over: the pairs where there are any, else each run's own."""
        return (self.pairs, self.pairs) if self.pairs else (self.n_a, self.n_b)

    @property
    def how(self) -> str:
        """The test, or why there is none."""
        return self.test or ("too few pairs" if self.pairs else "unpaired")


class Comparison(Record):
    run_a: str
    run_b: str
    paired_probes: int
    alpha: float
    changes: list[Change]
    only_a: list[str] = Field([], description="metrics run A has and run B has not: not compared")
    only_b: list[str] = []

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.regression]


def mcnemar_exact(a_to_b: list[tuple[float, float]]) -> tuple[tuple[int, int], float]:
    """McNemar's exact test (McNemar, Psychometrika 1947; exact binomial form, Fagerland et
    al., BMC Med. Res. Methodol. 2013): with b pairs 1→0 and c pairs 0→1, the two-sided
    p-value of b successes in b + c trials at 1/2 (1 when there is no discordant pair)."""
    b = sum(1 for x, y in a_to_b if x == 1.0 and y == 0.0)
    c = sum(1 for x, y in a_to_b if x == 0.0 and y == 1.0)
    p = 1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5).pvalue)
    return (b, c), p


def paired_bootstrap(
    differences: list[float], resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Paired bootstrap of the mean difference (Efron & Tibshirani 1993, §16.4): the 2.5th
    and 97.5th percentiles of resampled mean differences, and the two-sided p-value as twice
    the smaller share of resampled means on either side of 0 (at most 1)."""
    data = np.asarray(differences, dtype=float)
    draws = np.random.default_rng(seed).integers(0, len(data), size=(resamples, len(data)))
    means = data[draws].mean(axis=1)
    if np.all(data == 0):
        return 0.0, 0.0, 1.0
    p = min(1.0, 2 * min(float(np.mean(means <= 0)), float(np.mean(means >= 0))))
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)), p


def _same_probe(a: RunRecords, b: RunRecords, cell: str) -> bool:
    pa, pb = a.probes.get(cell), b.probes.get(cell)
    return pa is not None and pb is not None and pa.asked_text is not None and pa.asked_text == pb.asked_text


def change(
    metric: str, group: str, cells_a: dict[str, float], cells_b: dict[str, float], paired: set[str]
) -> Change:
    """The change of ``metric`` from run A's values to run B's, tested on the paired cells."""
    both = sorted(c for c in paired if c in cells_a and c in cells_b)
    values_a, values_b = list(cells_a.values()), list(cells_b.values())
    fields: dict = {
        "metric": metric,
        "group": group,
        "n_a": len(values_a),
        "n_b": len(values_b),
        "mean_a": float(np.mean(values_a)) if values_a else None,
        "mean_b": float(np.mean(values_b)) if values_b else None,
        "pairs": len(both),
    }
    if not both:
        unpaired = None if not values_a or not values_b else fields["mean_b"] - fields["mean_a"]
        return Change(**fields, difference=unpaired)
    pairs = [(cells_a[c], cells_b[c]) for c in both]
    difference = float(np.mean([y - x for x, y in pairs]))
    fields |= {
        "mean_a": float(np.mean([x for x, _ in pairs])),
        "mean_b": float(np.mean([y for _, y in pairs])),
    }
    if all(x in (0.0, 1.0) and y in (0.0, 1.0) for x, y in pairs):
        discordant, p = mcnemar_exact(pairs)
        extra = {"test": "mcnemar-exact", "discordant": discordant, "p_value": p}
    elif len(pairs) < MIN_BOOTSTRAP_PAIRS:
        return Change(**fields, difference=difference)
    else:
        low, high, p = paired_bootstrap([y - x for x, y in pairs])
        extra = {"test": "paired-bootstrap", "ci_low": low, "ci_high": high, "p_value": p}
    significant = p < ALPHA and difference != 0
    better = higher_is_better(metric)
    return Change(
        **fields,
        difference=difference,
        **extra,
        regression=significant and worse(metric, difference),
        improvement=significant and better is not None and not worse(metric, difference),
    )


def compare(a: RunRecords, b: RunRecords) -> Comparison:
    """Every metric both runs have, per persona, per scenario and in total; those only one has
    are named."""
    paired = {cell for cell in a.probes if _same_probe(a, b, cell)}
    paired |= {cell for cell in a.conversations if cell in b.conversations}  # a conversation by its cell
    metrics = [m for m in a.metrics if m in set(b.metrics)]
    only_a = [m for m in a.metrics if m not in set(b.metrics)]
    only_b = [m for m in b.metrics if m not in set(a.metrics)]
    changes = []
    for metric in metrics:
        groups_a: dict[str, dict[str, float]] = defaultdict(dict)
        groups_b: dict[str, dict[str, float]] = defaultdict(dict)
        for records, groups in ((a, groups_a), (b, groups_b)):
            for probe, value in records.valued_probes(metric):
                for group in ("total", f"persona {probe.persona_id}", f"scenario {probe.scenario_id}"):
                    groups[group][probe.cell_id] = value
        order = sorted({*groups_a, *groups_b}, key=lambda g: (g != "total", not g.startswith("persona"), g))
        for group in order:
            changes.append(change(metric, group, groups_a[group], groups_b[group], paired))
    return Comparison(
        run_a=a.run_id,
        run_b=b.run_id,
        paired_probes=len(paired),
        alpha=ALPHA,
        changes=changes,
        only_a=only_a,
        only_b=only_b,
    )


def comparison_html(comparison: Comparison) -> str:
    """The comparison as one self-contained HTML page."""
    from simpop.report.html import environment

    return environment().get_template("compare.html.j2").render(c=comparison)
