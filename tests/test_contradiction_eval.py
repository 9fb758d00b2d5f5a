"""The contradiction judge's agreement with people (``simpop judge-eval --judge contradiction``):
the labelled sets as shipped, balanced sampling, and hand-computed figures through a fake judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import assert_one_line_error, simpop

from simpop.errors import ConfigError
from simpop.evaluation.contradiction_agreement import load_pairs
from simpop.judging.crossval import balanced
from simpop.testing.fake_openai import FakeOpenAIServer
from simpop.testing.patients import task_text, yes_no

DATA = Path(__file__).parent.parent / "data"


def test_both_labelled_sets_load_as_shipped():
    name, prosecco = load_pairs(DATA / "prosecco")
    assert name == "ProSeCCo" and len(prosecco) == 1327 and sum(p.contradiction for p in prosecco) == 685
    assert len({p.group for p in prosecco}) == 209  # speakers
    name, kqa = load_pairs(DATA / "kqa-nli")
    assert name == "K-QA" and len(kqa) == 399 and sum(p.contradiction for p in kqa) == 12
    assert all(p.asked for p in kqa)  # the patient's question opens the transcript


def test_balanced_takes_up_to_half_contradictions_and_is_repeatable():
    def contradicts(pair):
        return pair.contradiction

    _, kqa = load_pairs(DATA / "kqa-nli")
    ten = balanced(kqa, contradicts, 10)
    assert len(ten) == 10 and sum(p.contradiction for p in ten) == 5
    forty = balanced(kqa, contradicts, 40)
    assert sum(p.contradiction for p in forty) == 12 and len(forty) == 40  # all 12 there are
    assert balanced(kqa, contradicts, 40) == forty and balanced(kqa, contradicts, None) == kqa


def test_a_bad_label_or_a_missing_file_names_it(tmp_path):
    bad = tmp_path / "ProSeCCo_final.csv"
    bad.write_text("speaker_id,proposition_1,proposition_2,label\ns1,a,b,maybe\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="row 2, column 'label'"):
        load_pairs(tmp_path)
    result = simpop("judge-eval", "--judge", "contradiction", "--data", "nowhere.csv", cwd=tmp_path)
    assert_one_line_error(result, "nowhere.csv: no such file")


def _judge(request: dict) -> object:
    """P(yes) 0.9 when the chatbot's last answer says "never", else 0.2."""
    last = task_text(request).split("Chatbot:")[-1].split("Does any answer")[0]
    return yes_no(0.9 if "never" in last else 0.2)


def test_figures_at_the_profile_threshold_are_hand_computed(tmp_path):
    # 10 speakers, one pair each: 5 contradictions of which 4 say "never" (4 TP, 1 FN); 5 others
    # of which 1 says "never" (1 FP). Accuracy 8/10; kappa (0.8 - 0.5) / (1 - 0.5) = 0.6.
    rows = ["speaker_id,proposition_1,proposition_2,label"]
    for i in range(10):
        contradiction = i < 5
        says_never = i in (0, 1, 2, 3, 5)
        second = f"you must never take drug {i}" if says_never else f"drug {i} is fine"
        label = "self-contradiction" if contradiction else "no self-contradiction"
        rows.append(f"s{i},take drug {i} daily,{second},{label}")
    (tmp_path / "pairs.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with FakeOpenAIServer(default=_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url, "COLUMNS": "200"}
        result = simpop(
            "judge-eval",
            "--judge",
            "contradiction",
            "--model",
            "fake-judge",
            "--data",
            "pairs.csv",
            "-o",
            "eval.json",
            "--no-cache",
            cwd=tmp_path,
            env=env,
        )
        prompts = [task_text(r) for r in llm.requests if r.get("logprobs")]
    assert result.returncode == 0, result.stderr
    assert len(prompts) == 10
    # two chatbot answers in order, no empty patient line where there was no question
    assert prompts[0].index("Chatbot: take drug 0 daily") < prompts[0].index("Chatbot: you must never")
    assert "Patient:" not in prompts[0]
    saved = json.loads((tmp_path / "eval.json").read_text())
    fixed, fitted = saved["rows"]
    assert fixed["judge"] == "fake-judge · ProSeCCo · profile threshold" and fixed["thresholds"] == [0.5]
    assert fixed["accuracy"] == pytest.approx(0.8) and fixed["kappa"] == pytest.approx(0.6)
    assert fixed["auc"] == pytest.approx(0.8)  # of 25 (yes, no) pairs: 16 ranked right, 8 tied (half each)
    assert fitted["folds"] == 5 and fitted["groups"] == 10
    assert saved["items"] == {"ProSeCCo": 10} and saved["contradictions"] == {"ProSeCCo": 5}
    assert "ProSeCCo: 10 pairs (5 contradicting)" in result.stdout
