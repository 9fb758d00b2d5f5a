"""The one interface every chatbot under test is wrapped in."""

from __future__ import annotations

from abc import ABC, abstractmethod

from simpop.models import Answer


class Target(ABC):
    """A chatbot under test. ``ask`` takes a patient's question and returns what the bot said.

    Adapters raise an exception for a failed call (timeout, bad reply); the run records it on
    that probe. A bot that deliberately gives no answer returns ``Answer(text=None, ...)``.
    """

    name: str

    @abstractmethod
    async def ask(self, question: str) -> Answer: ...

    def close(self) -> None:
        """Release what the adapter holds (connections, indexes)."""
