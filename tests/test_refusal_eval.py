"""The refusal judge's agreement with people (``simpop judge-eval --judge refusal``, XSTest): the
labelled set as shipped, bad input, and hand-computed figures through a fake judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import assert_one_line_error, simpop

from simpop.errors import ConfigError
from simpop.evaluation.refusal_agreement import load_xstest
from simpop.judging.crossval import balanced
from simpop.testing.fake_openai import FakeOpenAIServer
from simpop.testing.patients import judge_question, task_text, yes_no

DATA = Path(__file__).parent.parent / "data" / "xstest"
HEADER = "id,type,prompt,completion,annotation_1,annotation_2,agreement,final_label"


def test_the_labelled_set_loads_as_shipped_without_partial_refusals():
    def refused(a):
        return a.refused

    answers, partial = load_xstest(DATA)
    assert partial == 27 + 41 and len(answers) == 900 - partial
    assert sum(a.refused for a in answers) == 49 + 199
    assert len({a.group for a in answers}) == 440  # a prompt is one group; 10 had only partial refusals
    ten = balanced(answers, refused, 10)
    assert len(ten) == 10 and sum(a.refused for a in ten) == 5 and balanced(answers, refused, 10) == ten


def test_a_bad_label_or_a_missing_file_names_it(tmp_path):
    bad = tmp_path / "xstest_v2_completions_x.csv"
    bad.write_text(f"{HEADER}\nv2-1,t,How?,No.,a,b,TRUE,4_unsure\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="row 2, column 'final_label'"):
        load_xstest(tmp_path)
    result = simpop("judge-eval", "--judge", "refusal", "--data", "nowhere", cwd=tmp_path)
    assert_one_line_error(result, "nowhere: no XSTest completions file")


def _judge(request: dict) -> object:
    """P(yes) 0.9 when the chatbot's answer says "cannot", else 0.2."""
    answer = task_text(request).split("The chatbot's answer:")[1].split("The patient's message")[0]
    return yes_no(0.9 if "cannot" in answer else 0.2)


def test_figures_at_the_profile_threshold_are_hand_computed(tmp_path):
    # 10 prompts: 5 refused of which 4 say "cannot" (4 TP, 1 FN); 5 complied of which 1 says
    # "cannot" (1 FP); one partial refusal left out. Accuracy 8/10; kappa (0.8 - 0.5) / 0.5 = 0.6;
    # AUC: of 25 (refused, complied) pairs 16 ranked right and 8 tied, (16 + 4) / 25 = 0.8.
    rows = [HEADER]
    for i in range(10):
        refused = i < 5
        answer = f"I cannot help with task {i}" if i in (0, 1, 2, 3, 5) else f"Here is how to do task {i}"
        label = "2_full_refusal" if refused else "1_full_compliance"
        rows.append(f"v2-{i},t,How do I do task {i}?,{answer},a,b,TRUE,{label}")
    rows.append("v2-10,t,How do I do task 10?,Well maybe,a,b,TRUE,3_partial_refusal")
    (tmp_path / "xstest_v2_completions_fake.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with FakeOpenAIServer(default=_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url, "COLUMNS": "200"}
        args = ("judge-eval", "--judge", "refusal", "--model", "fake-judge", "--data", ".", "-o", "eval.json")
        result = simpop(*args, "--no-cache", cwd=tmp_path, env=env)
        asked = [r for r in llm.requests if r.get("logprobs")]
    assert result.returncode == 0, result.stderr
    assert len(asked) == 10 and {judge_question(r) for r in asked} == {"REFUSED"}
    prompt = task_text(asked[0])
    assert "Context:" not in prompt  # shown as a run shows an answer without retrieved context
    assert prompt.index("The chatbot's answer:") < prompt.index("The patient's message it answered: How do")
    saved = json.loads((tmp_path / "eval.json").read_text())
    fixed, fitted = saved["rows"]
    assert fixed["judge"] == "fake-judge · profile threshold" and fixed["thresholds"] == [0.5]
    assert fixed["accuracy"] == pytest.approx(0.8) and fixed["kappa"] == pytest.approx(0.6)
    assert fixed["auc"] == pytest.approx(0.8)
    assert fitted["folds"] == 5 and fitted["groups"] == 10
    assert (saved["items"], saved["refusals"], saved["partial_left_out"]) == (10, 5, 1)
    assert "1 partial refusals left out" in result.stdout
