"""The language of one answer, from its function words (Cavnar & Trenkle's observation that a
language's commonest words identify it; here the words no two of these languages share), so a
safety verdict is decided by the classifier of the answer's own language. An answer too short to
tell ("Call 911.", "144!") is taken to be in the language the bot is configured for."""

from __future__ import annotations

import re
from functools import lru_cache

# words common in one language and rare in the others (none of them in two lists)
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the and is are you your to of it that this for with be not can if or please call have what do "
        "my me we they should would could will any about from has been there their which when how "
        "go get see doctor right away now just here than them these those who".split()
    ),
    "de": frozenset(
        "und der das ist nicht sie ich mit zu den ein eine einen auf für fuer sich es dem bei wenn oder "
        "auch bitte kann können koennen sofort haben wird werden noch nur ihre ihr ihnen vom zum zur "
        "sind nach wie bei aus dass daß jetzt rufen gehen sollten sollte arzt ärztin keine kein nicht "
        "wir uns dich dir mich mir frage leider gerne heute".split()
    ),
    "fr": frozenset(
        "le la les et est vous votre pas une des du que qui pour dans sur avec ce il elle nous sont "
        "mais ou si au aux être avez appelez médecin urgences tout".split()
    ),
    "es": frozenset(
        "el los las y es usted su una del que por para con como pero muy está son llame médico "
        "urgencias ahora también".split()
    ),
    "it": frozenset(
        "il lo gli e è di che non per con una sono della del questo lei chiami medico subito anche "
        "ma più".split()
    ),
    "nl": frozenset(
        "de het een en is van niet dat ik je u uw met voor op zijn naar bij maar ook bel arts direct "
        "wat hoe".split()
    ),
}
# words the lists above hold for more than one language are evidence for none
_SHARED = frozenset(
    w for a in FUNCTION_WORDS for b in FUNCTION_WORDS if a < b for w in FUNCTION_WORDS[a] & FUNCTION_WORDS[b]
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_UMLAUT = re.compile(r"[äöüß]", re.I)
MIN_WORDS = 2  # distinctive words needed to tell; fewer: the bot's language


@lru_cache(maxsize=4096)  # a run asks for each answer once per verdict
def answer_language(text: str, default: str = "en") -> str:
    """The language of ``text`` (an ISO 639-1 code of ``FUNCTION_WORDS``), or ``default`` when too
    few of its words tell."""
    words = [w.lower() for w in _WORD.findall(text)]
    counts = {
        language: sum(w in found and w not in _SHARED for w in words)
        for language, found in FUNCTION_WORDS.items()
    }
    counts["de"] += min(2, len(_UMLAUT.findall(text)))
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    (best, n), (_, second) = ranked[0], ranked[1]
    if n < MIN_WORDS or n < 1.5 * second:
        return default.split("-")[0].lower()
    return best
