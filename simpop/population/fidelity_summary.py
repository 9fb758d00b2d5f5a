"""The persona fidelity section of a run summary (simpop's check of its own simulation)."""

from __future__ import annotations

import statistics

from simpop.models import FidelitySummary, Persona, PersonaFidelity, Probe
from simpop.population.fidelity import distinct_ratio
from simpop.population.noise import total_errors

LITERACY_ORDER = ("low", "medium", "high")
LOW_VALID_SHARE = 0.7


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def _share(count: int, total: int) -> float | None:
    return round(count / total, 3) if total else None


def persona_fidelity(persona: Persona, probes: list[Probe]) -> PersonaFidelity:
    """One persona's row: counts, shares and means over its probes."""
    written = [p for p in probes if p.text and p.fidelity is not None]
    checks = [p.fidelity for p in written if p.fidelity is not None]
    duplicates = sum(1 for f in checks if f.duplicate_of is not None)
    invalid = sum(1 for f in checks if not f.valid)
    usable = sum(1 for f in checks if f.valid and f.duplicate_of is None)
    noisy = [p for p in written if p.noisy_text is not None]
    errors = total_errors((p.text or "", p.noisy_text or "") for p in noisy)
    return PersonaFidelity(
        persona_id=persona.id,
        health_literacy=persona.health_literacy,
        planned=len(probes),
        generated=len(written),
        valid_share=_share(usable, len(probes)),
        duplicate_share=_share(duplicates, len(written)),
        invalid=invalid,
        distinct_ratio=distinct_ratio([p.text or "" for p in written]),
        mean_reading_grade=_mean([f.reading_grade for f in checks if f.reading_grade is not None]),
        mean_words=_mean([float(f.words) for f in checks]),
        mean_seed_similarity=_mean([f.seed_similarity for f in checks if f.seed_similarity is not None]),
        noisy=len(noisy),
        noisy_wer=round(errors.wer, 3) if errors.wer is not None else None,
    )


def fidelity_summary(personas: list[Persona], probes: list[Probe]) -> FidelitySummary:
    """Per persona, plus warnings: reading grades that do not rise from low to medium to high
    health literacy, and personas with few usable questions."""
    by_persona = {p.id: [q for q in probes if q.persona_id == p.id] for p in personas}
    rows = [persona_fidelity(p, by_persona[p.id]) for p in personas]
    grades: dict[str, float | None] = {}
    for level in LITERACY_ORDER:
        values = [
            q.fidelity.reading_grade
            for p in personas
            if p.health_literacy == level
            for q in by_persona[p.id]
            if q.fidelity is not None and q.fidelity.reading_grade is not None
        ]
        grades[level] = _mean(values)
    warnings = []
    known = [(level, g) for level, g in grades.items() if g is not None]
    if any(a[1] >= b[1] for a, b in zip(known, known[1:], strict=False)):
        shown = ", ".join(f"{level} {g:.1f}" for level, g in known)
        warnings.append(f"reading grades do not rise with health literacy ({shown})")
    for row in rows:
        if row.valid_share is not None and row.valid_share < LOW_VALID_SHARE:
            warnings.append(
                f"persona '{row.persona_id}': only {row.valid_share:.0%} of its probes are usable "
                f"({row.invalid} invalid, {row.duplicate_share or 0:.0%} near-duplicates)"
            )
    return FidelitySummary(personas=rows, reading_grade_by_literacy=grades, warnings=warnings)
