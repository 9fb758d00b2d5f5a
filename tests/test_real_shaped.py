"""The real-shaped population (issue 71 part 2): a probe written from a real message of MeQSum's
dev half, never its test half; whole messages checked for asking the seed's question among
others; a message that names the persona's attributes or changes the writer's role is invalid."""

from __future__ import annotations

import json

import pytest

from simpop.errors import ConfigError
from simpop.models import Persona
from simpop.population.cells import variant_scenario
from simpop.population.fidelity import flaw
from simpop.population.meaning import AspectModel, drift_reasons_in_messages
from simpop.population.out_of_role import out_of_role
from simpop.population.probes import ProbeSource, probe_messages, prompt_id, writes_question_only
from simpop.population.scaffolds import POOL_FILE, in_test_half, nearest, pool, scaffolds_for

SAM = "You are Sam, 47, an office worker with average health literacy."


def persona(**fields) -> Persona:
    base = {"id": "p", "name": "P", "vignette": SAM, "health_literacy": "medium", "language_level": "native"}
    return Persona.model_validate(base | fields)


def test_the_scaffolds_are_the_dev_half_and_never_the_test_half():
    rows = [json.loads(line) for line in POOL_FILE.read_text(encoding="utf-8").splitlines()]
    test = {r["id"] for r in rows if in_test_half(r["id"])}
    ids = {s.id for s in pool()}
    assert ids and not ids & test
    assert len(ids) + len(test) == len(rows) == 1000
    assert 0.45 < len(test) / len(rows) < 0.55  # a split, not a sliver


def test_a_scaffold_asks_the_same_kind_of_question_in_the_personas_register():
    near = nearest("Who makes bromocriptine?")
    assert any(s.asks.lower().startswith(("who makes", "who manufactures")) for s in near[:3])
    plain = scaffolds_for("What are the treatments for glaucoma?", persona(health_literacy="low"), 1)
    formal = scaffolds_for("What are the treatments for glaucoma?", persona(health_literacy="high"), 1)
    assert len(plain) == 2 and len(set(plain)) == 2
    assert max(s.grade for s in plain) <= 7.0 < 9.0 <= min(s.grade for s in formal)
    # drawn by the group's seed: the same seed, the same scaffolds
    again = scaffolds_for("What causes dry eye?", persona(), 5)
    assert scaffolds_for("What causes dry eye?", persona(), 5) == again


def test_a_language_without_scaffolds_is_a_one_line_error():
    with pytest.raises(ConfigError, match="persona 'p': field 'language': .* in en only, not 'de'"):
        scaffolds_for("Was ist ein Katarakt?", persona(language="de"), 0)


def test_the_real_messages_come_first_as_the_personas_own_turns():
    scenario = variant_scenario("real-shaped")
    source = ProbeSource(questions=["What is (are) Glaucoma ?"], topic="Glaucoma")
    assert not writes_question_only(scenario, source)  # the story is the LLM's, not a frame's
    shown = scaffolds_for(source.questions[0], persona(), 3)
    messages = probe_messages(persona(), scenario, None, source, 3, scaffolds=shown)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    for scaffold, (asked, answered) in zip(shown, [messages[1:3], messages[3:5]], strict=True):
        assert scaffold.asks in asked["content"] and "Write the message you would send" in asked["content"]
        assert json.loads(answered["content"]) == {"questions": [scaffold.message]}
    task = messages[-1]["content"]
    assert source.shown_questions[0] in task and "Write 3 different messages" in task
    assert "for example:" not in task  # its shape comes from the real messages, not from angles
    assert "scaffolds@" in prompt_id(scenario) and "scaffolds@" not in prompt_id(variant_scenario())


@pytest.fixture(scope="module")
def aspects(embedder):
    return AspectModel(embedder)


def test_a_whole_message_asks_the_seed_when_one_of_its_sentences_does(aspects):
    seed, topic = "What are the treatments for Glaucoma ?", "Glaucoma"
    kept, other, unnamed = drift_reasons_in_messages(
        aspects,
        seed,
        topic,
        "treatment",
        {},
        [
            "SUBJECT: glaucoma\nMESSAGE: my dad is 70 and the eye doctor says he has glaucoma. "
            "what can they do to treat it? and is it something i could get too? thanks",
            "My dad has glaucoma since 2019 and he is 70. What causes it? Thank you",
            "My dad is 70 and he has trouble with his eyes. How do they treat it? Thank you",
        ],
    )
    [answer] = drift_reasons_in_messages(
        aspects, seed, topic, "treatment", {}, ["Glaucoma is treated with eye drops, laser or surgery."]
    )
    assert answer == "asks nothing (no question or request in it)"
    assert kept is None
    assert other is not None and "cause" in other
    assert unnamed == "does not name the seed's topic (Glaucoma)"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I am a 47-year-old office worker with average health literacy. What is glaucoma?", "attributes"),
        ("Hello, my english is level A2. What is glaucoma?", "attributes"),
        ("I am a healthcare provider who is trying to educate my patients about glaucoma.", "professional"),
        ("As a nurse, how would you explain glaucoma?", "professional"),
        ("My doctor says I have glaucoma and my nurse gave me drops. What is it?", None),
    ],
)
def test_a_message_out_of_the_patients_role_is_invalid(text, reason):
    found = out_of_role(text, SAM)
    assert (found is None) if reason is None else (reason in found)
    assert flaw(text, [], "", SAM) == found  # every population's messages are checked for it


def test_a_persona_who_is_a_professional_may_say_so():
    pharmacist = "You are Anna, a 52-year-old pharmacist."
    assert out_of_role("I am a pharmacist and my patients ask about glaucoma drops.", pharmacist) is None


def test_a_run_of_german_personas_in_the_real_shaped_population_stops_before_any_work(project):
    from helpers import assert_one_line_error, simpop, write_config

    config = (
        "name: de\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas/de\nvariants: 1\n"
        "limit: 1\nscenarios: []\npopulation: real-shaped\nllm: {base_url: 'http://127.0.0.1:9/v1'}\n"
    )
    result = simpop("run", str(write_config(project, config, "de.yaml")), "--out", "o", cwd=project)
    assert_one_line_error(result, "field 'language'", "real-shaped population", "in en only")
    assert not (project / "o").exists()


@pytest.mark.parametrize(
    "text",
    [
        "MESSAGE: Can you suggest some treatment options?\n\nREPLY: I'm sorry, but I can't assist with that.",
        "Phentermine is used for pain. Please let me know if you have any questions or concerns.",
        "Hello, I'm a student from [LOCATION] and I'm doing a science project on genetic diseases.",
    ],
)
def test_the_services_side_or_a_school_task_is_out_of_role(text):
    assert out_of_role(text, SAM) is not None
