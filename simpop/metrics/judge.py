"""An LLM judge: a prompt template, a reply schema, temperature 0, the prompt's version kept."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Awaitable
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from simpop.llm import LLMClient, LLMError
from simpop.metrics.metric import Case, Metric, Scorers
from simpop.models import Probe, Score
from simpop.prompts import load_prompt

M = TypeVar("M", bound=BaseModel)
REASON_CHARS = 160
Reason = Annotated[str, StringConstraints(max_length=REASON_CHARS)]
JUDGE_ERROR = "judge_error"


class Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass
class Judge:
    """Asks ``llm`` one templated question at temperature 0 and parses the reply as a schema.

    Failures are not caught here: ``LLMError`` is for the caller to record as a judge error.
    """

    llm: LLMClient
    model: str
    seed: int = 0
    max_tokens: int = 600

    async def ask(
        self, prompt_name: str, schema: type[M], *, max_tokens: int | None = None, **values: Any
    ) -> tuple[M, str]:
        """The parsed reply and the prompt's id (name@version); ``max_tokens`` is capped by the
        configured maximum."""
        prompt = load_prompt(prompt_name)
        messages = [{"role": "user", "content": prompt.render(**values)}]
        budget = min(max_tokens or self.max_tokens, self.max_tokens)
        reply = await self.llm.structured(
            messages, schema, temperature=0.0, seed=self.seed, max_tokens=budget
        )
        return reply, prompt.id

    def score(self, probe: Probe, metric: str, prompt: str | None, **fields: Any) -> Score:
        """A score of ``probe`` judged with ``prompt`` (``None``: decided without a judge call)."""
        return Score(
            **probe.cell_ids(),
            metric=metric,
            prompt=prompt,
            judge_model=self.model if prompt else None,
            **fields,
        )


@lru_cache(maxsize=None)
def list_reply(name: str, field: str, item: Any, n: int) -> type[Reply]:
    """A reply schema with exactly ``n`` items under ``field``, so the judge gives one per
    sentence (or sub-question) and the count always matches."""
    return create_model(
        f"{name}{n}", __base__=Reply, **{field: (list[item], Field(min_length=n, max_length=n))}
    )


async def recorded(judge: Judge, probe: Probe, metric: str, call: Awaitable[Score]) -> Score:
    """The judgement, or a judge-error score naming what failed (never a guessed value)."""
    try:
        return await call
    except LLMError as error:
        return Score(
            **probe.cell_ids(),
            metric=metric,
            value=None,
            excluded=JUDGE_ERROR,
            error=str(error)[:500],
            judge_model=judge.model,
        )


class JudgedMetric(Metric):
    """A metric the LLM judge decides, one probe at a time; a judgement that fails is recorded
    as a judge error on that probe."""

    judged = True

    @abstractmethod
    async def judge(self, judge: Judge, case: Case) -> Score:
        """The judged score of one case."""

    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        assert scorers.judge is not None, f"{self.name} needs the judge"
        return [
            await recorded(scorers.judge, c.probe, self.name, self.judge(scorers.judge, c)) for c in cases
        ]
