"""How far the support judge, its verifier and embedding groundedness agree with physicians, on
K-QA's NLI judgements (Manes et al., 2024): an answer (premise) and a physician's statement
(hypothesis) labelled entailment / neutral / contradiction by three physicians. A statement is
supported when the majority says entailment.

The judge sees each answer as the context and is asked one statement at a time (ASTRID Listing
1, P(yes) from a one-token answer); groundedness is the statement's best cosine similarity to a
sentence of the answer (HCAT §3). Every figure is out of fold: thresholds and the verifier are
fitted on the other answers' statements (``simpop.judging.crossval``)."""

from __future__ import annotations

import asyncio
import csv
import io
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, nullcontext
from pathlib import Path
from typing import TypeVar

import numpy as np
from rich.progress import Progress

from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judging.crossval import Agreement, agreement, at_profile_and_fitted, out_of_fold, threshold_fit
from simpop.judging.features import FEATURES
from simpop.judging.profile import profile_for
from simpop.judging.verifier import VerifierModel, feature_matrix, read_verifier, verifier_fit
from simpop.llm import LLMError, open_llm
from simpop.metrics.faithfulness import support_verdicts
from simpop.metrics.judge import Judge, Verdict
from simpop.models import EmbeddingConfig, LLMConfig, Record
from simpop.sentences import split_sentences
from simpop.textfiles import read_text

DATA_FILE = "NLI_medical_annotator.csv"
COLUMNS = ("answer", "claim", "majority_label")
CLAIMS_FILE = "pairs.csv"
CLAIM_COLUMNS = ("claim", "evidence", "supported")

T = TypeVar("T")


class NLIItem(Record):
    """One physician judgement: does the answer support the statement?"""

    answer: str
    statement: str
    label: str
    supported: bool


class JudgeEvaluation(Record):
    """Agreement with the physicians' majority of each judge, its verifier and groundedness."""

    data: str
    items: int
    supported: int
    answers: int
    judge_errors: dict[str, int] = {}
    rows: list[Agreement]


def load_claims(file: Path) -> list[NLIItem]:
    """A claim–evidence file (``claim``, ``evidence``, ``supported`` yes/no, optional ``label``):
    each claim a statement, its evidence the context (e.g. ``data/check-covid/pairs.csv``)."""
    rows = list(csv.DictReader(io.StringIO(read_text(file), newline="")))
    items = []
    for number, row in enumerate(rows, start=2):
        if row.get("supported", "").strip().lower() not in ("yes", "no"):
            raise ConfigError(f"{file} row {number}, column 'supported': expected yes or no")
        items.append(
            NLIItem(
                answer=row["evidence"],
                statement=row["claim"],
                label=row.get("label") or row["supported"],
                supported=row["supported"].strip().lower() == "yes",
            )
        )
    return items


def load_nli(path: Path, limit: int | None = None) -> list[NLIItem]:
    """The K-QA NLI file (a folder holding it, or the CSV itself), or a claim–evidence file
    (``load_claims``); ``limit`` keeps the items of the first ``limit`` answers (contexts)."""
    if path.is_dir() and not (path / DATA_FILE).is_file() and (path / CLAIMS_FILE).is_file():
        path = path / CLAIMS_FILE
    if path.is_file() and set(CLAIM_COLUMNS) <= set(read_text(path).splitlines()[0].split(",")):
        return _first_answers(load_claims(path), limit)
    file = path / DATA_FILE if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{file}: no such file (the K-QA NLI judgements, {DATA_FILE})")
    rows = list(csv.DictReader(io.StringIO(read_text(file), newline="")))
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
    return _first_answers(items, limit)


def _first_answers(items: list[NLIItem], limit: int | None) -> list[NLIItem]:
    if limit is not None:
        keep = list(dict.fromkeys(i.answer for i in items))[:limit]
        items = [i for i in items if i.answer in keep]
    return items


@asynccontextmanager
async def opened_judge(config: LLMConfig, use_cache: bool = True) -> AsyncIterator[Judge]:
    """The judge of ``config`` with its profile, its endpoint closed on the way out."""
    llm = open_llm(config, use_cache=use_cache)
    try:
        yield Judge(llm, model=config.model, profile=profile_for(config.model))
    finally:
        await llm.aclose()
        llm.endpoint.close()


async def each_probability(
    items: Sequence[T], ask: Callable[[T], Awaitable[Verdict]], what: str, progress: Progress | None
) -> list[float | None]:
    """The judge's P(yes) on each item (``ask``), ``None`` where it failed (a judge error)."""
    task = progress.add_task(what, total=len(items)) if progress else None
    found: list[float | None] = []
    for item in items:
        try:
            found.append((await ask(item)).p_yes)
        except LLMError:
            found.append(None)
        if progress is not None and task is not None:
            progress.advance(task)
    return found


async def labelled_agreement(
    configs: list[LLMConfig],
    probabilities: Callable[[Judge], Awaitable[list[float | None]]],
    verdict: str,
    y: np.ndarray,
    groups: list[str],
    use_cache: bool = True,
    progress: Progress | None = None,
) -> tuple[list[Agreement], dict[str, int]]:
    """Each judge's P(yes) (``probabilities``) against the labels ``y``: at its profile's
    threshold for ``verdict`` and at one fitted out of fold (folds by ``groups``); and how many
    of its verdicts failed (counted as P(yes) 0.5)."""
    rows: list[Agreement] = []
    errors: dict[str, int] = {}
    with progress if progress is not None else nullcontext():
        for config in configs:
            async with opened_judge(config, use_cache) as judge:
                found = await probabilities(judge)
            assert judge.profile is not None
            errors[config.model] = sum(p is None for p in found)
            p = np.array([0.5 if v is None else v for v in found])
            rows += at_profile_and_fitted(config.model, y, p, groups, judge.profile.threshold(verdict))
    return rows, errors


async def judge_probabilities(
    judge: Judge, pairs: list[tuple[str, str]], progress: Progress | None = None
) -> list[float | None]:
    """The support judge's P(yes) on every (context, statement) pair (1 or 0 where it answered
    with a structured reply; ``None`` where it failed), one context at a time so its statements
    share the prompt's prefix."""
    by_context: dict[str, list[int]] = defaultdict(list)
    for index, (context, _) in enumerate(pairs):
        by_context[context].append(index)
    found: list[float | None] = [None] * len(pairs)
    task = progress.add_task("judge statements", total=len(pairs)) if progress else None
    for context, indices in by_context.items():
        try:
            verdicts = await support_verdicts(judge, context, [pairs[i][1] for i in indices])
            for i, v in zip(indices, verdicts, strict=True):
                found[i] = v.p_yes
        except LLMError:
            pass  # these stay None: counted as judge errors
        if progress is not None and task is not None:
            progress.advance(task, len(indices))
    return found


def groundedness(items: list[NLIItem], embedder: Embedder) -> list[float]:
    """Each statement's best cosine similarity to a sentence of its answer."""
    sentences = {a: split_sentences(a) or [a] for a in dict.fromkeys(i.answer for i in items)}
    texts = list(dict.fromkeys([i.statement for i in items] + [s for ss in sentences.values() for s in ss]))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return [float(max(vectors[i.statement] @ vectors[s] for s in sentences[i.answer])) for i in items]


def support_features(items: list[NLIItem], embedder: Embedder, judge_p: list[float]) -> np.ndarray:
    """The verifier's features of every item, the answer as the context."""
    pairs = [(split_sentences(i.answer), i.answer, i.statement) for i in items]
    return feature_matrix(embedder, pairs, judge_p)


def evaluate_rows(
    items: list[NLIItem],
    x_by_judge: dict[str, np.ndarray],
    k: int = 5,
    shipped: dict[str, VerifierModel] | None = None,
) -> list[Agreement]:
    """Grouped-CV agreement of each judge's P(yes) and verifier (features ``x``), and of
    groundedness (the first judge's similarity column), with the people's labels; where a
    judge has a ``shipped`` verifier, that verifier as it is too (nothing refitted: how far it
    carries to this data)."""
    y = np.array([i.supported for i in items], dtype=int)
    groups = [i.answer for i in items]
    rows = []
    similarity = FEATURES.index("best_similarity")
    for name, x in x_by_judge.items():
        model = (shipped or {}).get(name)
        if model is not None:
            p = model.probability(x)
            label = f"{name} + its profile's verifier as shipped ({model.trained_on.split(':')[0]})"
            rows.append(agreement(label, y, p, p >= model.threshold, groups, [model.threshold]))
        for label, fit in ((f"{name} P(yes)", threshold_fit(0)), (f"{name} + verifier", verifier_fit)):
            p, verdict, thresholds = out_of_fold(x, y, groups, fit, k)
            rows.append(agreement(label, y, p, verdict, groups, thresholds))
    if x_by_judge:
        x = next(iter(x_by_judge.values()))
        p, verdict, thresholds = out_of_fold(x, y, groups, threshold_fit(similarity), k)
        rows.append(agreement("embedding groundedness", y, p, verdict, groups, thresholds))
    return rows


async def evaluate(
    configs: list[LLMConfig],
    embedding: EmbeddingConfig,
    data: Path,
    limit: int | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> JudgeEvaluation:
    """Ask each judge (``configs``, temperature 0) for P(yes) on the K-QA NLI items in ``data``
    and measure, out of fold, its agreement with the physicians alone and through a verifier."""
    items = load_nli(data, limit)
    embedder = Embedder(embedding)
    x_by_judge: dict[str, np.ndarray] = {}
    shipped: dict[str, VerifierModel] = {}
    errors: dict[str, int] = {}
    try:
        with progress if progress is not None else nullcontext():
            for config in configs:
                async with opened_judge(config, use_cache) as judge:
                    found = await judge_probabilities(
                        judge, [(i.answer, i.statement) for i in items], progress
                    )
                assert judge.profile is not None
                if (path := judge.profile.verifier_path()) is not None:
                    shipped[config.model] = read_verifier(path)
                errors[config.model] = sum(p is None for p in found)
                judge_p = [0.5 if p is None else p for p in found]
                x_by_judge[config.model] = support_features(items, embedder, judge_p)
    finally:
        embedder.close()
    return JudgeEvaluation(
        data=str(data),
        items=len(items),
        supported=sum(i.supported for i in items),
        answers=len({i.answer for i in items}),
        judge_errors=errors,
        rows=await asyncio.to_thread(evaluate_rows, items, x_by_judge, 5, shipped),
    )
