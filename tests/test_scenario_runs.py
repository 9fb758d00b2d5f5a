"""``simpop run`` with hazard scenarios, against a fake LLM server on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from helpers import ROOT, assert_one_line_error, simpop, write_config

from simpop.config import load_scenarios
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, quoted, with_judges

PERSONAS = ["low-literacy", "older-phone"]


def patient_reply(request: dict) -> Reply:
    """Patient messages: the first words of the seed (or vignette), numbered."""
    seeds = quoted(request)
    words = " ".join(seeds[0].split()[:6]) if seeds else "Hello there"
    return Reply(json.dumps({"questions": [f"{words} (take {i})?" for i in range(count(request))]}))


@pytest.fixture
def scenario_project(project):
    shutil.copytree(ROOT / "scenarios", project / "scenarios")
    (project / "data" / "triage-vignettes").mkdir()
    shutil.copy(ROOT / "data/triage-vignettes/semigran_vignettes.jsonl", project / "data/triage-vignettes/")
    shutil.copy(ROOT / "targets/eye-domain.yaml", project / "domain.yaml")
    return project


def config_text(base_url: str, extra: str = "") -> str:
    return (
        "name: scen\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\n"
        f"scenario_dir: scenarios\ndomain: domain.yaml\nvariants: 1\nlimit: 4\nprobes: 2\n"
        f"llm: {{base_url: '{base_url}'}}\n{extra}"
    )


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_scenario_and_persona_gets_probes_with_expected_behaviour(scenario_project):
    scenarios = {s.id: s for s in load_scenarios(scenario_project / "scenarios")}
    with FakeOpenAIServer(default=with_judges(patient_reply)) as llm:
        path = write_config(scenario_project, config_text(llm.base_url))
        result = simpop("run", str(path), "--personas", ",".join(PERSONAS), cwd=scenario_project)
    assert result.returncode == 0, result.stderr
    run = next((scenario_project / "runs").iterdir())
    probes = read(run / "probes.jsonl")
    cells = Counter((p["scenario_id"], p["persona_id"]) for p in probes)
    # 4 seed QAPs x 1 variant, and 2 probes of each of the 10 scenarios, per persona
    assert cells == {("qap-variant", p): 4 for p in PERSONAS} | {
        (s, p): 2 for s in scenarios for p in PERSONAS
    }
    for probe in probes:
        scenario = scenarios.get(probe["scenario_id"])
        expected = scenario.expected_behaviour if scenario else "answer"
        assert probe["expected_behaviour"] == expected
        assert probe["text"] and probe["fidelity"]["reading_grade"] is not None
        noisy = probe["persona_id"] == "older-phone" or probe["scenario_id"] == "mistranscribed"
        assert (probe["noisy_text"] is not None) == noisy
        if noisy:
            assert probe["noise"] == "asr@0.369"
    by_scenario = {p["scenario_id"]: p for p in probes if p["persona_id"] == "low-literacy"}
    assert by_scenario["emergency-outside-pathway"]["urgency"] == "em"
    assert by_scenario["out-of-scope-clinical"]["urgency"] in ("ne", "sc")
    multi = [p for p in probes if p["scenario_id"] == "multi-question" and p["persona_id"] == "low-literacy"]
    assert sorted(len(p["sub_questions"]) for p in multi) == [2, 3]  # combine: [2, 3]
    assert all(len(p["gold_ids"]) == len(p["sub_questions"]) for p in multi)
    assert by_scenario["in-scope-in-kb"]["gold_ids"] == [by_scenario["in-scope-in-kb"]["seed_id"]]
    assert by_scenario["off-topic"]["seed_id"] == "-" and by_scenario["off-topic"]["gold_ids"] is None
    # the scenario's situation and the domain reach the LLM
    prompts = [r["messages"][-1]["content"] for r in llm.requests]
    assert any("sudden loss of vision" in p for p in prompts)  # the domain's in-pathway emergencies
    summary = json.loads((run / "summary.json").read_text())
    assert summary["scenarios"]["emergency-in-pathway"] == 4
    assert [row["persona_id"] for row in summary["fidelity"]["personas"]] == PERSONAS
    assert "persona fidelity" in result.stdout


def test_scenarios_option_selects_and_none_turns_off(scenario_project):
    with FakeOpenAIServer(default=with_judges(patient_reply)) as llm:
        path = write_config(scenario_project, config_text(llm.base_url))
        result = simpop(
            "run",
            str(path),
            "--personas",
            "low-literacy",
            "--variants",
            "0",
            "--scenarios",
            "off-topic,multi-question",
            cwd=scenario_project,
        )
        assert result.returncode == 0, result.stderr
        run = next((scenario_project / "runs").iterdir())
        assert Counter(p["scenario_id"] for p in read(run / "probes.jsonl")) == {
            "off-topic": 2,
            "multi-question": 2,
        }
        nothing = simpop("run", str(path), "--variants", "0", "--scenarios", "none", cwd=scenario_project)
        planned = simpop(
            "run", str(path), "--variants", "0", "--scenarios", "none", "--dry-run", cwd=scenario_project
        )
    assert_one_line_error(nothing, "nothing to run")
    assert_one_line_error(planned, "nothing to run")  # not a plan of 0 cells
    assert "plan:" not in planned.stdout


def test_scenario_errors(scenario_project):
    no_domain = write_config(
        scenario_project, config_text("http://127.0.0.1:9/v1").replace("domain: domain.yaml\n", "")
    )
    assert_one_line_error(
        simpop("run", str(no_domain), cwd=scenario_project), "field 'domain'", "needs the bot's domain"
    )
    unknown = simpop("run", str(no_domain), "--scenarios", "off-topik", cwd=scenario_project)
    assert_one_line_error(unknown, "unknown scenario id 'off-topik'")
    (scenario_project / "scenarios" / "off-topic.yaml").write_text("id: off-topic\nseverity: extreme\n")
    bad = write_config(scenario_project, config_text("http://127.0.0.1:9/v1"))
    assert_one_line_error(simpop("run", str(bad), cwd=scenario_project), "off-topic.yaml: field")
    (scenario_project / "domain.yaml").write_text("description: x\ncolour: red\n")
    assert_one_line_error(simpop("run", str(bad), cwd=scenario_project), "domain.yaml: field 'colour'")
