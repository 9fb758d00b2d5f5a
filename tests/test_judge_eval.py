"""Judge-vs-physician agreement: hand-computed figures, and clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from simpop.errors import ConfigError
from simpop.metrics.judge import Judge
from simpop.run.agreement import NLIItem, agreement, groundedness, load_nli

ROOT_DATA = Path(__file__).parent.parent / "data" / "kqa-nli"


def item(supported: bool, answer: str = "a") -> NLIItem:
    return NLIItem(
        answer=answer, statement="s", label="entailment" if supported else "neutral", supported=supported
    )


def test_agreement_by_hand():
    gold = [True, True, False, False, False]
    verdicts = [True, False, False, True, None]  # the last one is a judge error
    result = agreement(
        [item(g) for g in gold], verdicts, [0.9, 0.4, 0.3, 0.5, 0.1], "d", Judge(None, "m"), "p"
    )
    assert (result.judged, result.judge_errors) == (4, 1)
    assert result.accuracy == 0.5
    # 2x2 table TP 1, FN 1, FP 1, TN 1: observed 0.5, expected 0.5 -> kappa 0
    assert result.kappa == pytest.approx(0.0)
    assert result.confusion == [[1, 1], [1, 1]]
    # groundedness ranks: supported 0.9, 0.4 vs not 0.3, 0.5, 0.1 -> 5 of 6 pairs ordered
    assert result.groundedness_auc == pytest.approx(5 / 6)


def test_load_nli_reads_the_k_qa_file_and_limits_by_answer():
    items = load_nli(ROOT_DATA)
    assert len(items) == 399 and sum(i.supported for i in items) == 153
    first = load_nli(ROOT_DATA, limit=2)
    assert len({i.answer for i in first}) == 2 and len(first) < 399


def test_load_nli_errors_name_the_file_row_and_column(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_nli(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("answer,claim\nx,y\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="missing: majority_label"):
        load_nli(bad)
    bad.write_text("answer,claim,majority_label\nx,y,maybe\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="row 2, column 'majority_label'"):
        load_nli(bad)


def test_groundedness_is_the_best_sentence_similarity(embedder):
    answer = "Glaucoma damages the optic nerve. The weather is sunny today."
    items = [
        NLIItem(
            answer=answer, statement="Glaucoma harms the optic nerve.", label="entailment", supported=True
        ),
        NLIItem(
            answer=answer, statement="Cataract surgery takes ten minutes.", label="neutral", supported=False
        ),
    ]
    close, far = groundedness(items, embedder)
    assert close > 0.8 and far < close
