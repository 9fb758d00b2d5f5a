"""The yes/no benchmark of Han (Evaluation of RAG in medical QA): targets × questions with a
gold decision and gold passages, scored by yes/no accuracy and retrieval metrics."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass

from rich.progress import Progress

from simpop.config import read_jsonl, read_yaml, resolve_paths, validate
from simpop.embed import Embedder
from simpop.errors import ConfigError, SimpopError
from simpop.knowledge import load_documents
from simpop.llm import LLMClient, open_llm
from simpop.metrics.ir import retrieval_metrics
from simpop.metrics.yesno import parse_yes_no
from simpop.models import (
    BenchmarkItem,
    BenchmarkResult,
    BenchmarkRow,
    BenchmarkSummary,
    BenchmarkTarget,
    Chunk,
    TargetConfig,
    YesNoBenchmarkConfig,
    YesNoDataset,
)
from simpop.redact import clip
from simpop.run.tasks import gather_all, stage_progress
from simpop.store import JsonlLog, RunStore
from simpop.targets import BotResources, Target, build_target

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"


def load_benchmark_config(path) -> YesNoBenchmarkConfig:
    """The benchmark config in ``path``, relative paths resolved against its folder."""
    config = validate(YesNoBenchmarkConfig, read_yaml(path), str(path))
    base = path.resolve().parent
    return config.model_copy(
        update={
            "dataset": resolve_paths(config.dataset, base),
            "targets": [
                t.model_copy(update={"target": resolve_paths(t.target, base)}) for t in config.targets
            ],
        }
    )


def load_items(dataset: YesNoDataset) -> tuple[list[BenchmarkItem], Counter[str]]:
    """The yes/no questions with their gold document ids, and how many others were left out
    (by decision, e.g. ``maybe``: PubMedQA's third class has no yes/no answer to check)."""
    path = dataset.questions
    if not path.is_file():
        raise ConfigError(f"{path}: benchmark questions not found")
    by_value: dict[str, list[str]] = defaultdict(list)
    if dataset.gold_match_field:
        for document in load_documents(dataset.corpus):
            value = document.metadata.get(dataset.gold_match_field)
            if value is not None:
                by_value[str(value)].append(document.id)
    items, left_out = [], Counter()
    fields = (dataset.id_field, dataset.question_field, dataset.decision_field)
    for where, row in read_jsonl(path):
        missing = next((f for f in fields if row.get(f) in (None, "")), None)
        if missing:
            raise ConfigError(f"{where}: field '{missing}': missing required field")
        decision = str(row[dataset.decision_field]).strip().lower()
        if decision not in ("yes", "no"):
            left_out[decision] += 1
            continue
        if dataset.gold_ids_field:
            gold = [str(i) for i in row.get(dataset.gold_ids_field) or []]
        else:
            gold = by_value.get(str(row.get(dataset.gold_match_field)), [])
        items.append(
            BenchmarkItem(
                id=str(row[dataset.id_field]),
                question=str(row[dataset.question_field]),
                decision=decision,
                gold_ids=gold,
            )
        )
    return items, left_out


@dataclass
class Row:
    """One row to run: a target, at one threshold of a sweep."""

    name: str
    spec: BenchmarkTarget
    target: TargetConfig
    threshold: float | None


def expand_rows(targets: list[BenchmarkTarget]) -> list[Row]:
    """One row per target, or per threshold of a target that sweeps them."""
    rows = []
    for spec in targets:
        if not spec.thresholds:
            threshold = getattr(getattr(spec.target, "retrieval", None), "threshold", None)
            rows.append(Row(spec.name, spec, spec.target, threshold))
            continue
        if spec.target.documents() is None:
            raise ConfigError(f"targets.{spec.name}.thresholds: only a RAG target can sweep thresholds")
        for t in spec.thresholds:
            retrieval = spec.target.retrieval.model_copy(  # type: ignore[attr-defined]
                update={"mode": "threshold", "threshold": t}
            )
            rows.append(
                Row(f"{spec.name}@{t:g}", spec, spec.target.model_copy(update={"retrieval": retrieval}), t)
            )
    return rows


def gold_chunk_ids(items: list[BenchmarkItem], chunks: Iterable[Chunk]) -> dict[str, list[str]]:
    """Each item's gold documents as the ids of their chunks in a knowledge base."""
    chunks_of: dict[str, list[str]] = defaultdict(list)
    for chunk in chunks:
        chunks_of[chunk.doc_id].append(chunk.id)
    return {item.id: [c for doc in item.gold_ids for c in chunks_of.get(doc, [])] for item in items}


async def ask_row(
    row: Row,
    target: Target,
    items: list[BenchmarkItem],
    gold: dict[str, list[str]],
    k: int,
    results: JsonlLog[BenchmarkResult],
    concurrency: int,
    progress: Progress | None,
) -> None:
    """Ask every item not answered yet; failures are recorded on the item."""
    todo = [i for i in items if f"{row.name}/{i.id}" not in results.records]
    advance = stage_progress(progress, f"ask {row.name}", len(items), len(items) - len(todo))
    semaphore = asyncio.Semaphore(concurrency)

    async def one(item: BenchmarkItem) -> None:
        base = dict(row=row.name, item_id=item.id, question=item.question, gold_decision=item.decision)
        async with semaphore:
            start = time.perf_counter()
            try:
                answer = await target.ask(item.question)
            except SimpopError:
                raise
            except Exception as error:  # noqa: BLE001 - recorded on the item
                results.append(BenchmarkResult(**base, error=clip(f"{type(error).__name__}: {error}", 500)))
                return
            finally:
                advance()
        decision = parse_yes_no(answer.text)
        retrieval = {}
        if row.target.documents() is not None and gold.get(item.id):
            retrieval = retrieval_metrics([c.id for c in answer.contexts], gold[item.id], k)
        results.append(
            BenchmarkResult(
                **base,
                answer=answer.text,
                decision=decision,
                correct=None if decision is None else float(decision == item.decision),
                contexts=answer.contexts,
                hypothetical_passage=answer.hypothetical_passage,
                retrieval=retrieval,
                latency_s=round(time.perf_counter() - start, 3),
            )
        )

    await gather_all([one(item) for item in todo])


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


ONE_ANSWER_SHARE = 0.9  # a target giving one answer this often is flagged as degenerate


def decision_figures(answered: list[BenchmarkResult]) -> dict:
    """What accuracy alone hides: the answers given, balanced accuracy (the mean over gold
    yes and gold no of the share answered right; Brodersen et al. 2010), the accuracy of
    always giving the commoner gold answer, and the answer given to >= 90% of questions."""
    if not answered:
        return {}
    given = Counter(r.decision or "unparsed" for r in answered)
    gold = Counter(r.gold_decision for r in answered)
    recalls = [
        sum(1 for r in answered if r.gold_decision == d and r.correct == 1.0) / n for d, n in gold.items()
    ]
    top, count = given.most_common(1)[0]
    return {
        "answers": {d: given[d] for d in ("yes", "no", "unparsed") if given[d]},
        "balanced_accuracy": statistics.fmean(recalls),
        "majority_baseline": max(gold.values()) / len(answered),
        "one_answer": top if count >= ONE_ANSWER_SHARE * len(answered) else None,
    }


def table_row(row: Row, results: list[BenchmarkResult], k: int) -> BenchmarkRow:
    """Accuracy over the items answered (an unparseable answer counts as not correct, and is
    also counted apart) beside ``decision_figures``; retrieval metrics are means over items
    with gold passages (MAP is the mean of average precision, MRR of reciprocal rank)."""
    answered = [r for r in results if r.error is None]
    correct = sum(1 for r in answered if r.correct == 1.0)
    scored = [r.retrieval for r in answered if r.retrieval]

    def mean_of(name: str) -> float | None:
        return _mean([s.get(name) for s in scored]) if scored else None

    retrieves = row.target.documents() is not None
    return BenchmarkRow(
        row=row.name,
        target=row.spec.name,
        kind=row.target.kind,
        threshold=row.threshold,
        n=len(answered),
        correct=correct,
        unparsed=sum(1 for r in answered if r.decision is None),
        errors=len(results) - len(answered),
        accuracy=correct / len(answered) if answered else None,
        **decision_figures(answered),
        precision=mean_of("precision"),
        recall=mean_of("recall"),
        f1=mean_of("f1"),
        map=mean_of("average_precision"),
        mrr=mean_of("reciprocal_rank"),
        hit_at_k=mean_of(f"hit@{k}"),
        ndcg_at_k=mean_of(f"ndcg@{k}"),
        mean_retrieved=_mean([len(r.contexts) for r in answered]) if retrieves and answered else None,
    )


async def run_benchmark(
    store: RunStore,
    config: YesNoBenchmarkConfig,
    items: list[BenchmarkItem],
    left_out: dict[str, int],
    use_cache: bool = True,
    progress: Progress | None = None,
) -> BenchmarkSummary:
    """Every row of ``config`` over the first ``limit`` of ``items`` (from ``load_items``), into
    ``store``; ``left_out`` is recorded in the summary."""
    started = time.perf_counter()
    items = items[: config.limit]
    rows = expand_rows(config.targets)
    llm: LLMClient = open_llm(config.llm, use_cache=use_cache)
    embedder = Embedder(config.embedding)
    results = store.log(RESULTS_FILE, BenchmarkResult, key=lambda r: f"{r.row}/{r.item_id}")
    try:
        with progress if progress is not None else nullcontext():
            for row in rows:
                target = build_target(row.target, BotResources(embedder, llm, row.name, use_cache))
                try:
                    retriever = getattr(target, "retriever", None)
                    gold = gold_chunk_ids(items, retriever.chunks.values()) if retriever else {}
                    await ask_row(
                        row, target, items, gold, config.k, results, config.llm.concurrency, progress
                    )
                finally:
                    await target.aclose()
    finally:
        results.close()
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    table = [table_row(row, [results.records[f"{row.name}/{i.id}"] for i in items], config.k) for row in rows]
    summary = BenchmarkSummary(
        run_id=store.run_id,
        name=config.name,
        k=config.k,
        questions=len(items),
        left_out=dict(left_out),
        rows=table,
        llm=llm.usage,
        duration_s=round(time.perf_counter() - started, 3),
    )
    store.write(SUMMARY_FILE, summary)
    return summary
