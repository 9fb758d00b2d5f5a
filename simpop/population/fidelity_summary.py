"""The persona fidelity section of a run summary (simpop's check of its own simulation)."""

from __future__ import annotations

import hashlib
import os
import statistics
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from simpop.aggregate import bootstrap_interval
from simpop.models import FidelitySummary, MessageShapes, Persona, PersonaFidelity, Probe
from simpop.paths import cache_dir
from simpop.population.fidelity import distinct_ratio
from simpop.population.language_level import LEVELS, level_name
from simpop.population.message_style import LEARNER_LEVELS, ages_fit, stated_age
from simpop.population.noise import LOST_TO_NOISE, total_errors
from simpop.population.readability import reading_grade
from simpop.population.realism import MEQSUM, REALISM_TOLERANCE, message_shapes, real_messages, relative_gaps

LITERACY_ORDER = ("low", "medium", "high")
IN_LANGUAGE = 0.9  # a persona with fewer messages in its language is flagged
LOW_VALID_SHARE = 0.85
AGES_OFF = 0.05  # more of the messages giving an age contradict the persona: a warning (issue 41)
MEQSUM_NAME = "MeQSum"
# at 20 messages a share of 0.47 moves by ±0.11 (one standard error) by chance alone
FEW_MESSAGES = 50
# every pair is compared: 2,000 messages take about a second, a persona of 15k (a 100k-cell run)
# four minutes; past this the ratio is estimated on the first messages in the plan
DISTINCT_AT_MOST = 2000
FEW_MESSAGES_HINT = "; few for this test: more --variants narrow it"


# the modules whose code decides a message's shape: a change to one recomputes the reference
_SHAPE_CODE = ("realism", "fidelity", "language_level", "message_shape")


@lru_cache(maxsize=4)
def reference_shapes(path: Path | None = None) -> MessageShapes:
    """The shapes of the real messages in ``path`` (MeQSum by default), kept on disk under the
    file's and the shape code's hash: a thousand messages take seconds to read, every run."""
    file = path or MEQSUM
    digest = hashlib.sha256(file.read_bytes() if file.is_file() else str(file).encode())
    for name in _SHAPE_CODE:
        digest.update((Path(__file__).parent / f"{name}.py").read_bytes())
    cached = cache_dir() / "reference-shapes" / f"{digest.hexdigest()[:32]}.json"
    if cached.is_file():
        return MessageShapes.model_validate_json(cached.read_text(encoding="utf-8"))
    shapes = message_shapes(real_messages(path))
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
    tmp.write_text(shapes.model_dump_json(), encoding="utf-8")
    os.replace(tmp, cached)
    return shapes


def shape_rows(fidelity: FidelitySummary, typical: set[str], mark: str) -> list[tuple[str, MessageShapes]]:
    """Per persona (``mark`` after a typical one's id), then the real reference: the rows of a
    table of how patients write."""
    rows = [(pid + (mark if pid in typical else ""), s) for pid, s in fidelity.shapes.items()]
    if fidelity.reference is not None:
        rows.append((f"real: {fidelity.reference_name}", fidelity.reference))
    return rows


class Written(NamedTuple):
    """What the fidelity section reads of one probe: a few hundred bytes where a probe is
    kilobytes, so the summary of a 100k-cell run holds them all."""

    persona_id: str
    text: str | None
    noisy_text: str | None
    checked: bool  # the fidelity checks ran (a message was written)
    valid: bool
    duplicate: bool
    wrapped: bool  # a checked question inside a message of the persona's
    reading_grade: float | None
    question_grade: float | None  # of the question alone, where it was written alone
    words: int
    seed_similarity: float | None
    story: str | None  # written (the LLM's situation), frame, or None
    lost_to_noise: bool  # the noise emptied it or cut it under what the bot answers

    @classmethod
    def of(cls, probe: Probe, language: str = "en") -> Written:
        f = probe.fidelity
        return cls(
            probe.persona_id,
            probe.text,
            probe.noisy_text,
            f is not None,
            f is not None and f.valid,
            f is not None and f.duplicate_of is not None,
            f is not None and f.question is not None,
            f.reading_grade if f is not None else None,
            reading_grade(f.question, language) if f is not None and f.question else None,
            f.words if f is not None else 0,
            f.seed_similarity if f is not None else None,
            f.story if f is not None else None,
            f is not None and (f.reason or "").startswith(LOST_TO_NOISE),
        )

    @property
    def grade(self) -> float | None:
        """The reading grade of the persona's own words: the question alone where it was
        written alone (the story around it is composed apart), else the whole message."""
        return self.reading_grade if self.question_grade is None else self.question_grade

    @property
    def usable(self) -> bool:
        """Written, valid and not a near-duplicate."""
        return bool(self.text) and self.valid and not self.duplicate


def usable_texts(probes: list[Written]) -> list[str]:
    """The messages a persona wrote that were kept (valid, not a near-duplicate) and ask one of
    the bot's own questions in a message of the persona's (what real consumer health messages
    are); all kept messages when there are none of those (a run of hazard scenarios only)."""
    kept = [p for p in probes if p.usable]
    wrapped = [p for p in kept if p.wrapped]
    return [p.text or "" for p in (wrapped or kept)]


def persona_texts(personas: list[Persona], probes: Iterable[Probe]) -> dict[str, list[str]]:
    """Per persona, the messages ``usable_texts`` keeps."""
    by_persona: dict[str, list[Written]] = {p.id: [] for p in personas}
    languages = {p.id: p.language for p in personas}
    for probe in probes:
        if probe.persona_id in by_persona:
            by_persona[probe.persona_id].append(Written.of(probe, languages[probe.persona_id]))
    return {pid: usable_texts(written) for pid, written in by_persona.items()}


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def _share(count: int, total: int) -> float | None:
    return round(count / total, 3) if total else None


def _usable(probes: list[Written]) -> int:
    return sum(1 for p in probes if p.usable)


def persona_fidelity(persona: Persona, probes: list[Written]) -> PersonaFidelity:
    """One persona's row: counts, shares and means over its probes."""
    written = [p for p in probes if p.text and p.checked]
    own = stated_age(persona)
    ages = [fit for fit in (ages_fit(p.text or "", own) for p in written) if fit is not None]
    noisy = [p for p in written if p.noisy_text is not None]
    errors = total_errors((p.text or "", p.noisy_text or "") for p in noisy)
    return PersonaFidelity(
        persona_id=persona.id,
        health_literacy=persona.health_literacy,
        planned=len(probes),
        generated=len(written),
        valid_share=_share(_usable(probes), len(probes)),
        duplicate_share=_share(sum(1 for p in written if p.duplicate), len(written)),
        invalid=sum(1 for p in written if not p.valid),
        lost_to_noise=sum(1 for p in written if p.lost_to_noise),
        distinct_ratio=distinct_ratio([p.text or "" for p in written[:DISTINCT_AT_MOST]]),
        mean_reading_grade=_mean([p.reading_grade for p in written if p.reading_grade is not None]),
        mean_words=_mean([float(p.words) for p in written]),
        mean_seed_similarity=_mean([p.seed_similarity for p in written if p.seed_similarity is not None]),
        noisy=len(noisy),
        noisy_wer=round(errors.wer, 3) if errors.wer is not None else None,
        stories_written=sum(1 for p in written if p.story == "written"),
        stories_from_frames=sum(1 for p in written if p.story == "frame"),
        ages_stated=len(ages),
        ages_off=ages.count(False),
    )


def literacy_warning(
    personas: list[Persona], by_persona: dict[str, list[Written]]
) -> tuple[dict, str | None]:
    """Mean reading grade per health-literacy level, and a warning unless they rise from low
    to medium to high with 95% intervals that do not overlap, on the persona's own words
    (``Written.grade``, issue 41).

    Learners (CEFR A1-B1) are left out: their language level, the other axis, sets how plainly
    they write (``question_register`` keeps their plainest wordings), so counting a learner at
    medium health literacy would measure the language level, not the health literacy."""
    grades: dict[str, float | None] = {}
    intervals: dict[str, tuple[float, float] | None] = {}
    fluent = [p for p in personas if p.language_level not in LEARNER_LEVELS]
    for level in LITERACY_ORDER:
        values = [
            q.grade
            for p in fluent
            if p.health_literacy == level
            for q in by_persona[p.id]
            if q.checked and q.valid and q.grade is not None
        ]
        grades[level] = _mean(values)
        intervals[level] = bootstrap_interval(values)
    known = [level for level in LITERACY_ORDER if grades[level] is not None]
    pairs = list(zip(known, known[1:], strict=False))
    rising = all(grades[a] < grades[b] for a, b in pairs)  # type: ignore[operator]
    apart = all(intervals[a] and intervals[b] and intervals[a][1] < intervals[b][0] for a, b in pairs)
    if rising and apart:
        return grades, None
    shown = ", ".join(
        f"{level} {grades[level]:.1f}"
        + (f" ({intervals[level][0]:.1f}–{intervals[level][1]:.1f})" if intervals[level] else "")
        for level in known
    )
    problem = "do not rise" if not rising else "rise, but their 95% intervals overlap"
    return grades, (
        f"reading grades (of the questions; learners at A1-B1 left out) {problem} with health literacy "
        f"({shown})"
    )


def language_warnings(persona: Persona, shapes: MessageShapes) -> list[str]:
    """A persona whose messages are not in its language, or read well above its CEFR level, or
    (for a learner at A1-B1) show no grammar slips at all."""
    if not shapes.n:
        return []
    warnings = []
    if shapes.in_language is not None and shapes.in_language < IN_LANGUAGE:
        warnings.append(
            f"persona '{persona.id}': only {shapes.in_language:.0%} of its messages are "
            f"in its language '{persona.language}'"
        )
    if persona.language_level in LEVELS and shapes.language_level is not None:
        meant = LEVELS.index(persona.language_level) + 1
        if shapes.language_level > meant + 1:
            warnings.append(
                f"persona '{persona.id}' is meant to write at {persona.language_level} but reads at "
                f"{level_name(shapes.language_level)} ({shapes.language_level:.1f})"
            )
        if meant <= 3 and not shapes.slips_per_100_words:
            warnings.append(
                f"persona '{persona.id}' is a learner at {persona.language_level} but makes no grammar slips"
            )
    return warnings


def fidelity_summary(
    personas: list[Persona],
    probes: Iterable[Probe],
    real: Path | None = None,
    real_name: str | None = None,
    order: Mapping[str, int] | None = None,
) -> FidelitySummary:
    """Per persona, the shape of its messages beside real ones (``real``: a file of real
    messages, MeQSum by default), plus warnings: reading grades that do not rise from low to
    medium to high health literacy, personas with few usable questions, and personas tagged
    ``typical`` whose messages are more than 25% from the real ones in length, story share or
    question-mark share.

    The probes are read one at a time; with ``order`` (a planned cell's place in the plan) only
    planned cells count, in the plan's order, whatever order they come in."""
    by_persona: dict[str, list[Written]] = {p.id: [] for p in personas}
    ranks: dict[str, list[int]] = {p.id: [] for p in personas}
    languages = {p.id: p.language for p in personas}
    for probe in probes:
        rank = order.get(probe.cell_id) if order is not None else 0
        if rank is not None and probe.persona_id in by_persona:
            by_persona[probe.persona_id].append(Written.of(probe, languages[probe.persona_id]))
            ranks[probe.persona_id].append(rank)
    if order is not None:
        for pid, written in by_persona.items():
            by_persona[pid] = [written[i] for i in sorted(range(len(written)), key=ranks[pid].__getitem__)]
    del ranks
    rows = [persona_fidelity(p, by_persona[p.id]) for p in personas]
    grades, literacy = literacy_warning(personas, by_persona)
    warnings = [literacy] if literacy else []
    reference = reference_shapes(real)
    shapes = {p.id: message_shapes(usable_texts(by_persona[p.id]), p.language) for p in personas}
    for row in rows:
        # probes the LLM could not write are the run's failure (stage lines), not the persona's
        usable = _share(_usable(by_persona[row.persona_id]), row.generated)
        if usable is not None and usable < LOW_VALID_SHARE:
            not_written = row.planned - row.generated
            warnings.append(
                f"persona '{row.persona_id}': only {usable:.0%} of its written probes are usable "
                f"({row.invalid} invalid"
                + (f", {row.lost_to_noise} of them emptied by the noise" if row.lost_to_noise else "")
                + f", {row.duplicate_share or 0:.0%} near-duplicates"
                + (f"; {not_written} not written: LLM errors" if not_written else "")
                + ")"
            )
    for row in rows:
        if row.ages_off > AGES_OFF * row.ages_stated:
            warnings.append(
                f"persona '{row.persona_id}': {row.ages_off} of the {row.ages_stated} messages giving an age "
                "give one its description contradicts (the writer's, or a relative's that cannot fit)"
            )
        if row.stories_from_frames > row.stories_written:
            told = row.stories_written + row.stories_from_frames
            warnings.append(
                f"persona '{row.persona_id}': {row.stories_from_frames} of its {told} stories are sentence "
                "frames (the LLM wrote too few usable situations): they repeat across messages"
            )
    for persona in personas:
        warnings += language_warnings(persona, shapes[persona.id])
        if not persona.typical or not shapes[persona.id].n:
            continue
        gaps = relative_gaps(shapes[persona.id], reference)
        far = [
            f"{name} {gap:+.0%}"
            for name, gap in gaps.items()
            if gap is not None and abs(gap) > REALISM_TOLERANCE
        ]
        if far:
            n = shapes[persona.id].n
            warnings.append(
                f"persona '{persona.id}' is meant to be typical but its messages differ from real ones: "
                + ", ".join(far)
                + f" ({n} messages{FEW_MESSAGES_HINT if n < FEW_MESSAGES else ''})"
            )
    return FidelitySummary(
        personas=rows,
        reading_grade_by_literacy=grades,
        warnings=warnings,
        shapes=shapes,
        reference=reference,
        reference_name=real_name or (MEQSUM_NAME if real is None else real.name),
    )
