"""How far the conversation contradiction judge (``judge_contradiction.j2``) agrees with people,
on labelled pairs it was neither written nor tuned on:

- ProSeCCo (Beyer et al., 2026; CC BY-SA 4.0): 1,327 pairs of statements one speaker made in
  debates and panel discussions, labelled self-contradiction or not (annotators' kappa 0.63). The
  context-resolved propositions are shown as two answers of the chatbot. Another domain.
- K-QA's physician NLI labels (Manes et al., 2024): a chatbot's answer to a patient's question and
  a physician's statement, contradiction by the majority (12 of 399) or not. The answer is the
  chatbot's first reply, the statement its second.

Each pair is a two-turn transcript; the judge gives P(yes). Figures at the profile's threshold
(what a run uses) and with a threshold fitted out of fold, folds grouped by speaker or answer."""

from __future__ import annotations

import csv
import io
from collections.abc import Awaitable
from contextlib import nullcontext
from pathlib import Path

import numpy as np
from rich.progress import Progress

from simpop.errors import ConfigError
from simpop.evaluation.agreement import DATA_FILE, each_probability, load_nli, opened_judge
from simpop.judging.crossval import Agreement, at_profile_and_fitted, balanced
from simpop.metrics.judge import Judge, Verdict
from simpop.models import LLMConfig, Record
from simpop.textfiles import read_text

PROSECCO_FILE = "ProSeCCo_final.csv"
PROSECCO_COLUMNS = ("speaker_id", "proposition_1", "proposition_2", "label")
PROSECCO_LABELS = {"self-contradiction": True, "no self-contradiction": False}


class ContradictionPair(Record):
    """Two answers of one speaker, labelled contradicting or not."""

    group: str  # the speaker or the answer: never in two folds
    asked: str = ""
    first: str
    second: str
    contradiction: bool


class ContradictionEvaluation(Record):
    """Agreement of the contradiction judge with people, per labelled set and judge model."""

    data: dict[str, str]  # set name → file
    items: dict[str, int]
    contradictions: dict[str, int]
    judge_errors: dict[str, int] = {}
    rows: list[Agreement]


def load_prosecco(file: Path) -> list[ContradictionPair]:
    """ProSeCCo's final corpus."""
    rows = list(csv.DictReader(io.StringIO(read_text(file), newline="")))
    missing = [c for c in PROSECCO_COLUMNS if rows and c not in rows[0]]
    if not rows or missing:
        raise ConfigError(f"{file}: expected columns {', '.join(PROSECCO_COLUMNS)}")
    pairs = []
    for number, row in enumerate(rows, start=2):
        label = row["label"].strip().lower()
        if label not in PROSECCO_LABELS:
            raise ConfigError(f"{file} row {number}, column 'label': unknown label {row['label']!r}")
        pairs.append(
            ContradictionPair(
                group=row["speaker_id"],
                first=row["proposition_1"],
                second=row["proposition_2"],
                contradiction=PROSECCO_LABELS[label],
            )
        )
    return pairs


def load_pairs(path: Path) -> tuple[str, list[ContradictionPair]]:
    """The labelled set's name and its pairs: ProSeCCo, or K-QA's NLI file (questions kept)."""
    file = path / PROSECCO_FILE if path.is_dir() and (path / PROSECCO_FILE).is_file() else path
    if not file.exists():
        raise ConfigError(f"{file}: no such file (ProSeCCo's {PROSECCO_FILE} or K-QA's NLI judgements)")
    if file.is_file() and "proposition_1" in read_text(file).partition("\n")[0]:
        return "ProSeCCo", load_prosecco(file)
    items = load_nli(file)  # names the file and column where it is not K-QA's
    nli_file = file / DATA_FILE if file.is_dir() else file
    rows = csv.DictReader(io.StringIO(read_text(nli_file), newline=""))
    questions = {row["answer"]: row.get("Question", "") for row in rows}
    return "K-QA", [
        ContradictionPair(
            group=item.answer,
            asked=questions.get(item.answer, ""),
            first=item.answer,
            second=item.statement,
            contradiction=item.label == "contradiction",
        )
        for item in items
    ]


async def contradiction_probabilities(
    judge: Judge, pairs: list[ContradictionPair], progress: Progress | None = None
) -> list[float | None]:
    """The judge's P(yes) on each pair shown as a two-turn transcript (``None`` where it failed)."""

    def ask(pair: ContradictionPair) -> Awaitable[Verdict]:
        turns = [{"asked_text": pair.asked, "answer": pair.first}, {"asked_text": "", "answer": pair.second}]
        return judge.decide("judge_contradiction", "contradiction", turns=turns)

    return await each_probability(pairs, ask, "judge pairs", progress)


async def evaluate_contradiction(
    configs: list[LLMConfig],
    data: list[Path],
    limit: int | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> ContradictionEvaluation:
    """Ask each judge (``configs``) for P(yes) on every labelled set in ``data`` (at most
    ``limit`` pairs of each) and measure its agreement with the labels."""
    sets = {}
    files = {}
    for path in data:
        name, pairs = load_pairs(path)
        sets[name] = balanced(pairs, lambda p: p.contradiction, limit)
        files[name] = str(path)
    rows: list[Agreement] = []
    errors: dict[str, int] = {}
    with progress if progress is not None else nullcontext():
        for config in configs:
            async with opened_judge(config, use_cache) as judge:
                assert judge.profile is not None
                for name, pairs in sets.items():
                    found = await contradiction_probabilities(judge, pairs, progress)
                    errors[f"{config.model} · {name}"] = sum(p is None for p in found)
                    y = np.array([pair.contradiction for pair in pairs], dtype=int)
                    p = np.array([0.5 if v is None else v for v in found])
                    groups = [pair.group for pair in pairs]
                    threshold = judge.profile.threshold("contradiction")
                    rows += at_profile_and_fitted(f"{config.model} · {name}", y, p, groups, threshold)
    return ContradictionEvaluation(
        data=files,
        items={n: len(p) for n, p in sets.items()},
        contradictions={n: sum(x.contradiction for x in p) for n, p in sets.items()},
        judge_errors=errors,
        rows=rows,
    )
