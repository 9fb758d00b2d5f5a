"""Conversation cases (issue 22, part 1): the shipped cases load, derive from shipped scenarios
and render for both demo domains; a bad case file is a one-line error naming file and field."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest
import yaml
from helpers import ROOT, assert_one_line_error, simpop
from jinja2.sandbox import SandboxedEnvironment

from simpop.config import load_conversation_cases, load_scenarios, read_yaml, validate
from simpop.errors import ConfigError
from simpop.models import Domain

CASES = ROOT / "scenarios/conversations"
TEMPLATES = SandboxedEnvironment(undefined=jinja2.StrictUndefined)


def test_shipped_cases_derive_from_shipped_scenarios_and_render_in_both_domains():
    cases = load_conversation_cases(CASES)
    assert len(cases) >= 6
    scenarios = {s.id: s for s in load_scenarios(ROOT / "scenarios")}
    for case in cases:
        assert case.scenario in scenarios, case.id
        if scenarios[case.scenario].expected_behaviour == "escalate":
            assert case.expected == "escalate" and case.by_turn is not None, case.id
        if case.expected in ("escalate", "decline"):  # the report sets it beside its scenario
            assert scenarios[case.scenario].expected_behaviour == case.expected, case.id
    for name in ("eye-domain.yaml", "breast-domain.yaml"):
        path = ROOT / "targets" / name
        domain = validate(Domain, read_yaml(path), str(path))
        for case in cases:
            texts = [case.situation] + [f.text for f in case.facts] + [e.text for e in case.events]
            rendered = [TEMPLATES.from_string(t).render(domain=domain) for t in texts + [case.goal]]
            assert all(r.strip() and "{{" not in r for r in rendered), case.id
            # no case wording a patient could repeat as "the chatbot's topic" (issue 42)
            framing = re.compile(r"chatbot|simulation|role ?play|scenario", re.IGNORECASE)
            assert not any(framing.search(r) for r in rendered), (case.id, rendered)
    late = next(c for c in cases if c.id == "emergency-revealed-late")
    assert late.facts[0].reveal == 3 and late.by_turn == 3  # revealed in message 3, escalated by reply 3
    assert late.due_turn == 3 and late.last_scheduled_turn == 3  # an escalation before it meets nothing
    downplays = next(c for c in cases if c.id == "relative-downplays")
    assert downplays.due_turn == 1 and downplays.last_scheduled_turn == 2  # the husband's event at 2


def _write(folder: Path, **changes: object) -> Path:
    case = yaml.safe_load((CASES / "relative-downplays.yaml").read_text()) | changes
    folder.mkdir(exist_ok=True)
    (folder / "case.yaml").write_text(yaml.safe_dump(case))
    return folder


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"max_turns": 1}, "events: turn 2 after max_turns 1"),
        ({"by_turn": 9}, "by_turn 9 after max_turns 4"),
        ({"facts": [{"text": "x", "reveal": 7}]}, "facts: reveal 7 after max_turns 4"),
        ({"also_safe": ["escalate"]}, "also_safe repeats the expected behaviour 'escalate'"),
        ({"expectd": "escalate"}, "expectd"),
        ({"events": [{"turn": 1, "text": "x"}]}, "events.0.turn"),
        (
            {"facts": [{"text": "x", "reveal": "when_asked", "due": True}]},
            "told only when asked cannot be due",
        ),
        (
            {"facts": [{"text": "x", "reveal": 3, "due": True}], "by_turn": 2},
            "by_turn 2 before the due fact's turn 3",
        ),
    ],
)
def test_a_bad_case_names_the_file_and_the_problem(tmp_path, changes, needle):
    folder = _write(tmp_path / "cases", **changes)
    with pytest.raises(ConfigError) as raised:
        load_conversation_cases(folder)
    message = str(raised.value)
    assert "case.yaml" in message and needle in message, message
    assert "\n" not in message


def test_duplicate_and_unknown_ids(tmp_path):
    folder = _write(tmp_path / "cases")
    (folder / "copy.yaml").write_text((folder / "case.yaml").read_text())
    with pytest.raises(ConfigError, match="duplicate conversation case id 'relative-downplays'"):
        load_conversation_cases(folder)
    with pytest.raises(ConfigError, match="nope"):
        load_conversation_cases(CASES, ["nope"])


def test_the_scenario_folder_still_loads_with_the_cases_inside(tmp_path):
    result = simpop("scenarios", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "emergency-in-pathway" in result.stdout and "relative-downplays" not in result.stdout
    assert_one_line_error(simpop("scenarios", "--dir", str(tmp_path / "none"), cwd=ROOT), "none")
