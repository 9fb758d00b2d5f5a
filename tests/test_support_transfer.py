"""The support verifier on another labelled set: claim-evidence files are read as statements
and contexts, and a verifier is shown as shipped (not refitted) beside the refitted ones."""

from __future__ import annotations

import numpy as np
import pytest

from simpop.errors import ConfigError
from simpop.evaluation.agreement import NLIItem, evaluate_rows, load_nli
from simpop.judging.features import FEATURES
from simpop.judging.verifier import VerifierModel


def test_a_claim_evidence_file_is_read_as_statements_and_their_contexts(tmp_path):
    (tmp_path / "pairs.csv").write_text(
        "id,claim,evidence,label,supported,group\n"
        "1,Masks cut spread.,Masks reduced spread by half.,SUPPORT,yes,a\n"
        "2,Masks raise spread.,Masks reduced spread by half.,REFUTE,no,a\n",
        encoding="utf-8",
    )
    items = load_nli(tmp_path)  # the folder holding pairs.csv
    assert [(i.statement, i.answer, i.label, i.supported) for i in items] == [
        ("Masks cut spread.", "Masks reduced spread by half.", "SUPPORT", True),
        ("Masks raise spread.", "Masks reduced spread by half.", "REFUTE", False),
    ]
    (tmp_path / "pairs.csv").write_text("claim,evidence,supported\nx,y,maybe\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="row 2, column 'supported'"):
        load_nli(tmp_path / "pairs.csv")


@pytest.mark.integration  # the real embedding model over a whole data set
def test_a_shipped_verifier_is_scored_as_it_is_beside_the_refitted_rows():
    # ten contexts, two statements each; the judge's P(yes) (column 0) is the label, noisily
    rng = np.random.default_rng(0)
    y = np.array([1, 0] * 10)
    x = rng.normal(size=(20, len(FEATURES)))
    x[:, 0] = 0.3 + 0.4 * y
    items = [
        NLIItem(answer=f"c{i // 2}", statement=f"s{i}", label="l", supported=bool(v)) for i, v in enumerate(y)
    ]
    # a shipped verifier that reads P(yes) backwards: every verdict wrong at its threshold
    coef = [-5.0] + [0.0] * (len(FEATURES) - 1)
    shipped = VerifierModel(
        features=list(FEATURES), mean=[0.5] + [0.0] * (len(FEATURES) - 1), scale=[0.1] * len(FEATURES),
        coef=coef, intercept=0.0, threshold=0.5, trained_on="k.csv: 399 statements", judge_model="j",
        items=399,
    )  # fmt: skip
    rows = {r.judge: r for r in evaluate_rows(items, {"j": x}, 5, {"j": shipped})}
    as_shipped = rows["j + its profile's verifier as shipped (k.csv)"]
    assert as_shipped.accuracy == 0.0 and as_shipped.thresholds == [0.5]
    assert rows["j P(yes)"].accuracy == 1.0  # the threshold fitted out of fold separates them
