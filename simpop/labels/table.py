"""Human labels per persona: the layout of Reichenpfader et al.'s Table 2 (semi-automated
evaluation): probes asked, labelled, and how many answers clinicians judged correct,
partially correct and incorrect, with how many of those the bot did not answer."""

from __future__ import annotations

from collections import Counter

from simpop.models import HumanLabel, LabelRow, LabelTable, Response


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def label_row(
    group: str, labels: list[HumanLabel], responses: dict[str, Response], questions: int
) -> LabelRow:
    """One group's row; shares are over the labelled answers."""
    verdicts = Counter(label.label for label in labels)
    n = len(labels)
    return LabelRow(
        group=group,
        questions=questions,
        labelled=n,
        correct=verdicts["correct"],
        partially_correct=verdicts["partially_correct"],
        incorrect=verdicts["incorrect"],
        no_answer=sum(1 for label in labels if not responses[label.cell_id].answer),
        correct_share=_share(verdicts["correct"], n),
        partially_correct_share=_share(verdicts["partially_correct"], n),
        incorrect_share=_share(verdicts["incorrect"], n),
    )


def label_table(labels: list[HumanLabel], responses: list[Response], persona_ids: list[str]) -> LabelTable:
    """One row per persona (in the order given) and the total; ``responses`` are the asked ones."""
    by_cell = {r.cell_id: r for r in responses}
    asked = Counter(r.persona_id for r in responses)
    rows = [
        label_row(pid, [label for label in labels if label.persona_id == pid], by_cell, asked[pid])
        for pid in persona_ids
    ]
    return LabelTable(personas=rows, total=label_row("total", labels, by_cell, len(responses)))
