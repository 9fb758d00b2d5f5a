"""Figures for the HTML report, drawn with matplotlib and embedded as PNG data URIs (so the
report stays one file with nothing to fetch)."""

from __future__ import annotations

import base64
import io

from matplotlib.figure import Figure

from simpop.models import GroupMean


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
