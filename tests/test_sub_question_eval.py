"""The sub-question judge's agreement with people (``simpop judge-eval --judge sub_question``,
``data/sub-questions``): the labelled set as shipped, bad input, and hand-computed figures
through a fake judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import assert_one_line_error, simpop

from simpop.errors import ConfigError
from simpop.evaluation.sub_question_agreement import load_sub_questions
from simpop.testing.fake_openai import FakeOpenAIServer
from simpop.testing.patients import judge_question, task_text, yes_no

DATA = Path(__file__).parent.parent / "data" / "sub-questions"


def test_the_labelled_sets_load_as_shipped():
    items = load_sub_questions(DATA)
    assert len(items) == 120 and len({i.group for i in items}) == 60
    assert all(i.sub_question in i.message for i in items[:1])  # the first question as written
    assert sum(i.addressed for i in items) == 51  # labelled blind, before any judge was asked
    rag = load_sub_questions(DATA.parent / "sub-questions-rag")  # a RAG bot's answers
    assert (len(rag), len({i.group for i in rag}), sum(i.addressed for i in rag)) == (60, 24, 26)


def _write(folder: Path, rows: list[tuple[str, str, str, bool]]) -> None:
    """(message id, question, answer, addressed) per item."""
    items, labels = [], []
    for n, (message_id, question, answer, addressed) in enumerate(rows):
        item_id = f"{message_id}-{n}"
        items.append(
            {
                "id": item_id,
                "message_id": message_id,
                "message": f"{question} And more?",
                "sub_question": question,
                "answer": answer,
            }
        )
        labels.append({"id": item_id, "addressed": addressed})
    (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    (folder / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8")


def test_an_item_without_a_label_or_a_missing_folder_names_it(tmp_path):
    _write(tmp_path, [("m1", "What is it?", "It is a thing.", True)])
    (tmp_path / "labels.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="items without a label"):
        load_sub_questions(tmp_path)
    result = simpop("judge-eval", "--judge", "sub_question", "--data", "nowhere", cwd=tmp_path)
    assert_one_line_error(result, "nowhere/labels.jsonl: file not found")


def _judge(request: dict) -> object:
    """P(yes) 0.9 when the answer says "treat", else 0.2."""
    answer = task_text(request).split("The chatbot's answer:")[1].split("The patient's message")[0]
    return yes_no(0.9 if "treat" in answer else 0.2)


def test_figures_at_the_profile_threshold_are_hand_computed(tmp_path):
    # 10 questions of 10 messages: 5 addressed of which 4 answers say "treat" (4 TP, 1 FN); 5 not
    # addressed of which 1 says "treat" (1 FP). Accuracy 8/10; kappa (0.8 - 0.5) / 0.5 = 0.6;
    # AUC: of 25 (addressed, not) pairs 16 ranked right and 8 tied, (16 + 4) / 25 = 0.8.
    rows = []
    for i in range(10):
        says = "You treat it with drops." if i in (0, 1, 2, 3, 5) else "It is common."
        rows.append((f"m{i}", f"How do I treat case {i}?", says, i < 5))
    _write(tmp_path, rows)
    with FakeOpenAIServer(default=_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url, "COLUMNS": "200"}
        args = (
            "judge-eval",
            "--judge",
            "sub_question",
            "--model",
            "fake-judge",
            "--data",
            ".",
            "-o",
            "eval.json",
        )
        result = simpop(*args, "--no-cache", cwd=tmp_path, env=env)
        asked = [r for r in llm.requests if r.get("logprobs")]
    assert result.returncode == 0, result.stderr
    assert len(asked) == 10 and {judge_question(r) for r in asked} == {"ADDRESSES"}
    prompt = task_text(asked[0])
    assert "Context:" not in prompt and 'Question: "How do I treat case' in prompt
    saved = json.loads((tmp_path / "eval.json").read_text())
    fixed, fitted = saved["rows"]
    assert fixed["judge"] == "fake-judge · profile threshold" and fixed["thresholds"] == [0.5]
    assert fixed["accuracy"] == pytest.approx(0.8) and fixed["kappa"] == pytest.approx(0.6)
    assert fixed["auc"] == pytest.approx(0.8)
    assert fitted["folds"] == 5 and fitted["groups"] == 10
    assert (saved["items"], saved["addressed"]) == (10, 5)
