"""A run assembled: what it works with, opened in one place and closed together however the
run ends (an ``AsyncExitStack``): the record logs, the patients' LLM and the judge's, the
embedding models, the bot and the scorers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass

from simpop.embed import Embedder, EmbedderPool
from simpop.judging.safety_validation import run_classifiers
from simpop.judging.verifier import support_verifier
from simpop.llm import LLMClient, open_llm
from simpop.llm.pace import record_client_pace
from simpop.metrics import Scorers
from simpop.metrics.judge import Judge
from simpop.models import (
    DEFAULT_EMBEDDING_MODEL,
    Conversation,
    ConversationTurn,
    Probe,
    Response,
    RunConfig,
    Score,
)
from simpop.store import (
    CONVERSATIONS_FILE,
    EXPLAINED_FILE,
    PROBES_FILE,
    RESPONSES_FILE,
    SCORES_FILE,
    TURNS_FILE,
    JsonlLog,
    RunStore,
    score_key,
)
from simpop.targets import BotResources, Target, build_target


@dataclass
class RunLogs:
    """The run's record files, appended one record at a time (records stay on disk: the stream
    passes each cell's along, the summary reads the files)."""

    probes: JsonlLog[Probe]
    responses: JsonlLog[Response]
    scores: JsonlLog[Score]
    turns: JsonlLog[ConversationTurn]
    conversations: JsonlLog[Conversation]
    explained: JsonlLog[Score]

    @classmethod
    def open(cls, store: RunStore) -> RunLogs:
        return cls(
            store.log(PROBES_FILE, Probe, keep=False),
            store.log(RESPONSES_FILE, Response, keep=False),
            store.log(SCORES_FILE, Score, key=score_key, keep=False),
            store.log(TURNS_FILE, ConversationTurn, key=lambda t: t.key, keep=False),
            store.log(CONVERSATIONS_FILE, Conversation, keep=False),
            store.log(EXPLAINED_FILE, Score, key=score_key, keep=False),
        )

    def close(self) -> None:
        for log in (self.probes, self.responses, self.scores, self.turns, self.conversations, self.explained):
            log.close()


@dataclass
class RunParts:
    logs: RunLogs
    llm: LLMClient
    judge_llm: LLMClient | None  # None with the judges off
    embedder: Embedder
    target: Target
    scorers: Scorers


async def _close_llm(client: LLMClient, languages: list[str]) -> None:
    await client.aclose()
    client.endpoint.close()
    with suppress(OSError):  # the pace is a cache for estimates: never fail a run
        record_client_pace(client, languages)


def _judge(config: RunConfig, judge_llm: LLMClient, embedder_for: Callable[[str], Embedder]) -> Judge:
    judge = Judge(
        judge_llm,
        model=judge_llm.config.model,
        seed=config.seed,
        max_tokens=config.scoring.judge_max_tokens,
        reasons=False,  # only for the verdicts a report shows, by ``explain`` at the end
        language=config.language,
    )
    # the verifier was fitted on the built-in model's vectors; each safety classifier names its own
    judge.verifier = support_verifier(
        judge.profile, config.scoring.verifier, embedder_for(DEFAULT_EMBEDDING_MODEL)
    )
    judge.classifiers = run_classifiers(judge.profile, config.scoring, embedder_for)
    return judge


@asynccontextmanager
async def run_parts(
    store: RunStore, config: RunConfig, use_cache: bool, languages: list[str]
) -> AsyncIterator[RunParts]:
    """Everything ``config`` runs with; closed in the reverse order when the block ends.
    ``languages``: the patients', under which the LLMs' pace is recorded."""
    async with AsyncExitStack() as stack:
        embedder = Embedder(config.embedding)
        stack.callback(embedder.close)
        llm = open_llm(config.llm, use_cache=use_cache)
        stack.push_async_callback(_close_llm, llm, languages)
        logs = RunLogs.open(store)
        stack.callback(logs.close)
        target = build_target(config.target, BotResources(embedder, llm, config.name, use_cache))
        stack.push_async_callback(target.aclose)
        scorers = Scorers(embedder, config.scoring, contexts=config.target.reports_contexts())
        judge_llm = None
        if config.scoring.judges:
            judge_llm = llm if config.judge is None else open_llm(config.judge, use_cache=use_cache)
            if judge_llm is not llm:
                stack.push_async_callback(_close_llm, judge_llm, languages)
            embedders = EmbedderPool(shared=embedder)  # the run's own, or a built-in model a judge needs
            stack.callback(embedders.close)
            scorers.judge = _judge(config, judge_llm, embedders)
        yield RunParts(logs, llm, judge_llm, embedder, target, scorers)
