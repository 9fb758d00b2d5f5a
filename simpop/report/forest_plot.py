"""Figures for the HTML report, drawn with matplotlib and embedded as PNG data URIs (so the
report stays one file with nothing to fetch)."""

from __future__ import annotations

import base64
import io

from matplotlib.figure import Figure

from simpop.models import GroupMean
from simpop.sequential.rounds import GateRound


def data_uri(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def forest_plot(rows: list[GroupMean], title: str) -> str | None:
    """Each group's mean with its 95% interval, one line per group (total last, in bold)."""
    rows = [r for r in rows if r.mean is not None]
    if not rows:
        return None
    figure = Figure(figsize=(6.5, 0.38 * len(rows) + 1.0))
    axes = figure.subplots()
    for y, row in enumerate(reversed(rows)):
        assert row.mean is not None
        low = row.ci_low if row.ci_low is not None else row.mean
        high = row.ci_high if row.ci_high is not None else row.mean
        colour = "#1b4f72" if row.group != "total" else "#000000"
        axes.errorbar(
            row.mean, y, xerr=[[row.mean - low], [high - row.mean]], fmt="o", color=colour, capsize=3
        )
        axes.text(1.02, y, f"n={row.n}", va="center", fontsize=8, transform=axes.get_yaxis_transform())
    axes.set_yticks(range(len(rows)), [r.group for r in reversed(rows)])
    axes.set_xlim(-0.02, 1.02)
    axes.set_title(title, fontsize=10)
    axes.grid(axis="x", alpha=0.3)
    return data_uri(figure)


def sequence_plot(rounds: list[GateRound], rule: int, threshold: float, title: str) -> str | None:
    """A sequential run's rule: each group's confidence sequence interval after every round (by
    the cells run so far), against the rule's threshold."""
    decided = [r for r in rounds if r.stage == "decided"]
    standings = [(r.cells, s) for r in decided for s in r.rules if s.rule == rule]
    groups = sorted({g for _, s in standings for g in s.bounds})
    if not groups:
        return None
    figure = Figure(figsize=(6.5, 2.6))
    axes = figure.subplots()
    for offset, group in enumerate(groups):
        points = [(cells, s.bounds[group]) for cells, s in standings if group in s.bounds]
        x = [c + offset * 0.15 for c, _ in points]
        axes.vlines(x, [b[0] for _, b in points], [b[1] for _, b in points], lw=3, alpha=0.7, label=group)
    axes.axhline(threshold, color="#b71c1c", lw=1, ls="--")
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("cells run", fontsize=8)
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=7, loc="lower right", ncol=min(4, len(groups)))
    axes.grid(alpha=0.3)
    return data_uri(figure)
