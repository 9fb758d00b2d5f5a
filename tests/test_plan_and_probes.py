from __future__ import annotations

from pathlib import Path

import pytest

from simpop.config import load_scenarios, load_vignettes
from simpop.errors import ConfigError
from simpop.models import QAP, Domain, Persona, Scenario, Vignette
from simpop.population.cells import (
    NO_SEED,
    VARIANT_SCENARIO,
    PlannedScenario,
    cell_id,
    plan,
    sampling_seed,
    scenario_seeds,
    scenario_vignettes,
    variant_scenario,
)
from simpop.population.probes import (
    ProbeSource,
    clean_question,
    everyday_words,
    messages_model,
    probe_messages,
    readable,
    situation,
)

ROOT = Path(__file__).resolve().parents[1]
DOMAIN = Domain(description="An eye clinic's information line.", emergencies=["sudden loss of vision"])


def persona(pid: str = "p", literacy: str = "medium") -> Persona:
    return Persona(
        id=pid, name=pid, vignette=f"You are {pid}.", health_literacy=literacy, language_level="A2"
    )


def scenario(**fields) -> Scenario:
    base = dict(
        id="s",
        name="S",
        question_type="clinical",
        operating_context="c",
        description="d",
        hazard="h",
        safe_concept="c",
        expected_behaviour="answer",
        severity="low",
        prompt="Ask about {{ seed }}.",
        examples=["an example"],
    )
    return Scenario(**(base | fields))


QAPS = [QAP(id=i, question=f"What is thing {i}?", answer="x") for i in ("1", "2", "3", "4", "5")]


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("1. What is glaucoma?", "What is glaucoma?"),
        ("  2) Is it bad?  ", "Is it bad?"),
        ("- Can it be cured?", "Can it be cured?"),
        ('"Why do my eyes hurt?"', "Why do my eyes hurt?"),
        ("What is 2 plus 2?", "What is 2 plus 2?"),
    ],
)
def test_clean_question(raw, clean):
    assert clean_question(raw) == clean


def test_shipped_scenarios_cover_the_ten_sace_contexts():
    scenarios = {s.id: s for s in load_scenarios(ROOT / "scenarios")}
    assert len(scenarios) == 10
    expected = {s.expected_behaviour for s in scenarios.values()}
    assert expected == {"answer", "decline", "escalate", "clarify", "address_all"}
    assert scenarios["emergency-in-pathway"].expected_behaviour == "escalate"
    assert scenarios["mistranscribed"].noise is not None and scenarios["mistranscribed"].noise.model == "asr"
    assert scenarios["emergency-outside-pathway"].vignettes.is_file()  # resolved from the scenario file


def test_scenario_file_errors_name_file_and_field(tmp_path):
    good = (ROOT / "scenarios" / "off-topic.yaml").read_text()
    (tmp_path / "bad.yaml").write_text(
        good.replace("expected_behaviour: decline", "expected_behaviour: shrug")
    )
    with pytest.raises(ConfigError, match=r"bad.yaml: field 'expected_behaviour'"):
        load_scenarios(tmp_path)
    with pytest.raises(ConfigError, match="unknown scenario id 'nope'"):
        load_scenarios(ROOT / "scenarios", ["nope"])


def test_vignette_scenario_needs_file_and_urgency():
    with pytest.raises(ValueError, match="vignettes"):
        scenario(source="vignettes")


def test_vignettes_filtered_by_urgency_and_domain_keywords():
    vignettes = load_vignettes(ROOT / "data" / "triage-vignettes" / "semigran_vignettes.jsonl")
    assert len(vignettes) == 45
    emergencies = scenario(source="vignettes", vignettes=Path("v"), urgency=["em"])
    assert len(scenario_vignettes(emergencies, vignettes, None)) == 15
    minor = scenario(source="vignettes", vignettes=Path("v"), urgency=["ne", "sc"])
    eye = Domain(description="eyes", keywords=["conjunctivitis", "stye"])
    kept = scenario_vignettes(minor, vignettes, eye)
    assert len(kept) == 30 - 2  # acute conjunctivitis and stye are the eye bot's own topics
    assert all(vignettes[int(v.split("-")[1]) - 1].urgency_level in ("ne", "sc") for v in kept)


def test_scenario_seeds_per_source():
    assert scenario_seeds(scenario(), 2, QAPS, []) == [NO_SEED, NO_SEED]
    assert scenario_seeds(scenario(source="qap"), 7, QAPS, []) == ["1", "2", "3", "4", "5", "1", "2"]
    multi = scenario(source="multi_question", combine=[2, 3])
    assert scenario_seeds(multi, 3, QAPS, []) == ["1+2", "3+4+5", "1+2"]
    assert scenario_seeds(scenario(source="qap"), 2, [], []) == []


def test_a_multi_question_probe_combines_its_questions_whatever_the_limit():
    """``--limit 1`` (the README's first command) still writes multi-question probes of two and
    three seed questions; the variants and the one-seed scenarios keep to the first seed."""
    from simpop.models import RunConfig
    from simpop.run.plan import load_inputs

    config = RunConfig(
        name="small",
        target={"kind": "qap", "qaps": str(ROOT / "data/medquad-eye/qaps.jsonl")},
        personas=str(ROOT / "personas"),
        persona_ids=["typical-adult"],
        variants=1,
        limit=1,
        probes=2,
        scenario_dir=str(ROOT / "scenarios"),
        scenarios=["multi-question", "in-scope-in-kb"],
    )
    inputs = load_inputs(config)
    by_scenario = {}
    for cell in inputs.cells:
        by_scenario.setdefault(cell.scenario_id, []).append(cell.seed_id)
    first = inputs.qaps[0].id
    assert [len(seed.split("+")) for seed in by_scenario["multi-question"]] == [2, 3]
    assert by_scenario["qap-variant"] == [first]
    assert by_scenario["in-scope-in-kb"] == [first, first]


def test_plan_is_the_cross_product_with_stable_ids():
    personas = [persona("a"), persona("b")]
    planned = [PlannedScenario(scenario(), [NO_SEED, NO_SEED, NO_SEED])]
    cells = plan(personas, QAPS[:3], 2, planned)
    assert len(cells) == 3 * 2 * 2 + 2 * 3 and len({c.cell_id for c in cells}) == len(cells)
    assert cells[0].scenario_id == VARIANT_SCENARIO
    assert (
        cells[0].cell_id
        == cell_id("a", VARIANT_SCENARIO, "1", 0)
        == plan(personas, QAPS[:3], 2, [])[0].cell_id
    )
    assert sampling_seed(0, cells[0]) == sampling_seed(0, cells[0]) != sampling_seed(1, cells[0])
    assert sampling_seed(0, cells[0]) != sampling_seed(0, cells[1])


def test_probe_messages_speak_as_the_persona():
    variant = variant_scenario()
    source = ProbeSource(["What is (are) Glaucoma ?"])
    system, user = probe_messages(persona("gary", "low"), variant, None, source, 6)
    assert system["role"] == "system" and system["content"].startswith("You are gary.")
    assert "CEFR level A2" in system["content"] and "health literacy is low" in system["content"]
    assert '"What is Glaucoma?"' in user["content"] and "exactly 6 strings" in user["content"]
    assert 'say "pressure in the eye" for "glaucoma"' in user["content"]  # everyday words, low literacy
    assert "Ask it as a short, direct question." in user["content"]  # angles to vary the wording
    high = probe_messages(persona("anna", "high"), variant, None, source, 6)[1]["content"]
    assert "everyday words" not in high


def test_everyday_words_only_for_terms_in_the_text():
    words = dict(everyday_words(persona(literacy="low"), "Is cataract surgery safe?"))
    assert words == {"cataract": "cloudy eye", "surgery": "operation"}
    assert everyday_words(persona(literacy="medium"), "Is cataract surgery safe?") == []


def test_situation_renders_domain_and_reports_template_errors():
    emergency = scenario(prompt="For: {{ domain.description }} {{ domain.emergencies | join('; ') }}")
    assert (
        situation(emergency, DOMAIN, ProbeSource([]))
        == "For: An eye clinic's information line. sudden loss of vision"
    )
    broken = scenario(prompt="{{ nothing.here }}")
    with pytest.raises(ConfigError, match="scenario 's': field 'prompt'"):
        situation(broken, DOMAIN, ProbeSource([]))


def test_messages_schema_requires_exactly_n():
    model = messages_model(3)
    assert model.model_json_schema()["properties"]["questions"]["minItems"] == 3
    model.model_validate({"questions": ["a", "b", "c"]})
    for bad in (
        {"questions": ["a", "b"]},
        {"questions": ["a", "b", ""]},
        {"questions": ["a", "b", "c"], "x": 1},
    ):
        with pytest.raises(ValueError):
            model.model_validate(bad)


def test_vignette_record_forbids_unknown_fields():
    with pytest.raises(ValueError):
        Vignette(urgency_level="em", correct_diagnosis="x", case_description="y", age=3)


@pytest.mark.parametrize(
    ("seed", "shown"),
    [
        ("What is (are) Glaucoma ?", "What is Glaucoma?"),
        ("What is (are) Eye Injuries ?", "What are Eye Injuries?"),
        ("What is (are) Diabetes ?", "What is Diabetes?"),
        ("Who is at risk for Breast Cancer? ?", "Who is at risk for Breast Cancer?"),
        ("How to diagnose Breast Cancer ?", "How to diagnose Breast Cancer?"),
    ],
)
def test_the_patient_reads_a_seed_as_a_leaflet_prints_it(seed, shown):
    assert readable(seed) == shown
    text = situation(variant_scenario(), DOMAIN, ProbeSource([seed]))
    assert f'"{shown}"' in text and "(are)" not in text
