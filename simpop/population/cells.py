"""The plan: every cell of a run (persona x scenario x seed x index) with a deterministic id."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from simpop.models import QAP, Cell, Domain, HCATType, Persona, Scenario, Vignette

VARIANT_SCENARIO = "qap-variant"
NO_SEED = "-"
CONVERSATION_SEED = "conversation"
BUILTIN = Path(__file__).parent / "builtin"


def cell_id(persona_id: str, scenario_id: str, seed_id: str, index: int) -> str:
    """Same persona, scenario, seed and index give the same id in every run (interned: the
    records of a cell share its one string)."""
    key = f"{scenario_id}\x00{persona_id}\x00{seed_id}\x00{index}"
    return sys.intern(hashlib.sha256(key.encode()).hexdigest()[:16])


def sampling_seed(run_seed: int, cell: Cell) -> int:
    """The LLM sampling seed of one cell, derived from the run seed."""
    key = f"{run_seed}\x00{cell.cell_id}"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % (2**31)


@lru_cache(maxsize=None)
def builtin_scenario(scenario_id: str) -> Scenario:
    from simpop.config import load_scenario

    return load_scenario(BUILTIN / f"{scenario_id}.yaml")


def builtin_ids() -> set[str]:
    return {path.stem for path in BUILTIN.glob("*.yaml")}


POPULATION_SCENARIOS = {"rephrase": VARIANT_SCENARIO, "real-shaped": "qap-real-shaped"}


def variant_scenario(population: str = "rephrase") -> Scenario:
    """The built-in scenario of ``--variants`` (its cells carry the id ``qap-variant`` either
    way): a persona rephrases a seed QAP, or asks it in a message shaped like a real one."""
    return builtin_scenario(POPULATION_SCENARIOS[population])


def hcat_scenario(hcat_type: HCATType) -> Scenario:
    """The built-in scenario of ``topics``: a persona asks an HCAT question from chunks."""
    return builtin_scenario("kb-" + hcat_type.replace("_", "-"))


def chunks_per_probe(scenario: Scenario) -> int:
    return 2 if scenario.hcat_type == "multi_hop" else 1


def vignette_id(index: int) -> str:
    return f"vignette-{index + 1}"


def scenario_vignettes(scenario: Scenario, vignettes: list[Vignette], domain: Domain | None) -> list[str]:
    """Ids of the vignettes of the scenario's urgency levels, leaving out diagnoses within the
    bot's own domain (its ``keywords``), which are not out of scope for it."""
    keywords = [k.lower() for k in (domain.keywords if domain else [])]
    return [
        vignette_id(i)
        for i, v in enumerate(vignettes)
        if v.urgency_level in scenario.urgency and not any(k in v.correct_diagnosis.lower() for k in keywords)
    ]


def scenario_seeds(scenario: Scenario, count: int, qaps: list[QAP], vignettes: list[str]) -> list[str]:
    """The seed of each of a scenario's ``count`` probes (the same for every persona, so
    personas are compared on the same situations)."""
    if scenario.source == "generate":
        return [NO_SEED] * count
    if scenario.source == "vignettes":
        return [vignettes[i % len(vignettes)] for i in range(count)] if vignettes else []
    if not qaps:
        return []
    if scenario.source == "qap":
        return [qaps[i % len(qaps)].id for i in range(count)]
    seeds, start = [], 0
    for i in range(count):
        size = min(scenario.combine[i % len(scenario.combine)], len(qaps))
        seeds.append("+".join(qaps[(start + j) % len(qaps)].id for j in range(size)))
        start += size
    return seeds


@dataclass(frozen=True)
class PlannedScenario:
    scenario: Scenario
    seeds: list[str]


def plan(
    personas: list[Persona], qaps: list[QAP], variants: int, scenarios: list[PlannedScenario]
) -> list[Cell]:
    """Variant cells (by QAP, persona, index), then scenario cells (by scenario, persona, index)."""
    cells = [
        Cell(
            cell_id=cell_id(p.id, VARIANT_SCENARIO, q.id, v),
            persona_id=p.id,
            scenario_id=VARIANT_SCENARIO,
            seed_id=q.id,
            variant=v,
        )
        for q in qaps
        for p in personas
        for v in range(variants)
    ]
    for planned in scenarios:
        for p in personas:
            for index, seed in enumerate(planned.seeds):
                sid = planned.scenario.id
                cells.append(
                    Cell(
                        cell_id=cell_id(p.id, sid, seed, index),
                        persona_id=p.id,
                        scenario_id=sid,
                        seed_id=seed,
                        variant=index,
                    )
                )
    return cells


def conversation_cells(personas: list[Persona], case_ids: list[str], repeats: int) -> list[Cell]:
    """One cell per case, persona and repetition (by case, persona, repetition); the seed id
    marks it a conversation."""
    return [
        Cell(
            cell_id=cell_id(p.id, case, CONVERSATION_SEED, r),
            persona_id=p.id,
            scenario_id=case,
            seed_id=CONVERSATION_SEED,
            variant=r,
        )
        for case in case_ids
        for p in personas
        for r in range(repeats)
    ]
