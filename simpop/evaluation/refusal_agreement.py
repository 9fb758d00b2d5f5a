"""How far the refusal judge (ASTRID Listing 3, ``judge_refusal.j2``) agrees with people, on
labelled answers it was neither written nor tuned on: XSTest (Röttger et al., NAACL 2024; CC BY
4.0 labels), Mistral-7B-Instruct's completions of 450 prompts with and without a guardrail
prompt, each labelled full compliance, full refusal or partial refusal by two annotators.

The prompt is shown as the patient's message and the completion as the chatbot's answer (no
context); full refusal counts as refused, full compliance as not, partial refusals are left out.
Figures at the profile's threshold (what a run uses) and with a threshold fitted out of fold,
folds grouped by prompt (one prompt's two completions never in two folds)."""

from __future__ import annotations

import csv
import io
from collections.abc import Awaitable
from pathlib import Path

import numpy as np
from rich.progress import Progress

from simpop.errors import ConfigError
from simpop.evaluation.agreement import each_probability, labelled_agreement
from simpop.judging.crossval import Agreement, balanced
from simpop.metrics.judge import Judge, Verdict
from simpop.models import LLMConfig, Record
from simpop.textfiles import read_text
from simpop.verdicts import verdicts

COLUMNS = ("id", "prompt", "completion", "final_label")
LABELS = {"2_full_refusal": True, "1_full_compliance": False, "3_partial_refusal": None}


class LabelledAnswer(Record):
    """A chatbot's answer to a message, labelled refused or not."""

    group: str  # the message: never in two folds
    message: str
    answer: str
    refused: bool


class RefusalEvaluation(Record):
    """Agreement of the refusal judge with people."""

    data: list[str]
    items: int
    refusals: int
    partial_left_out: int
    judge_errors: dict[str, int] = {}
    rows: list[Agreement]


def load_xstest(path: Path) -> tuple[list[LabelledAnswer], int]:
    """The labelled completions of every XSTest completions CSV in ``path`` (a folder or one
    file), and how many partial refusals were left out."""
    files = sorted(path.glob("xstest_v2_completions_*.csv")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise ConfigError(f"{path}: no XSTest completions file (xstest_v2_completions_*.csv)")
    answers, partial = [], 0
    for file in files:
        rows = list(csv.DictReader(io.StringIO(read_text(file), newline="")))
        missing = [c for c in COLUMNS if rows and c not in rows[0]]
        if not rows or missing:
            raise ConfigError(
                f"{file}: expected columns {', '.join(COLUMNS)} (missing: {', '.join(missing)})"
            )
        for number, row in enumerate(rows, start=2):
            label = row["final_label"].strip()
            if label not in LABELS:
                raise ConfigError(f"{file} row {number}, column 'final_label': unknown label {label!r}")
            refused = LABELS[label]
            if refused is None:
                partial += 1
                continue
            answers.append(
                LabelledAnswer(
                    group=row["id"], message=row["prompt"], answer=row["completion"], refused=refused
                )
            )
    return answers, partial


async def refusal_probabilities(
    judge: Judge, answers: list[LabelledAnswer], progress: Progress | None = None
) -> list[float | None]:
    """The refusal judge's P(yes) on each answer (``None`` where it failed)."""

    def ask(item: LabelledAnswer) -> Awaitable[Verdict]:
        prompt = verdicts()["refused"].prompt
        return judge.decide(prompt, "refused", context="", answer=item.answer, question=item.message)

    return await each_probability(answers, ask, "judge answers", progress)


async def evaluate_refusal(
    configs: list[LLMConfig],
    data: Path,
    limit: int | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> RefusalEvaluation:
    """Ask each judge (``configs``) for P(yes) on the labelled answers in ``data`` (at most
    ``limit``) and measure its agreement with the people's labels."""
    everything, partial = load_xstest(data)
    answers = balanced(everything, lambda a: a.refused, limit)
    y = np.array([a.refused for a in answers], dtype=int)
    groups = [a.group for a in answers]
    rows, errors = await labelled_agreement(
        configs,
        lambda judge: refusal_probabilities(judge, answers, progress),
        "refused",
        y,
        groups,
        use_cache,
        progress,
    )
    return RefusalEvaluation(
        data=[str(data)],
        items=len(answers),
        refusals=int(y.sum()),
        partial_left_out=partial,
        judge_errors=errors,
        rows=rows,
    )
