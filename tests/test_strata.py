"""Topic strata of a knowledge base (HCAT section 2): allocation, clustering, sampling, and
``simpop run --topics`` against a fake LLM on 127.0.0.1 and the real embedder and Chroma."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT, assert_one_line_error, simpop, write_config

from simpop.knowledge import load_chunks
from simpop.models import Chunk, KnowledgeBaseConfig, TopicConfig
from simpop.population.strata import Topics, allocate, cluster, knowledge_topics
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, task_text, with_judges

EYE_KB = ROOT / "data/medquad-eye/kb"


@pytest.mark.parametrize(
    ("sizes", "n", "allocation", "expected"),
    [
        # quotas 2.5, 1.5, 1.0: floors 2, 1, 1; the one left goes to the earlier .5 remainder
        ([5, 3, 2], 5, "proportional", [3, 1, 1]),
        # quotas 1.2, 0.6, 0.2 (sizes 6, 3, 1 of 10, n 2): floors 1, 0, 0; then .6
        ([6, 3, 1], 2, "proportional", [1, 1, 0]),
        ([2, 1], 5, "proportional", [2, 1]),  # never more than a cluster holds
        ([5, 3, 2], 7, "equal", [3, 2, 2]),  # 2 each, the extra one to the largest
        ([5, 1, 1], 6, "equal", [4, 1, 1]),  # small clusters full, the rest to the large one
        ([4, 4, 4], 2, "equal", [1, 1, 0]),
        ([4, 4], 0, "equal", [0, 0]),
    ],
)
def test_allocate_by_hand(sizes, n, allocation, expected):
    assert allocate(sizes, n, allocation) == expected


def test_cluster_finds_three_separated_topics_by_silhouette():
    rng = np.random.default_rng(0)
    centres = np.eye(3) * 10
    points = np.vstack([c + rng.normal(0, 0.3, size=(20, 3)) for c in centres])
    labels, silhouette = cluster(points, max_clusters=6, seed=0)
    assert max(silhouette, key=silhouette.get) == 3
    assert len(set(labels)) == 3
    # each blob is one cluster
    assert all(len(set(labels[i * 20 : (i + 1) * 20])) == 1 for i in range(3))


def test_cluster_of_two_points_is_one_topic():
    labels, silhouette = cluster(np.array([[0.0, 1.0], [1.0, 0.0]]), max_clusters=5, seed=0)
    assert labels.tolist() == [0, 0] and silhouette == {}


def hand_topics() -> Topics:
    """Six chunks: topic 0 holds a1, a2, b1, b2 (documents a and b), topic 1 holds c1, c2."""
    ids = ["a#1", "a#2", "b#1", "b#2", "c#1", "c#2"]
    chunks = [Chunk(id=i, doc_id=i.split("#")[0], title=i[0], text=f"text {i}") for i in ids]
    vectors = np.array(
        [[1, 0, 0], [0.9, 0.1, 0], [0.8, 0.2, 0], [0.1, 0.9, 0], [0, 0, 1], [0, 0.1, 0.9]], dtype=float
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return Topics(chunks, vectors, np.array([0, 0, 0, 0, 1, 1]), ["a", "c"], {2: 0.5}, 3, 6)


def test_draw_deals_distinct_chunks_that_span_the_topics():
    topics = hand_topics()
    # 3 + 3 = all six chunks, proportional: 4 from topic 0, 2 from topic 1
    first, second = topics.draw([3, 3], "proportional", seed=1)
    assert sorted(first + second) == list(range(6))
    for drawn in (first, second):
        assert {int(topics.labels[i]) for i in drawn} == {0, 1}
    # equal allocation of 2: one chunk from each topic
    [only] = topics.draw([2], "equal", seed=1)
    assert sorted(int(topics.labels[i]) for i in only) == [0, 1]
    # the same seed draws the same chunks
    assert topics.draw([3, 3], "proportional", seed=1) == [first, second]


def test_multi_hop_partner_is_the_nearest_chunk_of_another_document_in_the_topic():
    topics = hand_topics()
    # a#1's nearest is a#2 (same document), then b#1 (0.8, 0.2): another document wins
    assert topics.seed_id(0, 2) == "a#1+b#1"
    assert topics.seed_id(4, 2) == "c#1+c#2"  # only one document in topic 1
    assert topics.seed_id(4, 1) == "c#1"
    assert topics.label("c#2") == "c (#1)"


@pytest.mark.integration  # the real embedding model over a whole data set
def test_eye_knowledge_base_topics_with_the_real_embedder(embedder):
    chunks = load_chunks(KnowledgeBaseConfig(path=EYE_KB))
    config = TopicConfig(questions=5, max_clusters=6)
    topics = knowledge_topics(chunks, embedder, config, seed=0)
    short = [c for c in chunks if len(c.text.split()) < config.min_words]
    assert short and len(topics.chunks) == len(chunks) - len(short)  # titles-only chunks left out
    k = len(topics.names)
    assert 2 <= k <= 6 and set(topics.silhouette) == set(range(2, 7))
    assert topics.silhouette[k] == max(topics.silhouette.values())
    # a cluster is named after the title most of its chunks have
    for c, name in enumerate(topics.names):
        titles = Counter(
            ch.title for ch, label in zip(topics.chunks, topics.labels, strict=True) if label == c
        )
        assert titles[name] == max(titles.values())
    again = knowledge_topics(chunks, embedder, config, seed=0)
    assert again.labels.tolist() == topics.labels.tolist()


def patient_reply(request: dict) -> Reply:
    """High health literacy asks about the passage's topic; low health literacy about asthma
    (something else: invalid)."""
    if "response_format" not in request:  # the bot's answer
        return Reply("The leaflet says to see your eye doctor.")
    if "health literacy is low" in request["messages"][0]["content"]:
        questions = [f"what sets off asthma, take {i}?" for i in range(count(request))]
    else:
        topic = re.search(r"on ([^:]+):", task_text(request)).group(1)  # the (first) chunk's title
        questions = [f"What is {topic} and how is it treated, take {i}?" for i in range(count(request))]
    return Reply(json.dumps({"questions": questions}))


def topic_config(base_url: str, target: str | None = None) -> str:
    target = target or f"{{kind: naive_rag, knowledge_base: {{path: '{EYE_KB}'}}}}"
    return (
        f"name: topics\ntarget: {target}\npersonas: personas\nvariants: 0\nscenarios: []\n"
        f"topics: {{questions: 3, max_clusters: 5}}\nllm: {{base_url: '{base_url}'}}\n"
    )


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.integration  # the real embedding model over a whole data set
def test_run_with_topics_writes_hcat_probes_with_gold_chunks(project):
    personas = ["low-literacy", "high-literacy"]
    with FakeOpenAIServer(default=with_judges(patient_reply)) as llm:
        path = write_config(project, topic_config(llm.base_url))
        result = simpop("run", str(path), "--personas", ",".join(personas), "--no-cache", cwd=project)
        assert result.returncode == 0, result.stderr
        [run] = (project / "runs").iterdir()
        probes = read(run / "probes.jsonl")
        # 4 HCAT types x 3 chunks x 2 personas
        assert Counter(p["hcat_type"] for p in probes) == {
            t: 6 for t in ("factual", "multi_hop", "inference", "yes_no")
        }
        chunk_text = {c.id: c.text for c in load_chunks(KnowledgeBaseConfig(path=EYE_KB))}
        for p in probes:
            assert p["scenario_id"] == "kb-" + p["hcat_type"].replace("_", "-")
            assert p["gold_ids"] == p["seed_id"].split("+")
            assert len(p["gold_ids"]) == (2 if p["hcat_type"] == "multi_hop" else 1)
            assert p["topic"] and p["topic"].endswith(")")
            assert p["seed_text"] == "\n\n".join(chunk_text[i] for i in p["gold_ids"])
        # both personas were asked about the same chunks; types do not share chunks
        seeds = {(p["scenario_id"], p["seed_id"]) for p in probes}
        assert len(seeds) == 12
        firsts = [s.split("+")[0] for _, s in seeds]
        assert len(set(firsts)) == 12
        # the chunk's passage reached the LLM
        tasks = [r["messages"][-1]["content"] for r in llm.requests if "response_format" in r]
        assert any(chunk_text[firsts[0]][:60] in t for t in tasks)
        # questions about something else than their chunk are invalid and not scored
        for p in probes:
            on_topic = p["persona_id"] == "high-literacy"
            assert p["fidelity"]["valid"] == on_topic, (p["text"], p["fidelity"]["reason"])
            assert (p["fidelity"]["seed_similarity"] >= 0.3) == on_topic
        scores = {s["cell_id"]: s for s in read(run / "scores.jsonl") if s["metric"] == "retrieval"}
        for p in probes:
            score = scores[p["cell_id"]]
            if p["persona_id"] == "high-literacy":
                assert score["excluded"] is None and "recall" in score["values"]
            else:
                assert score["excluded"] == "invalid" and score["values"] == {}
        summary = json.loads((run / "summary.json").read_text())
        assert sum(c["sampled"] for c in summary["topics"]["clusters"]) == 12
        assert "topics: " in result.stdout
        # resume plans the same cells: the built-in scenarios are not pinned as scenario files
        config = json.loads((run / "config.json").read_text())
        assert config["scenarios"] == []
        again = simpop("run", str(path), "--resume", run.name, cwd=project)
        assert again.returncode == 0, again.stderr
        assert len(read(run / "probes.jsonl")) == 24


def test_topics_for_a_target_without_knowledge_base_is_a_one_line_error(project):
    with FakeOpenAIServer(default=with_judges(patient_reply)) as llm:
        path = write_config(project, topic_config(llm.base_url, "{kind: llm_only}"))
        result = simpop("run", str(path), cwd=project)
    assert_one_line_error(result, "field 'topics.knowledge_base': required for a llm_only target")


def test_topics_zero_and_nothing_else_is_nothing_to_run(project):
    with FakeOpenAIServer(default=with_judges(patient_reply)) as llm:
        path = write_config(project, topic_config(llm.base_url))
        result = simpop("run", str(path), "--topics", "0", cwd=project)
    assert_one_line_error(result, "nothing to run: no variants (--variants 0), no scenarios")
