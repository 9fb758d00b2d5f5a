"""The least time a run's question writing could take on this machine with its model (issue 45's
goals): every group of cells written by a single call, no top-up, the judges free.

A group (one persona, scenario and seed) needs at least one question-writing call. That call
reads its prompt less the persona's system prompt (the most a slot can hold from an earlier
group: exact, tokenized by the embedded server) and writes what a question-writing call wrote
on average in the last run measured (``llm-pace.json`` in the cache folder), or ``--reply``
tokens. At the server's speed timed when that run started, or at ``--prefill``/``--decode``
(e.g. the fastest this machine was ever timed), that is a floor under the run's wall time
however its calls are arranged, since judging and everything else only add to it.

    python bench/llm_floor.py targets/eye-qap.yaml --variants 3 --limit 10 --goal 30
    python bench/llm_floor.py targets/eye-qap.yaml --variants 3 --limit 10 --prefill 73.6 --decode 29.3

A floor above ``--goal`` (minutes) means the goal cannot be met with this model on this machine
without writing fewer tokens: a shorter prompt or fewer candidates asked, each a change to what
the simulated patients are asked."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from reply_tokens import tokenizer

from simpop.config import with_options
from simpop.llm.pace import endpoint_key, read_paces
from simpop.run.components import load_run_config
from simpop.run.generate import group_request, plan_groups
from simpop.run.plan import load_inputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--variants", type=int)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--goal", type=float, default=30.0, help="minutes")
    parser.add_argument("--prefill", type=float, help="prompt tokens read a second (default: as timed)")
    parser.add_argument("--decode", type=float, help="tokens written a second (default: as timed)")
    parser.add_argument("--reply", type=float, help="reply tokens a call (default: the last run's mean)")
    args = parser.parse_args()
    run = load_run_config(args.config)
    run = with_options(run, dict(os.environ), variants=args.variants, limit=args.limit)
    pace = read_paces().get(endpoint_key(run.llm))
    writing = next((k for key, k in (pace.kinds if pace else {}).items() if key.startswith("schema")), None)
    prefill = args.prefill or (pace.prefill if pace else None)
    decode = args.decode or (pace.decode if pace else None)
    reply = args.reply or (writing.completion_tokens if writing else None)
    if not (prefill and decode and reply):
        raise SystemExit(
            f"no pace recorded for {endpoint_key(run.llm)}: run a command first, or give all three"
        )
    inputs = load_inputs(run)
    groups = list(plan_groups(inputs).values())
    tokens = tokenizer(run.llm.model_copy(update={"timeout": 60.0, "concurrency": 1}))
    # the user message of each group's first call; the chat template's few tokens are left out
    read = sum(tokens(group_request(inputs, cells, run.seed).messages[1]["content"]) for cells in groups)
    written = len(groups) * reply
    reading, writing_s = read / prefill, written / decode
    floor = (reading + writing_s) / 60
    print(
        f"{len(inputs.cells)} cells in {len(groups)} groups, one call each, "
        f"at {prefill:.1f} prompt tokens a second read, {decode:.1f} written"
    )
    print(f"reading  {read:8.0f} new prompt tokens  {reading / 60:5.1f} min")
    print(f"writing  {written:8.0f} reply tokens ({reply:.0f} a call)  {writing_s / 60:5.1f} min")
    verdict = "above: not reachable this way" if floor > args.goal else "within"
    print(f"floor {floor:.1f} min ÷ goal {args.goal:.0f} min = {floor / args.goal:.2f} ({verdict})")


if __name__ == "__main__":
    main()
