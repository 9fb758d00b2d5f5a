"""What the top-up calls of a finished run's question writing bought: each group of cells is
written again from the LLM cache the run filled (run it with that run's ``SIMPOP_CACHE_DIR``:
nothing is generated, a call it does not hold would be made) and checked as the run checked
it, counting the usable, distinct candidates after each call. Prints, per call position, how
many groups made that call, how many gained a usable candidate from it and how many it filled,
and the groups left short.

    SIMPOP_CACHE_DIR=CACHE python bench/top_ups.py RUN_DIR
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from pathlib import Path

import simpop.run.components  # noqa: F401 - the built-in metrics and target kinds a run names
from simpop.embed import Embedder
from simpop.llm import open_llm
from simpop.models import Fidelity
from simpop.population.fidelity import usable
from simpop.population.meaning import AspectModel
from simpop.run.generate import Bounds, GroupWriter, group_request, plan_groups, write_candidates
from simpop.run.plan import load_inputs
from simpop.store import load_run


async def usable_after_each_call(run: Path) -> list[tuple[str, int, list[int]]]:
    """Per group: its scenario, the cells it fills and the usable candidates after each call."""
    config = load_run(run).config
    inputs = load_inputs(config)
    llm = open_llm(config.llm)
    embedder = Embedder(config.embedding)
    aspects: dict[str, asyncio.Future[AspectModel]] = {}
    for language in inputs.languages:
        aspects[language] = asyncio.get_running_loop().create_future()
        aspects[language].set_result(AspectModel(embedder, language))
    bounds = Bounds(config.seed, config.min_similarity, config.topics.min_similarity)
    writer = GroupWriter("replay", inputs, llm, embedder, None, bounds, lambda: None, None, aspects)  # type: ignore[arg-type]
    groups = []
    for (persona_id, scenario_id, _), cells in plan_groups(inputs).items():
        request = group_request(inputs, cells, config.seed)
        persona, source = writer.personas[persona_id], inputs.source(cells[0])
        check = writer.checker(persona, inputs.scenarios[scenario_id], source, request)
        trace: list[int] = []

        async def traced(texts: list[str | None], check=check, trace=trace) -> list[Fidelity | None]:
            checks = await check(texts)
            trace.append(len(usable(checks)))
            return checks

        await write_candidates(llm, request, traced, len(cells), persona.vignette)
        groups.append((scenario_id, len(cells), trace))
    return groups


def main(run: Path) -> None:
    groups = asyncio.run(usable_after_each_call(run))
    made, gained, filled = Counter(), Counter(), Counter()
    for _, needed, trace in groups:
        for call in range(1, len(trace)):
            made[call + 1] += 1
            gained[call + 1] += trace[call] > trace[call - 1]
            filled[call + 1] += trace[call] >= needed > trace[call - 1]
    print(f"{len(groups)} groups, {sum(len(t) for _, _, t in groups)} calls")
    for call in sorted(made):
        print(f"call {call}: {made[call]} groups, {gained[call]} gained a usable one, {filled[call]} filled")
    short = [(s, n, t) for s, n, t in groups if t and t[-1] < n]
    print(f"groups left short of usable candidates: {len(short)}")
    for scenario, needed, trace in short:
        print(f"  {scenario}: needed {needed}, usable after each call {trace}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run's folder (its config.json)")
    main(parser.parse_args().run)
