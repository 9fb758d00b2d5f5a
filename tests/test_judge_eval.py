"""Judge-vs-physician agreement: hand-computed figures, and clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simpop.errors import ConfigError
from simpop.evaluation.agreement import NLIItem, evaluate_rows, groundedness, load_nli
from simpop.judging.features import FEATURES

ROOT_DATA = Path(__file__).parent.parent / "data" / "kqa-nli"


def test_every_row_is_out_of_fold_and_groundedness_is_the_similarity_column():
    # 10 answers of 4 statements; the judge's P(yes) is right on 9 answers, wrong on one
    items, rows = [], []
    for a in range(10):
        for s in range(4):
            supported = s % 2 == 0
            items.append(NLIItem(answer=f"answer {a}", statement=f"s{s}", label="x", supported=supported))
            judge_p = (0.8 if supported else 0.2) if a else (0.2 if supported else 0.8)
            row = [0.5] * len(FEATURES)
            row[0], row[FEATURES.index("best_similarity")] = judge_p, 0.9 if supported else 0.1
            rows.append(row)
    agreements = {r.judge: r for r in evaluate_rows(items, {"j": np.array(rows)}, k=5)}
    assert set(agreements) == {"j P(yes)", "j + verifier", "embedding groundedness"}
    judge = agreements["j P(yes)"]
    assert judge.folds == 5 and judge.groups == 10 and judge.items == 40
    assert judge.accuracy == pytest.approx(36 / 40)  # the one wrong answer's 4 statements
    assert (
        agreements["embedding groundedness"].accuracy == 1.0
        and agreements["embedding groundedness"].auc == 1.0
    )


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
