from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import ROOT

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory):
    """A fresh LLM/embedding/Chroma cache per test session; built-in models stay shared."""
    os.environ["SIMPOP_CACHE_DIR"] = str(tmp_path_factory.mktemp("simpop-cache"))
    for var in ("SIMPOP_LLM_BASE_URL", "SIMPOP_LLM_MODEL", "SIMPOP_LLM_CONCURRENCY"):
        os.environ.pop(var, None)
    yield


@pytest.fixture(scope="session")
def embedder(tmp_path_factory: pytest.TempPathFactory):
    from simpop.embed import Embedder

    instance = Embedder(cache_path=tmp_path_factory.mktemp("emb") / "embeddings.sqlite")
    yield instance
    instance.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the shipped personas and QAP data in a scratch folder."""
    shutil.copytree(ROOT / "personas", tmp_path / "personas")
    (tmp_path / "data").mkdir()
    shutil.copy(ROOT / "data/medquad-eye/qaps.jsonl", tmp_path / "data/qaps.jsonl")
    return tmp_path
