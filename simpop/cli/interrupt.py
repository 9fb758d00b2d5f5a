"""Ctrl-C during a run: the first stops the work in a second or two (the records written so far
stay, each whole), the second stops the process at once. Both exit with status 130."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process stopped by Ctrl-C


def run_interruptibly(work: Coroutine[Any, Any, T], stopped: Callable[[], None]) -> T:
    """Run ``work`` on a new event loop. On Ctrl-C the work is cancelled (its own cleanup runs:
    the record logs are closed), ``stopped`` says what to do next, and the process exits with
    status 130 without waiting for worker threads still busy (an embedding, the local LLM
    server answering a request nobody waits for); a second Ctrl-C exits at once."""
    loop = asyncio.new_event_loop()
    main = loop.create_task(work)
    presses = 0

    def on_interrupt(signum: int, frame: object) -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            os._exit(INTERRUPTED)
        loop.call_soon_threadsafe(main.cancel)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        result = loop.run_until_complete(main)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        return result
    except asyncio.CancelledError:
        if not presses:
            raise
        stopped()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(INTERRUPTED)  # a normal exit would first join the worker threads still busy
    finally:
        signal.signal(signal.SIGINT, previous)
        loop.close()
