"""An LLM judge at temperature 0, the prompt's version kept: a yes/no verdict is P(yes) read from
a one-token answer's log-probabilities, at the judge profile's threshold (a structured yes/no
reply where the endpoint gives no log-probabilities)."""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import Awaitable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from simpop.judging.answer_language import answer_language
from simpop.judging.profile import JudgeProfile, profile_for
from simpop.llm import LLMClient, LLMError
from simpop.metrics.metric import Case, Metric, Planned, Scorers
from simpop.models import Probe, Score
from simpop.prompts import load_prompt
from simpop.redact import clip

if TYPE_CHECKING:
    from simpop.judging.safety_classifier import SafetyClassifier
    from simpop.judging.verifier import SupportVerifier

REASON_CHARS = 160
JUDGE_ERROR = "judge_error"
_ONE_CASE: ContextVar[asyncio.Lock | None] = ContextVar("simpop_one_case", default=None)


@contextmanager
def one_question_at_a_time() -> Iterator[None]:
    """Within the block (the judges of one case), the judge asks one question at a time, in the
    order asked: the server reads the prompt prefix the questions share (their definitions, the
    context, the answer, the message) once, and each next question reuses it from the slot the
    last one left it in. Asked together, each question would read it again on a slot of its own."""
    token = _ONE_CASE.set(asyncio.Lock())
    try:
        yield
    finally:
        _ONE_CASE.reset(token)


def _in_order() -> AbstractAsyncContextManager[object]:
    """The case's lock where one is set (``one_question_at_a_time``), else nothing to wait for."""
    return _ONE_CASE.get() or nullcontext()


class YesNoReply(BaseModel):
    """The fallback reply where an endpoint gives no log-probabilities."""

    model_config = ConfigDict(extra="forbid")
    answer: Literal["yes", "no"]


@dataclass(frozen=True)
class Verdict:
    """One yes/no judgement: ``yes`` is P(yes) ≥ ``threshold`` (or the structured reply's answer,
    ``probability`` None, where the endpoint gave no log-probabilities)."""

    name: str
    yes: bool
    probability: float | None
    threshold: float
    prompt: str
    messages: list[dict[str, str]] = field(repr=False)
    verified: bool = False  # P(yes) is the support verifier's, not the judge's alone
    classified: bool = False  # P(yes) is a safety classifier's: no LLM call was made
    language: str | None = None  # a safety verdict's: the answer's language, which chose its classifier

    @property
    def p_yes(self) -> float:
        """P(yes), or 1 or 0 from a structured reply."""
        return float(self.yes) if self.probability is None else self.probability


@dataclass
class Judge:
    """Asks ``llm`` templated yes/no questions at temperature 0 (``decide``) and the reasons for
    verdicts a report shows (``explain``).

    Failures are not caught here: ``LLMError`` is for the caller to record as a judge error.
    """

    llm: LLMClient
    model: str
    seed: int = 0
    max_tokens: int = 40  # longest reason (REASON_CHARS of it are kept)
    profile: JudgeProfile | None = None  # default: the profile of ``model``
    verifier: SupportVerifier | None = None  # combines the support judge's P(yes) with other signals
    # verdict → answer language → decides it, no LLM; an answer in a language with none: the LLM
    classifiers: dict[str, dict[str, SafetyClassifier]] = field(default_factory=dict)
    reasons: bool = True  # explain failing verdicts (a second, cached call each)
    language: str = "en"  # the bot's: an answer too short to tell its language is taken to be in it

    def __post_init__(self) -> None:
        if self.profile is None:
            self.profile = profile_for(self.model)

    async def decide(self, prompt_name: str | Path, verdict: str, **values: Any) -> Verdict:
        """The yes/no verdict ``verdict`` (a profile threshold's name) on the prompt's question;
        a safety classifier's where the judge has one for ``verdict`` in the answer's language (no
        LLM call). An answer in a language none is for goes to the LLM, its language recorded."""
        assert self.profile is not None
        language = None
        if verdict in self.classifiers:
            language = answer_language(values["answer"], self.language)
            classifier = self.classifiers[verdict].get(language)
            if classifier is not None:
                p = await classifier.probability(values["question"], values["answer"])
                threshold = classifier.model.threshold
                name = classifier.name
                return Verdict(
                    verdict, p >= threshold, p, threshold, name, [], classified=True, language=language
                )
        prompt = load_prompt(prompt_name)
        messages = [{"role": "user", "content": prompt.render(**values)}]
        threshold = self.profile.threshold(verdict)
        async with _in_order():
            p = await self.llm.probability(messages)
            if p is None:
                reply = await self.llm.structured(
                    messages, YesNoReply, temperature=0.0, seed=self.seed, max_tokens=16
                )
        if p is not None:
            return Verdict(verdict, p >= threshold, p, threshold, prompt.id, messages, language=language)
        return Verdict(
            verdict, reply.answer == "yes", None, threshold, prompt.id, messages, language=language
        )

    async def explain(self, verdict: Verdict) -> str | None:
        """Why the judge said what it did, in a few words: asked after the verdict in the same
        conversation (sharing its prompt); None when off or when the call fails (the verdict
        stands without it). Where the profile's threshold decided against the judge's own
        leaning (P(yes) on the other side of 0.5), the probability and the threshold instead."""
        if not self.reasons:
            return None
        p = verdict.probability
        if verdict.classified:
            assert p is not None
            sign = "≥" if verdict.yes else "<"
            return f"classifier P(yes) {p:.2f} {sign} its threshold {verdict.threshold:.2f}"
        if p is not None and (p >= 0.5) != verdict.yes:
            # asked why, the judge argues for what it leaned to, not for the verdict
            sign, leaned = ("≥", "no") if verdict.yes else ("<", "yes")
            return (
                f"P(yes) {p:.2f} {sign} the profile's threshold {verdict.threshold:.2f}: "
                f"the threshold decided; the judge itself leaned {leaned}"
            )
        messages = verdict.messages + [
            {"role": "assistant", "content": "Yes" if verdict.yes else "No"},
            {"role": "user", "content": load_prompt("judge_reason").render()},
        ]
        try:
            async with _in_order():
                text = await self.llm.text(
                    messages, temperature=0.0, seed=self.seed, max_tokens=self.max_tokens, kind="reason"
                )
        except LLMError:
            return None
        return " ".join(text.split())[:REASON_CHARS] or None

    def score(
        self,
        probe: Probe,
        metric: str,
        prompt: str | None,
        verdicts: list[Verdict] = (),  # type: ignore[assignment]
        **fields: Any,
    ) -> Score:
        """A score of ``probe`` judged with ``prompt`` (``None``: decided without a judge call);
        ``verdicts`` fill in the probabilities, thresholds and how it was judged."""
        assert self.profile is not None
        if verdicts:
            if any(v.probability is None for v in verdicts):
                fields["judged_by"] = "structured"
            elif all(v.classified for v in verdicts):
                fields["judged_by"] = "classifier"
            else:
                fields["judged_by"] = "verifier" if all(v.verified for v in verdicts) else "probability"
            fields.setdefault("thresholds", {v.name: v.threshold for v in verdicts})
            languages = [v.language for v in verdicts if v.language is not None]
            if languages:
                fields.setdefault("answer_language", languages[0])
            if "details" not in fields:
                fields["probabilities"] = {v.name: v.probability for v in verdicts}
        return Score(
            **probe.cell_ids(),
            metric=metric,
            prompt=prompt,
            judge_model=self.model if prompt else None,
            judge_profile=self.profile.name if prompt else None,
            **fields,
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
            error=clip(str(error), 500),
            judge_model=judge.model,
        )


class JudgedMetric(Metric):
    """A metric the LLM judge decides, one probe at a time; a judgement that fails is recorded
    as a judge error on that probe."""

    judged = True

    def expected_calls(self, case: Case, planned: Planned) -> float:
        """One call per verdict its measures name that no safety classifier decides; one per
        answer for a metric that names none or calls the LLM on every case (a plugin's)."""
        named = {v for m in self.measures for v in m.verdicts}
        if self.calls_llm or not named:
            return 1.0
        return float(len(named - planned.classified))

    @abstractmethod
    async def judge(self, judge: Judge, case: Case) -> Score:
        """The judged score of one case."""

    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        assert scorers.judge is not None, f"{self.name} needs the judge"
        return [
            await recorded(scorers.judge, c.probe, self.name, self.judge(scorers.judge, c)) for c in cases
        ]
