"""Typing slips for text channels, on the keyboard of the persona's language: a neighbouring
key, two letters swapped, a letter dropped or doubled. Deterministic under a seed."""

from __future__ import annotations

import random

DEFAULT_TYPO_RATE = 0.05
KEYBOARD_ROWS = {
    "en": ("qwertyuiop", "asdfghjkl", "zxcvbnm"),  # QWERTY
    "de": ("qwertzuiopü", "asdfghjklöä", "yxcvbnm"),  # QWERTZ (DIN 2137)
}


def neighbour_key(ch: str, rng: random.Random, language: str = "en") -> str:
    """A key next to ``ch``'s on ``language``'s keyboard (``ch`` where it has none)."""
    rows = KEYBOARD_ROWS[language]
    lower = ch.lower()
    at = next(((r, row.index(lower)) for r, row in enumerate(rows) if lower in row), None)
    if at is None:
        return ch
    r, c = at
    near = [
        rows[rr][cc]
        for rr in (r - 1, r, r + 1)
        for cc in (c - 1, c, c + 1)
        if 0 <= rr < len(rows) and 0 <= cc < len(rows[rr]) and (rr, cc) != (r, c)
    ]
    key = rng.choice(near)
    return key.upper() if ch.isupper() else key


def typo_noise(text: str, rate: float | None, seed: int, language: str = "en") -> str:
    """Keyboard slips, one per affected word. ``rate`` is the share of words affected (default
    0.05)."""
    rng = random.Random(seed)
    rate = DEFAULT_TYPO_RATE if rate is None else rate
    words = text.split(" ")
    for i, word in enumerate(words):
        letters = [j for j, ch in enumerate(word) if ch.isalpha()]
        if len(letters) < 2 or rng.random() >= rate:
            continue
        j = rng.choice(letters[:-1])
        kind = rng.randrange(4)
        if kind == 0:
            word = word[:j] + neighbour_key(word[j], rng, language) + word[j + 1 :]
        elif kind == 1:
            word = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
        elif kind == 2:
            word = word[:j] + word[j + 1 :]
        else:
            word = word[:j] + word[j] + word[j:]
        words[i] = word
    return " ".join(words)
