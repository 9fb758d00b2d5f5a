"""The support verifier: its features on hand-built statement/context pairs, grouped
cross-validation, hand-computed agreement figures, the saved file, and ``simpop judge train``
against a fake judge on 127.0.0.1."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import assert_one_line_error, simpop

from simpop.errors import ConfigError
from simpop.judging.crossval import agreement, best_threshold, folds, out_of_fold, threshold_fit
from simpop.judging.features import (
    FEATURES,
    feature_row,
    negated,
    stop_words,
    unmatched_numbers,
    word_overlap,
)
from simpop.judging.profile import DEFAULT, profile_for, read_profile
from simpop.judging.verifier import feature_matrix, fit_verifier, read_verifier
from simpop.testing.fake_openai import FakeOpenAIServer
from simpop.testing.patients import task_text, yes_no


def test_a_changed_number_and_a_negation_are_features():
    context = "Take 4 tablets a day for 2 weeks. Cataract surgery is painless."
    assert unmatched_numbers("Take 4 tablets a day.", context) == 0.0
    assert unmatched_numbers("Take 8 tablets a day.", context) == 1.0
    assert unmatched_numbers("Take 4.0 tablets for 2 weeks.", context) == 0.0  # 4.0 is 4
    assert negated("Surgery is not painful.") and negated("It isn't painful.") and not negated("It hurts.")
    sentences = ["Take 4 tablets a day for 2 weeks.", "Cataract surgery is painless."]
    row = dict(
        zip(
            FEATURES,
            feature_row("Cataract surgery is not painless.", context, sentences, np.array([0.2, 0.8]), 0.7),
            strict=True,
        )
    )
    assert row["judge_p"] == 0.7 and row["best_similarity"] == pytest.approx(0.8)
    assert row["top3_similarity"] == pytest.approx(0.5)  # (0.8 + 0.2) / 2: only two sentences
    assert row["negation_mismatch"] == 1.0  # the closest sentence says it without "not"
    assert row["unmatched_numbers"] == 0.0
    # stems: catar, surge, painl ("is" and "not" are left out): all three in the context
    assert row["word_overlap"] == 1.0
    assert row["log_words"] == pytest.approx(math.log(6))


def test_word_overlap_by_hand():
    # glauc, damag, optic, nerve: optic, nerve, glauc are in the context, damag is not
    assert word_overlap("Glaucoma damages the optic nerve.", "The optic nerve is harmed by glaucoma.") == 0.75
    assert word_overlap("It is.", "anything") == 1.0  # no content words: nothing unsupported


def test_features_come_from_real_embeddings(embedder):
    context = "Glaucoma damages the optic nerve. The clinic opens at 9 am."
    x = feature_matrix(
        embedder,
        [
            (["Glaucoma damages the optic nerve.", "The clinic opens at 9 am."], context, s)
            for s in (
                "Glaucoma harms the optic nerve.",
                "The clinic opens at 7 am.",
                "Cataract is a lens problem.",
            )
        ],
        [0.9, 0.8, 0.2],
    )
    similarity, numbers = FEATURES.index("best_similarity"), FEATURES.index("unmatched_numbers")
    assert x[0, similarity] > 0.8 and x[2, similarity] < x[0, similarity]
    assert x[:, numbers].tolist() == [0.0, 1.0, 0.0]


def test_grouped_folds_never_put_one_answer_in_two_folds():
    groups = [f"answer {i % 7}" for i in range(40)]
    seen = []
    for train, test in folds(groups, k=5):
        assert not {groups[i] for i in train} & {groups[i] for i in test}
        seen += test.tolist()
    assert sorted(seen) == list(range(40))  # every item tested exactly once


def test_thresholds_are_fitted_without_the_test_fold():
    # answers a and b are supported above 0.3, answers c and d above 0.7
    x = np.array([[0.2], [0.4], [0.2], [0.4], [0.6], [0.8], [0.6], [0.8]])
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    groups = ["a", "a", "b", "b", "c", "c", "d", "d"]
    p, verdict, thresholds = out_of_fold(x, y, groups, threshold_fit(0), k=4)
    assert p.tolist() == x[:, 0].tolist()
    for (train, test), threshold in zip(folds(groups, 4), thresholds, strict=True):
        assert threshold == best_threshold(x[train, 0], y[train])  # the test fold played no part
        assert verdict[test].tolist() == (x[test, 0] >= threshold).tolist()
    assert len(set(thresholds)) > 1


def test_best_threshold_and_agreement_by_hand():
    p = np.array([0.1, 0.4, 0.6, 0.9])
    assert best_threshold(p, np.array([0, 0, 1, 1])) == 0.5  # perfect from 0.41 to 0.6: nearest 0.5
    y = np.array([1, 1, 0, 0])
    scores = np.array([0.9, 0.4, 0.3, 0.5])
    a = agreement("j", y, scores, scores >= 0.5, ["g1", "g2", "g3", "g4"], [0.5], reps=200)
    # pairs (positive, negative): 0.9>0.3, 0.9>0.5, 0.4>0.3 ordered, 0.4<0.5 not: AUC 3/4
    assert a.auc == 0.75
    # verdicts 1,0,0,1 against 1,1,0,0: accuracy 1/2; observed 0.5, expected 0.5: kappa 0
    assert a.accuracy == 0.5 and a.kappa == pytest.approx(0.0)
    low, high = a.accuracy_interval
    assert 0.0 <= low <= 0.5 <= high <= 1.0 and a.groups == 4


def test_a_fitted_verifier_survives_its_file_and_bad_files_are_named(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    x = rng.normal(size=(200, len(FEATURES)))
    x[:, 0] += 2 * y  # the judge's P(yes) carries the label
    model = fit_verifier(x, y, "synthetic", "judge-x")
    assert model.coef[0] > 0 and model.items == 200
    path = tmp_path / "v.json"
    path.write_text(model.model_dump_json(), encoding="utf-8")
    again = read_verifier(path)
    assert np.allclose(again.probability(x), model.probability(x))
    assert np.mean((model.probability(x) >= model.threshold) == y) > 0.75
    with pytest.raises(ConfigError, match="verifier file not found"):
        read_verifier(tmp_path / "missing.json")
    path.write_text('{"features": []}', encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{path}: not a simpop support verifier"):
        read_verifier(path)
    path.write_text(model.model_copy(update={"features": ["x"]}).model_dump_json(), encoding="utf-8")
    with pytest.raises(ConfigError, match="made for features"):
        read_verifier(path)


def test_profiles_are_chosen_by_the_judge_model_name():
    assert profile_for("some-remote-model") is DEFAULT and DEFAULT.threshold("refused") == 0.5
    for name in ("qwen2.5-coder-0.5b-instruct-q4_k_m", "/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"):
        profile = profile_for(name)
        assert profile is not DEFAULT and profile.verifier_path() is not None
        model = read_verifier(profile.verifier_path())
        assert model.judge_model in name and 0 < model.threshold < 1


def test_the_llm_judges_verdicts_carry_their_held_out_agreement_or_none(tmp_path):
    """Faithfulness, context relevance and the sub-questions rest on the LLM judge: a figure they
    decide is validated only by a held-out kappa of 0.6 with people, which none has."""
    support = {"0.5b": 0.25, "1.5b": 0.35}  # K-QA's physicians, out of fold (docs/measured.md)
    addressed = {"0.5b": 0.04, "1.5b": 0.52}  # data/sub-questions (docs/measured.md)
    for size, kappa in support.items():
        found = profile_for(f"qwen2.5-coder-{size}-instruct-q4_k_m").llm_validation()
        assert found["supported"].kappa == kappa and not found["supported"].validated
        assert "support verifier" in found["supported"].judge and "K-QA" in (found["supported"].data or "")
        assert found["addressed"].kappa == addressed[size] and not found["addressed"].validated
        assert "data/sub-questions" in (found["addressed"].data or "")
        assert found["relevant"].kappa is None and not found["relevant"].validated  # no human check
    assert all(not v.validated for v in DEFAULT.llm_validation().values())
    # a profile whose verdict agrees well enough is validated; an unknown verdict is an error
    file = tmp_path / "p.yaml"
    file.write_text("name: p\nmodels: [x]\nheld_out: {relevant: {kappa: 0.7, data: d}}\n")
    assert read_profile(file).llm_validation()["relevant"].validated
    file.write_text("name: p\nmodels: [x]\nheld_out: {grounded: {kappa: 0.7, data: d}}\n")
    with pytest.raises(ConfigError, match="held_out.*unknown verdict 'grounded'"):
        read_profile(file)


def _judge(request: dict) -> object:
    """P(yes) 0.8 when the context says the statement's word, else 0.3."""
    text = task_text(request)
    statement = text.split("Statement:")[1].split()[0]
    return yes_no(0.8 if statement in text.split("Statement:")[0] else 0.3)


def test_judge_train_round_trip(tmp_path):
    rows = ["answer,context,supported"]
    for i in range(24):
        word = f"fact{i}"
        context = f"Context {i % 8} mentions {word if i % 3 else 'nothing'} here."
        rows.append(f"{word},{context},{'yes' if i % 3 else 'no'}")
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with FakeOpenAIServer(default=_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url, "SIMPOP_LLM_MODEL": "fake-judge", "COLUMNS": "200"}
        result = simpop("judge", "train", str(labels), "-o", "v.json", "--no-cache", cwd=tmp_path, env=env)
        asked = [r for r in llm.requests if r.get("logprobs")]
    assert result.returncode == 0, result.stderr
    assert len(asked) == 24  # one yes/no question per statement
    assert "fake-judge P(yes)" in result.stdout and "fake-judge + verifier" in result.stdout
    model = read_verifier(tmp_path / "v.json")
    assert model.items == 24 and model.judge_model == "fake-judge" and "labels.csv" in model.trained_on
    saved = json.loads((tmp_path / "v.json").read_text())
    assert saved["coef"][FEATURES.index("judge_p")] > 0


@pytest.mark.integration  # the real embedding model over a whole data set
def test_judge_train_on_two_files_measures_each_and_how_far_the_fit_carries(tmp_path):
    first = ["answer,context,supported"]
    second = ["id,claim,evidence,supported"]  # a claim-evidence file, read without --column
    for i in range(20):
        word = f"fact{i}"
        first.append(
            f"{word},Context {i % 6} mentions {word if i % 3 else 'nothing'} here.,{'yes' if i % 3 else 'no'}"
        )
        second.append(
            f"c{i},{word},Evidence {i % 5} is about {word if i % 2 else 'else'}.,{'yes' if i % 2 else 'no'}"
        )
    (tmp_path / "a.csv").write_text("\n".join(first) + "\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("\n".join(second) + "\n", encoding="utf-8")
    with FakeOpenAIServer(default=_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url, "SIMPOP_LLM_MODEL": "fake-judge", "COLUMNS": "250"}
        result = simpop(
            "judge", "train", "a.csv", "b.csv", "-o", "v.json", "--no-cache", cwd=tmp_path, env=env
        )
    assert result.returncode == 0, result.stderr
    for row in (
        "fake-judge + verifier · a.csv",
        "fake-judge + verifier · b.csv",
        "fitted on the others · b.csv",
    ):
        assert row in result.stdout
    model = read_verifier(tmp_path / "v.json")
    assert model.items == 40 and "a.csv, b.csv" in model.trained_on


def test_judge_train_errors_are_one_line(tmp_path):
    labels = tmp_path / "few.csv"
    labels.write_text("answer,context,supported\na,c1,yes\nb,c1,no\nc,c2,yes\n", encoding="utf-8")
    result = simpop("judge", "train", str(labels), cwd=tmp_path)
    assert_one_line_error(result, "2 distinct contexts; grouped cross-validation needs 5")
    labels.write_text("answer,context,supported\na,c1,maybe\nb,c2,no\n", encoding="utf-8")
    result = simpop("judge", "train", str(labels), cwd=tmp_path)
    assert_one_line_error(result, "'maybe' is not one of")


def test_judge_eval_prints_out_of_fold_rows_for_the_judge_its_verifier_and_groundedness(tmp_path):
    rows = ["answer,claim,majority_label"]
    for a in range(6):
        for s in range(4):
            label = "entailment" if s % 2 == 0 else "neutral"  # the answer says the even facts
            rows.append(f'"Answer {a} says fact{a}0 and fact{a}2.",fact{a}{s},{label}')
    data = tmp_path / "kqa.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with FakeOpenAIServer(default=_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url, "COLUMNS": "200"}
        result = simpop(
            "judge-eval",
            "--model",
            "fake-judge",
            "--data",
            str(data),
            "-o",
            "eval.json",
            "--no-cache",
            cwd=tmp_path,
            env=env,
        )
    assert result.returncode == 0, result.stderr
    saved = json.loads((tmp_path / "eval.json").read_text())
    assert [r["judge"] for r in saved["rows"]] == [
        "fake-judge P(yes)",
        "fake-judge + verifier",
        "embedding groundedness",
    ]
    assert all((r["folds"], r["groups"], r["items"]) == (5, 6, 24) for r in saved["rows"]), saved["rows"]
    assert saved["rows"][0]["accuracy"] == 1.0  # the fake judge is right on every statement
    assert "grouped by answer" in result.stdout


def test_the_stop_words_are_scikit_learns_without_importing_it():
    """The verifier's stop words are read from a file, not from scikit-learn (whose import
    took 1.8 s of a cached re-run); the file holds scikit-learn's list exactly."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert stop_words() == ENGLISH_STOP_WORDS
