"""The shape of a patient's message, measured the same way on simulated and on real ones:
length, a subject line, the patient's own story or a relative's, how many questions it asks,
whether it has a question mark at all.

The detectors are rules, checked against hand labels of real messages in
``tests/test_message_shape.py``; MeQSum (Ben Abacha & Demner-Fushman, ACL 2019) is the real
reference they are measured against by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SUBJECT = re.compile(r"^\s*SUBJECT:\s*(?P<subject>[^\n]*)\n+\s*MESSAGE:\s*", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
# the writer as the one something happens to: "I have", "I was told", "my levels", "I'm 40"
_FIRST_PERSON_PATTERN = (
    r"\b(?:i|i'm|im|i've|ive)\s+(?:\w+\s+)?(?:have|had|has|am|was|been|got|get|getting|take|taking|took|"
    r"feel|felt|feeling|suffer|suffering|suffered|diagnosed|having|experience|experiencing|noticed|"
    r"started|stopped|tried|went|need\s+surgery|can't|cannot|can\s+not|\d+)\b|"
    r"\b(?:i'm|im)\s+\d+|\bmy\s+(?!(?:\w+\s+)?(?:{relatives})\b)\w+"
)
# first-person words that only frame a request ("I would like to know ...", "can you tell me")
_REQUEST = re.compile(
    r"\b(?:i|we)\s+(?:would|'d|wd)?\s*(?:like|want|wanted|need|needed|am\s+looking|was\s+wondering|"
    r"wonder|am\s+wondering|have\s+a\s+question|had\s+a\s+question|'m\s+looking|'m\s+wondering)"
    r"(?:\s+(?:to\s+know|to\s+find\s+out|to\s+ask|to\s+learn|information|info|some|more|about|if|whether|"
    r"what|how|why|where|when|for))?|"
    r"\b(?:can|could|would|will|please)\s+(?:you\s+)?(?:please\s+)?(?:tell|send|give|help|email|explain|"
    r"inform|let|direct|advise)\s+me\b|\bthank(?:s|\s+you)\b|\bplease\s+help\s+me\b|\bhelp\s+me\b",
    re.IGNORECASE,
)
RELATIVES = (
    "mother|mom|mum|mommy|mama|father|dad|daddy|papa|parents?|son|sons|daughters?|husband|wife|"
    "spouse|partner|boyfriend|girlfriend|fiance|fiancee|sister|sisters|brother|brothers|siblings?|"
    "child|children|kids?|baby|babies|toddler|grand(?:son|daughter|mother|father|ma|pa|child|children)s?|"
    "aunt|uncle|niece|nephew|cousin|family|friend|friends|neighbou?r|in-laws?|mother-in-law|"
    "father-in-law|stepson|stepdaughter|stepmother|stepfather|relative"
)
_RELATIVE_NAMED = re.compile(
    rf"\b(?:a|an|my|our|his|her)\s+(?:\S+\s+){{0,3}}(?:{RELATIVES})\b", re.IGNORECASE
)
# another person's story: a relative named, or "he has", "she was" ...
_RELATIVE = re.compile(
    rf"{_RELATIVE_NAMED.pattern}|\b(?:he|she)\s+(?:has|had|is|was|suffers|suffered|gets|got|can't|cannot)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(_FIRST_PERSON_PATTERN.replace("{relatives}", RELATIVES), re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


@dataclass(frozen=True)
class MessageShape:
    """What one message looks like."""

    words: int
    subject: bool
    own_story: bool
    relative: bool
    questions: int
    question_mark: bool

    @property
    def context(self) -> bool:
        """Tells a story: the patient's own or a relative's."""
        return self.own_story or self.relative


def split_subject(text: str) -> tuple[str | None, str]:
    """The subject line (``SUBJECT: ... MESSAGE:``, or a short first line without end
    punctuation above the body) and the body."""
    match = _SUBJECT.match(text)
    if match:
        return match.group("subject").strip() or None, text[match.end() :]
    first, newline, rest = text.strip().partition("\n")
    if newline and rest.strip() and len(first.split()) <= 10 and not first.rstrip().endswith((".", "?", "!")):
        return first.strip(), rest
    return None, text


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if _WORD.search(s)]


def tells_own_story(body: str) -> bool:
    """A statement about the writer's own situation, beyond the frame of a request and not
    about a relative ("I have had this rash for 13 years", not "I would like to know ..." or
    "I have a sister who ...")."""
    for sentence in sentences(body):
        if sentence.endswith("?") or _RELATIVE_NAMED.search(sentence):
            continue
        rest = _REQUEST.sub(" ", sentence)
        if _FIRST_PERSON.search(rest) and len(_WORD.findall(rest)) >= 3:
            return True
    return False


def question_count(body: str) -> int:
    """Questions asked: sentences ending in a question mark (a run of them counts once)."""
    return sum(1 for s in sentences(body) if s.endswith("?"))


def message_shape(text: str) -> MessageShape:
    subject, body = split_subject(text)
    return MessageShape(
        words=len(_WORD.findall(f"{subject or ''} {body}")),  # the SUBJECT:/MESSAGE: labels left out
        subject=subject is not None,
        own_story=tells_own_story(body),
        relative=bool(_RELATIVE.search(body)),
        questions=question_count(body),
        question_mark="?" in text,
    )
