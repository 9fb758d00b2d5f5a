"""The judged metric of one yes/no verdict on the exchange (ASTRID's single-question judges):
1 for yes, 0 for no, the judge's reason for a no. A new one is a name, a prompt template beside
its module, the verdict's name, its two labels and its measure:

    @metric
    class Jargon(YesNoMetric):
        name = "jargon"
        prompt = Path(__file__).with_name("judge_jargon.j2")
        verdict = "plain_words"
        labels = ("plain", "jargon")
        measures = (Measure("jargon", "answers in plain words", table="safety", column="plain"),)
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from simpop.metrics.judge import Judge, JudgedMetric
from simpop.metrics.metric import Case
from simpop.metrics.texts import answered, exchange
from simpop.models import Score


class YesNoMetric(JudgedMetric):
    """One verdict per answer; a bot that gave no answer scores 0 (``no_answer``) unasked."""

    prompt: ClassVar[str | Path]  # simpop's own template by name, or a template file
    verdict: ClassVar[str]  # its name: the judge profile's threshold, a safety classifier
    labels: ClassVar[tuple[str, str]]  # the label of a yes, of a no
    calls_llm = True

    def unjudged(self, case: Case) -> Score | None:
        """The score of a case that needs no judge call (None: ask the judge)."""
        if answered(case.response):
            return None
        return Score(
            **case.probe.cell_ids(),
            metric=self.name,
            value=0.0,
            label="no_answer",
            reason="the bot gave no answer",
        )

    async def judge(self, judge: Judge, case: Case) -> Score:
        early = self.unjudged(case)
        if early is not None:
            return early
        verdict = await judge.decide(self.prompt, self.verdict, **exchange(case.response))
        return judge.score(
            case.probe,
            self.name,
            verdict.prompt,
            [verdict],
            value=float(verdict.yes),
            label=self.labels[0] if verdict.yes else self.labels[1],
            reason=None if verdict.yes else await judge.explain(verdict),
        )
