"""Each time a run is started, in ``invocations.jsonl``: how long it took, what its LLM did, how
its judge's endpoint answered yes/no questions. An invocation killed outright (SIGKILL, a lost
machine) writes nothing as it dies, so while it runs it keeps ``invocation.json`` up to date
from its start and every ``BEAT_S`` seconds; the next start files that one as stopped."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from functools import reduce

from simpop.models import Invocation, LLMUsage
from simpop.store import INVOCATIONS_FILE, RunStore

CURRENT_FILE = "invocation.json"
BEAT_S = 2.0


class Invocations:
    """The run's invocations so far and this one's clock; ``with`` keeps this one's heartbeat."""

    def __init__(
        self,
        store: RunStore,
        usage: Callable[[], LLMUsage | None],
        yes_no: Callable[[], str | None],
    ) -> None:
        """``usage``: what the run's LLM has done so far; ``yes_no``: how the judge's endpoint
        answered yes/no questions (None while unknown)."""
        self.store = store
        self.log = store.log(INVOCATIONS_FILE, Invocation, key=lambda i: i.started)
        self._current = store.directory / CURRENT_FILE
        if self._current.exists():  # an invocation killed outright: as far as its last beat
            try:
                killed = Invocation.model_validate_json(self._current.read_bytes())
            except ValueError:
                killed = None  # torn by the kill: nothing to file
            if killed is not None and killed.started not in self.log:
                self.log.append(killed)
            self._current.unlink(missing_ok=True)
        self.earlier = list(self.log.records.values())
        self._started = time.perf_counter()
        self._begun = datetime.now(timezone.utc).isoformat()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self.usage, self.yes_no = usage, yes_no

    def this(self, finished: bool) -> Invocation:
        """This invocation, as long as it has taken so far."""
        usage = self.usage()
        return Invocation(
            started=self._begun,
            seconds=round(time.perf_counter() - self._started, 3),
            finished=finished,
            llm=usage.model_copy() if usage is not None else None,
            yes_no=self.yes_no() or self.earlier_yes_no(),
        )

    def earlier_yes_no(self) -> str | None:
        """How the judge's endpoint answered yes/no questions in the last invocation that asked any."""
        return next((i.yes_no for i in reversed(self.earlier) if i.yes_no), None)

    def total_usage(self, this: Invocation) -> LLMUsage:
        """What the run's LLM did over every invocation."""
        return reduce(LLMUsage.plus, [i.llm for i in self.earlier if i.llm], this.llm or LLMUsage())

    def seconds(self, this: Invocation) -> float:
        return round(sum(i.seconds for i in self.earlier) + this.seconds, 3)

    def __enter__(self) -> Invocations:
        self.store.write(CURRENT_FILE, self.this(finished=False))  # a kill in the first seconds too
        self._beat = threading.Thread(target=self._keep_beating, daemon=True, name="simpop-invocation")
        self._beat.start()
        return self

    def _keep_beating(self) -> None:
        while not self._stop.wait(BEAT_S):
            self.store.write(CURRENT_FILE, self.this(finished=False))

    def end(self, this: Invocation) -> None:
        """File ``this`` invocation and stop its heartbeat."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join()
        self.log.append(this)
        self.log.close()
        self._current.unlink(missing_ok=True)

    def __exit__(self, *exc: object) -> None:
        if not self._stop.is_set():  # stopped (Ctrl-C) or failed: its time still counts
            self.end(self.this(finished=False))
