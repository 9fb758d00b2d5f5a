"""The yes/no benchmark: its config, its items and results, and its summary."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator

from simpop.models.record_base import ID_PATTERN, Record
from simpop.models.records import Context
from simpop.models.run_config import EmbeddingConfig, KnowledgeBaseConfig, LLMConfig, TargetConfig
from simpop.models.summary import LLMUsage


class YesNoDataset(Record):
    """Questions with a gold yes/no decision and gold documents in a corpus."""

    questions: Path
    corpus: KnowledgeBaseConfig
    id_field: str = "id"
    question_field: str = "question"
    decision_field: str = "decision"
    gold_ids_field: str | None = Field(None, description="a question's list of gold document ids")
    gold_match_field: str | None = Field(
        None, description="gold documents: those whose field of this name equals the question's"
    )

    @model_validator(mode="after")
    def _one_gold_rule(self) -> YesNoDataset:
        if (self.gold_ids_field is None) == (self.gold_match_field is None):
            raise ValueError("set exactly one of gold_ids_field and gold_match_field")
        return self


class BenchmarkTarget(Record):
    """One target of a benchmark; ``thresholds`` sweeps a threshold-mode retriever."""

    name: str = Field(pattern=ID_PATTERN)
    target: TargetConfig
    thresholds: list[float] | None = None


class YesNoBenchmarkConfig(Record):
    """``simpop benchmark yesno``: targets × questions, the table of Han's thesis."""

    name: str = Field(pattern=ID_PATTERN)
    description: str | None = None
    dataset: YesNoDataset
    targets: list[BenchmarkTarget] = Field(min_length=1)
    limit: int | None = Field(None, gt=0)
    k: int = Field(5, gt=0, description="cut-off of hit@k and nDCG@k")
    llm: LLMConfig = LLMConfig()
    embedding: EmbeddingConfig = EmbeddingConfig()


class BenchmarkItem(Record):
    """One question of a benchmark with its gold decision and gold document ids."""

    id: str
    question: str
    decision: str
    gold_ids: list[str]


class BenchmarkResult(Record):
    """One target's answer to one benchmark question, and its scores."""

    row: str
    item_id: str
    question: str
    gold_decision: str
    answer: str | None = None
    decision: str | None = None
    correct: float | None = None
    contexts: list[Context] = []
    hypothetical_passage: str | None = None
    retrieval: dict[str, float | None] = {}
    latency_s: float | None = None
    error: str | None = None


class BenchmarkRow(Record):
    """One row of the benchmark table: a target (at one threshold) over all questions."""

    row: str
    target: str
    kind: str
    threshold: float | None
    n: int
    correct: int
    unparsed: int
    errors: int
    accuracy: float | None
    answers: dict[str, int] = Field({}, description="answers given: yes, no, unparsed")
    balanced_accuracy: float | None = Field(None, description="mean of the recall of gold yes and gold no")
    majority_baseline: float | None = Field(
        None, description="accuracy of always giving the commoner gold answer"
    )
    one_answer: str | None = Field(
        None, description="the answer given to at least 90% of questions: a degenerate target"
    )
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    map: float | None = None
    mrr: float | None = None
    hit_at_k: float | None = None
    ndcg_at_k: float | None = None
    mean_retrieved: float | None = None


class BenchmarkSummary(Record):
    """What a benchmark run writes to ``summary.json``."""

    run_id: str
    name: str
    k: int
    questions: int
    left_out: dict[str, int]
    rows: list[BenchmarkRow]
    llm: LLMUsage
    duration_s: float
