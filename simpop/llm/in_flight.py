"""Identical requests in flight are asked once: the later ones wait for the first one's reply,
as the cache would serve it had the first one finished."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class InFlight:
    """The requests being asked now, by cache key."""

    def __init__(self) -> None:
        self._pending: dict[str, asyncio.Future[str]] = {}

    async def once(
        self, key: str, ask: Callable[[], Awaitable[str]], accept: Callable[[str], bool]
    ) -> tuple[str, bool]:
        """The reply to the request ``key``, and whether it was another asker's: one in flight
        is waited for (its reply taken if ``accept`` takes it), else ``ask()`` is called. A
        failure of the first asker is every waiter's; a first asker stopped leaves the next to ask."""
        while (pending := self._pending.get(key)) is not None:
            try:
                reply = await asyncio.shield(pending)
            except asyncio.CancelledError:
                if pending.cancelled():
                    continue  # the first asker was stopped, not this one
                raise
            if accept(reply):
                return reply, True
            break
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            reply = await ask()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # marked retrieved: no warning when nobody waited
            raise
        else:
            future.set_result(reply)
        finally:
            if self._pending.get(key) is future:
                del self._pending[key]
        return reply, False
