"""How far the faithfulness judge and the embedding groundedness score agree with physicians,
on K-QA's NLI judgements (Manes et al., 2024): an answer (premise) and a physician's statement
(hypothesis) labelled entailment / neutral / contradiction by three physicians. A statement is
supported when the majority says entailment.

The judge sees each answer once as the context with all of its statements (ASTRID Listing 1,
one verdict per statement); groundedness is the statement's best cosine similarity to a
sentence of the answer (HCAT §3)."""

from __future__ import annotations

import asyncio
import csv
from collections import defaultdict
from contextlib import nullcontext
from pathlib import Path

import numpy as np
from pydantic import Field
from rich.progress import Progress
from sklearn.metrics import cohen_kappa_score, confusion_matrix, roc_auc_score

from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.llm import LLMError, open_llm
from simpop.metrics.faithfulness import support_verdicts
from simpop.metrics.judge import Judge
from simpop.metrics.texts import split_sentences
from simpop.models import EmbeddingConfig, LLMConfig, Record
from simpop.prompts import load_prompt

DATA_FILE = "NLI_medical_annotator.csv"
COLUMNS = ("answer", "claim", "majority_label")


class NLIItem(Record):
    """One physician judgement: does the answer support the statement?"""

    answer: str
    statement: str
    label: str
    supported: bool


class JudgeAgreement(Record):
    """Agreement of the judge and of embedding groundedness with the physicians' majority."""

    data: str
    judge_model: str
    prompt: str
    items: int
    supported: int
    judged: int = Field(description="statements the judge gave a valid verdict on")
    judge_errors: int = Field(description="statements whose answer's judge reply never validated")
    accuracy: float | None
    kappa: float | None = Field(description="Cohen's kappa, judge vs physicians")
    confusion: list[list[int]] = Field(
        description="rows physicians (not supported, supported), columns judge"
    )
    groundedness_auc: float | None = Field(description="ROC AUC of embedding groundedness, all items")
    judge_auc: float | None = Field(description="ROC AUC of the judge's 0/1 verdicts")


def load_nli(path: Path, limit: int | None = None) -> list[NLIItem]:
    """The K-QA NLI file (a folder holding it, or the CSV itself); ``limit`` keeps the items of
    the first ``limit`` answers."""
    file = path / DATA_FILE if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{file}: no such file (the K-QA NLI judgements, {DATA_FILE})")
    with file.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    missing = [c for c in COLUMNS if rows and c not in rows[0]]
    if not rows or missing:
        raise ConfigError(
            f"{file}: expected columns {', '.join(COLUMNS)} (missing: {', '.join(missing) or 'all'})"
        )
    items = []
    for number, row in enumerate(rows, start=2):
        label = row["majority_label"].strip().lower()
        if label not in ("entailment", "neutral", "contradiction"):
            raise ConfigError(
                f"{file} row {number}, column 'majority_label': unknown label {row['majority_label']!r}"
            )
        items.append(
            NLIItem(
                answer=row["answer"], statement=row["claim"], label=label, supported=label == "entailment"
            )
        )
    if limit is not None:
        keep = list(dict.fromkeys(i.answer for i in items))[:limit]
        items = [i for i in items if i.answer in keep]
    return items


async def judge_verdicts(
    judge: Judge, pairs: list[tuple[str, str]], progress: Progress | None = None
) -> list[bool | None]:
    """The judge's verdict on every (context, statement) pair, the statements of one context
    asked together (``None`` where the reply never validated)."""
    by_context: dict[str, list[int]] = defaultdict(list)
    for index, (context, _) in enumerate(pairs):
        by_context[context].append(index)
    verdicts: list[bool | None] = [None] * len(pairs)
    task = progress.add_task("judge statements", total=len(by_context)) if progress else None

    async def one(context: str, indices: list[int]) -> None:
        try:
            replies, _ = await support_verdicts(judge, context, [pairs[i][1] for i in indices])
            for i, v in zip(indices, replies, strict=True):
                verdicts[i] = v.supported
        except LLMError:
            pass  # these verdicts stay None: counted as judge errors
        if progress is not None and task is not None:
            progress.advance(task)

    await asyncio.gather(*(one(c, ix) for c, ix in by_context.items()))
    return verdicts


def groundedness(items: list[NLIItem], embedder: Embedder) -> list[float]:
    """Each statement's best cosine similarity to a sentence of its answer."""
    sentences = {a: split_sentences(a) or [a] for a in dict.fromkeys(i.answer for i in items)}
    texts = list(dict.fromkeys([i.statement for i in items] + [s for ss in sentences.values() for s in ss]))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return [float(max(vectors[i.statement] @ vectors[s] for s in sentences[i.answer])) for i in items]


def _auc(gold: list[bool], scores: list[float]) -> float | None:
    return float(roc_auc_score(gold, scores)) if len(set(gold)) == 2 else None


def agreement(
    items: list[NLIItem],
    verdicts: list[bool | None],
    grounded: list[float],
    data: str,
    judge: Judge,
    prompt: str,
) -> JudgeAgreement:
    """Accuracy, Cohen's kappa and the confusion matrix of the judge on the items it judged;
    ROC AUC of groundedness on all items."""
    pairs = [(i.supported, v) for i, v in zip(items, verdicts, strict=True) if v is not None]
    gold = [g for g, _ in pairs]
    predicted = [p for _, p in pairs]
    return JudgeAgreement(
        data=data,
        judge_model=judge.model,
        prompt=prompt,
        items=len(items),
        supported=sum(i.supported for i in items),
        judged=len(pairs),
        judge_errors=len(items) - len(pairs),
        accuracy=float(np.mean([g == p for g, p in pairs])) if pairs else None,
        kappa=float(cohen_kappa_score(gold, predicted)) if len(set(gold) | set(predicted)) == 2 else None,
        confusion=confusion_matrix(gold, predicted, labels=[False, True]).tolist()
        if pairs
        else [[0, 0], [0, 0]],
        groundedness_auc=_auc([i.supported for i in items], grounded),
        judge_auc=_auc(gold, [float(p) for p in predicted]) if pairs else None,
    )


async def evaluate(
    config: LLMConfig,
    embedding: EmbeddingConfig,
    data: Path,
    limit: int | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> JudgeAgreement:
    """Run the faithfulness judge (``config``, temperature 0) and embedding groundedness on
    the K-QA NLI items in ``data`` and measure their agreement with the physicians."""
    items = load_nli(data, limit)
    embedder = Embedder(embedding)
    llm = open_llm(config, use_cache=use_cache)
    judge = Judge(llm, model=config.model, max_tokens=2048)
    try:
        grounded = groundedness(items, embedder)
        with progress if progress is not None else nullcontext():
            verdicts = await judge_verdicts(judge, [(i.answer, i.statement) for i in items], progress)
    finally:
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    return agreement(items, verdicts, grounded, str(data), judge, load_prompt("judge_support").id)
