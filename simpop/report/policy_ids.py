"""The scenario, conversation case and persona ids a release policy names, checked against the
ids known to a run (its own, the built-in scenarios and those of the folders its config names):
a misspelt id is bad input, not a filter that matches nothing or an allowance of nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING

from simpop.config import load_conversation_cases, load_personas, load_scenarios
from simpop.errors import ConfigError
from simpop.models import Persona, RunConfig, Scenario
from simpop.models.conversation_case import ConversationCase
from simpop.population.cells import builtin_ids

if TYPE_CHECKING:
    from simpop.report.policy import Policy
    from simpop.run.plan import RunInputs
    from simpop.store import RunRecords

SCENARIO, CASE, PERSONA = "scenario", "conversation case", "persona"
KnownIds = dict[str, set[str]]  # kind → ids


def _ids(load: Callable[[Path], Sequence[Persona | Scenario | ConversationCase]], folder: Path) -> set[str]:
    """The ids of a folder's records; none where it is missing or unreadable (a folder the run
    does not use need not be sound: it only widens what a policy may name)."""
    try:
        return {record.id for record in load(folder)}
    except ConfigError:
        return set()


def folder_ids(config: RunConfig) -> KnownIds:
    """The ids of the scenario, conversation case and persona folders ``config`` names, and the
    built-in scenarios."""
    return {
        SCENARIO: _ids(load_scenarios, config.scenario_dir) | builtin_ids(),
        CASE: _ids(load_conversation_cases, config.conversation_dir),
        PERSONA: _ids(load_personas, config.personas),
    }


def _with(
    known: KnownIds, scenarios: Iterable[str], cases: Iterable[str], personas: Iterable[str]
) -> KnownIds:
    return {
        SCENARIO: known[SCENARIO] | set(scenarios),
        CASE: known[CASE] | set(cases),
        PERSONA: known[PERSONA] | set(personas),
    }


def run_ids(records: RunRecords) -> KnownIds:
    """The ids a finished run knows: those it planned and those of its config's folders."""
    cells = [*records.probes.values()]
    cases = records.config.conversations if isinstance(records.config.conversations, list) else []
    talks = records.conversations.values()
    return _with(
        folder_ids(records.config),
        [*records.scenarios, *(c.scenario_id for c in cells)],
        [*cases, *(t.scenario_id for t in talks)],
        [*records.personas, *(c.persona_id for c in [*cells, *talks])],
    )


def input_ids(config: RunConfig, inputs: RunInputs) -> KnownIds:
    """The ids a run about to start knows: those it plans and those of its config's folders."""
    return _with(folder_ids(config), inputs.scenarios, inputs.cases, (p.id for p in inputs.personas))


def _unknown(ids: list[str], kinds: Sequence[str], known: KnownIds, where: str) -> None:
    """A ConfigError for the first of ``ids`` that no record of ``kinds`` has."""
    names = set().union(*(known[kind] for kind in kinds))
    either = " or ".join([", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 1 else kinds)
    for name in ids:
        if name not in names:
            close = get_close_matches(name, sorted(names), n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"no {either} of the run or its folders has it"
            what = "" if len(kinds) > 2 else f"{either} "
            raise ConfigError(f"{where}: unknown {what}id '{name}'; {hint}")


def check_policy_ids(policy: Policy, path: Path, known: KnownIds) -> None:
    """Every id ``policy`` names (``allow_untested``, a rule's ``scenarios``, ``except_scenarios``
    and ``personas``)
    is ``known``; else a ConfigError naming the file, the rule and the field."""
    if isinstance(policy.allow_untested, list):
        _unknown(policy.allow_untested, (SCENARIO, CASE, PERSONA), known, f"{path}: field 'allow_untested'")
    for number, rule in enumerate(policy.rules, start=1):
        where = f"{path}: rule {number}: field"
        _unknown(rule.scenarios or [], (SCENARIO, CASE), known, f"{where} 'scenarios'")
        _unknown(rule.except_scenarios, (SCENARIO, CASE), known, f"{where} 'except_scenarios'")
        _unknown(rule.personas or [], (PERSONA,), known, f"{where} 'personas'")
