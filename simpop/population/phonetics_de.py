"""A phonetic model of German for speech-to-text noise: the Kölner Phonetik (Postel, "Die
Kölner Phonetik", IBM-Nachrichten 19, 1969), which codes a word by its consonant sounds, so
words that sound alike to a recogniser share a code ("Brust" and "Prost": 1782). Its codes play
the part the CMU phones play for English: words with one code are heard for one another, and
codes one digit apart are near."""

from __future__ import annotations

import re

_FOLD = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "s"})
_VOWELS = "aeijouy"
_C_HARD_AT_START = "ahkloqrux"
_C_HARD = "ahkoqux"


def _code(word: str, i: int) -> str:
    """The code of the letter at ``i`` by its neighbours."""
    ch = word[i]
    before = word[i - 1] if i else ""
    after = word[i + 1] if i + 1 < len(word) else ""
    if ch in _VOWELS:
        return "0"
    if ch == "b":
        return "1"
    if ch == "p":
        return "3" if after == "h" else "1"
    if ch in "dt":
        return "8" if after and after in "csz" else "2"
    if ch in "fvw":
        return "3"
    if ch in "gkq":
        return "4"
    if ch == "c":
        if i == 0:
            return "4" if after and after in _C_HARD_AT_START else "8"
        if before and before in "sz":
            return "8"
        return "4" if after and after in _C_HARD else "8"
    if ch == "x":
        return "8" if before and before in "ckq" else "48"
    if ch == "l":
        return "5"
    if ch in "mn":
        return "6"
    if ch == "r":
        return "7"
    if ch in "sz":
        return "8"
    return ""  # h, and anything else


def koelner_phonetik(word: str) -> str:
    """The Kölner Phonetik code of ``word``: letters coded by their neighbours, runs of one digit
    made one, zeros dropped but at the start."""
    letters = re.sub(r"[^a-z]", "", word.lower().translate(_FOLD))
    digits = "".join(_code(letters, i) for i in range(len(letters)))
    collapsed = re.sub(r"(\d)\1+", r"\1", digits)
    return collapsed[:1] + collapsed[1:].replace("0", "")
