"""Do simulated messages look like real ones? The shape of a set of messages
(``message_shape``) beside a real reference: MeQSum's 1,000 consumer health questions by
default, or any JSONL/CSV of real messages."""

from __future__ import annotations

import csv
import io
import json
import statistics
from pathlib import Path

from simpop.aggregate import bootstrap_interval
from simpop.errors import ConfigError
from simpop.models import MessageShapes
from simpop.population.language_level import language_profile
from simpop.population.message_shape import message_shape
from simpop.population.readability import reading_grade
from simpop.textfiles import read_text

MEQSUM = Path(__file__).parent / "reference" / "meqsum.jsonl"
TEXT_FIELDS = ("message", "text", "question")
REALISM_TOLERANCE = 0.25  # relative distance to the reference at which a persona is flagged
COMPARED = ("median_words", "context", "no_question_mark")


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def message_shapes(texts: list[str], language: str = "en") -> MessageShapes:
    """The figures of ``MessageShapes`` for ``texts`` (meant to be in ``language``), with a
    bootstrap interval of the mean reading grade."""
    shapes = [message_shape(t) for t in texts]
    english = language == "en"
    grades = [g for g in (reading_grade(t, language) for t in texts) if g is not None]
    interval = bootstrap_interval(grades) or (None, None)
    profile = language_profile(texts, language)
    return MessageShapes(
        n=len(texts),
        median_words=float(statistics.median(s.words for s in shapes)) if shapes else None,
        # whose story a message tells is read by English patterns
        context=_share([s.context for s in shapes]) if english else None,
        relative=_share([s.relative for s in shapes]) if english else None,
        no_question_mark=_share([not s.question_mark for s in shapes]),
        multi_question=_share([s.questions >= 2 for s in shapes]),
        subject=_share([s.subject for s in shapes]),
        reading_grade=round(statistics.fmean(grades), 2) if grades else None,
        reading_grade_low=round(interval[0], 2) if interval[0] is not None else None,
        reading_grade_high=round(interval[1], 2) if interval[1] is not None else None,
        language_level=profile.level,
        slips_per_100_words=profile.slips_per_100_words,
        in_language=profile.in_language,
        rare_words=profile.rare_words,
    )


def real_messages(path: Path | None = None) -> list[str]:
    """Real messages from a JSONL file (field ``message``, ``text`` or ``question``) or a CSV
    file with such a column; MeQSum when ``path`` is None."""
    path = path or MEQSUM
    if not path.is_file():
        raise ConfigError(f"{path}: file of real messages not found")
    text = read_text(path)
    try:
        if path.suffix.lower() == ".csv":
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
        else:
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path} line {error.lineno}: malformed JSON: {error.msg}") from None
    field = next((f for f in TEXT_FIELDS if rows and isinstance(rows[0], dict) and f in rows[0]), None)
    if field is None:
        raise ConfigError(f"{path}: no field 'message', 'text' or 'question' in its records")
    texts = [str(r.get(field) or "").strip() for r in rows if isinstance(r, dict)]
    texts = [t for t in texts if t]
    if not texts:
        raise ConfigError(f"{path}: no messages")
    return texts


def relative_gaps(shapes: MessageShapes, reference: MessageShapes) -> dict[str, float | None]:
    """(persona − reference) / reference for the length, context and no-question-mark figures."""
    gaps: dict[str, float | None] = {}
    for name in COMPARED:
        mine, real = getattr(shapes, name), getattr(reference, name)
        gaps[name] = round((mine - real) / real, 3) if mine is not None and real else None
    return gaps
