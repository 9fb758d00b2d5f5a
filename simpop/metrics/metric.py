"""What a metric is, and the registry of metrics.

A metric is a small class registered with ``@metric`` beside the code that computes it (Inspect
AI's ``@scorer``): its name, the numbers it records (``Measure``: label, which way is better,
where the console shows it), which probes it applies to, whether it needs the judge, and
``score()``. The score stage, the summary, the report, the gate and the CLI read these
declarations; adding a metric is adding one module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from simpop.models import JudgeSummary, Probe, Response, ScenarioBrief, Score, ScoringConfig, Validation
from simpop.models.registry import check_replacement
from simpop.models.summary import weakest
from simpop.verdicts import verdicts

if TYPE_CHECKING:
    from simpop.embed import Embedder
    from simpop.metrics.judge import Judge

Table = Literal["safety", "retrieval"]
# the verdicts of the safety judges (escalation, refusal, clarification), held out on labelled data
SAFETY_VERDICTS = tuple(verdicts())


@dataclass(frozen=True)
class Measure:
    """One number a metric records: the metric's value (``name`` is the metric's), or one of
    its values (``name`` is ``metric.value``, e.g. ``refusal.accuracy``).

    ``higher_is_better`` is None when neither direction is better in itself; ``table`` and
    ``column`` put it in a console table, ordered by ``rank``; ``ceiling`` says why a perfect
    bot may score under 1 (the report then does not shade it as good or bad).
    """

    name: str
    label: str
    higher_is_better: bool | None = True
    table: Table | None = None
    column: str | None = None
    rank: int = 100
    ceiling: str | None = None
    verdicts: tuple[str, ...] = ()  # the judge verdicts it is decided by (its validation is theirs)
    # where the verdicts that decide it depend on the behaviour a probe expects: those of each;
    # its validation in a scope is then that of the behaviours expected there
    verdicts_by_behaviour: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Case:
    """One probe and the bot's response to it, as a metric scores them."""

    probe: Probe
    response: Response
    source: str = "generate"  # what the probe was written from: the scenario's source
    safe_concept: str = ""
    reference: str | None = None  # the seed QAP's answer, for a probe written from one seed QAP
    own_seed: bool = False  # the seed QAP is one of the target's own: the one it should match
    equivalent: tuple[str, ...] = ()  # the target's QAPs that answer it as well as the seed QAP

    @property
    def excluded(self) -> str | None:
        return self.response.excluded


@dataclass(frozen=True)
class Planned:
    """What the plan knows of an answer before it is asked, for the estimate of a run's judge
    calls: whether the bot writes its answers (a QAP bot quotes one) and the verdicts a safety
    classifier decides in the language it will answer in."""

    writes: bool
    classified: frozenset[str] = frozenset()


@dataclass
class Scorers:
    """What metrics score with: the embedding model, the scoring config, the judge (if on), and
    whether the bot reports the contexts it answered from."""

    embedder: Embedder
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    judge: Judge | None = None
    contexts: bool = True


class Metric(ABC):
    """A registered metric. ``score`` gets the cases it applies to that can be scored (asked and
    answered or not, never excluded) and, per case, the scores of the metrics it ``needs``."""

    name: ClassVar[str]
    measures: ClassVar[tuple[Measure, ...]]
    judged: ClassVar[bool] = False  # needs the LLM judge: left out with --no-judge
    # every case it scores costs LLM calls (not only where no safety classifier decides it):
    # left off conversation turns unless ``scoring.turn_judges`` names it
    calls_llm: ClassVar[bool] = False
    needs: ClassVar[tuple[str, ...]] = ()  # metrics of the same probe scored before this one
    # where the report shows a case's score: on its example card, beside a conversation's turn
    shown: ClassVar[frozenset[str]] = frozenset({"card", "turn"})

    def applies(self, case: Case) -> bool:
        return True

    def expected_calls(self, case: Case, planned: Planned) -> float:
        """The LLM calls scoring ``case`` is expected to make, for the run's estimate (``case``
        holds the planned probe, no text and no answer yet): none unless the metric is judged."""
        return 0.0

    @abstractmethod
    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        """One score per case, in order."""


_METRICS: dict[str, Metric] = {}


def metric(cls: type[Metric]) -> type[Metric]:
    """Register a metric class under its ``name`` (a plugin may not replace a built-in one)."""
    if cls.name in _METRICS:
        check_replacement("metric", cls.name, type(_METRICS[cls.name]), cls)
    _METRICS[cls.name] = cls()
    return cls


def registered() -> list[Metric]:
    """Every registered metric, those a metric needs before it."""
    ordered: list[Metric] = []

    def visit(m: Metric) -> None:
        if m not in ordered:
            for name in m.needs:
                if name in _METRICS:
                    visit(_METRICS[name])
            ordered.append(m)

    for m in list(_METRICS.values()):
        visit(m)
    return ordered


def selected(names: list[str] | None, judges: bool = True) -> list[Metric]:
    """The metrics a run scores: those ``names`` (every one when None) and the ones they need,
    less the judged ones with the judges off. An unknown name is a ``ValueError``."""
    wanted = set(_METRICS) if names is None else set()
    todo = list(names or ())
    while todo:
        name = todo.pop()
        if name not in _METRICS:
            raise ValueError(f"unknown metric '{name}' (known: {', '.join(sorted(_METRICS))})")
        if name not in wanted:
            wanted.add(name)
            todo += _METRICS[name].needs
    return [m for m in registered() if m.name in wanted and (judges or not m.judged)]


def measures() -> dict[str, Measure]:
    """Every registered number by name."""
    return {x.name: x for m in _METRICS.values() for x in m.measures}


def measure(name: str) -> Measure | None:
    return measures().get(name)


def label(name: str) -> str:
    """A number's readable name (its own name when it has none)."""
    found = measure(name)
    return found.label if found is not None else name


def ceiling(name: str) -> str | None:
    """Why a perfect bot may score under 1 on ``name``, if it may."""
    found = measure(name)
    return found.ceiling if found is not None else None


def higher_is_better(name: str) -> bool | None:
    """True, False, or None when neither direction is better (unknown numbers: higher)."""
    found = measure(name)
    return found.higher_is_better if found is not None else True


def worse(name: str, change: float) -> bool:
    """Whether a change of ``change`` in ``name`` is a change for the worse."""
    direction = higher_is_better(name)
    return direction is not None and (change < 0 if direction else change > 0)


def columns(table: Table) -> dict[str, str]:
    """The numbers a console table shows, in order, with their column headers."""
    shown = sorted((x for x in measures().values() if x.table == table), key=lambda x: x.rank)
    return {x.name: x.column or x.label for x in shown}


def validated_measures() -> dict[str, tuple[str, ...]]:
    """The numbers decided by judge verdicts that have a held-out validation, with the verdicts."""
    return {x.name: x.verdicts for x in measures().values() if x.verdicts}


def judged_measures() -> list[str]:
    """Every number a judged metric records (a plugin's too, whether or not it names verdicts)."""
    return [x.name for m in _METRICS.values() if m.judged for x in m.measures]


def figure_validations(
    verdicts: dict[str, Validation], behaviours: Iterable[str] | None = None
) -> dict[str, Validation]:
    """Each judged figure's validation from that of the verdicts it rests on (a figure with a
    verdict not in ``verdicts`` is left out); one decided per behaviour rests on the verdicts of
    ``behaviours`` (the behaviours expected where it is measured; none given: every one)."""
    wanted = None if behaviours is None else set(behaviours)
    found = {}
    for x in measures().values():
        needed = x.verdicts
        if x.verdicts_by_behaviour is not None and wanted:
            needed = tuple(dict.fromkeys(v for b in wanted for v in x.verdicts_by_behaviour.get(b, ())))
        if needed and all(v in verdicts for v in needed):
            found[x.name] = weakest([verdicts[v] for v in needed])
    return found


def validations(judge: JudgeSummary | None, behaviours: Iterable[str] | None = None) -> dict[str, Validation]:
    """A run's judged figures and their validation; one the run recorded none for (a run from
    before it did) is not validated: a report or gate reading an old run must not take it on
    trust. With ``behaviours`` (those expected in one scenario, or in a gate rule's scope), a
    figure decided per behaviour has the validation of those behaviours' verdicts alone."""
    if judge is None:
        return {}
    missing = Validation(judge=f"{judge.model} (no held-out agreement recorded in this run)", validated=False)
    found = {name: missing for name in [*validated_measures(), *judged_measures()]} | judge.validation
    if behaviours is None:
        return found
    verdicts = judge.verdicts or {  # a run from before verdicts were recorded: its one-verdict figures'
        x.verdicts[0]: judge.validation[x.name]
        for x in measures().values()
        if len(x.verdicts) == 1 and x.name in judge.validation
    }
    scoped = figure_validations(verdicts, behaviours)
    for x in measures().values():
        if x.verdicts_by_behaviour is not None and x.name in found:
            found[x.name] = scoped.get(x.name, missing)
    return found


def scenario_validations(
    judge: JudgeSummary | None, scenarios: list[ScenarioBrief]
) -> dict[str, dict[str, Validation]]:
    """Per scenario, the judged figures' validation there (a figure decided per behaviour rests
    on the verdicts of the behaviours the scenario expects)."""
    return {s.id: validations(judge, [s.expected_behaviour, *s.also_safe]) for s in scenarios}


def unvalidated_in(judge: JudgeSummary | None, scenarios: list[ScenarioBrief]) -> dict[str, list[str]]:
    """Per figure decided per behaviour that is not validated in the run but is in some of its
    scenarios: the scenarios where it is not (safe behaviour: those that expect address_all)."""
    run = validations(judge)
    per_behaviour = [
        x.name for x in measures().values() if x.verdicts_by_behaviour is not None and x.name in run
    ]
    found: dict[str, list[str]] = {}
    for scenario, there in scenario_validations(judge, scenarios).items():
        for name in per_behaviour:
            if not there[name].validated:
                found.setdefault(name, []).append(scenario)
    return {name: ids for name, ids in found.items() if not run[name].validated and len(ids) < len(scenarios)}


def judged_names() -> list[str]:
    """The metrics that come from the judge."""
    return [m.name for m in registered() if m.judged]


def shown_in(view: str) -> list[str]:
    """The metrics the report shows beside each case in ``view`` (``card``, ``turn``), in the
    order of the console's tables."""
    chosen = [m for m in registered() if view in m.shown]
    return [m.name for m in sorted(chosen, key=lambda m: min((x.rank for x in m.measures), default=100))]
