"""How far the sub-question judge (``judge_sub_question.j2``, the verdict that decides the
multi-question scenario) agrees with people, on answers it was neither written nor tuned on:
``data/sub-questions`` (``bench/sub_question_set.py``), two MedQuAD eye questions in one
message and a chatbot-like answer put together from MedQuAD answers, each question labelled
addressed or not by someone who saw neither how the answer was built nor the judge's verdicts.

The message is shown as the patient's and the answer as the chatbot's (no context). Figures at
the profile's threshold (what a run uses) and with a threshold fitted out of fold, folds
grouped by message (a message's two questions never in two folds)."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

import numpy as np
from rich.progress import Progress

from simpop.errors import ConfigError
from simpop.evaluation.agreement import each_probability, labelled_agreement
from simpop.judging.crossval import Agreement, balanced
from simpop.labels.files import jsonl_rows
from simpop.metrics.judge import Judge, Verdict
from simpop.models import LLMConfig, Record

ITEMS, LABELS = "items.jsonl", "labels.jsonl"


class LabelledSubQuestion(Record):
    """One question of a patient's message and the chatbot's answer, labelled addressed or not."""

    id: str
    group: str  # the message: never in two folds
    message: str
    sub_question: str
    answer: str
    addressed: bool


class SubQuestionEvaluation(Record):
    """Agreement of the sub-question judge with people."""

    data: list[str]
    items: int
    addressed: int
    judge_errors: dict[str, int] = {}
    rows: list[Agreement]


def load_sub_questions(folder: Path) -> list[LabelledSubQuestion]:
    """The items of ``folder`` with their people's labels, joined by id; an item without a
    label, or a label of no item, is an error."""
    labels = {row["id"]: row["addressed"] for row in jsonl_rows(folder / LABELS)}
    items = jsonl_rows(folder / ITEMS)
    unlabelled = [row["id"] for row in items if row["id"] not in labels]
    stray = sorted(set(labels) - {row["id"] for row in items})
    if unlabelled or stray:
        raise ConfigError(f"{folder}: items without a label {unlabelled[:3]}, labels of no item {stray[:3]}")
    return [
        LabelledSubQuestion(
            id=row["id"],
            group=row["message_id"],
            message=row["message"],
            sub_question=row["sub_question"],
            answer=row["answer"],
            addressed=bool(labels[row["id"]]),
        )
        for row in items
    ]


async def sub_question_probabilities(
    judge: Judge, items: list[LabelledSubQuestion], progress: Progress | None = None
) -> list[float | None]:
    """The sub-question judge's P(yes) on each item (``None`` where it failed)."""

    def ask(item: LabelledSubQuestion) -> Awaitable[Verdict]:
        return judge.decide(
            "judge_sub_question",
            "addressed",
            context="",
            answer=item.answer,
            answer_quoted=False,
            question=item.message,
            sub_question=item.sub_question,
        )

    return await each_probability(items, ask, "judge questions", progress)


async def evaluate_sub_questions(
    configs: list[LLMConfig],
    data: Path,
    limit: int | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> SubQuestionEvaluation:
    """Ask each judge (``configs``) for P(yes) on the labelled items in ``data`` (at most
    ``limit``) and measure its agreement with the people's labels."""
    items = balanced(load_sub_questions(data), lambda i: i.addressed, limit)
    y = np.array([i.addressed for i in items], dtype=int)
    groups = [i.group for i in items]
    rows, errors = await labelled_agreement(
        configs,
        lambda judge: sub_question_probabilities(judge, items, progress),
        "addressed",
        y,
        groups,
        use_cache,
        progress,
    )
    return SubQuestionEvaluation(
        data=[str(data)], items=len(items), addressed=int(y.sum()), judge_errors=errors, rows=rows
    )
