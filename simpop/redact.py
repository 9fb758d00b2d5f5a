"""Secrets simpop read itself (API keys, the values of ``${VAR}`` in a target's URL or headers)
never reach a file or the console, even when an endpoint echoes them back: simpop remembers each
one as it reads it, and every text it writes (records, the summary, the cache, reports, the
console) passes through ``redact``, which puts ``***`` in its place. Text is masked before it is
cut short (``clip``), and the start of a secret that was cut anyway is masked too."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from typing import TextIO

MASK = "***"
# shorter values (a port, a flag) are too likely to be ordinary text to be masked everywhere
MIN_SECRET_LENGTH = 6

_secrets: set[str] = set()


def remember(value: str) -> str:
    """``value``, now masked wherever simpop writes it (and its JSON-escaped form)."""
    if len(value) >= MIN_SECRET_LENGTH and not value.isdigit():
        _secrets.add(value)
        _secrets.add(json.dumps(value)[1:-1])
    return value


def secret_env(name: str | None) -> str | None:
    """The environment variable ``name`` (a key or token), remembered as a secret."""
    value = os.environ.get(name) if name else None
    return remember(value) if value else None


def redact(text: str) -> str:
    """``text`` with every remembered secret, and every start of one at least
    ``MIN_SECRET_LENGTH`` characters long that ends as a cut would (what is left of a secret cut
    short), replaced by ``***``."""
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
        text = _mask_starts(text, secret)
    return text


def _mask_starts(text: str, secret: str) -> str:
    """``text`` with each start of ``secret`` that ends where a cut would (the end of the text,
    or before a character that is not a letter or digit, such as a quote) masked: a URL that
    shares a secret URL's ``https://`` and goes on is not."""
    head = secret[:MIN_SECRET_LENGTH]
    start = text.find(head)
    while start != -1:
        end = start + len(head)
        while end < len(text) and end - start < len(secret) and text[end] == secret[end - start]:
            end += 1
        if end == len(text) or not text[end].isalnum():
            text = text[:start] + MASK + text[end:]
            end = start + len(MASK)
        start = text.find(head, end)
    return text


def clip(text: str, limit: int) -> str:
    """``text`` masked, then cut to ``limit`` characters (cut first, a secret across the cut
    would no longer match)."""
    return redact(text)[:limit]


class RedactedStream(io.TextIOBase):
    """A text stream that redacts what is written and hands it to ``stream()`` (looked up at each
    write, so a stream swapped in later, as a test runner does, still gets it)."""

    def __init__(self, stream: Callable[[], TextIO]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream().write(redact(text))
        return len(text)

    def flush(self) -> None:
        self._stream().flush()

    def isatty(self) -> bool:
        return self._stream().isatty()

    def fileno(self) -> int:
        return self._stream().fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream(), "encoding", None) or "utf-8"
