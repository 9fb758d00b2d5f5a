from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import ROOT

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# the tests that run the real embedded LLM (these modules, and tests marked ``llm``) use every
# core: one worker runs them one at a time while the others run the rest (pytest-xdist, --dist
# loadgroup); the other integration tests (the embedding model over a data set) go to any worker
REAL_LLM = ("test_integration", "test_local_model")


def starts_llm(item: pytest.Item) -> bool:
    return item.module.__name__ in REAL_LLM or item.get_closest_marker("llm") is not None


@pytest.hookimpl(tryfirst=True)  # xdist reads the groups in a hook of its own, registered later
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if starts_llm(item):
            item.add_marker(pytest.mark.xdist_group("real-llm"))


def pytest_xdist_node_collection_finished(node, ids: list[str]) -> None:
    """Under ``--dist loadgroup`` xdist groups a test by an ``@group`` suffix on its node id; where
    the suffix did not take (pytest 9.2 with xdist 3.8: pytest-dev/pytest-xdist#1386), the
    real-LLM tests would run on two workers at once, each slowing the other several times."""
    if node.config.getoption("dist") != "loadgroup":
        return
    lost = [i for i in ids if "@" not in i and Path(i.split("::")[0]).stem in REAL_LLM]
    if lost:
        raise pytest.UsageError(f"{len(lost)} real-LLM tests lost their xdist group, e.g. {lost[0]}")


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory):
    """A fresh LLM/embedding/Chroma cache per test session; built-in models stay shared."""
    os.environ["SIMPOP_CACHE_DIR"] = str(tmp_path_factory.mktemp("simpop-cache"))
    for var in ("SIMPOP_LLM_BASE_URL", "SIMPOP_LLM_MODEL", "SIMPOP_LLM_CONCURRENCY", "SIMPOP_LLM_THREADS"):
        os.environ.pop(var, None)
    yield


@pytest.fixture(autouse=True)
def _local_llm_only_in_its_group(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Only the real-LLM group starts the local LLM (so never two at once, and never in the fast
    lane, ``-m "not integration"``): another test that does, in this process, fails until it is
    marked ``integration`` and ``llm``."""
    if starts_llm(request.node):
        return
    from simpop.llm.local import EmbeddedServer

    start = EmbeddedServer.start

    def refuse(self: EmbeddedServer, params: object = None) -> str:
        if self._url is None:
            raise AssertionError(f"{request.node.nodeid} starts the local LLM: mark it integration and llm")
        return start(self, params)

    monkeypatch.setattr(EmbeddedServer, "start", refuse)


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
