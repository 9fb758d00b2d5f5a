"""Bots simpop builds itself: LLM-only, naive RAG and HyDE RAG (Han, Evaluation of RAG in
medical QA). They answer with the LLM layer, so their replies are cached like every call."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from simpop.llm import LLMClient, open_llm
from simpop.models import Answer, Context, KnowledgeBaseConfig, LLMConfig, RetrievalConfig, TargetSettings
from simpop.prompts import load_prompt
from simpop.targets.target import BotResources, Target, target

if TYPE_CHECKING:
    from simpop.targets.retriever import Retriever


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
    2022) instead of the question, and records that passage.
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

    def messages(self, question: str, contexts: list[Context]) -> list[dict[str, str]]:
        """The conversation the bot's LLM answers."""
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
        return [{"role": "system", "content": system.strip()}, {"role": "user", "content": user}]

    async def _generate(self, messages: list[dict[str, str]], max_tokens: int) -> str:
        reply = await self.llm.text(messages, temperature=self.config.temperature, max_tokens=max_tokens)
        return reply.strip()

    async def ask(self, question: str) -> Answer:
        contexts: list[Context] = []
        passage = None
        if self.retriever is not None:
            query = question
            if self.config.kind == "hyde_rag":
                task = load_prompt("hyde_passage").render(question=question)
                passage = await self._generate(
                    [{"role": "user", "content": task}], self.config.passage_max_tokens
                )
                query = passage or question
            contexts = await asyncio.to_thread(self.retriever.search, query)
        text = await self._generate(self.messages(question, contexts), self.config.max_tokens)
        return Answer(
            text=text or None,
            contexts=contexts,
            hypothetical_passage=passage,
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
