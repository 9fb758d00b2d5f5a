"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint (Text Embeddings Inference,
vLLM, Ollama) instead of the local model: against a fake server on 127.0.0.1."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, closed_port, simpop, write_config

from simpop.embed import Embedder
from simpop.errors import SimpopError
from simpop.models import EmbeddingConfig
from simpop.testing.fake_openai import FakeOpenAIServer, Reply, bag_of_words
from simpop.testing.patients import reworded, with_judges


def embedder(tmp_path, base_url: str, **fields) -> Embedder:
    config = EmbeddingConfig(base_url=base_url, model="fake-embedder", max_retries=0, **fields)
    return Embedder(config, cache_path=tmp_path / "e.sqlite")


def test_vectors_come_from_the_endpoint_in_order_unit_length_and_cached(tmp_path):
    texts = ["my eye hurts", "my eye hurts a lot", "where do I park", "glaucoma drops"]
    with FakeOpenAIServer() as server:
        first = embedder(tmp_path, server.base_url, batch_size=3)
        vectors = first.embed(texts)
        assert server.embedding_requests == [texts[:3], texts[3:]]  # batches of 3
        again = embedder(tmp_path, server.base_url).embed(texts[::-1])  # a new process, same cache
        assert len(server.embedding_requests) == 2
    assert vectors.shape == (4, 64) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    expected = np.asarray(bag_of_words(texts[1]))
    assert np.allclose(vectors[1], expected / np.linalg.norm(expected))
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # shared words are closer
    assert np.array_equal(again, vectors[::-1])
    # the cache key names the endpoint: the local model's vectors are never served for it
    assert first.model_id == f"{server.base_url}|fake-embedder" and first.path is None


def test_endpoint_failures_are_one_line_naming_the_endpoint(tmp_path, monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(SimpopError, match=f"embedding endpoint {url} cannot be reached"):
        embedder(tmp_path, url).embed(["hello"])
    monkeypatch.setenv("SIMPOP_EMBEDDING_API_KEY", "wrong")
    with FakeOpenAIServer(api_key="right") as server:
        with pytest.raises(SimpopError, match=r"rejected the API key \(401\); set SIMPOP_EMBEDDING_API_KEY"):
            embedder(tmp_path, server.base_url).embed(["hello"])
        monkeypatch.setenv("SIMPOP_EMBEDDING_API_KEY", "right")
        assert embedder(tmp_path, server.base_url).embed(["hello"]).shape == (1, 64)


def test_a_run_embeds_through_the_endpoint_and_a_refused_key_stops_it_first(project):
    def llm(request: dict) -> Reply:
        return Reply(json.dumps({"questions": reworded(request)}))

    with FakeOpenAIServer(default=with_judges(llm)) as server, FakeOpenAIServer(api_key="k") as vectors:
        config = (
            "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\n"
            f"limit: 2\nscenarios: []\nllm: {{base_url: '{server.base_url}'}}\n"
            f"embedding: {{base_url: '{vectors.base_url}', model: fake-embedder}}\n"
        )
        write_config(project, config)
        refused = simpop("run", "run.yaml", "--personas", "high-literacy", cwd=project)
        assert_one_line_error(refused, f"embedding endpoint {vectors.base_url} refused our credentials")
        assert not (project / "runs").exists() and server.requests == []
        result = simpop(
            "run",
            "run.yaml",
            "--personas",
            "high-literacy",
            cwd=project,
            env={"SIMPOP_EMBEDDING_API_KEY": "k"},
        )
        assert result.returncode == 0, result.stderr
        embedded = [text for request in vectors.embedding_requests for text in request]
    [run_dir] = (project / "runs").iterdir()
    probes = [json.loads(line) for line in (run_dir / "probes.jsonl").read_text().splitlines()]
    # the QAPs were indexed, and the simulated questions checked, with the endpoint's vectors
    assert all(p["text"] in embedded for p in probes if p["text"])
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["accuracy"]["total"]["n"] == len(probes)
