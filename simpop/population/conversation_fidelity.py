"""Is this turn of a simulated patient believable, and does it say what the case needs it to
say? (issue 22) The checks of a single message (another script, a loop) and those of a
conversation: the patient speaks as the chatbot or of the chatbot in the third person (the
case's framing), repeats an answer of the chatbot or its own earlier message, tells what the
case keeps until the bot asks, or leaves out a fact the case reveals at this turn (a small
model turns "sudden loss of vision" into "a bit of trouble seeing", and the bot is then blamed
for not escalating what it was never told)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from simpop.models import ConversationTurn
from simpop.population.bot_voice import speaks_as_the_bot
from simpop.population.fidelity import LEAK_MIN_WORDS, LEAK_RATIO, flaw, fold, split_sentences

# what a chatbot (or a clinician) says to a patient, never a patient to a chatbot: what it is,
# offers of help, asking what the other wants to know, sympathy, asking about their care
AS_THE_BOT = re.compile(
    "|".join(
        [
            r"\bas an ai\b|\bi('m| am) an ai\b|\blanguage model\b",
            r"\bi('m| am) (just )?(a|the|your) (chat ?bot|virtual assistant|assistant)\b",
            r"\b(how )?(can|may|could) i (help|assist) you\b|\bhelp you (understand|with|find)\b",
            r"\bi('m| am) here to (help|listen|assist)\b|\bi('d| would) be (happy|glad) to\b",
            r"\banything else (that )?i can\b|\bi hope this helps\b",
            r"\bis there anything (else )?(that )?(you need|you('d| would) like)\b",
            r"\b(do|would) you have any (other |more |further )?questions\b",
            r"\b(do|would) you (want|like) to know\b|\bwhat (are|were) you looking for\b",
            r"\bi('m| am) (so )?sorry to hear\b|\byou('re| are) experiencing\b",
            r"\b(have|did) you (been to|seen?|talked to|spoken to) (a|your) (doctor|care team|gp)\b",
            r"\bdo you have any (other )?symptoms\b",
        ]
    ),
    re.IGNORECASE,
)
# the case's framing in the patient's mouth: the chatbot in the third person, the role play
_ABOUT_THE_SIMULATION = re.compile(
    r"\bthe (chat ?bot|virtual assistant)\b|\b(this|the) (scenario|role ?play|simulation)\b"
    r"|\bmy (goal|role)\b",
    re.IGNORECASE,
)
_STOP = frozenset(
    "about after again also been before being could does have just know like more much only "
    "really should since some than that their them then there they this very what when where "
    "which while will with would your you".split()
)
TOLD_SHARE = 0.6  # this share of a fact's content words in the message tells the fact


def _content(text: str) -> set[str]:
    """Content words, cut to five letters so "vision" and "visions", "sudden" and "suddenly" meet."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3 and w not in _STOP}


def tells(message: str, fact: str) -> bool:
    """The message says most of the fact's content words."""
    words = _content(fact)
    return bool(words) and len(words & _content(message)) >= TOLD_SHARE * len(words)


LEAVES_OUT = "leaves out what it must tell"
ABOUT_THE_SIMULATION = "talks about the simulation"

# second person to first, as a patient tells a fact of the case written to them
_FIRST_PERSON = [
    (r"\byou are\b", "I am"),
    (r"\byou were\b", "I was"),
    (r"\byou're\b", "I'm"),
    (r"\byou've\b", "I've"),
    (r"\byourself\b", "myself"),
    (r"\byours\b", "mine"),
    (r"\byour\b", "my"),
    (
        r"\b(with|to|for|at|about|from|tell|tells|told|give|gives|gave|help|helps|ask|asks|let|lets) you\b",
        r"\1 me",
    ),
    (r"\byou\b", "I"),
]


def _copied_sentences(message: str, sources: list[str]) -> list[str]:
    """The sentences of ``message`` (of some length) that come nearly word for word from one
    of ``sources``."""
    folded = [fold(source) for source in sources if source]
    return [
        sentence
        for sentence in split_sentences(message)
        if len(sentence.split()) >= LEAK_MIN_WORDS
        and any(fuzz.partial_ratio(fold(sentence), source) >= LEAK_RATIO for source in folded)
    ]


def in_own_voice(message: str, facts: list[str]) -> str:
    """``message`` with each sentence copied from a fact of the case (written to the patient:
    "you have had ...") put in the patient's voice ("I have had ...")."""
    for sentence in _copied_sentences(message, facts):
        message = message.replace(sentence, first_person(sentence))
    return message


def first_person(text: str) -> str:
    """``text`` (a fact of the case, written to the patient) as the patient says it."""
    for pattern, replacement in _FIRST_PERSON:
        text = re.sub(
            pattern,
            lambda m, r=replacement: _same_case(m.group(0), m.expand(r)),
            text,
            flags=re.IGNORECASE,
        )
    return " ".join(text.split())


def _same_case(found: str, replacement: str) -> str:
    return replacement[:1].upper() + replacement[1:] if found[:1].isupper() else replacement


def turn_flaws(
    message: str,
    before: list[ConversationTurn],
    kept: list[str],
    due: Sequence[str] = (),
) -> list[str]:
    """Every reason the patient's next message is not a patient's, or leaves out a fact ``due``
    at this turn. ``kept``: the facts to tell only when asked (rendered); they may be told once
    the bot's last answer asked a question."""
    found = []
    if AS_THE_BOT.search(message) or speaks_as_the_bot(message):
        found.append("speaks as the chatbot")
    if _ABOUT_THE_SIMULATION.search(message):
        found.append(ABOUT_THE_SIMULATION)
    if _copied_sentences(message, [t.answer for t in before if t.answer]):
        found.append("repeats the chatbot's answer")
    if _copied_sentences(message, [t.text for t in before]):
        found.append("repeats an earlier message of its own")
    last = before[-1].answer if before else None
    if not (last and "?" in last) and any(tells(message, fact) for fact in kept):
        found.append("tells what it was to keep until asked")
    if any(not tells(message, fact) for fact in due):
        found.append(LEAVES_OUT)
    if (single := flaw(message, (), "")) is not None:
        found.append(single)
    return found


def turn_flaw(
    message: str,
    before: list[ConversationTurn],
    kept: list[str],
    due: Sequence[str] = (),
) -> str | None:
    """The first of ``turn_flaws``, if any."""
    return next(iter(turn_flaws(message, before, kept, due)), None)
