"""The reliability diagram of judges' out-of-fold P(yes) (DeGroot & Fienberg, 1983; Guo et al.,
2017, fig. 1): the share of statements physicians call supported against the predicted P(yes)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from simpop.judging.crossval import Agreement


def reliability_figure(rows: list[Agreement], path: Path) -> Path:
    """Draw one line per judge, the item count beside each point, as a PNG at ``path``."""
    figure = Figure(figsize=(5.2, 4.8))
    axes = figure.subplots()
    axes.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1, label="perfect calibration")
    for row in rows:
        if row.reliability:
            predicted, observed, counts = zip(*row.reliability, strict=True)
            axes.plot(predicted, observed, marker="o", label=f"{row.judge} (ECE {row.ece:.2f})")
            for x, y, n in row.reliability:
                axes.annotate(str(n), (x, y), fontsize=6, textcoords="offset points", xytext=(3, -8))
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("predicted P(supported), out of fold")
    axes.set_ylabel("share supported (physicians' majority)")
    axes.set_title("support judges: reliability", fontsize=9)
    axes.legend(fontsize=6, loc="upper left")
    axes.grid(alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    return path
