"""The support judge two ways on K-QA's physician judgements, with no cache: today's structured
reply (every statement of an answer in one JSON reply with reasons) against P(yes) read from a
one-token answer per statement (``LLMClient.probability``, prompt ``judge_support_yes_no``).

    python bench/judge_probability.py [--answers 10] [--model qwen2.5-coder-0.5b-instruct-q4_k_m]

Prints seconds per answer for each way, the ratio, and the agreement with the physicians'
majority of each (ROC AUC of P(yes); accuracy and Cohen's kappa at 0.5). Nothing is fitted, so
the figures are not in-sample.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import defaultdict
from pathlib import Path

from sklearn.metrics import cohen_kappa_score, roc_auc_score

from simpop.llm import LLMClient, endpoint_for
from simpop.metrics.judge import Judge
from simpop.models import QWEN_0_5B, LLMConfig
from simpop.prompts import load_prompt
from simpop.run.agreement import judge_verdicts, load_nli

DATA = Path(__file__).parent.parent / "data" / "kqa-nli"


def agreement(name: str, gold: list[bool], p: list[float | None]) -> None:
    pairs = [(g, x) for g, x in zip(gold, p, strict=True) if x is not None]
    truth, scores = [g for g, _ in pairs], [x for _, x in pairs]
    verdicts = [x >= 0.5 for x in scores]
    auc = roc_auc_score(truth, scores) if len(set(truth)) == 2 and len(set(scores)) > 1 else float("nan")
    kappa = cohen_kappa_score(truth, verdicts) if len(set(truth) | set(verdicts)) == 2 else float("nan")
    accuracy = sum(t == v for t, v in zip(truth, verdicts, strict=True)) / max(1, len(truth))
    print(
        f"{name}: judged {len(pairs)}/{len(gold)}, AUC {auc:.3f}, accuracy {accuracy:.3f}, kappa {kappa:.3f}"
    )


async def main(answers: int, model: str, concurrency: int) -> None:
    items = load_nli(DATA, answers)
    gold = [i.supported for i in items]
    config = LLMConfig(model=model, concurrency=concurrency)
    llm = LLMClient(config, endpoint_for(config), cache=None)
    try:
        await llm.text([{"role": "user", "content": "Say ok."}], max_tokens=2)  # start the server
        start = time.perf_counter()
        judge = Judge(llm, model=model, max_tokens=2048)
        structured = await judge_verdicts(judge, [(i.answer, i.statement) for i in items])
        structured_s = time.perf_counter() - start

        prompt = load_prompt("judge_support_yes_no")
        by_answer: dict[str, list[int]] = defaultdict(list)
        for index, item in enumerate(items):
            by_answer[item.answer].append(index)
        probabilities: list[float | None] = [None] * len(items)

        async def one(index: int) -> None:
            content = prompt.render(context=items[index].answer, statement=items[index].statement)
            probabilities[index] = await llm.probability([{"role": "user", "content": content}])

        start = time.perf_counter()
        for indices in by_answer.values():  # one answer at a time, its statements in parallel
            await asyncio.gather(*(one(i) for i in indices))
        probability_s = time.perf_counter() - start
    finally:
        await llm.aclose()
        llm.endpoint.close()
    n = len(by_answer)
    print(f"{model}, {n} answers, {len(items)} statements, concurrency {concurrency}")
    print(
        f"seconds per answer: structured {structured_s / n:.2f}, one-token P(yes) {probability_s / n:.2f} "
        f"(ratio {structured_s / max(probability_s, 1e-9):.1f}x)"
    )
    agreement("structured verdicts", gold, [None if v is None else float(v) for v in structured])
    agreement("P(yes)", gold, probabilities)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=10)
    parser.add_argument("--model", default=QWEN_0_5B)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.answers, args.model, args.concurrency))
