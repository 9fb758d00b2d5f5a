"""Dump every candidate question the probe writer produced for a run config's QAP variants
(from the LLM cache when the run was made before, so nothing is generated again), with its
seed, topic, question type and the meaning check's verdict: the material for labelling how
well the check works (``bench/meaning_check.py``).

    python bench/candidates.py targets/breast-qap.yaml [LIMIT [PERSONA,...]] > candidates.jsonl
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from simpop.config import load_run_config, with_options
from simpop.embed import Embedder
from simpop.llm import open_llm
from simpop.population.cells import VARIANT_SCENARIO, sampling_seed
from simpop.population.meaning import AspectModel, check_meaning
from simpop.population.probes import (
    MAX_QUESTION_CHARS,
    QUESTION_OVERSAMPLE,
    everyday_lexicon,
    one_question_each,
    probe_messages,
    write_probes,
)
from simpop.run.plan import load_inputs


async def main(config_path: Path, limit: int | None, personas: list[str] | None) -> None:
    config = with_options(load_run_config(config_path), dict(os.environ), limit=limit, persona_ids=personas)
    inputs = load_inputs(config)
    llm = open_llm(config.llm)
    model = AspectModel(Embedder(config.embedding))
    personas = {p.id: p for p in inputs.personas}
    groups: dict[tuple[str, str], list] = {}
    for cell in inputs.cells:
        if cell.scenario_id == VARIANT_SCENARIO:
            groups.setdefault((cell.persona_id, cell.seed_id), []).append(cell)
    try:
        for (persona_id, _), cells in groups.items():
            scenario, source = inputs.scenarios[VARIANT_SCENARIO], inputs.source(cells[0])
            wanted = QUESTION_OVERSAMPLE * len(cells)
            messages = probe_messages(personas[persona_id], scenario, inputs.domain, source, wanted)
            seed = sampling_seed(config.seed, cells[0])
            written = await write_probes(llm, messages, wanted, seed, MAX_QUESTION_CHARS)  # the first call
            questions = one_question_each(written)
            everyday = everyday_lexicon(inputs.domain)
            checks = check_meaning(
                model, source.questions[0], questions, source.topic, source.qtype, everyday
            )
            for question, check in zip(questions, checks, strict=True):
                row = dict(
                    persona=persona_id, seed=source.questions[0], topic=source.topic, qtype=source.qtype,
                    question=question, kept=check.kept, reason=check.reason,
                )  # fmt: skip
                print(json.dumps(row))
    finally:
        await llm.aclose()
        llm.endpoint.close()


if __name__ == "__main__":
    arguments = sys.argv[1:] + [None, None]
    limit = int(arguments[1]) if arguments[1] else None
    asyncio.run(main(Path(arguments[0]), limit, arguments[2].split(",") if arguments[2] else None))
