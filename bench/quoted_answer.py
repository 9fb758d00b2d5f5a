"""The context-relevance judge on QAP answers quoted word for word from their QAP: P(yes) with
the answer shown twice (in the context and again as the answer, as before 2026-11-27) and once
(the prompt now), the same model and messages otherwise, temperature 0, no cache.

    python bench/quoted_answer.py RUN [--sample 60] [--model qwen2.5-coder-1.5b-instruct-q4_k_m]

RUN is a run of a QAP bot (e.g. the full study's). Prints how often the verdict at the profile's
threshold is the same, and the mean change in P(yes).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from pathlib import Path

from simpop.judging.profile import profile_for
from simpop.llm import LLMClient, endpoint_for
from simpop.llm.cache import ResponseCache
from simpop.metrics.texts import exchange
from simpop.models import DEFAULT_LOCAL_MODEL, LLMConfig
from simpop.prompts import load_prompt
from simpop.run import components  # noqa: F401 - registers the target kinds a run's config names
from simpop.store import load_run


def user(content: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": content}]


async def main(run: Path, sample: int, model: str) -> None:
    answers = [r for r in load_run(run).responses.values() if r.answer]
    quoted = [e for r in answers if (e := exchange(r))["answer_quoted"]]
    random.Random(7).shuffle(quoted)
    prompt = load_prompt("judge_context_relevance")
    threshold = profile_for(model).threshold("relevant")
    config = LLMConfig(model=model, concurrency=1)
    llm = LLMClient(config, endpoint_for(config), cache=ResponseCache(Path(tempfile.mkdtemp()) / "c.sqlite"))
    pairs = []
    try:
        for shown in quoted[:sample]:
            twice = await llm.probability(user(prompt.render(**(shown | {"answer_quoted": False}))))
            once = await llm.probability(user(prompt.render(**shown)))
            if twice is not None and once is not None:
                pairs.append((twice, once))
    finally:
        await llm.aclose()
        llm.endpoint.close()
    n = len(pairs)
    same = sum((a >= threshold) == (b >= threshold) for a, b in pairs)
    print(f"{model}: {len(quoted)} of {len(answers)} answers quote their QAP; {n} judged both ways")
    print(
        f"same verdict at the threshold {threshold}: {same}/{n}; mean |change in P(yes)| "
        f"{sum(abs(a - b) for a, b in pairs) / n:.3f}; mean P(yes) shown twice "
        f"{sum(a for a, _ in pairs) / n:.3f}, once {sum(b for _, b in pairs) / n:.3f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("run", type=Path)
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL)
    args = parser.parse_args()
    asyncio.run(main(args.run, args.sample, args.model))
