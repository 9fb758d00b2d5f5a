"""The reliability diagram of a calibrator (DeGroot & Fienberg, 1983; Guo et al., 2017, fig. 1):
observed frequency against predicted probability per bin, before and after calibration."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from simpop.calibration.calibrate import Calibrator


def reliability_diagram(calibrator: Calibrator, path: Path) -> Path:
    """Write the diagram of the calibrator's test split as a PNG at ``path``."""
    e = calibrator.evaluation
    figure = Figure(figsize=(4.8, 4.6))
    axes = figure.subplots()
    axes.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1, label="perfect calibration")
    binary = len(calibrator.label.levels) == 2
    for name, rows, colour in (
        ("raw score", e.reliability_before, "#b03a2e"),
        (calibrator.mapping.method, e.reliability_after, "#1b4f72"),
    ):
        if rows:
            predicted, observed, counts = zip(*rows, strict=True)
            axes.plot(predicted, observed, marker="o", color=colour, label=name)
            for px, py, n in rows:
                axes.annotate(str(n), (px, py), fontsize=7, textcoords="offset points", xytext=(3, -9))
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    positive = calibrator.label.levels[-1]
    axes.set_xlabel(f"predicted P({positive})" if binary else "confidence of the top label")
    axes.set_ylabel("observed frequency" if binary else "accuracy of the top label")
    axes.set_title(
        f"{calibrator.label.name} from {' + '.join(calibrator.scores)} · test n={e.test_items}\n"
        f"ECE {'' if e.ece_before is None else f'{e.ece_before:.3f} → '}{e.ece_after:.3f}",
        fontsize=9,
    )
    axes.legend(fontsize=8, loc="upper left")
    axes.grid(alpha=0.3)
    figure.savefig(path, format="png", dpi=110, bbox_inches="tight")
    return path
