"""The plan: persona x seed QAP x variant, each cell with a deterministic id."""

from __future__ import annotations

import hashlib

from simpop.models import QAP, Cell, Persona


def cell_id(persona_id: str, seed_id: str, variant: int) -> str:
    """Same persona, seed and variant index give the same id in every run."""
    key = f"variant\x00{persona_id}\x00{seed_id}\x00{variant}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def sampling_seed(run_seed: int, persona_id: str, seed_id: str) -> int:
    """The LLM sampling seed of one persona rephrasing one QAP, derived from the run seed."""
    key = f"{run_seed}\x00{persona_id}\x00{seed_id}"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % (2**31)


def plan(personas: list[Persona], qaps: list[QAP], variants: int) -> list[Cell]:
    """Every cell of the run, ordered by QAP, then persona, then variant index."""
    return [
        Cell(cell_id=cell_id(p.id, q.id, v), persona_id=p.id, seed_id=q.id, variant=v)
        for q in qaps
        for p in personas
        for v in range(variants)
    ]
