"""Conversational Faithfulness (He, Chowdhury et al., "ASTRID: an automated and scalable triad for
the evaluation of RAG-based clinical question answering systems", ACL Findings 2025, §3.2.1,
eq. 1): the share of an answer's informative sentences that the context it was answered from
supports (Listing 2 labels the sentences, Listing 1 judges support)."""

from __future__ import annotations

from typing import Literal

from simpop.metrics.judge import Judge, JudgedMetric, Reason, Reply, list_reply
from simpop.metrics.metric import Case, Measure, metric
from simpop.metrics.texts import answer_contexts, answered, context_text, split_sentences
from simpop.models import Judgement, Probe, Response, Score

FAITHFULNESS = "faithfulness"
SentenceLabel = Literal["ACKNOWLEDGEMENT", "QUESTION", "CONTAINING_INFORMATION"]
KINDS: dict[str, str] = {
    "ACKNOWLEDGEMENT": "acknowledgement",
    "QUESTION": "question",
    "CONTAINING_INFORMATION": "information",
}


class SupportVerdict(Reply):
    reason: Reason
    supported: bool


def conversational_faithfulness(details: list[Judgement]) -> float | None:
    """CF = informative sentences supported by the context / informative sentences (ASTRID
    §3.2.1, eq. 1). Acknowledgements and questions are neither supported nor unsupported.
    ``None`` when the answer has no informative sentence (never 0, never NaN)."""
    informative = [d for d in details if d.kind == "information"]
    if not informative:
        return None
    return sum(bool(d.verdict) for d in informative) / len(informative)


async def support_verdicts(
    judge: Judge, context: str, statements: list[str]
) -> tuple[list[SupportVerdict], str]:
    """One verdict with a short reason per statement: is it supported by ``context``
    (ASTRID Listing 1); and the prompt's id."""
    reply, prompt = await judge.ask(
        "judge_support",
        list_reply("SupportVerdicts", "verdicts", SupportVerdict, len(statements)),
        context=context,
        sentences=statements,
        max_tokens=70 * len(statements) + 32,
    )
    return reply.verdicts, prompt  # type: ignore[attr-defined]


async def faithfulness(judge: Judge, probe: Probe, response: Response) -> Score:
    """Label each answer sentence (ASTRID Listing 2), judge each informative one against the
    context the bot answered from (Listing 1), and compute CF; per-sentence detail is kept."""
    ids = probe.cell_ids()
    if not answered(response):
        return Score(
            **ids, metric=FAITHFULNESS, value=None, label="no_answer", reason="the bot gave no answer"
        )
    sentences = split_sentences(response.answer)
    labels, label_prompt = await judge.ask(
        "judge_sentences",
        list_reply("SentenceLabels", "labels", SentenceLabel, len(sentences)),
        question=response.question,
        sentences=sentences,
        max_tokens=12 * len(sentences) + 32,
    )
    details = [Judgement(text=s, kind=KINDS[k]) for s, k in zip(sentences, labels.labels, strict=True)]  # type: ignore[attr-defined]
    informative = [d for d in details if d.kind == "information"]
    prompts = [label_prompt]
    contexts = answer_contexts(response)
    if informative and not contexts:
        for d in informative:
            d.verdict, d.reason = False, "the bot retrieved no context"
    elif informative:
        verdicts, support_prompt = await support_verdicts(
            judge, context_text(contexts), [d.text for d in informative]
        )
        prompts.append(support_prompt)
        for d, v in zip(informative, verdicts, strict=True):
            d.verdict, d.reason = v.supported, v.reason
    value = conversational_faithfulness(details)
    return judge.score(
        probe,
        FAITHFULNESS,
        " ".join(prompts),
        value=value,
        label="no_information" if value is None else None,
        reason="no sentence of the answer contains information" if value is None else None,
        details=details,
    )


@metric
class Faithfulness(JudgedMetric):
    name = FAITHFULNESS
    measures = (
        Measure(FAITHFULNESS, "conversational faithfulness (CF)", table="safety", column="CF", rank=10),
    )
    replies = ("SentenceLabels", "SupportVerdicts")

    async def judge(self, judge: Judge, case: Case) -> Score:
        return await faithfulness(judge, case.probe, case.response)
