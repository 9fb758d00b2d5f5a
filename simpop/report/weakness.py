"""Where the bot is weak (HCAT, Sudjianto et al., §6.2, marginal and bivariate weakness
analysis): a metric's mean per level of one factor of the probes (topic, question type, a
persona axis such as health literacy or noise) and per pair of levels of two factors, each
with n and a 95% interval, against the overall mean; cells with few probes are marked."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from pydantic import Field

from simpop.aggregate import mean
from simpop.metrics import higher_is_better
from simpop.models import Conversation, GroupMean, Persona, Probe, Record
from simpop.store import RunRecords

FACTORS = (
    "persona",
    "health_literacy",
    "language_level",
    "noise",
    "scenario",
    "question_type",
    "severity",
    "topic",
    "hcat_type",
)
MIN_N = 10


class WeaknessCell(Record):
    """One level (or pair of levels) of the factors and the metric there."""

    levels: dict[str, str]
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    gap: float | None = Field(description="mean minus the overall mean, signed so that negative is worse")
    low_n: bool = Field(description="fewer probes than the analysis' minimum: read with care")


class WeaknessAnalysis(Record):
    metric: str
    overall: GroupMean
    min_n: int
    marginal: dict[str, list[WeaknessCell]] = Field(description="per factor, its levels, worst first")
    bivariate: dict[str, list[WeaknessCell]] = Field(description="per 'a × b' pair of factors, worst first")


def probe_factors(probe: Probe | Conversation, persona: Persona | None) -> dict[str, str | None]:
    """The factors a probe (or a conversation, by its case) can be grouped by; ``None`` where it
    has no such factor."""
    noise = probe.noise if isinstance(probe, Probe) else (persona.noise.model if persona else None)
    one = probe if isinstance(probe, Probe) else None
    return {
        "persona": probe.persona_id,
        "health_literacy": persona.health_literacy if persona else None,
        "language_level": persona.language_level if persona else None,
        "noise": noise.split("@")[0] if noise else "none",
        "scenario": probe.scenario_id,
        "question_type": one.question_type if one else None,
        "severity": probe.severity,
        "topic": one.topic if one else None,
        "hcat_type": one.hcat_type if one else None,
    }


def _cells(
    rows: list[tuple[dict[str, str | None], float]],
    factors: tuple[str, ...],
    metric: str,
    rate: bool,
    overall: float,
    min_n: int,
) -> list[WeaknessCell]:
    groups: dict[tuple[str, ...], list[float]] = defaultdict(list)
    for levels, value in rows:
        key = tuple(levels[f] for f in factors)
        if all(level is not None for level in key):
            groups[key].append(value)  # type: ignore[arg-type]
    sign = -1.0 if higher_is_better(metric) is False else 1.0
    cells = []
    for key, values in groups.items():
        m = mean(values, " × ".join(key), metric, rate)
        cells.append(
            WeaknessCell(
                levels=dict(zip(factors, key, strict=True)),
                n=m.n,
                mean=m.mean,
                ci_low=m.ci_low,
                ci_high=m.ci_high,
                gap=None if m.mean is None else round(sign * (m.mean - overall), 6),
                low_n=m.n < min_n,
            )
        )
    # worst first; among equal gaps, the better-supported cell first
    return sorted(cells, key=lambda c: (c.gap if c.gap is not None else 0.0, -c.n))


def _nested(rows: list[tuple[dict[str, str | None], float]], a: str, b: str) -> bool:
    """Whether one factor's level fixes the other's (a persona fixes its health literacy):
    such a pair adds nothing to the marginals."""
    a_to_b: dict[str | None, set[str | None]] = defaultdict(set)
    b_to_a: dict[str | None, set[str | None]] = defaultdict(set)
    for levels, _ in rows:
        if levels[a] is None or levels[b] is None:
            continue
        a_to_b[levels[a]].add(levels[b])
        b_to_a[levels[b]].add(levels[a])
    return all(len(v) == 1 for v in a_to_b.values()) or all(len(v) == 1 for v in b_to_a.values())


def factor_rows(records: RunRecords, metric: str) -> list[tuple[dict[str, str | None], float]]:
    """One (factors, value) row per probe of the run with a value of ``metric``."""
    return [
        (probe_factors(probe, records.personas.get(probe.persona_id)), value)
        for probe, value in records.valued_probes(metric)
    ]


def weakness_analysis(
    rows: list[tuple[dict[str, str | None], float]], metric: str, min_n: int = MIN_N
) -> WeaknessAnalysis | None:
    """The marginal and bivariate analysis of ``metric`` from (factors, value) rows, one per
    probe; factors with fewer than two levels are left out. ``None`` with no values."""
    if not rows:
        return None
    values = [v for _, v in rows]
    rate = all(v in (0.0, 1.0) for v in values)
    overall = mean(values, "total", metric, rate)
    assert overall.mean is not None
    varied = [f for f in FACTORS if len({levels[f] for levels, _ in rows if levels[f] is not None}) >= 2]
    marginal = {f: _cells(rows, (f,), metric, rate, overall.mean, min_n) for f in varied}
    bivariate = {
        f"{a} × {b}": _cells(rows, (a, b), metric, rate, overall.mean, min_n)
        for a, b in combinations(varied, 2)
        if not _nested(rows, a, b)
    }
    return WeaknessAnalysis(
        metric=metric, overall=overall, min_n=min_n, marginal=marginal, bivariate=bivariate
    )
