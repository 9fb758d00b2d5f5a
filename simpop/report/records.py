"""A finished run read back from its directory: config, summary, and every record by cell."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import ValidationError

from simpop.config import load_personas
from simpop.errors import SimpopError
from simpop.models import Persona, Probe, Response, RunConfig, RunSummary, ScenarioBrief, Score
from simpop.report.aggregate import metric_values
from simpop.store import PROBES_FILE, RESPONSES_FILE, SCORES_FILE, SUMMARY_FILE, RunStore, score_key


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

    def valued_probes(self, metric: str) -> Iterator[tuple[Probe, float]]:
        """Every probe with a value of ``metric``, and that value."""
        for cell, values in self.values.items():
            probe = self.probes.get(cell)
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
        probes=store.log(PROBES_FILE, Probe).records,
        responses=store.log(RESPONSES_FILE, Response).records,
        scores=list(store.log(SCORES_FILE, Score, key=score_key).records.values()),
        personas={p.id: p for p in summary.personas or _config_personas(config)},
    )


def _config_personas(config: RunConfig) -> list[Persona]:
    """The personas of a run written before summaries listed them, if their files are still there."""
    try:
        return load_personas(config.personas, config.persona_ids)
    except SimpopError:
        return []
