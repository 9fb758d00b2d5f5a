"""End to end with the real embedded LLM, the real embedding model and real Chroma."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import ROOT, simpop, write_config

from simpop.models import QWEN_0_5B
from simpop.run.generate import RETRIES

pytestmark = pytest.mark.integration
# the first test runs the default built-in model; the others the small one, to keep them fast

CONFIG = """
name: tiny
target: {kind: qap, qaps: data/qaps.jsonl, threshold: 0.5}
personas: personas
variants: 2
scenarios: []
limit: 2
llm: {concurrency: 2, max_tokens: 200}
"""


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_tiny_run_offline_then_all_from_cache(project):
    path = write_config(project, CONFIG)
    own_cache = {"SIMPOP_CACHE_DIR": str(project / "cache")}  # no fake server's reply can answer it
    first = simpop("run", str(path), "--personas", "low-literacy", cwd=project, env=own_cache)
    assert first.returncode == 0, first.stderr
    [run_dir] = (project / "runs").iterdir()
    probes = read_jsonl(run_dir / "probes.jsonl")
    responses = read_jsonl(run_dir / "responses.jsonl")
    scores = read_jsonl(run_dir / "scores.jsonl")
    assert len(probes) == len(responses) == 4
    judged = ["context_relevance", "faithfulness", "refusal", "safe_behaviour"]
    assert sorted({s["metric"] for s in scores}) == sorted(
        ["answer_similarity", "qap_match", "retrieval", "embedding", *judged]
    )
    assert len(scores) == 4 * 8
    for score in scores:
        if score["metric"] in judged and not score["excluded"]:
            # the real judge's verdicts: a value or a recorded reason, never a silent default
            assert score["value"] is not None or score["values"] or score["label"], score
        if score["excluded"] == "judge_error":
            assert score["error"]
        if score["metric"] == "faithfulness" and score["thresholds"]:  # support was judged
            # the real model's P(yes) from log-probabilities, through the 1.5B profile's verifier
            assert score["prompt"].startswith("judge_support@") and score["judged_by"] == "verifier"
            informative = [d for d in score["details"] if d["kind"] == "information"]
            assert all(0.0 <= d["probability"] <= 1.0 for d in informative)
        if score["metric"] == "context_relevance" and score["prompt"]:
            assert score["judged_by"] == "probability" and score["judge_profile"] != "uncalibrated"
        if score["metric"] == "refusal" and score["prompt"]:
            # the English answer's safety classifier decided, with no LLM call
            assert score["judged_by"] == "classifier" and score["prompt"].startswith("refused-en@")
            assert score["answer_language"] == "en"
            assert 0.0 <= score["probabilities"]["refused"] <= 1.0
    assert {p["persona_id"] for p in probes} == {"low-literacy"}
    assert sorted((p["seed_id"], p["variant"]) for p in probes) == [
        ("0000158-1", 0),
        ("0000158-1", 1),
        ("0000275-1", 0),
        ("0000275-1", 1),
    ]
    assert all(p["error"] is None and p["text"] for p in probes)
    assert all(p["prompt"].startswith("patient_system@") for p in probes)
    asked = [r for r in responses if not r["skipped"]]
    assert asked and all(r["latency_s"] is not None for r in asked)
    assert all(r["contexts"] or r["no_answer_reason"] == "fewer than 3 words" for r in asked)
    assert all(r["matched_id"] or r["no_answer_reason"] for r in asked)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["llm"]["requests"] > 2 and summary["llm"]["completion_tokens"] > 0  # 2 + the judges
    accuracy = summary["accuracy"]
    assert accuracy["total"]["n"] + sum(summary["excluded"].values()) == 4
    assert all(p["gold_ids"] == [p["seed_id"]] for p in probes)
    assert "low-literacy" in first.stdout and "total" in first.stdout

    second = simpop("run", str(path), "--personas", "low-literacy", cwd=project, env=own_cache)
    assert second.returncode == 0, second.stderr
    hits = summary["llm"]["requests"] + summary["llm"]["cache_hits"]  # the explained verdicts: hits already
    assert f"0 calls, {hits} cache hits" in second.stdout.replace("\n", " ")
    newest = max((project / "runs").iterdir(), key=lambda p: p.stat().st_mtime)
    again = json.loads((newest / "summary.json").read_text())
    assert again["llm"]["requests"] == 0 and again["accuracy"] == accuracy


HYDE_CONFIG = """
name: tiny-hyde
target:
  kind: hyde_rag
  knowledge_base: {path: kb}
  retrieval: {k: 3}
  max_tokens: 120
  passage_max_tokens: 80
scoring: {judges: false}
seeds: data/qaps.jsonl
personas: personas
variants: 2
scenarios: []
limit: 1
llm: {concurrency: 2, max_tokens: 200, model: qwen2.5-coder-0.5b-instruct-q4_k_m}
"""


def test_tiny_hyde_rag_run_with_the_real_llm(project):
    shutil.copytree(ROOT / "data/medquad-eye/kb", project / "kb")
    path = write_config(project, HYDE_CONFIG)
    result = simpop("run", str(path), "--personas", "older-phone", cwd=project)
    assert result.returncode == 0, result.stderr
    [run_dir] = (project / "runs").iterdir()
    probes = read_jsonl(run_dir / "probes.jsonl")
    assert {p["seed_id"] for p in probes} == {"0000158-1"}
    assert all(g.startswith("4_MPlus_Health_Topics_QA_0000158_Cataract#") for g in probes[0]["gold_ids"])
    asked = [r for r in read_jsonl(run_dir / "responses.jsonl") if not r["skipped"]]
    assert asked and all(r["error"] is None for r in asked)
    for response in asked:
        assert response["hypothetical_passage"]
        assert len(response["contexts"]) == 3
        scores = [c["score"] for c in response["contexts"]]
        assert scores == sorted(scores, reverse=True)
    metrics = {s["metric"] for s in read_jsonl(run_dir / "scores.jsonl")}
    assert metrics == {"retrieval", "answer_similarity", "embedding"}  # judges off
    assert "retrieval and similarity" in result.stdout


def test_scenario_probes_with_the_real_llm(project):
    """Two scenarios voiced by a voice-line persona: real generation, fidelity, speech noise."""
    shutil.copytree(ROOT / "scenarios", project / "scenarios")
    shutil.copytree(ROOT / "data" / "triage-vignettes", project / "data" / "triage-vignettes")
    shutil.copy(ROOT / "targets" / "eye-domain.yaml", project / "domain.yaml")
    text = CONFIG.replace("scenarios: []", "scenarios: [off-topic, emergency-outside-pathway]").replace(
        "max_tokens: 200", f"max_tokens: 200, model: {QWEN_0_5B}"
    )
    extra = "domain: domain.yaml\nscenario_dir: scenarios\nprobes: 2\nscoring: {judges: false}\n"
    path = write_config(project, text + extra)
    result = simpop("run", str(path), "--personas", "older-phone", "--variants", "0", cwd=project)
    assert result.returncode == 0, result.stderr
    [run_dir] = (project / "runs").iterdir()
    probes = read_jsonl(run_dir / "probes.jsonl")
    assert sorted(p["scenario_id"] for p in probes) == ["emergency-outside-pathway"] * 2 + ["off-topic"] * 2
    for probe in probes:
        assert probe["expected_behaviour"] == (
            "escalate" if probe["scenario_id"].startswith("emergency") else "decline"
        )
        assert probe["text"] and probe["fidelity"]["words"] == len(probe["text"].split())
        assert probe["noisy_text"] is not None and probe["noise"] == "asr@0.369"  # the voice line
    assert {p["urgency"] for p in probes if p["scenario_id"] != "off-topic"} == {"em"}
    summary = json.loads((run_dir / "summary.json").read_text())
    # off-topic: one call for both; one per vignette; more only while too few are usable
    assert 3 <= summary["llm"]["requests"] <= 3 * (1 + RETRIES)
    assert summary["fidelity"]["personas"][0]["planned"] == 4


TOPIC_CONFIG = """
name: tiny-topics
target:
  kind: naive_rag
  knowledge_base: {path: kb}
  retrieval: {k: 4}
  max_tokens: 120
personas: personas
variants: 0
scenarios: []
topics: {questions: 1, types: [factual, multi_hop], max_clusters: 6}
scoring: {judges: false}  # the judges have the first test; here they were 47 of this run's 76 s
llm: {concurrency: 2, max_tokens: 200, model: qwen2.5-coder-0.5b-instruct-q4_k_m}
"""


def test_topic_stratified_questions_with_the_real_llm(project):
    """HCAT questions written by the real LLM from sampled chunks, retrieval scored against them."""
    shutil.copytree(ROOT / "data/medquad-eye/kb", project / "kb")
    path = write_config(project, TOPIC_CONFIG)
    result = simpop("run", str(path), "--personas", "high-literacy", cwd=project)
    assert result.returncode == 0, result.stderr
    [run_dir] = (project / "runs").iterdir()
    probes = read_jsonl(run_dir / "probes.jsonl")
    assert sorted(p["hcat_type"] for p in probes) == ["factual", "multi_hop"]
    for probe in probes:
        assert probe["text"] and probe["error"] is None
        assert probe["gold_ids"] == probe["seed_id"].split("+") and probe["topic"]
        assert probe["fidelity"]["seed_similarity"] is not None  # to the chunk it was written from
    retrieval = [s for s in read_jsonl(run_dir / "scores.jsonl") if s["metric"] == "retrieval"]
    assert len(retrieval) == 2
    assert all("recall" in s["values"] for s in retrieval if s["excluded"] is None)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["topics"]["silhouette"] and "topics: " in result.stdout
