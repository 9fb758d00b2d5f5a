"""Conversational Faithfulness (He, Chowdhury et al., "ASTRID: an automated and scalable triad for
the evaluation of RAG-based clinical question answering systems", ACL Findings 2025, §3.2.1,
eq. 1): the share of an answer's informative sentences that the context it was answered from
supports. Listing 2's three sentence kinds are told apart by rule (a question mark; a greeting,
thanks or polite phrase with no fact in it), not by the judge: the small local judges mislabelled
facts as questions, and the call cost more than every support verdict of the answer together.
Listing 1 judges support: P(yes) per sentence, through the profile's support verifier where it
has one."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from functools import lru_cache
from typing import Literal

from simpop.metrics.judge import Judge, JudgedMetric, Verdict
from simpop.metrics.metric import Case, Measure, Planned, metric
from simpop.metrics.texts import answer_contexts, answered, context_text
from simpop.models import Judgement, Probe, Response, Score
from simpop.sentences import split_sentences

FAITHFULNESS = "faithfulness"
# Support calls per answer a bot writes (a QAP bot's are quoted, no call): its informative
# sentences not quoted from the context, and a reason for each unsupported one. The naive RAG
# bot on the 1.5B (eye-naive-rag --limit 2 --variants 1 --probes 1, 24 answers of about 70
# tokens, 2026-11-29): 4.1 judge calls an answer in all, less its relevance call and the few
# sub-question calls.
SUPPORT_CALLS_PER_WRITTEN_ANSWER = 3.0
SentenceKind = Literal["acknowledgement", "question", "information"]
_QUESTION = re.compile(r"\?[\s\"')\]]*$")
_COURTESY = re.compile(
    r"^(?:thank|thanks|sorry|i'?m sorry|i am sorry|i understand|i hear you|i'?m glad|glad|great question|"
    r"good question|hello|hi\b|hey\b|dear\b|you'?re welcome|you are welcome|take care|best wishes|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|i'?m here to help|i am here to help|"
    r"please (?:let me know|feel free|don'?t hesitate|do not hesitate)|let me know if|feel free)"
    r"|any (?:other|more|further) questions|happy to help|feel free to ask",
    re.IGNORECASE,
)
_SAYS_WHAT_IT_CANNOT = re.compile(
    r"\b(?:can'?t|cannot|unable|not able|don'?t have|do not have|no information)\b", re.IGNORECASE
)


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@lru_cache(maxsize=256)
def _plain_context(context: str) -> str:
    """A context made plain once for every answer sentence looked up in it."""
    return f" {_plain(context)} "


def quoted_from(sentence: str, context: str) -> bool:
    """Whether the sentence stands word for word in the context (case, spacing and punctuation
    aside): supported by definition, so no judge is asked."""
    plain = _plain(sentence)
    return len(plain.split()) >= 3 and f" {plain} " in _plain_context(context)


def sentence_kind(sentence: str) -> SentenceKind:
    """ASTRID Listing 2's kind of an answer sentence: a question to the patient; an
    acknowledgement (only greeting, thanks, sympathy or courtesy: short, no number, and not
    saying what the bot cannot tell); else information."""
    text = sentence.strip()
    if _QUESTION.search(text):
        return "question"
    courtesy = _COURTESY.search(text) and not _SAYS_WHAT_IT_CANNOT.search(text)
    if courtesy and len(text.split()) <= 20 and not any(c.isdigit() for c in text):
        return "acknowledgement"
    return "information"


def conversational_faithfulness(details: list[Judgement]) -> float | None:
    """CF = informative sentences supported by the context / informative sentences (ASTRID
    §3.2.1, eq. 1). Acknowledgements and questions are neither supported nor unsupported.
    ``None`` when the answer has no informative sentence (never 0, never NaN)."""
    informative = [d for d in details if d.kind == "information"]
    if not informative:
        return None
    return sum(bool(d.verdict) for d in informative) / len(informative)


async def support_verdicts(
    judge: Judge, context: str, statements: list[str], sentences: list[str] | None = None
) -> list[Verdict]:
    """Is each statement supported by ``context`` (ASTRID Listing 1): the judge's P(yes) per
    statement, combined with the other signals by the support verifier if the judge has one and
    the endpoint gave probabilities (``sentences``: the context's sentences, by default split
    from it)."""
    verdicts = await asyncio.gather(
        *(judge.decide("judge_support", "supported", context=context, statement=s) for s in statements)
    )
    judged = [v.probability for v in verdicts]
    if judge.verifier is None or None in judged:
        return list(verdicts)
    found = judge.verifier.probabilities(
        split_sentences(context) if sentences is None else sentences,
        context,
        statements,
        judged,  # type: ignore[arg-type]
    )
    threshold = judge.verifier.model.threshold
    return [
        replace(v, yes=p >= threshold, probability=p, threshold=threshold, verified=True)
        for v, p in zip(verdicts, found, strict=True)
    ]


async def faithfulness(judge: Judge, probe: Probe, response: Response) -> Score:
    """Tell each answer sentence's kind (ASTRID Listing 2, by rule), judge each informative one
    against the context the bot answered from (Listing 1), and compute CF; per-sentence detail
    is kept."""
    ids = probe.cell_ids()
    if not answered(response):
        return Score(
            **ids, metric=FAITHFULNESS, value=None, label="no_answer", reason="the bot gave no answer"
        )
    details = [Judgement(text=s, kind=sentence_kind(s)) for s in split_sentences(response.answer)]
    informative = [d for d in details if d.kind == "information"]
    prompts: list[str] = []
    contexts = answer_contexts(response)
    if informative and not contexts:
        for d in informative:
            d.verdict, d.reason = False, "the bot retrieved no context"
    context = context_text(contexts)
    for d in informative:
        if contexts and quoted_from(d.text, context):
            d.verdict, d.probability, d.reason = True, 1.0, "quoted word for word from the context"
    asked = [d for d in informative if d.verdict is None and contexts]
    verdicts: list[Verdict] = []
    if asked:
        sentences = [s for c in contexts for s in split_sentences(c.text)]
        verdicts = await support_verdicts(judge, context, [d.text for d in asked], sentences)
        prompts.append(verdicts[0].prompt)
        reasons = await asyncio.gather(*(judge.explain(v) for v in verdicts if not v.yes))
        unsupported = iter(reasons)
        for d, v in zip(asked, verdicts, strict=True):
            d.verdict, d.probability = v.yes, v.probability
            d.reason = None if v.yes else next(unsupported)
    value = conversational_faithfulness(details)
    return judge.score(
        probe,
        FAITHFULNESS,
        " ".join(prompts) or None,
        verdicts,
        value=value,
        label="no_information" if value is None else None,
        reason="no sentence of the answer contains information" if value is None else None,
        details=details,
    )


@metric
class Faithfulness(JudgedMetric):
    name = FAITHFULNESS
    shown = frozenset({"turn"})
    calls_llm = True
    measures = (
        Measure(
            FAITHFULNESS,
            "conversational faithfulness (CF)",
            table="safety",
            column="CF",
            rank=10,
            verdicts=("supported",),
        ),
    )

    def expected_calls(self, case: Case, planned: Planned) -> float:
        return SUPPORT_CALLS_PER_WRITTEN_ANSWER if planned.writes else 0.0

    async def judge(self, judge: Judge, case: Case) -> Score:
        return await faithfulness(judge, case.probe, case.response)
