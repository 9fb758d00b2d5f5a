"""Where a sequential gate's next round of probes goes (issue 72). A round first gives a cell to
each persona × scenario pair not yet tested, the most severe scenarios first, so nothing is
left untested and the hazards a release most rests on come early; what room is left goes to the
pairs that feed a rule group still undecided, each at least one cell where the room allows (its
minimum share), the rest in proportion to how badly each undecided group has done so far
(failure-seeking: a persona that fails gets more), spread over a group's pairs by their share of
its cells in the full grid, so a group's values keep the grid's mix of scenarios and its mean
estimates the grid's."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

PRIOR = 1.0  # pseudo-failures and pseudo-successes of a group with few values


@dataclass(frozen=True)
class Unit:
    """What a round chooses: one cell of the plan."""

    key: tuple[str, str, str]  # persona, scenario, the cell's id

    @property
    def pair(self) -> str:
        return f"{self.key[0]} × {self.key[1]}"


@dataclass(frozen=True)
class Standing:
    """One undecided rule group: its values so far (n, and the sum of how far each is from the
    rule's good end, in [0, 1]) and its pairs with their share of its cells in the full grid."""

    n: int
    bad: float
    pairs: dict[str, float]

    @property
    def failing(self) -> float:
        """The group's failure rate so far, with a Beta(1, 1) prior."""
        return (self.bad + PRIOR) / (self.n + 2 * PRIOR)


def badness(value: float, minimum: float | None) -> float:
    """How far a value is from a rule's good end: 1 - value for a min, the value for a max."""
    return 1.0 - value if minimum is not None else value


def next_round(
    units: list[Unit],
    undecided: list[Standing],
    size: int,
    seed: int,
    tested: set[str] = frozenset(),  # type: ignore[assignment]
    priority: dict[str, int] | None = None,
) -> list[Unit]:
    """The units of the next round, at most ``size``, from those not yet run (``units``):
    one for each pair not in ``tested`` (by ``priority``, lowest first, then drawn by
    ``seed``), then the failure-seeking share of the ``undecided`` groups."""
    by_pair: dict[str, list[Unit]] = defaultdict(list)
    for unit in sorted(units, key=lambda u: u.key):
        by_pair[unit.pair].append(unit)
    rng = random.Random(seed)
    for pair in sorted(by_pair):
        rng.shuffle(by_pair[pair])
    rank = priority or {}
    fresh = sorted(
        (p for p in by_pair if p not in tested), key=lambda p: (rank.get(p, len(rank)), rng.random())
    )
    chosen = [by_pair[pair].pop(0) for pair in fresh[:size]]
    room = size - len(chosen)
    weight: dict[str, float] = defaultdict(float)
    for standing in undecided:
        for pair, share in standing.pairs.items():
            if by_pair.get(pair):
                weight[pair] += standing.failing * share
    if room <= 0 or not weight:
        return chosen
    quota = _quota(weight, room)
    for pair in sorted(quota):
        chosen += by_pair[pair][: quota[pair]]
    return chosen


def _quota(weight: dict[str, float], room: int) -> dict[str, int]:
    """Cells per pair: one each (the minimum share) where ``room`` allows, else for the heaviest;
    the rest by weight, rounded by the largest remainders."""
    heaviest = sorted(weight, key=lambda p: (-weight[p], p))
    quota = {pair: 1 for pair in heaviest[:room]}
    spare = room - len(quota)
    total = sum(weight.values())
    shares = {pair: spare * w / total for pair, w in weight.items()}
    for pair, share in shares.items():
        quota[pair] = quota.get(pair, 0) + int(share)
    left_over = spare - sum(int(s) for s in shares.values())
    for pair in sorted(shares, key=lambda p: (-(shares[p] - int(shares[p])), p))[:left_over]:
        quota[pair] = quota.get(pair, 0) + 1
    return quota
