"""The run directory: append-only JSONL logs keyed by cell id, atomic JSON files, resume."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from simpop.errors import SimpopError
from simpop.models import RunConfig, Score

R = TypeVar("R", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)

CONFIG_FILE = "config.json"
PROBES_FILE = "probes.jsonl"
RESPONSES_FILE = "responses.jsonl"
SCORES_FILE = "scores.jsonl"
SUMMARY_FILE = "summary.json"


def score_key(score: Score) -> str:
    """A score is unique per cell and metric family."""
    return f"{score.cell_id}/{score.metric}"


def write_text_atomic(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` so a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_json_atomic(path: Path, record: BaseModel) -> None:
    write_text_atomic(path, record.model_dump_json(indent=2) + "\n")


class JsonlLog(Generic[R]):
    """An append-only JSONL file of records, at most one per key (by default the cell id).

    Each record is written as one line and flushed at once, so a process killed at any moment
    leaves every finished record on disk and at worst one torn last line, which ``load`` drops.
    """

    def __init__(self, path: Path, model: type[R], key: Callable[[R], str] | None = None) -> None:
        self.path = path
        self.model = model
        self.key = key or (lambda record: record.cell_id)  # type: ignore[attr-defined]
        self.records: dict[str, R] = {}
        self._handle = None

    def load(self) -> dict[str, R]:
        """Read what is on disk, cutting off a torn last line left by a kill."""
        self.records = {}
        if not self.path.exists():
            return self.records
        raw = self.path.read_bytes()
        good = raw.rfind(b"\n") + 1
        if good < len(raw):
            with self.path.open("r+b") as handle:
                handle.truncate(good)
        for number, line in enumerate(raw[:good].decode("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = self.model.model_validate_json(line)
            except ValidationError as error:
                field = ".".join(str(part) for part in error.errors()[0]["loc"]) or "(top level)"
                raise SimpopError(
                    f"{self.path} line {number}: not a {self.model.__name__} record of this simpop "
                    f"version (field '{field}': {error.errors()[0]['msg']})"
                ) from None
            self.records.setdefault(self.key(record), record)
        return self.records

    def append(self, record: R) -> None:
        """Append ``record`` unless one with its key is there already."""
        key = self.key(record)
        if key in self.records:
            return
        if self._handle is None:
            self._handle = self.path.open("a", encoding="utf-8")
        self._handle.write(record.model_dump_json() + "\n")
        self._handle.flush()
        self.records[key] = record

    def close(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None


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
        """The config the run was created with, as ``model``."""
        return model.model_validate_json((self.directory / CONFIG_FILE).read_text("utf-8"))

    def log(self, name: str, model: type[R], key: Callable[[R], str] | None = None) -> JsonlLog[R]:
        log = JsonlLog(self.directory / name, model, key)
        log.load()
        return log

    def write(self, name: str, record: BaseModel) -> None:
        write_json_atomic(self.directory / name, record)

    def read(self, name: str, model: type[M]) -> M:
        return model.model_validate(json.loads((self.directory / name).read_text("utf-8")))
