"""How fast each LLM endpoint answered on this machine, kept in the cache directory so that a
run can say before it starts about how long it will take (``simpop run --dry-run``).

Two things are recorded per endpoint and model: the embedded server's reading and writing
speed, timed when it starts, and, after every run, the seconds each kind of call took, the
concurrency it ran at and the tokens of its calls, per language: a German call writes more
tokens than an English one, and a run asking for 10 variants longer replies than one asking
for 3, so a pace is used for runs in the same languages and scaled to the reply length asked."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from pydantic import Field, ValidationError

from simpop.llm.client import CallKind, KindTally, LLMClient
from simpop.models import LLMConfig, Record
from simpop.paths import cache_dir

PACE_FILE = "llm-pace.json"
LOCAL = "local"


class KindPace(Record):
    """One kind of call in the last run that made some."""

    calls: int = Field(gt=0)
    seconds_per_call: float = Field(ge=0, description="mean time from request to reply")
    concurrency: int = Field(gt=0, description="requests the run had in flight at most")
    decode: float | None = Field(None, description="the embedded server's writing speed that run")
    prompt_tokens: float | None = Field(None, ge=0, description="mean prompt tokens per call")
    completion_tokens: float | None = Field(None, ge=0, description="mean reply tokens per call")
    max_tokens: float | None = Field(None, ge=0, description="mean reply tokens allowed per call")
    reused_prompt_tokens: float | None = Field(
        None, ge=0, description="mean prompt tokens per call read from a cached prefix (embedded server)"
    )

    @property
    def wall_per_call(self) -> float:
        """Seconds of a run's wall time per call, with every slot busy."""
        return self.seconds_per_call / self.concurrency


class EndpointPace(Record):
    """An endpoint and model's measured pace on this machine."""

    prefill: float | None = Field(None, description="prompt tokens read per second (embedded server)")
    decode: float | None = Field(None, description="tokens written per second (embedded server)")
    kinds: dict[str, KindPace] = Field({}, description="per ``pace_key``: kind of call and languages")
    updated: float = Field(0.0, description="when it was last measured (Unix time)")


def pace_key(kind: CallKind, languages: list[str]) -> str:
    """``schema de``, ``yes_no de+en``: a kind of call in a run whose patients write these."""
    return f"{kind} {'+'.join(sorted(set(languages)))}"


def endpoint_key(config: LLMConfig) -> str:
    return f"{(config.base_url or LOCAL).rstrip('/')}|{config.model}"


def _path() -> Path:
    return cache_dir() / PACE_FILE


def read_paces() -> dict[str, EndpointPace]:
    """Every recorded pace; an unreadable file counts as none (it is only a cache)."""
    try:
        raw = json.loads(_path().read_text(encoding="utf-8"))
        return {key: EndpointPace.model_validate(value) for key, value in raw.items()}
    except (OSError, ValueError, ValidationError, AttributeError):
        return {}


def pace_of(config: LLMConfig) -> EndpointPace | None:
    return read_paces().get(endpoint_key(config))


def _update(config: LLMConfig, **fields: object) -> None:
    paces = read_paces()
    key = endpoint_key(config)
    current = paces.get(key, EndpointPace())
    paces[key] = current.model_copy(update={**fields, "updated": time.time()})
    path = _path()
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(
        json.dumps({k: v.model_dump(mode="json") for k, v in paces.items()}, indent=1), encoding="utf-8"
    )
    os.replace(temporary, path)  # concurrent runs: the last one wins, never a torn file


def record_server_speed(config: LLMConfig, prefill: float, decode: float) -> None:
    """The embedded server's speed, timed as it started."""
    _update(config, prefill=prefill, decode=decode)


def record_client_pace(client: LLMClient, languages: list[str]) -> None:
    """The pace of each kind of call ``client`` made (cache hits not counted), for runs whose
    patients write ``languages``."""
    answered = {kind: tally for kind, tally in client.busy.items() if tally.calls}
    if not answered:
        return
    current = pace_of(client.config) or EndpointPace()
    kinds = dict(current.kinds)
    for kind, tally in answered.items():
        kinds[pace_key(kind, languages)] = _kind_pace(tally, client, current)
    _update(client.config, kinds=kinds)


def _kind_pace(tally: KindTally, client: LLMClient, current: EndpointPace) -> KindPace:
    def mean(total: int) -> float | None:
        return total / tally.calls if total else None

    return KindPace(
        calls=tally.calls,
        seconds_per_call=tally.seconds / tally.calls,
        concurrency=client.config.concurrency,
        decode=current.decode if client.config.base_url is None else None,
        prompt_tokens=mean(tally.prompt_tokens),
        completion_tokens=mean(tally.completion_tokens),
        max_tokens=mean(tally.max_tokens),
        reused_prompt_tokens=mean(tally.reused_prompt_tokens),
    )
