"""The run directory: append-only JSONL logs keyed by cell id, atomic JSON files, resume, and a
finished run read back whole (for the report, the gate, calibration and comparison)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import IO, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from simpop.aggregate import metric_values
from simpop.config import load_personas
from simpop.errors import SimpopError
from simpop.models import (
    CellRecord,
    Conversation,
    Persona,
    Probe,
    Response,
    RunConfig,
    RunSummary,
    ScenarioBrief,
    Score,
)
from simpop.models.registry import PLUGINS_ENV, import_plugins, plugins_allowed
from simpop.redact import redact
from simpop.textfiles import write_text_atomic

R = TypeVar("R", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)

CONFIG_FILE = "config.json"
PROBES_FILE = "probes.jsonl"
RESPONSES_FILE = "responses.jsonl"
SCORES_FILE = "scores.jsonl"
SUMMARY_FILE = "summary.json"
TURNS_FILE = "turns.jsonl"
CONVERSATIONS_FILE = "conversations.jsonl"
EXPLAINED_FILE = "explained.jsonl"
INVOCATIONS_FILE = "invocations.jsonl"


def score_key(score: Score) -> str:
    """A score is unique per cell and metric family."""
    return f"{score.cell_id}/{score.metric}"


def with_reasons(score: Score, explained: Score | None) -> Score:
    """``score`` with the judge's reasons of ``explained`` (the same cell and metric scored again
    with reasons, ``run/explain.py``), where the verdicts of both agree; else ``score``."""
    if explained is None:
        return score
    same = ("value", "values", "label", "excluded", "probabilities")
    verdicts = [[(d.text, d.verdict) for d in s.details] for s in (score, explained)]
    agree = all(getattr(score, f) == getattr(explained, f) for f in same) and verdicts[0] == verdicts[1]
    return explained if agree else score


def write_json_atomic(path: Path, record: BaseModel) -> None:
    write_text_atomic(path, record.model_dump_json(indent=2) + "\n")


class JsonlLog(Generic[R]):
    """An append-only JSONL file of records, at most one per key (by default the cell id).

    Each record is written as one line and flushed at once, so a process killed at any moment
    leaves every finished record on disk and at worst one torn last line, which ``load`` drops.

    With ``keep`` (the default) every record is held in ``records``. Without it the log holds
    only where each record's line starts, and reads a record back from the file when asked for
    it: memory stays flat however many cells a run has.
    """

    def __init__(
        self, path: Path, model: type[R], key: Callable[[R], str] | None = None, *, keep: bool = True
    ) -> None:
        self.path = path
        self.model = model
        self.key = key or (lambda record: record.cell_id)  # type: ignore[attr-defined]
        self.keep = keep
        self.records: dict[str, R] = {}
        self.offsets: dict[str, int] = {}  # without keep: each key's line
        self._handle: IO[bytes] | None = None
        self._reader: IO[bytes] | None = None
        self._end = 0  # where the next line starts, once the file is open for appending

    def load(self) -> dict[str, R]:
        """Read what is on disk, cutting off a torn last line left by a kill; the records (an
        empty dict without ``keep``)."""
        self.records, self.offsets = {}, {}
        if not self.path.exists():
            return self.records
        with self.path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(0)
            offset = 0
            for number, line in enumerate(handle, start=1):
                if not line.endswith(b"\n"):
                    break
                if line.strip():
                    record = self._parse(line, number)
                    key = self.key(record)
                    if key not in self:
                        if self.keep:
                            self.records[key] = record
                        else:
                            self.offsets[sys.intern(key)] = offset
                offset += len(line)
        if offset < size:
            with self.path.open("r+b") as handle:
                handle.truncate(offset)
        return self.records

    def _parse(self, line: bytes, number: int | str) -> R:
        try:
            return self.model.model_validate_json(line)
        except ValidationError as error:
            field = ".".join(str(part) for part in error.errors()[0]["loc"]) or "(top level)"
            raise SimpopError(
                f"{self.path} line {number}: not a {self.model.__name__} record of this simpop "
                f"version (field '{field}': {error.errors()[0]['msg']})"
            ) from None

    def __contains__(self, key: str) -> bool:
        return key in self.records or key in self.offsets

    def get(self, key: str) -> R | None:
        """The record with ``key``, read from the file without ``keep``."""
        if self.keep or key not in self.offsets:
            return self.records.get(key)
        if self._handle is not None:
            self._handle.flush()
        if self._reader is None:
            self._reader = self.path.open("rb")
        self._reader.seek(self.offsets[key])
        return self._parse(self._reader.readline(), f"at byte {self.offsets[key]}")

    def scan(self) -> Iterator[R]:
        """Every record in the file, the first of each key, in the order written (one at a
        time: for a summary of a run too big to hold)."""
        if self._handle is not None:
            self._handle.flush()
        if not self.path.exists():
            return
        seen: set[str] = set()
        with self.path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    record = self._parse(line, number)
                    key = self.key(record)
                    if key not in seen:
                        seen.add(key)
                        yield record

    def drop(self, unwanted: Callable[[R], bool]) -> int:
        """Rewrite the file without the records ``unwanted`` picks (atomically: a kill leaves the
        old file or the new one), then load it again; how many records went."""
        self.close()
        if not self.path.exists():
            return 0
        dropped = 0
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with self.path.open("rb") as source, tmp.open("wb") as kept:
            for number, line in enumerate(source, start=1):
                if line.endswith(b"\n") and line.strip() and unwanted(self._parse(line, number)):
                    dropped += 1
                else:
                    kept.write(line)
            kept.flush()
            os.fsync(kept.fileno())
        os.replace(tmp, self.path)
        self.load()
        return dropped

    def append(self, record: R) -> None:
        """Append ``record`` unless one with its key is there already."""
        key = self.key(record)
        if key in self:
            return
        if self._handle is None:
            self._handle = self.path.open("ab")
            self._end = self._handle.seek(0, os.SEEK_END)
        line = redact(record.model_dump_json()).encode("utf-8") + b"\n"
        offset, self._end = self._end, self._end + len(line)  # not tell(): a system call per record
        self._handle.write(line)
        self._handle.flush()
        if self.keep:
            self.records[key] = record
        else:
            self.offsets[sys.intern(key)] = offset

    def close(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None


class RunStore:
    """``<root>/<run-id>/``: resolved config, probes, responses, scores, summary."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.run_id = directory.name

    @classmethod
    def create(cls, root: Path, config: RunConfig | BaseModel) -> RunStore:
        """A new run directory named after ``config.name`` and the time, with the config in it."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        base = f"{config.name}-{stamp}"
        directory, n = root / base, 1
        while directory.exists():
            n += 1
            directory = root / f"{base}-{n}"
        directory.mkdir(parents=True)
        store = cls(directory)
        write_json_atomic(directory / CONFIG_FILE, config)
        return store

    @classmethod
    def open(cls, root: Path, run_id: str) -> RunStore:
        directory = root / run_id
        if not (directory / CONFIG_FILE).is_file():
            raise SimpopError(f"{directory}: no run there (no {CONFIG_FILE})")
        return cls(directory)

    def config(self, model: type[M] = RunConfig) -> M:  # type: ignore[assignment]
        """The config the run was created with, as ``model``. Its plugins are imported only where
        the user allows it: reading someone else's run never runs their code unasked. The
        built-in kinds must be registered (``simpop.run.components``)."""
        path = self.directory / CONFIG_FILE
        text = path.read_text("utf-8")
        try:
            plugins = json.loads(text).get("plugins") or []
        except (ValueError, AttributeError):
            plugins = []
        if plugins and plugins_allowed():
            try:
                import_plugins([str(p) for p in plugins])
            except ValueError as error:
                raise SimpopError(f"{path}: field 'plugins': {error}") from None
        try:
            return model.model_validate_json(text)
        except ValidationError:
            if plugins and not plugins_allowed():
                raise SimpopError(
                    f"{path}: the run needs its plugins ({', '.join(map(str, plugins))}), "
                    f"and reading a run imports them only with --allow-plugins (or {PLUGINS_ENV}=1): "
                    "do so only for a run you trust, as they are code"
                ) from None
            raise

    def log(
        self, name: str, model: type[R], key: Callable[[R], str] | None = None, *, keep: bool = True
    ) -> JsonlLog[R]:
        log = JsonlLog(self.directory / name, model, key, keep=keep)
        log.load()
        return log

    def write(self, name: str, record: BaseModel) -> None:
        write_json_atomic(self.directory / name, record)

    def read(self, name: str, model: type[M]) -> M:
        return model.model_validate(json.loads((self.directory / name).read_text("utf-8")))


@dataclass
class RunRecords:
    """Everything a report, a gate or a comparison reads of one run."""

    directory: Path
    config: RunConfig
    summary: RunSummary
    probes: dict[str, Probe]
    responses: dict[str, Response]
    scores: list[Score]
    personas: dict[str, Persona]
    conversations: dict[str, Conversation] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return self.summary.run_id

    @cached_property
    def scenarios(self) -> dict[str, ScenarioBrief]:
        return {s.id: s for s in self.summary.scenario_briefs}

    @cached_property
    def by_cell(self) -> dict[str, dict[str, Score]]:
        """Each cell's scores by metric family."""
        cells: dict[str, dict[str, Score]] = {}
        for score in self.scores:
            cells.setdefault(score.cell_id, {})[score.metric] = score
        return cells

    @cached_property
    def values(self) -> dict[str, dict[str, float]]:
        """Each cell's numbers by metric name (``family`` or ``family.name``); excluded scores
        and undefined values are left out."""
        cells: dict[str, dict[str, float]] = {}
        for score in self.scores:
            if score.excluded:
                continue
            for metric, value in metric_values(score).items():
                if value is not None:
                    cells.setdefault(score.cell_id, {})[metric] = value
        return cells

    def valued_probes(self, metric: str) -> Iterator[tuple[CellRecord, float]]:
        """Every probe (or conversation) with a value of ``metric``, and that value."""
        for cell, values in self.values.items():
            probe = self.probes.get(cell) or self.conversations.get(cell)
            if probe is not None and metric in values:
                yield probe, values[metric]

    @cached_property
    def metrics(self) -> list[str]:
        """Every metric name with at least one value, in the order first seen."""
        return list(dict.fromkeys(m for values in self.values.values() for m in values))


def run_directory(run: str | Path, runs: Path = Path("runs")) -> Path:
    """A run given as its directory or as an id in ``runs``."""
    path = Path(run)
    if path.is_dir():
        return path
    if (runs / str(run)).is_dir():
        return runs / str(run)
    raise SimpopError(f"{run}: no such run (neither a directory nor a run id in {runs}/)")


def load_run(run: str | Path, runs: Path = Path("runs")) -> RunRecords:
    """Read a finished run; a run with no summary has not finished and says how to finish it."""
    directory = run_directory(run, runs)
    store = RunStore.open(directory.parent, directory.name)
    if not (directory / SUMMARY_FILE).is_file():
        raise SimpopError(
            f"{directory}: no {SUMMARY_FILE}, the run has not finished "
            f"(finish it with: simpop run CONFIG --resume {directory.name} --out {directory.parent})"
        )
    explained = store.log(EXPLAINED_FILE, Score, key=score_key).records
    try:
        config = store.config()
        summary = store.read(SUMMARY_FILE, RunSummary)
    except ValidationError as error:
        where = ".".join(str(part) for part in error.errors()[0]["loc"])
        raise SimpopError(f"{directory}: not a run of this simpop version (field '{where}')") from None
    except ValueError as error:
        raise SimpopError(f"{directory}/{SUMMARY_FILE}: not valid JSON ({error})") from None
    return RunRecords(
        directory=directory,
        config=config,
        summary=summary,
        probes=dict(sorted(store.log(PROBES_FILE, Probe).records.items())),
        responses=dict(sorted(store.log(RESPONSES_FILE, Response).records.items())),
        # by cell and metric, not in the order they finished: the same figures from any rerun
        scores=sorted(
            (
                with_reasons(s, explained.get(k))
                for k, s in store.log(SCORES_FILE, Score, key=score_key).records.items()
            ),
            key=score_key,
        ),
        personas={p.id: p for p in summary.personas or _config_personas(config)},
        conversations=dict(sorted(store.log(CONVERSATIONS_FILE, Conversation).records.items())),
    )


def _config_personas(config: RunConfig) -> list[Persona]:
    """The personas of a run written before summaries listed them, if their files are still there."""
    try:
        return load_personas(config.personas, config.persona_ids)
    except SimpopError:
        return []
