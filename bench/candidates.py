"""Dump every candidate question the probe writer produced for a run config's QAP variants
(from the LLM cache when the run was made before, so nothing is generated again: the first
call of each group and the retries the run made), with its seed, topic and question type, and
no verdict (label them blind): the material for ``bench/meaning_check.py``.

    python bench/candidates.py targets/breast-qap.yaml [LIMIT [PERSONA,...]] > candidates.jsonl
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from simpop.config import with_options
from simpop.llm import open_llm
from simpop.population.cells import VARIANT_SCENARIO
from simpop.population.probes import one_question_each, probes_cached, write_probes
from simpop.run.components import load_run_config
from simpop.run.generate import RETRIES, group_request, plan_groups
from simpop.run.language_checks import with_embedding_for_languages
from simpop.run.plan import load_inputs


async def main(config_path: Path, limit: int | None, personas: list[str] | None) -> None:
    config = with_options(load_run_config(config_path), dict(os.environ), limit=limit, persona_ids=personas)
    config = with_embedding_for_languages(config)
    inputs = load_inputs(config)
    llm = open_llm(config.llm)
    try:
        for (_, scenario_id, _), cells in plan_groups(inputs).items():
            if scenario_id != VARIANT_SCENARIO:
                continue
            request, source = group_request(inputs, cells, config.seed), inputs.source(cells[0])
            for attempt in range(1 + RETRIES):  # the run's calls: the first, then its retries if made
                args = request.call(attempt)
                if attempt and not probes_cached(llm, *args):
                    args = request.call(attempt, situations=False)  # the run had enough in hand
                    if not probes_cached(llm, *args):
                        break
                written, _ = await write_probes(llm, *args)
                for question in one_question_each(written):
                    row = dict(
                        persona=cells[0].persona_id, seed=source.questions[0], topic=source.topic,
                        qtype=source.qtype, question=question,
                    )  # fmt: skip
                    print(json.dumps(row))
    finally:
        await llm.aclose()
        llm.endpoint.close()


if __name__ == "__main__":
    arguments = sys.argv[1:] + [None, None]
    limit = int(arguments[1]) if arguments[1] else None
    asyncio.run(main(Path(arguments[0]), limit, arguments[2].split(",") if arguments[2] else None))
