"""Retriever, LLM-only, naive RAG and HyDE RAG with the real embedding model and real Chroma;
the LLM is a fake OpenAI-compatible server on 127.0.0.1 so its requests can be checked."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import closed_port

from simpop.errors import SimpopError
from simpop.llm import LLMClient, LLMRequestFailed, RemoteEndpoint
from simpop.models import ChromaServer, Exchange, KnowledgeBaseConfig, LLMConfig, RetrievalConfig
from simpop.targets.chroma import open_chroma
from simpop.targets.generating import GeneratingBot, LLMOnlyTargetConfig, RAGTargetConfig
from simpop.targets.retriever import Retriever
from simpop.testing.fake_openai import FakeOpenAIServer, Reply

DOCS = {
    "glaucoma": "Glaucoma damages the optic nerve. Drops that lower eye pressure are the usual treatment.",
    "cataract": "A cataract is a clouding of the lens. Surgery replaces the cloudy lens with a new one.",
    "dry-eye": "Dry eye: tears do not keep the eye wet. Artificial tears and warm compresses help.",
    "pinkeye": "Pinkeye is an infection of the conjunctiva. It is contagious; wash your hands often.",
}


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBaseConfig:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / f"{name}.txt").write_text(text)
    return KnowledgeBaseConfig(path=folder, chunk_size=400, chunk_overlap=0)


def test_top_k_ranks_by_cosine_similarity(kb, embedder, tmp_path):
    retriever = Retriever(kb, RetrievalConfig(k=2), embedder, index_dir=tmp_path / "idx")
    found = retriever.search("Which eye drops lower the pressure for glaucoma?")
    assert [c.id for c in found][0] == "glaucoma#0" and len(found) == 2
    assert found[0].score > found[1].score
    expected = float(
        embedder.embed(["Which eye drops lower the pressure for glaucoma?"])[0]
        @ embedder.embed([DOCS["glaucoma"]])[0]
    )
    assert found[0].score == pytest.approx(expected, abs=1e-4)
    assert found[0].text == DOCS["glaucoma"]


def test_threshold_keeps_every_chunk_at_least_that_similar(kb, embedder, tmp_path):
    question = "my eyes are dry, what can I do?"
    everything = Retriever(kb, RetrievalConfig(k=10), embedder, index_dir=tmp_path / "idx").search(question)
    scores = sorted((c.score for c in everything), reverse=True)
    t = (scores[1] + scores[2]) / 2  # between the 2nd and 3rd best
    config = RetrievalConfig(mode="threshold", threshold=t)
    kept = Retriever(kb, config, embedder, index_dir=tmp_path / "idx").search(question)
    assert [c.id for c in kept] == [c.id for c in everything[:2]]
    capped = RetrievalConfig(mode="threshold", threshold=-1.0, max_chunks=3)
    assert len(Retriever(kb, capped, embedder, index_dir=tmp_path / "idx").search(question)) == 3
    none = RetrievalConfig(mode="threshold", threshold=0.99)
    assert Retriever(kb, none, embedder, index_dir=tmp_path / "idx").search(question) == []
    with pytest.raises(ValueError, match="threshold mode needs a threshold"):
        RetrievalConfig(mode="threshold")


def test_index_is_rebuilt_only_when_documents_or_splitting_change(kb, embedder, tmp_path):
    index = tmp_path / "idx"

    def names() -> set[str]:
        return {c.name for c in open_chroma(index).list_collections()}

    Retriever(kb, RetrievalConfig(), embedder, index_dir=index)
    first = names()
    Retriever(kb, RetrievalConfig(k=1), embedder, index_dir=index)
    assert names() == first  # same documents, same splitter, same model: re-used
    Retriever(kb.model_copy(update={"chunk_size": 60}), RetrievalConfig(), embedder, index_dir=index)
    assert len(names()) == 2
    (kb.path / "new.txt").write_text("Floaters are small specks that drift through your vision.")
    retriever = Retriever(kb, RetrievalConfig(), embedder, index_dir=index)
    assert len(names()) == 3 and retriever.collection.count() == 5


def llm_client(server: FakeOpenAIServer) -> LLMClient:
    config = LLMConfig(base_url=server.base_url, max_retries=1, retry_backoff=0.01)
    return LLMClient(config, RemoteEndpoint(server.base_url))


def run(coro):
    return asyncio.run(coro)


def test_naive_rag_answers_from_the_retrieved_chunks(kb, embedder):
    with FakeOpenAIServer(default=Reply("  Use artificial tears.  ")) as server:
        config = RAGTargetConfig(kind="naive_rag", knowledge_base=kb, retrieval=RetrievalConfig(k=2))
        bot = GeneratingBot(config, llm_client(server), Retriever(kb, config.retrieval, embedder))
        answer = run(bot.ask("my eyes are dry, what can I do?"))
    assert answer.text == "Use artificial tears."
    assert [c.id for c in answer.contexts][0] == "dry-eye#0" and len(answer.contexts) == 2
    [request] = server.requests
    system, user = request["messages"]
    assert "only the knowledge base excerpts" in system["content"]
    assert f"[1] {DOCS['dry-eye']}" in user["content"]
    assert user["content"].index("[1]") < user["content"].index("[2]") < user["content"].index("Question:")
    assert request["temperature"] == 0.0 and "response_format" not in request
    assert bot.prompt.startswith("bot_system@") and "hyde_passage" not in bot.prompt


def test_hyde_retrieves_with_the_hypothetical_passage(kb, embedder):
    passage = "Cataract surgery removes the clouded lens and puts in an artificial lens."

    def reply(request: dict) -> Reply:
        last = request["messages"][-1]["content"]
        return Reply(passage if last.startswith("Write a short passage") else "Yes, surgery fixes it.")

    with FakeOpenAIServer(default=reply) as server:
        config = RAGTargetConfig(
            kind="hyde_rag", knowledge_base=kb, retrieval=RetrievalConfig(k=1), answer_format="yes_no"
        )
        retriever = Retriever(kb, config.retrieval, embedder)
        bot = GeneratingBot(config, llm_client(server), retriever)
        question = "can they fix the thing my gran has?"
        answer = run(bot.ask(question))
    assert answer.hypothetical_passage == passage
    assert [c.id for c in answer.contexts] == [c.id for c in retriever.search(passage)] == ["cataract#0"]
    assert len(server.requests) == 2
    assert server.requests[0]["max_tokens"] == config.passage_max_tokens
    final = server.requests[1]["messages"]
    assert 'Always start your answer with "Yes" or "No"' in final[0]["content"]
    assert 'Answer with "Yes" or "No" as the first word' in final[1]["content"]
    assert "hyde_passage@" in bot.prompt


def test_llm_only_has_no_context_and_a_custom_system_prompt():
    with FakeOpenAIServer(default=Reply("")) as server:
        config = LLMOnlyTargetConfig(kind="llm_only", system_prompt="You are Eyebot.", max_tokens=50)
        answer = run(GeneratingBot(config, llm_client(server)).ask("What is glaucoma?"))
    assert answer.text is None and answer.no_answer_reason == "the LLM replied with nothing"
    assert answer.contexts == []
    system, user = server.requests[0]["messages"]
    assert system == {"role": "system", "content": "You are Eyebot."}
    assert "excerpts" not in user["content"] and server.requests[0]["max_tokens"] == 50


def test_a_failing_llm_is_an_error_on_the_probe():
    with FakeOpenAIServer(default=Reply(status=500)) as server:
        bot = GeneratingBot(LLMOnlyTargetConfig(kind="llm_only"), llm_client(server))
        with pytest.raises(LLMRequestFailed, match="answered 500 after 2 tries"):
            run(bot.ask("What is glaucoma?"))


def chroma_server(path: Path, port: int) -> subprocess.Popen:
    executable = shutil.which("chroma", path=str(Path(sys.executable).parent)) or shutil.which("chroma")
    assert executable, "the chroma command (from the chromadb package) is not installed"
    return subprocess.Popen(
        [executable, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.integration
def test_naive_rag_against_a_real_chroma_server(kb, embedder, tmp_path):
    port = closed_port()
    server = chroma_server(tmp_path / "chroma-data", port)
    try:
        shared = kb.model_copy(update={"chroma": ChromaServer(host="127.0.0.1", port=port)})
        deadline = time.time() + 60
        while True:
            try:
                retriever = Retriever(shared, RetrievalConfig(k=2), embedder)
                break
            except SimpopError:
                if time.time() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        with FakeOpenAIServer(default=Reply("Wash your hands often.")) as llm:
            config = RAGTargetConfig(kind="naive_rag", knowledge_base=shared, retrieval=RetrievalConfig(k=2))
            answer = run(GeneratingBot(config, llm_client(llm), retriever).ask("Is pinkeye contagious?"))
        assert answer.contexts[0].id == "pinkeye#0" and answer.text == "Wash your hands often."
        # the index lives on the server: a second client sees it, and a new retriever re-uses it
        names = [c.name for c in open_chroma(server=shared.chroma).list_collections()]
        assert names == [retriever.collection.name]
        assert Retriever(shared, RetrievalConfig(k=2), embedder).collection.count() == 4
    finally:
        server.terminate()
        server.wait(timeout=30)
    with pytest.raises(SimpopError, match=f"cannot reach Chroma server 127.0.0.1:{port}"):
        Retriever(shared, RetrievalConfig(), embedder)


def test_in_a_conversation_rag_retrieves_with_the_condensed_history(kb, embedder):
    """The follow-up "and what helps with that?" alone retrieves nothing useful; the bot asks
    its LLM for a standalone query, retrieves with it, records it, and answers after the
    earlier turns."""
    condensed = "What helps with dry eyes?"

    def reply(request: dict) -> Reply:
        last = request["messages"][-1]["content"]
        return Reply(condensed if "standalone search query" in last else "Artificial tears help.")

    history = [Exchange(asked="my eyes feel dry and gritty", answer="That sounds like dry eye.")]
    with FakeOpenAIServer(default=reply) as server:
        config = RAGTargetConfig(kind="naive_rag", knowledge_base=kb, retrieval=RetrievalConfig(k=1))
        retriever = Retriever(kb, config.retrieval, embedder)
        answer = run(
            GeneratingBot(config, llm_client(server), retriever).ask("and what helps with that?", history)
        )
    assert answer.retrieval_query == condensed and answer.text == "Artificial tears help."
    assert [c.id for c in answer.contexts] == [c.id for c in retriever.search(condensed)] == ["dry-eye#0"]
    condense, final = server.requests
    assert (
        "Patient: my eyes feel dry and gritty\nAssistant: That sounds like dry eye."
        in condense["messages"][0]["content"]
    )
    roles = [m["role"] for m in final["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert final["messages"][1]["content"] == "my eyes feel dry and gritty"
    assert final["messages"][2]["content"] == "That sounds like dry eye."
    assert "and what helps with that?" in final["messages"][3]["content"]
    # a single question is retrieved with as it is: no condensing call
    with FakeOpenAIServer(default=reply) as server:
        answer = run(GeneratingBot(config, llm_client(server), retriever).ask("what helps dry eyes?"))
    assert answer.retrieval_query is None and len(server.requests) == 1
