"""A bot's own way of saying it has no answer (issue 43): an HTTP status, a JSON field with a
value, or answer texts. Such a reply is the bot's deliberate "no answer", recorded as an answer
with no text (an error for QAP accuracy, as in Reichenpfader et al.'s evaluation, and a refusal
for the refusal metric), never a failed call. The seed's bot answers a question under four
words with 400 and one it has no QAP for with 501 "No answer found":
``no_answer: {status: [400, 501]}``."""

from __future__ import annotations

from typing import Any

import regex
from pydantic import Field, field_validator, model_validator

from simpop.models import Answer, Record
from simpop.redact import clip

# statuses that mean something else to the run: refused credentials stop it, 429 is retried
NOT_DECLARABLE = {401: "refused credentials", 403: "refused credentials", 429: "too many requests"}
# a pattern's search of one answer, at most (a backtracking one would otherwise stall the run)
PATTERN_TIMEOUT_S = 0.1
# texts with nothing in common: a pattern that finds them all finds every answer
ANY_TEXT = ("x", "7", "é", ".")


def _backtracks(pattern: str) -> bool:
    """Whether ``pattern`` runs past the time limit on an answer-long run of one of its own
    characters (the text that makes a nested repetition such as ``(x+x+)+y`` try every split)."""
    for char in dict.fromkeys(c for c in pattern if c.isalnum() or c == " "):
        try:
            search(pattern, char * 1000 + "\x00")
        except TimeoutError:
            return True
    return False


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` finds ``text`` (any case); TimeoutError past ``PATTERN_TIMEOUT_S``."""
    return regex.search(pattern, text, regex.IGNORECASE, timeout=PATTERN_TIMEOUT_S) is not None


class NoAnswerRule(Record):
    """How the bot says "no answer". Any one of the three is enough."""

    status: list[int] = Field([], description="HTTP statuses that mean no answer (http targets)")
    path: str | None = Field(None, description="a JSON path in the reply (http targets), with `equals`")
    equals: Any = Field(None, description="the value at `path` that means no answer")
    patterns: list[str] = Field(
        [], description="regular expressions; an answer text one of them finds (any case) is no answer"
    )

    @field_validator("status")
    @classmethod
    def _statuses(cls, statuses: list[int]) -> list[int]:
        for status in statuses:
            if not 400 <= status <= 599:
                raise ValueError(f"{status} is not an error status (400–599)")
            if status in NOT_DECLARABLE:
                raise ValueError(
                    f"{status} means {NOT_DECLARABLE[status]} to the run; it cannot mean no answer"
                )
        return statuses

    @field_validator("patterns")
    @classmethod
    def _patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                regex.compile(pattern)
            except regex.error as error:
                raise ValueError(f"{pattern!r} is not a regular expression ({error})") from None
            if all(search(pattern, text) for text in ANY_TEXT):
                raise ValueError(f"{pattern!r} finds any text: every answer would be no answer")
            if _backtracks(pattern):
                raise ValueError(
                    f"{pattern!r} takes over {PATTERN_TIMEOUT_S:g} s on a short text "
                    "(nested repetition backtracks); write it without a repetition inside a repetition"
                )
        return patterns

    @model_validator(mode="after")
    def _path_with_value(self) -> NoAnswerRule:
        if (self.path is None and self.equals is not None) or (
            self.path is not None and "equals" not in self.model_fields_set
        ):
            raise ValueError("`path` and `equals` go together: the field, and its value that means no answer")
        return self

    @property
    def by_reply(self) -> bool:
        """Whether the rule reads the HTTP reply itself (status or field), not only its text."""
        return bool(self.status) or self.path is not None


def from_text(answer: Answer, rule: NoAnswerRule | None) -> Answer:
    """``answer``, or the bot's "no answer" when a pattern of ``rule`` finds its text."""
    if rule is None or answer.text is None:
        return answer
    for pattern in rule.patterns:
        try:
            found = search(pattern, answer.text)
        except TimeoutError:  # recorded on this probe; the run goes on
            raise TimeoutError(
                f"no_answer pattern {pattern!r} took over {PATTERN_TIMEOUT_S:g} s on this answer"
            ) from None
        if found:
            return declared(f"its answer matches {pattern!r}: {clip(answer.text, 100)!r}")
    return answer


def declared(why: str) -> Answer:
    """The bot's own "no answer", with what showed it."""
    return Answer(text=None, no_answer_reason=f"the bot said it has no answer ({why})")
