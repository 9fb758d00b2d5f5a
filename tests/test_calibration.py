"""HCAT's two-stage calibration and ASTRID's clinical-risk models: the conformal quantile and
prediction sets by hand, calibration measures by hand, stage-1 maps recovered from synthetic
data with a known mapping, and the commands end to end on label files, K-QA's physician
judgements and hand-built runs with imported labels."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_one_line_error, simpop
from scipy.special import expit

from simpop.aggregate import ece, reliability
from simpop.calibration.calibrate import Calibrator, calibrate, split
from simpop.calibration.conformal import conformal_quantile, coverage, needs_review, prediction_sets
from simpop.calibration.probability import auc, brier, fit
from simpop.errors import ConfigError
from simpop.labels.clinicians import save_labels
from simpop.labels.files import LabelScale, load_label_file, read_scale
from simpop.models import HumanLabel, Response, RunSummary
from simpop.store import RESPONSES_FILE, RunStore
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.hand_built import build_run
from simpop.testing.patients import reworded, task_text, with_judges, yes_no

ROOT = Path(__file__).resolve().parent.parent
BINARY = LabelScale(name="ok", levels=["no", "yes"], ordered=True)


# --- stage 2: split conformal, by hand ------------------------------------------------------


def test_conformal_quantile_is_the_finite_sample_rank():
    scores = np.array([0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6])  # n = 9, shuffled
    # alpha 0.2: rank ceil(10 * 0.8) = 8 -> the 8th smallest, 0.8
    assert conformal_quantile(scores, 0.2) == pytest.approx(0.8)
    # alpha 0.1: rank ceil(10 * 0.9) = 9 -> the largest, 0.9
    assert conformal_quantile(scores, 0.1) == pytest.approx(0.9)
    # alpha 0.3: rank ceil(10 * 0.7) = 7 -> 0.7 (not the plain 70% quantile of 9 items, 0.66)
    assert conformal_quantile(scores, 0.3) == pytest.approx(0.7)
    # alpha 0.05: rank ceil(9.5) = 10 > 9: too few items for 95%, every label goes in every set
    assert conformal_quantile(scores, 0.05) == 1.0
    with pytest.raises(ValueError):
        conformal_quantile(scores, 1.0)


def test_prediction_sets_hold_labels_whose_nonconformity_is_at_most_q():
    p = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8], [0.65, 0.35]])
    # q = 0.4: 1 - p <= 0.4 means p >= 0.6
    assert prediction_sets(p, 0.4) == [[0], [], [1], [0]]
    # q = 0.6: p >= 0.4, so the even and the near-even rows are ambiguous
    assert prediction_sets(p, 0.6) == [[0], [0, 1], [1], [0]]
    assert prediction_sets(p, 0.65) == [[0], [0, 1], [1], [0, 1]]
    three = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    assert prediction_sets(three, 0.8) == [[0, 1, 2], [2]]
    assert prediction_sets(three, 0.7) == [[0, 1], [2]]  # 1 − 0.3 = 0.7 is at most q̂: kept
    assert prediction_sets(three, 0.69) == [[0], [2]]
    sets = prediction_sets(p, 0.6)
    assert coverage(sets, np.array([1, 1, 0, 0])) == pytest.approx(2 / 4)  # rows 2 and 4 covered
    assert [needs_review(s) for s in prediction_sets(p, 0.4)] == [False, True, False, False]


# --- stage 1: measures by hand, mappings from synthetic data ---------------------------------


def test_brier_ece_and_reliability_by_hand():
    p1 = np.array([0.2, 0.8, 0.6, 0.9])
    p = np.column_stack([1 - p1, p1])
    y = np.array([0, 1, 0, 1])
    assert brier(p, y) == pytest.approx((0.04 + 0.04 + 0.36 + 0.01) / 4)
    # one item per bin: gaps 0.2, 0.2, 0.6, 0.1
    assert ece(p, y) == pytest.approx((0.2 + 0.2 + 0.6 + 0.1) / 4)
    # two items in bin 8 (mean 0.85, observed 0.5) and one in bin 1 (0.1, observed 0)
    p1 = np.array([0.81, 0.89, 0.1])
    p = np.column_stack([1 - p1, p1])
    y = np.array([1, 0, 0])
    assert reliability(p, y) == [(pytest.approx(0.1), 0.0, 1), (pytest.approx(0.85), 0.5, 2)]
    assert ece(p, y) == pytest.approx((2 * 0.35 + 0.1) / 3)
    assert auc(p, y) == pytest.approx(0.5)  # the positive outranks one of two negatives
    # three classes: multi-class Brier sums over classes; ECE bins the top label
    p3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    assert brier(p3, np.array([0, 1])) == pytest.approx(((0.16 + 0.09 + 0.01) + (0.04 + 0.64 + 0.36)) / 2)
    # both top labels have confidence 0.6 (one bin); the first is right, the second wrong
    assert ece(p3, np.array([0, 1])) == pytest.approx(abs(0.6 - 0.5))


def _synthetic(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Scores uniform on [0, 1]; P(yes | x) = σ(6x − 3): known mapping."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, n)
    return x[:, None], (rng.uniform(0, 1, n) < expit(6 * x - 3)).astype(int)


def test_platt_recovers_a_known_logistic_mapping():
    x, y = _synthetic(20000)
    mapping = fit("platt", x, y, BINARY.levels)
    assert mapping.weights[0][0] == pytest.approx(6.0, abs=0.4)
    assert mapping.intercepts[0] == pytest.approx(-3.0, abs=0.25)
    grid = np.linspace(0.05, 0.95, 10)[:, None]
    assert np.abs(mapping.probabilities(grid)[:, 1] - expit(6 * grid[:, 0] - 3)).max() < 0.03


def test_isotonic_recovers_a_known_monotone_mapping_and_clips():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, 20000)
    y = (rng.uniform(0, 1, 20000) < x**2).astype(int)  # P(yes | x) = x²
    mapping = fit("isotonic", x[:, None], y, BINARY.levels)
    grid = np.array([0.2, 0.4, 0.6, 0.8])
    assert np.abs(mapping.probabilities(grid[:, None])[:, 1] - grid**2).max() < 0.05
    outside = mapping.probabilities(np.array([[-5.0], [5.0]]))[:, 1]
    assert 0.0 <= outside[0] < 0.05 and 0.95 < outside[1] <= 1.0
    with pytest.raises(ConfigError, match="binary label and a single score"):
        fit("isotonic", np.column_stack([x, x]), y, BINARY.levels)


def test_ordinal_recovers_known_cut_points_and_slope():
    # P(Y <= k | x) = σ(θ_k − 4x) with θ = (1, 3): three ordered levels
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 20000)
    latent = 4 * x + rng.logistic(size=x.size)
    y = (latent > 1).astype(int) + (latent > 3).astype(int)
    mapping = fit("ordinal", x[:, None], y, ["none", "mild", "severe"])
    assert mapping.weights[0][0] == pytest.approx(4.0, abs=0.3)
    assert mapping.intercepts == [pytest.approx(1.0, abs=0.15), pytest.approx(3.0, abs=0.2)]
    p = mapping.probabilities(np.array([[0.5]]))[0]
    expected = np.diff([0, expit(1 - 2), expit(3 - 2), 1])
    assert p == pytest.approx(expected, abs=0.02) and p.sum() == pytest.approx(1.0)


def test_two_stage_calibration_covers_one_minus_alpha_on_held_out_data():
    x, y = _synthetic(6000, seed=4)
    for alpha in (0.1, 0.2):
        calibrator, _, _, sets = calibrate(x, y.tolist(), BINARY, ["s"], "platt", alpha, "synthetic")
        e = calibrator.evaluation
        assert (e.fit_items, e.calibration_items, e.test_items) == (2400, 1800, 1800)
        assert abs(e.coverage - (1 - alpha)) < 0.03
        assert e.ece_after < 0.03 < e.ece_before  # raw scores are not probabilities here
        assert e.brier_after < e.brier_before
        assert e.auc_after == pytest.approx(e.auc_before)  # a monotone map keeps the ranking
        assert sum(e.set_sizes.values()) == 1800 and len(sets) == 1800
    saved = Calibrator.model_validate_json(calibrator.model_dump_json())
    assert np.allclose(saved.predict(x[:5])[0], calibrator.predict(x[:5])[0])


def test_splits_are_disjoint_stratified_and_seeded():
    y = [0] * 60 + [1] * 40
    fit_idx, cal_idx, test_idx = split(y, (0.4, 0.3, 0.3), seed=0)
    assert (len(fit_idx), len(cal_idx), len(test_idx)) == (40, 30, 30)
    assert set(fit_idx) | set(cal_idx) | set(test_idx) == set(range(100))
    assert [sum(y[i] for i in part) for part in (fit_idx, cal_idx, test_idx)] == [16, 12, 12]
    assert split(y, (0.4, 0.3, 0.3), seed=0)[2].tolist() == test_idx.tolist()
    assert split(y, (0.4, 0.3, 0.3), seed=1)[2].tolist() != test_idx.tolist()


# --- label files ---------------------------------------------------------------------------


def test_label_files_csv_and_jsonl(tmp_path: Path):
    csv_file = tmp_path / "labels.csv"
    csv_file.write_text(
        "ID;Question;Answer;Context;Harm;my score\nq1;q?;a.;c.;None;0.2\nq2;q?;a.;c.;Mild-Moderate;0.5\n"
        "q3;q?;a.;c.;severe;0.9\n",
        encoding="utf-8",
    )
    items = load_label_file(csv_file)
    assert [i.id for i in items] == ["q1", "q2", "q3"] and items[1].scores == {"my_score": 0.5}
    multiline = tmp_path / "multiline.csv"
    multiline.write_text('id,answer,context,ok\nm1,"two\nlines",c,yes\nm2,one,c,no\n', encoding="utf-8")
    assert [i.answer for i in load_label_file(multiline)] == ["two\nlines", "one"]  # the break is kept
    scale, carrying, y = read_scale(items, "harm")
    assert scale.levels == ["none", "mild_moderate", "severe"] and scale.ordered and y == [0, 1, 2]
    binary, _, yb = read_scale(items, "harm", positive="severe")
    assert binary.levels == ["not_severe", "severe"] and yb == [0, 0, 1]
    jsonl = tmp_path / "labels.jsonl"
    rows = [
        {"question": "q", "answer": "a", "context": ["c1", "c2"], "nli": v}
        for v in ("entail", "neutral", "contra")
    ]
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = load_label_file(jsonl)
    assert items[0].context == "c1\nc2" and items[0].id == "1"
    scale, _, y = read_scale(items, "nli")
    assert not scale.ordered and scale.levels == ["contra", "entail", "neutral"] and y == [1, 2, 0]


@pytest.mark.parametrize(
    ("content", "suffix", "args", "needles"),
    [
        (
            '{"answer": "a", "ok": "yes"}\n{"answer": "b", ok: no}\n',
            ".jsonl",
            [],
            ["line 2", "not valid JSON"],
        ),
        (
            "answer,harm,s\na,none,0.1\nb,terrible,0.2\n",
            ".csv",
            [],
            ["'terrible' is not one of none, mild_moderate"],
        ),
        ("answer,harm,s\na,none,0.1\nb,none,0.2\n", ".csv", [], ["same value (none)"]),
        ("answer,grade,s\na,x,0.1\nb,y,0.2\n", ".csv", [], ["give --label"]),
        (
            "answer,harm,s\na,none,0.1\nb,severe,0.2\n",
            ".csv",
            ["--column", "context=passage"],
            ["no column 'passage'"],
        ),
        ("answer,harm\na,none\nb,severe\n", ".csv", [], ["--score s: not in the labels"]),
        ("id,harm,s\nq1,none,0.1\nq1,severe,0.2\n", ".csv", [], ["column 'id'", "id 'q1' is used 2 times"]),
        ("answer,harm,s\na,none,0.1\nb,severe,0.2\n", ".txt", [], ["must be .csv or .jsonl"]),
        (
            "answer,harm,s\na,none,0.1\nb,severe,abc\n",
            ".csv",
            [],
            ["item '3', column 's': 'abc' is not a finite"],
        ),
        (
            "answer,harm,s\na,none,nan\nb,severe,0.2\n",
            ".csv",
            [],
            ["item '2', column 's': 'nan' is not a finite"],
        ),
        (
            "answer,harm,s\na,none,inf\nb,severe,0.2\n",
            ".csv",
            [],
            ["item '2', column 's': 'inf' is not a finite"],
        ),
    ],
)
def test_bad_label_files_get_one_line_errors(tmp_path: Path, content, suffix, args, needles):
    path = tmp_path / f"labels{suffix}"
    path.write_text(content, encoding="utf-8")
    result = simpop("calibrate", str(path), "--score", "s", *args, cwd=tmp_path)
    assert_one_line_error(result, *needles)
    assert not (tmp_path / "calibrators").exists()


def test_missing_label_file_and_too_few_items(tmp_path: Path):
    assert_one_line_error(
        simpop("calibrate", "nope.csv", "--score", "s", cwd=tmp_path), "nope.csv", "not found"
    )
    path = tmp_path / "few.csv"
    path.write_text("answer,harm,s\na,none,0.1\nb,severe,0.2\nc,none,0.3\n", encoding="utf-8")
    assert_one_line_error(
        simpop("calibrate", str(path), "--score", "s", cwd=tmp_path), "too few labelled items"
    )


# --- the commands end to end ---------------------------------------------------------------


@pytest.mark.integration  # the real embedding model over a whole data set
def test_calibrate_kqa_nli_groundedness_with_the_real_embedding_model(tmp_path: Path):
    """Physicians' support labels (399 statements): groundedness ranks them (AUC ≈ 0.7), Platt
    makes it a probability, and the conformal sets cover about 90% of held-out statements."""
    out = tmp_path / "g.json"
    result = simpop(
        "calibrate", str(ROOT / "data/kqa-nli"), "--score", "groundedness", "-o", str(out), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    calibrator = Calibrator.model_validate_json(out.read_text())
    e = calibrator.evaluation
    assert calibrator.label.name == "supported" and calibrator.items == 399
    assert (e.fit_items, e.calibration_items, e.test_items) == (159, 120, 120)
    assert e.auc_after is not None and e.auc_after > 0.65
    assert e.ece_before is not None and e.ece_after < e.ece_before
    assert abs(e.coverage - 0.9) < 0.06
    with (tmp_path / "g.review-queue.csv").open(encoding="utf-8") as handle:
        queue = list(csv.DictReader(handle))
    assert len(queue) == round(e.review_share * e.test_items)
    assert all("|" in row["prediction_set"] or row["prediction_set"] == "(empty)" for row in queue)
    assert (tmp_path / "g.reliability.png").read_bytes()[:4] == b"\x89PNG"


def _support_judge(request: dict) -> Reply:
    """A judge that finds a statement supported exactly when its context says SUPPORTS."""
    return yes_no(0.9 if "SUPPORTS" in task_text(request) else 0.1)


def test_faithfulness_of_a_label_file_is_computed_by_the_judge(tmp_path: Path):
    """A label file without scores: the judge (a fake on 127.0.0.1) gives each answer's support
    P(yes), one request per statement, and Platt maps it onto the labels."""
    rows = ["question,answer,context,supported"]
    for i in range(30):
        says, label = ("SUPPORTS", "yes") if i % 3 else ("does not", "no")
        rows.append(f"q{i},statement {i},context {i % 15} {says},{label}")
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with FakeOpenAIServer(default=_support_judge) as llm:
        env = {"SIMPOP_LLM_BASE_URL": llm.base_url}
        result = simpop(
            "calibrate",
            str(path),
            "--score",
            "faithfulness",
            "--no-cache",
            "-o",
            "f.json",
            cwd=tmp_path,
            env=env,
        )
        asked = len([r for r in llm.requests if r.get("logprobs")])
    assert result.returncode == 0, result.stderr
    assert asked == 30  # one per statement
    e = Calibrator.model_validate_json((tmp_path / "f.json").read_text()).evaluation
    assert e.auc_before == 1.0 and e.coverage == 1.0 and e.set_sizes == {1: e.test_items}


def _labelled_run(root: Path, name: str, n: int = 40) -> tuple[Path, dict[str, float]]:
    """A run of 2 personas x 2 scenarios x n probes with a triad; clinicians' harm follows CF."""
    rng = np.random.default_rng(7)
    safe = {(p, s): [1.0] * n for p in ("low", "high") for s in ("emergency", "in-scope")}
    metrics, faithfulness = {}, {}
    for p, s in safe:
        for i in range(n):
            cell = f"{p}-{s}-{i}"
            cf = float(rng.uniform(0, 1))
            faithfulness[cell] = cf
            metrics[cell] = {
                "faithfulness": cf,
                "context_relevance": float(rng.uniform(0, 1)),
                "refusal.accuracy": float(rng.integers(0, 2)),
            }
    return build_run(root, name, safe, metrics=metrics), faithfulness


def _harm(cf: float) -> str:
    return "severe" if cf < 0.25 else "mild_moderate" if cf < 0.5 else "none"


def test_imported_labels_calibrate_a_run_and_train_a_risk_model(tmp_path: Path):
    """The labelling round trip with ASTRID's ratings, then calibrate, report --calibrator,
    risk train and risk apply on a run, and risk apply on a second, unlabelled run."""
    runs = tmp_path / "runs"
    run, faithfulness = _labelled_run(runs, "eye")
    exported = tmp_path / "labels.csv"
    assert simpop("export-labels", str(run), "-o", str(exported), cwd=tmp_path).returncode == 0
    with exported.open(encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert {"harm", "helpful", "inappropriate"} <= set(rows[0])
    for row in rows:
        row["harm"] = _harm(faithfulness[row["cell_id"]]).replace("_", "-").title()  # as people type it
    rows[0]["helpful"] = "maybe"
    with exported.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    bad = simpop("import-labels", str(run), str(exported), cwd=tmp_path)
    assert_one_line_error(bad, "row 2", "column 'helpful'", "'maybe' is not one of no, yes")
    rows[0]["helpful"] = "yes"
    with exported.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    imported = simpop("import-labels", str(run), str(exported), cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert "harm 160, helpful 1" in imported.stdout

    # stage 1 + 2 on the run's labels (ordinal harm from CF), then applied to the run
    calibrator_file = tmp_path / "harm.json"
    result = simpop(
        "calibrate", str(run), "--label", "harm", "--score", "faithfulness", "--method", "ordinal",
        "--alpha", "0.2", "-o", str(calibrator_file), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    calibrator = Calibrator.model_validate_json(calibrator_file.read_text())
    assert calibrator.label.levels == ["none", "mild_moderate", "severe"]
    assert calibrator.mapping.weights[0][0] < 0  # less faithful, more harmful
    assert calibrator.evaluation.test_items == 48
    result = simpop("report", str(run), "--calibrator", str(calibrator_file), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = RunSummary.model_validate_json((run / "summary.json").read_text())
    assert summary.calibration is not None and summary.calibration.calibrated == 160
    with (run / "calibrated.csv").open(encoding="utf-8") as handle:
        calibrated = list(csv.DictReader(handle))
    with (run / "review-queue.csv").open(encoding="utf-8") as handle:
        queue = list(csv.DictReader(handle))
    assert len(calibrated) == 160 and summary.calibration.review == len(queue)
    assert {r["cell_id"] for r in queue} == {
        r["cell_id"] for r in calibrated if "|" in r["prediction_set"] or r["prediction_set"] == "(empty)"
    }
    low = next(g for g in summary.calibration.groups if g.group == "low")
    mean_severe = np.mean([float(r["p_severe"]) for r in calibrated if r["persona"] == "low"])
    assert low.shares["severe"] == pytest.approx(mean_severe, abs=1e-4)
    assert "Calibrated harm" in (run / "report.html").read_text()

    # ASTRID's clinical-risk models on the same labels
    model = tmp_path / "risk.joblib"
    result = simpop("risk", "train", str(run), "--label", "harm", "-o", str(model), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(model.with_suffix(".json").read_text())
    assert [f["kind"] for f in report["families"]] == [
        "random_forest",
        "svm",
        "naive_bayes",
        "neural_network",
    ]
    assert (report["train_items"], report["validation_items"], report["test_items"]) == (96, 32, 32)
    chosen = next(f for f in report["families"] if f["kind"] == report["chosen"])
    assert chosen["test_macro_f1"] > 0.8  # harm is a step function of CF
    assert {c["level"] for c in chosen["test"]} == {"none", "mild_moderate", "severe"}

    other, cf_other = _labelled_run(runs, "eye-v2", n=10)
    result = simpop("risk", "apply", str(other), "--model", str(model), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = RunSummary.model_validate_json((other / "summary.json").read_text())
    [risk] = summary.risk
    assert risk.label == "harm" and risk.predicted == 40
    total = next(g for g in risk.groups if g.by == "total")
    assert sum(total.shares.values()) == pytest.approx(1.0)
    truth = np.mean([_harm(cf) == "severe" for cf in cf_other.values()])
    assert abs(total.shares["severe"] - truth) <= 0.1
    with (other / "risk-harm.csv").open(encoding="utf-8") as handle:
        assert len(list(csv.DictReader(handle))) == 40
    assert simpop("report", str(other), cwd=tmp_path).returncode == 0
    assert "Predicted harm" in (other / "report.html").read_text()


def test_bad_calibrator_and_model_files(tmp_path: Path):
    run = build_run(tmp_path / "runs", "eye", {("low", "in-scope"): [1.0, 0.0]})
    bad = tmp_path / "bad.json"
    bad.write_text('{"source": "x"}', encoding="utf-8")
    assert_one_line_error(
        simpop("report", str(run), "--calibrator", str(bad), cwd=tmp_path),
        "bad.json",
        "not a simpop calibrator",
    )
    assert_one_line_error(
        simpop("risk", "apply", str(run), "--model", str(bad), cwd=tmp_path),
        "bad.json",
        "not a simpop risk model",
    )
    assert not (run / "report.html").exists()


def test_run_applies_a_calibrator_at_the_end(tmp_path: Path):
    """`simpop run --calibrator`: a bad calibrator fails before the run; a good one (fitted on
    a label file's answer-relevancy column) is applied to the run's embedding metric."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "personas", project / "personas")
    (project / "data").mkdir()
    shutil.copy(ROOT / "data/medquad-eye/qaps.jsonl", project / "data/qaps.jsonl")
    rng = np.random.default_rng(5)
    relevancy = rng.uniform(0, 1, 200)
    helpful = rng.uniform(0, 1, 200) < relevancy
    rows = ["answer_relevancy,helpful"] + [
        f"{r:.3f},{'yes' if h else 'no'}" for r, h in zip(relevancy, helpful, strict=True)
    ]
    (project / "labels.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    made = simpop("calibrate", "labels.csv", "--score", "answer_relevancy", "-o", "c.json", cwd=project)
    assert made.returncode == 0, made.stderr
    (project / "bad.json").write_text("{}", encoding="utf-8")
    with FakeOpenAIServer(default=with_judges(_same_question)) as llm:
        config = (
            "name: cal\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\n"
            f"limit: 2\nscenarios: []\nllm: {{base_url: '{llm.base_url}'}}\n"
        )
        (project / "run.yaml").write_text(config, encoding="utf-8")
        bad = simpop("run", "run.yaml", "--calibrator", "bad.json", "--no-judge", "--no-cache", cwd=project)
        assert_one_line_error(bad, "bad.json", "not a simpop calibrator")
        assert not (project / "runs").exists()
        result = simpop("run", "run.yaml", "--calibrator", "c.json", "--no-judge", "--no-cache", cwd=project)
    assert result.returncode == 0, result.stderr
    # captured, so not a terminal: progress comes as plain lines, each stage ending with "done"
    assert "generate questions: 14/14 done in" in result.stderr
    assert "score answers: 14/14 done in" in result.stderr
    [run] = (project / "runs").iterdir()
    assert f"next: simpop report runs/{run.name}" in result.stdout and "not tested" not in result.stdout
    summary = RunSummary.model_validate_json((run / "summary.json").read_text())
    assert summary.calibration is not None and summary.calibration.scores == ["answer_relevancy"]
    with (run / "calibrated.csv").open(encoding="utf-8") as handle:
        calibrated = list(csv.DictReader(handle))
    assert len(calibrated) == summary.calibration.calibrated > 0
    assert (run / "review-queue.csv").is_file()


def _same_question(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def test_a_runs_missing_score_is_not_computed_from_its_texts(tmp_path: Path):
    """A run keeps its own scores: calibrating an unjudged run on faithfulness is an error, not
    a judge call that would put the file judge's verdict where the run's CF belongs."""
    run = build_run(tmp_path / "runs", "eye", {("low", "in-scope"): [1.0] * 6})
    store = RunStore.open(run.parent, run.name)
    ids = [r.cell_ids() for r in store.log(RESPONSES_FILE, Response).records.values()]
    save_labels(
        store, [HumanLabel(**i, ratings={"helpful": "yes" if n % 2 else "no"}) for n, i in enumerate(ids)]
    )
    result = simpop("calibrate", str(run), "--score", "faithfulness", cwd=tmp_path)
    assert_one_line_error(result, "--score faithfulness", "none for a run")
