from __future__ import annotations

import pytest
from pydantic import ValidationError

from simpop.models import QAP, Persona
from simpop.population.plan import cell_id, plan, sampling_seed
from simpop.population.variants import (
    clean_variant,
    deduplicate,
    variant_messages,
    variations_model,
)


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("1. What is glaucoma?", "What is glaucoma?"),
        ("  2) Is it bad?  ", "Is it bad?"),
        ("- Can it be cured?", "Can it be cured?"),
        ('"Why do my eyes hurt?"', "Why do my eyes hurt?"),
        ("10: How long does it last?", "How long does it last?"),
        ("What is 2 plus 2?", "What is 2 plus 2?"),
    ],
)
def test_clean_variant(raw, clean):
    assert clean_variant(raw) == clean


def test_deduplicate_keeps_index_and_marks_twins():
    texts = [
        "What is glaucoma?",
        "what is  glaucoma?",  # exact after case and spacing
        "What is glaucoma ?",  # near duplicate
        "   ",  # blank
        "How is glaucoma treated?",
    ]
    result = deduplicate(texts)
    assert [v.index for v in result] == [0, 1, 2, 3, 4]
    assert [v.duplicate_of for v in result] == [None, 0, 0, None, None]
    assert result[3].text is None
    assert result[4].text == "How is glaucoma treated?"


def test_variations_schema_requires_exactly_n():
    model = variations_model(3)
    assert model.model_json_schema()["properties"]["questions"]["minItems"] == 3
    model.model_validate({"questions": ["a", "b", "c"]})
    with pytest.raises(ValidationError):
        model.model_validate({"questions": ["a", "b"]})
    with pytest.raises(ValidationError):
        model.model_validate({"questions": ["a", "b", "c"], "extra": 1})


def test_messages_use_vignette_as_system_prompt():
    persona = Persona(
        id="p", name="P", vignette="You are Gary, 61.", health_literacy="low", language_level="A2"
    )
    qap = QAP(id="q", question="What is (are) Glaucoma ?", answer="...")
    system, user = variant_messages(persona, qap, 4)
    assert system["role"] == "system" and system["content"].startswith("You are Gary, 61.")
    assert "CEFR level A2" in system["content"] and "health literacy is low" in system["content"]
    assert "What is (are) Glaucoma ?" in user["content"] and "exactly 4" in user["content"]


def test_plan_is_the_cross_product_with_stable_ids():
    personas = [
        Persona(id=i, name=i, vignette="v", health_literacy="low", language_level="A1") for i in ("a", "b")
    ]
    qaps = [QAP(id=i, question="q" + i, answer="x") for i in ("1", "2", "3")]
    cells = plan(personas, qaps, 2)
    assert len(cells) == 12 and len({c.cell_id for c in cells}) == 12
    assert cells[0].cell_id == cell_id("a", "1", 0) == plan(personas, qaps, 2)[0].cell_id
    assert sampling_seed(0, "a", "1") == sampling_seed(0, "a", "1") != sampling_seed(1, "a", "1")
