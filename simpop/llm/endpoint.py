"""Where LLM requests go: the protocol of an endpoint, and one that is already running."""

from __future__ import annotations

from typing import Protocol

REMOTE_TIMEOUT_S = 120.0


class Endpoint(Protocol):
    """Where requests go: a fixed URL, or the embedded server started on first use.

    ``retries_timeouts``: whether a timed-out request is worth sending again (not to a server
    on this machine: there a timeout means the machine is too busy, and each retry would wait
    the whole timeout again); ``judges_in_parallel``: whether the judges of several answers are
    worth asking at once (not on this machine's CPU, where reading prompts does not go faster in
    parallel, and answers judged one after another reuse the prompt prefix the last one left);
    ``timeout()``: the seconds a request may take when the config sets none (asked after
    ``url()``)."""

    retries_timeouts: bool
    judges_in_parallel: bool

    async def url(self) -> str: ...

    def timeout(self) -> float: ...

    def close(self) -> None: ...


class RemoteEndpoint:
    """An OpenAI-compatible endpoint that is already running."""

    retries_timeouts = True
    judges_in_parallel = True

    def __init__(self, base_url: str) -> None:
        self._url = base_url.rstrip("/")

    async def url(self) -> str:
        return self._url

    def timeout(self) -> float:
        return REMOTE_TIMEOUT_S

    def close(self) -> None:
        pass
