"""CSV cells a spreadsheet cannot run: text that starts like a formula is written with a leading
apostrophe (OWASP, *CSV Injection*), which spreadsheets show as plain text and which is taken
off again when simpop reads the file back."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _formula_like(text: str) -> bool:
    body = text.lstrip("'")
    return body.startswith(TRIGGERS) and not _NUMBER.fullmatch(body)


def safe_cell(value: object) -> str:
    """``value`` as a cell no spreadsheet evaluates; a number stays a number."""
    text = "" if value is None else str(value)
    return "'" + text if _formula_like(text) else text


def original_cell(text: str) -> str:
    """The text ``safe_cell`` was given (a cell from any other source comes back unchanged
    unless it starts with an apostrophe before a formula sign, which a spreadsheet hides)."""
    return text[1:] if text.startswith("'") and _formula_like(text) else text


def csv_text(header: Iterable[object], rows: Iterable[Iterable[object]]) -> str:
    """A CSV file's text with every cell made safe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([safe_cell(c) for c in header])
    writer.writerows([safe_cell(c) for c in row] for row in rows)
    return buffer.getvalue()
