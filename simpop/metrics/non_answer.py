"""Replies that are not an answer to the message in front of them, by their words alone (issue
42): the patient's message handed back (an echo) and an earlier reply said again. No judge: a
refusal classifier reads "You asked: …" or a canned paragraph as answered, a patient does not.
They are the two repetitions of See et al. (NAACL 2019, "What makes a good conversation?"):
repeating the partner's words, and repeating one's own earlier utterance (the misunderstanding
case's hazard, "repeats the same words").
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

ECHO_SHARE = 0.8  # the share of the message's words an echo says again
ECHO_NEW = (3, 0.2)  # an echo adds at most max(3 words, 20 % of its words) of its own
REPEAT_RATIO = 90.0  # rapidfuzz ratio (0–100) of two replies that say the same words
WORD = re.compile(r"\w+", re.UNICODE)
ECHO = "handed the message back"


def _words(text: str) -> list[str]:
    return WORD.findall(text.casefold())


def echoes(message: str, answer: str) -> bool:
    """Whether ``answer`` is ``message`` handed back: it says most of the message's words again
    (ECHO_SHARE of them) and adds next to nothing (ECHO_NEW), as "You asked: …" does."""
    words, own = _words(answer), set(_words(message))
    if not words or not own:
        return False
    kept = len(own & set(words)) / len(own)
    new = sum(1 for w in words if w not in own)
    return kept >= ECHO_SHARE and new <= max(ECHO_NEW[0], ECHO_NEW[1] * len(words))


def repeats(answer: str, earlier: list[str]) -> int | None:
    """The index of the first of ``earlier`` that ``answer`` says again (rapidfuzz ratio of the
    case-folded texts at least REPEAT_RATIO), or None."""
    folded = " ".join(_words(answer))
    if not folded:
        return None
    for i, before in enumerate(earlier):
        if fuzz.ratio(folded, " ".join(_words(before))) >= REPEAT_RATIO:
            return i
    return None


def non_answer(message: str, answer: str | None, earlier: list[str]) -> str | None:
    """Why ``answer`` (to ``message``, after the bot's ``earlier`` replies) is not an answer,
    in a few words, or None when nothing here says so."""
    if answer is None or not answer.strip():
        return None
    if echoes(message, answer):
        return ECHO
    if (i := repeats(answer, earlier)) is not None:
        return f"repeated its reply of turn {i + 1}"
    return None
