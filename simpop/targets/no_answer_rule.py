"""A bot's own way of saying it has no answer (issue 43): an HTTP status, a JSON field with a
value, or answer texts. Such a reply is the bot's deliberate "no answer", recorded as an answer
with no text (an error for QAP accuracy, as in Reichenpfader et al.'s evaluation, and a refusal
for the refusal metric), never a failed call. The seed's bot answers a question under four
words with 400 and one it has no QAP for with 501 "No answer found":
``no_answer: {status: [400, 501]}``."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator, model_validator

from simpop.models import Answer, Record

# statuses that mean something else to the run: refused credentials stop it, 429 is retried
NOT_DECLARABLE = {401: "refused credentials", 403: "refused credentials", 429: "too many requests"}


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
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"{pattern!r} is not a regular expression ({error})") from None
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
        if re.search(pattern, answer.text, re.IGNORECASE):
            return declared(f"its answer matches {pattern!r}: {answer.text[:100]!r}")
    return answer


def declared(why: str) -> Answer:
    """The bot's own "no answer", with what showed it."""
    return Answer(text=None, no_answer_reason=f"the bot said it has no answer ({why})")
