"""Bots simpop builds itself: LLM-only, naive RAG and HyDE RAG (Han, Evaluation of RAG in
medical QA). They answer with the LLM layer, so their replies are cached like every call."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from simpop.llm import LLMClient, open_llm
from simpop.models import (
    Answer,
    Context,
    Exchange,
    KnowledgeBaseConfig,
    LLMConfig,
    RetrievalConfig,
    TargetSettings,
)
from simpop.prompts import load_prompt
from simpop.targets.target import BotResources, Target, chat_messages, target

if TYPE_CHECKING:
    from simpop.targets.retriever import Retriever

CONDENSED_MAX_TOKENS = 60


class GeneratingTargetConfig(TargetSettings):
    """What every bot that writes its answer with our LLM has: prompt, format, sampling."""

    system_prompt: str | None = Field(None, description="the bot's system prompt (default: a template)")
    answer_format: Literal["free", "yes_no"] = "free"
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(300, gt=0)
    llm: LLMConfig | None = Field(None, description="the bot's LLM (default: the run's llm section)")

    def bot_models(self, run_llm: str) -> dict[str, str]:
        return {"bot (LLM)": self.llm.model if self.llm is not None else run_llm}


class LLMOnlyTargetConfig(GeneratingTargetConfig):
    """The LLM answers from what it knows: the no-retrieval baseline."""

    kind: Literal["llm_only"]


class RAGTargetConfig(GeneratingTargetConfig):
    """Retrieve chunks (with the question, or with a HyDE passage) and answer from them."""

    kind: Literal["naive_rag", "hyde_rag"]
    knowledge_base: KnowledgeBaseConfig
    retrieval: RetrievalConfig = RetrievalConfig()
    passage_max_tokens: int = Field(200, gt=0, description="length of HyDE's hypothetical passage")

    def documents(self) -> KnowledgeBaseConfig:
        return self.knowledge_base


class GeneratingBot(Target):
    """Answers from the LLM; with a retriever, from the chunks it retrieves.

    ``hyde_rag`` retrieves with a hypothetical passage the LLM writes first (HyDE, Gao et al.
    2022) instead of the question, and records that passage. In a conversation the earlier turns
    go to the LLM as chat turns, and a RAG bot retrieves with the latest message rewritten to
    stand alone (``condense_query``), recorded as the answer's ``retrieval_query``.
    """

    def __init__(
        self,
        config: LLMOnlyTargetConfig | RAGTargetConfig,
        llm: LLMClient,
        retriever: Retriever | None = None,
        name: str = "bot",
        own_llm: bool = False,
    ) -> None:
        self.config = config
        self.llm = llm
        self.retriever = retriever
        self.name = name
        self._own_llm = own_llm
        names = ["bot_system", "bot_answer"] + (["hyde_passage"] if config.kind == "hyde_rag" else [])
        self.prompt = "+".join(load_prompt(n).id for n in names)

    def messages(
        self, question: str, contexts: list[Context], history: Sequence[Exchange] = ()
    ) -> list[dict[str, str]]:
        """The conversation the bot's LLM answers: the system prompt, the turns before, and the
        question with the excerpts retrieved for it."""
        with_kb = self.retriever is not None
        system = self.config.system_prompt or load_prompt("bot_system").render(
            knowledge_base=with_kb, answer_format=self.config.answer_format
        )
        user = load_prompt("bot_answer").render(
            question=question,
            contexts=contexts,
            knowledge_base=with_kb,
            answer_format=self.config.answer_format,
        )
        return chat_messages(user, history, system.strip())

    async def _generate(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        reply = await self.llm.text(messages, temperature=self.config.temperature, max_tokens=max_tokens)
        return reply.strip()

    async def ask(
        self, question: str, history: Sequence[Exchange] = (), session: str | None = None
    ) -> Answer:
        contexts: list[Context] = []
        passage = condensed = None
        if self.retriever is not None:
            query = question
            if history:  # retrieve with what the conversation is about
                task = load_prompt("condense_query").render(history=history, question=question)
                condensed = await self._generate([{"role": "user", "content": task}], CONDENSED_MAX_TOKENS)
                query = condensed or question
            if self.config.kind == "hyde_rag":
                task = load_prompt("hyde_passage").render(question=query)
                passage = await self._generate(
                    [{"role": "user", "content": task}], self.config.passage_max_tokens
                )
                query = passage or query
            contexts = await asyncio.to_thread(self.retriever.search, query)
        text = await self._generate(self.messages(question, contexts, history), self.config.max_tokens)
        return Answer(
            text=text or None,
            contexts=contexts,
            hypothetical_passage=passage,
            retrieval_query=condensed,
            no_answer_reason=None if text else "the LLM replied with nothing",
        )

    async def aclose(self) -> None:
        if self._own_llm:
            await self.llm.aclose()
            self.llm.endpoint.close()


@target(LLMOnlyTargetConfig)
@target(RAGTargetConfig)
def generating_bot(config: LLMOnlyTargetConfig | RAGTargetConfig, run: BotResources) -> Target:
    """A bot that answers with the run's LLM, unless its config names an LLM of its own."""
    retriever = None
    if isinstance(config, RAGTargetConfig):
        from simpop.targets.retriever import Retriever

        retriever = Retriever(config.knowledge_base, config.retrieval, run.embedder)
    if config.llm is not None:
        return GeneratingBot(config, open_llm(config.llm, run.use_cache), retriever, run.name, own_llm=True)
    return GeneratingBot(config, run.llm, retriever, run.name)
