"""Ctrl-C (SIGINT) or SIGTERM (a CI cancel, ``docker stop``, ``kill``) during a run: the first
stops the work in a second or two (the records written so far stay, each whole), a second stops
the process at once. They exit with status 130 (SIGINT) or 143 (SIGTERM), 128 + the signal."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process stopped by Ctrl-C
TERMINATED = 143  # 128 + SIGTERM, what a shell reports for a process stopped by ``kill``
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_interruptibly(work: Coroutine[Any, Any, T], stopped: Callable[[], None]) -> T:
    """Run ``work`` on a new event loop. On Ctrl-C or SIGTERM the work is cancelled (its own
    cleanup runs: the record logs are closed), ``stopped`` says what to do next, and the process
    exits with status 128 + the signal without waiting for worker threads still busy (an
    embedding, the local LLM server answering a request nobody waits for); a second signal
    exits at once. The signals' handlers before the run are back once it returns."""
    loop = asyncio.new_event_loop()
    main = loop.create_task(work)
    received: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        received.append(signum)
        if len(received) > 1:
            os._exit(128 + received[0])
        loop.call_soon_threadsafe(main.cancel)

    previous = {signum: signal.signal(signum, on_signal) for signum in STOP_SIGNALS}
    try:
        result = loop.run_until_complete(main)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        return result
    except asyncio.CancelledError:
        if not received:
            raise
        stopped()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + received[0])  # a normal exit would first join the worker threads still busy
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(signum, handler)
        loop.close()
