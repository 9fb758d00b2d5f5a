"""A patient's message around their question: greeting, own or relative's story, background,
the question (with or without a question mark, sometimes asked twice), closing, and a subject
line where the channel has one. Frames come from ``prompts/stories.yaml``; the shares from the
persona's ``style``, with defaults set near real messages (MeQSum) and moved by health
literacy and language level."""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import NamedTuple

from simpop.models import MessageStyle, Persona
from simpop.population.people_words import spoken_topic
from simpop.prompts import load_prompt_data

LEARNER_LEVELS = ("A1", "A2", "B1")

# standard: set with bench/message_wrapper.py on the even half of MeQSum; on the odd half its
# messages (the eye demo's questions) are -15% in median length, +7% in story share and +2% in
# no-question-mark share
DEFAULTS: dict[str, MessageStyle] = {
    "standard": MessageStyle(
        story=0.78, relative=0.25, detail=0.85, background=0.85, greeting=0.5, closing=0.55,
        no_question_mark=0.45, second_question=0.17, subject=0.0,
    ),
    "formal": MessageStyle(
        story=0.8, relative=0.25, detail=0.6, background=0.5, greeting=0.5, closing=0.6,
        no_question_mark=0.45, second_question=0.2, subject=0.0,
    ),
    "plain": MessageStyle(
        story=0.75, relative=0.25, detail=0.3, background=0.25, greeting=0.3, closing=0.35,
        no_question_mark=0.7, second_question=0.1, subject=0.0,
    ),
    "learner": MessageStyle(
        story=0.75, relative=0.25, detail=0.3, background=0.3, greeting=0.45, closing=0.5,
        no_question_mark=0.6, second_question=0.12, subject=0.0,
    ),
}  # fmt: skip


def register(persona: Persona) -> str:
    """learner (CEFR A1-B1), plain (low health literacy), formal (high) or standard."""
    if persona.language_level in LEARNER_LEVELS:
        return "learner"
    return {"low": "plain", "high": "formal"}.get(persona.health_literacy, "standard")


def style_of(persona: Persona) -> MessageStyle:
    """The persona's style, its unset shares filled from its register's defaults."""
    default = DEFAULTS[register(persona)]
    return MessageStyle(**{k: v if v is not None else getattr(default, k) for k, v in persona.style})


def frames(language: str = "en") -> dict:
    """The sentence frames of ``language`` (``prompts/<language>/stories.yaml``)."""
    return load_prompt_data("stories", language)[0]


class Relative(NamedTuple):
    """A relative as a frame names them: its kind (``mother``: the key of the age table) and
    its forms by case (English has one)."""

    kind: str
    nom: str
    acc: str
    dat: str

    @classmethod
    def of(cls, entry: str | dict) -> Relative:
        if isinstance(entry, str):
            return cls(entry, entry, entry, entry)
        return cls(entry["kind"], entry["nom"], entry["acc"], entry["dat"])


_STATED_AGE = re.compile(
    r"\b(\d{2})(?:-year-old|\s+years?\s+old|-years-old)\b|\baged\s+(\d{2})\b", re.IGNORECASE
)
# a relative's age against the patient's: (kind, youngest, oldest difference)
_RELATIVE_AGE = {
    "mother": (25, 35), "father": (25, 38), "mum": (25, 35), "dad": (25, 38), "grandmother": (45, 60),
    "aunt": (12, 25), "wife": (-6, 4), "husband": (-4, 6), "sister": (-8, 8), "brother": (-8, 8),
    "daughter": (-35, -22), "son": (-35, -22),
}  # fmt: skip


def stated_age(persona: Persona) -> int | None:
    """The age the persona's vignette gives ("a 52-year-old", "81 years old"), if any."""
    return described_age(persona.vignette)


def described_age(description: str) -> int | None:
    """The age a description of someone gives ("a 52-year-old", "81 years old"), if any."""
    match = _STATED_AGE.search(description)
    return int(match.group(1) or match.group(2)) if match else None


_RELATIVES = "|".join(_RELATIVE_AGE)
_RELATIVE_WITH_AGE = re.compile(
    rf"\bmy ({_RELATIVES}),? (?:is|who is) (\d{{1,3}})\b(?!\s*(?:weeks?|months?|days?|kg|%))|"
    rf"\bmy (\d{{1,3}})[- ]years?[- ]old ({_RELATIVES})\b",
    re.IGNORECASE,
)
_OWN_AGE = re.compile(
    r"\b(?:i am|i'm|im)\s+(\d{2})\b(?!\s*(?:weeks?|months?|days?|hours?|minutes?|times?|kg|kilos?|lbs?|"
    r"pounds|mg|cm|%|percent))|\bi have\s+(\d{2})\s+years?\b(?!\s+(?:of|ago|since|now))|"
    r"\b(?:i am|i'm|im)\s+an?\s+(\d{2})[- ]years?[- ]old\b|\bmy age is (\d{2})\b|\bat (\d{2}),? i\b",
    re.IGNORECASE,
)


def relative_ages(text: str) -> list[tuple[str, int]]:
    """The relatives a message gives an age ("my mother is 81", "my 6-year-old son", "my
    sister, who is 70"), with that age."""
    found = []
    for match in _RELATIVE_WITH_AGE.finditer(text):
        kind, age = (match.group(1), match.group(2)) if match.group(1) else (match.group(4), match.group(3))
        found.append((kind.lower(), int(age)))
    return found


def fits_age(own: int, relative: str, age: int, slack: int = 3) -> bool:
    """Whether someone of age ``own`` can have a ``relative`` of ``age`` (within ``slack`` years
    of the differences in ``_RELATIVE_AGE``; a relative it does not know always fits)."""
    if relative not in _RELATIVE_AGE:
        return True
    low, high = _RELATIVE_AGE[relative]
    return own + low - slack <= age <= own + high + slack


def ages_fit(text: str, own: int | None) -> bool | None:
    """Whether the ages a message gives (the writer's, a relative's) fit a writer of age
    ``own``; None where it gives none (or the age is not known)."""
    mine, theirs = own_ages(text), relative_ages(text)
    if own is None or not (mine or theirs):
        return None
    return all(abs(a - own) <= 1 for a in mine) and all(fits_age(own, kind, a) for kind, a in theirs)


def own_ages(text: str) -> list[int]:
    """The ages a message gives as the writer's own ("I am 52", "I'm a 40-year-old", "I have
    63 years")."""
    return [int(next(g for g in m.groups() if g)) for m in _OWN_AGE.finditer(text)]


def _fill(frame: str, rng: random.Random, topic: str | None, persona: Persona, question: str = "") -> str:
    """A frame filled in: ages that fit the persona's (and one another), a relative the
    persona can have at that age."""
    data = frames(persona.language)
    own = stated_age(persona)
    age = own if own is not None else rng.choice(data["ages"])
    possible = [
        r
        for r in map(Relative.of, data["relatives"])
        if r.kind not in _RELATIVE_AGE
        or 1 <= age + _RELATIVE_AGE[r.kind][1]
        and age + _RELATIVE_AGE[r.kind][0] <= 100
    ]
    relative = rng.choice(possible)
    low, high = _RELATIVE_AGE.get(relative.kind, (-10, 10))
    relative_age = min(100, max(1, age + rng.randint(low, high)))
    english = persona.language == "en"
    return frame.format(
        topic=(spoken_topic(topic) if english else topic) if topic else "",
        relative=relative.nom,
        Relative=relative.nom[:1].upper() + relative.nom[1:],
        relative_acc=relative.acc,
        relative_dat=relative.dat,
        age=age,
        relative_age=relative_age,
        time=rng.choice(data["times"]),
        time_since=rng.choice(data["times_since"]),
        question=question[:1].lower() + question[1:],
        Question=question,
    )


def _channel(options: list[str], persona: Persona) -> list[str]:
    """Frames that fit how the persona reaches the bot: no writing on a voice line."""
    if "voice" not in persona.tags:
        return options
    pattern = _words_pattern(persona.language, "not_spoken", ("write", "writing", "email"), r"\b")
    return [o for o in options if not pattern.search(o)] or options


NOT_YET = ("prevention", "susceptibility", "diagnosis", "symptoms", "causes", "frequency")


def _story(
    rng: random.Random,
    options: dict[str, list[str]],
    topic: str | None,
    aspect: str | None,
    naming: bool,
    persona: Persona,
) -> str:
    """A story frame: one where the patient has the topic only for questions someone who has
    it asks (not how to prevent, get or find it); one that names the topic when ``naming``."""
    frames_ = _channel(list(options["any"]), persona)
    if aspect not in NOT_YET:
        frames_ += options.get("has", [])
    named = [f for f in frames_ if "{topic}" in f] if naming and topic else []
    return rng.choice(named or [f for f in frames_ if topic or "{topic}" not in f])


_WH_WORDS = ("what", "how", "why", "when", "where", "who", "which", "whose")


@lru_cache(maxsize=None)
def _words_pattern(language: str, key: str, english: tuple[str, ...], start: str) -> re.Pattern[str]:
    """Any of the words ``stories.yaml`` lists under ``key`` (English's when it lists none),
    whole, any case, after ``start``."""
    words = frames(language).get(key, english)
    return re.compile(start + r"(?:" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)


def _without_mark(question: str, rng: random.Random, kind: str, persona: Persona) -> str:
    """The question without its question mark: half the wh-questions put as a request ("I would
    like to know what causes it"; "Please tell me can you ..." is no way to ask), the others
    ended with a full stop, or with nothing in the plain register."""
    bare = question.rstrip().rstrip("?").rstrip()
    if _words_pattern(persona.language, "wh_words", _WH_WORDS, "^").match(bare) and rng.random() < 0.5:
        return _fill(rng.choice(frames(persona.language)["statement"][kind]), rng, None, persona, bare)
    return bare if kind == "plain" else bare.rstrip(".") + "."


class Composed(NamedTuple):
    """A message, its subject line (if any), and where its story came from: ``written`` (the
    LLM's situation), ``frame`` (a sentence frame) or None (no story)."""

    body: str
    subject: str | None
    story: str | None


def compose(
    question: str,
    persona: Persona,
    topic: str | None,
    seed: int,
    second: str | None = None,
    aspect: str | None = None,
    story_needed: bool = False,
    situation: str | None = None,
) -> Composed:
    """The message a persona sends with ``question`` in it, and its subject line (if any).
    ``second``: another wording of the same question, asked too when the style says so;
    ``aspect``: what the question asks about the topic (``meaning.aspects``); ``story_needed``:
    the question says "it", so a story that names the topic comes first; ``situation``: the
    patient's own story, written by the LLM, told instead of a sentence frame."""
    rng = random.Random(seed)
    style, kind = style_of(persona), register(persona)
    data = frames(persona.language)
    parts: list[str] = []
    told = None
    if rng.random() < (style.greeting or 0):
        parts.append(rng.choice(data["greeting"][kind]))
    tells = rng.random() < (style.story or 0) or story_needed
    if tells and situation:
        parts.append(situation)
        told = "written"
    elif tells:
        told = "frame"
        about = "relative" if rng.random() < (style.relative or 0) else "own"
        story = _story(rng, data[about][kind], topic, aspect, story_needed, persona)
        parts.append(_fill(story, rng, topic, persona))
        if rng.random() < (style.detail or 0):
            parts.append(_fill(rng.choice(_channel(data["detail"][kind], persona)), rng, topic, persona))
        if rng.random() < (style.background or 0):
            parts.append(rng.choice(_channel(data["background"][kind], persona)))
    asked = question.strip()
    if rng.random() < (style.no_question_mark or 0):
        asked = _without_mark(asked, rng, kind, persona)
    parts.append(asked)
    if second and rng.random() < (style.second_question or 0):
        parts.append(second.strip())
    if rng.random() < (style.closing or 0):
        parts.append(rng.choice(data["closing"][kind]))
    subject = None
    if topic and rng.random() < (style.subject or 0):
        subject = _fill(rng.choice(data["subjects"]), rng, topic, persona)
    return Composed(" ".join(p for p in parts if p), subject, told)
