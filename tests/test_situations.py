"""The patient's situation written by the LLM: the checks that keep it a story, and a run that
tells it instead of a sentence frame."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import simpop, write_config

from simpop.config import load_personas
from simpop.models import Persona
from simpop.population.probes import situation_examples
from simpop.population.situations import checked_situation, usable_situations
from simpop.prompts import load_prompt_data
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import reworded, with_judges

PERSONAS = Path(__file__).parents[1] / "personas"
VIGNETTE = "You are Margaret, 81 years old, calling the clinic's voice line about your health."


def test_an_indirect_question_is_cut_off_and_what_asks_is_dropped():
    told = "A doctor told me last week that I have glaucoma, and I'm wondering what I can do about it."
    assert checked_situation(told, VIGNETTE) == "A doctor told me last week that I have glaucoma."
    assert checked_situation("My eyes are cloudy, so I wanted to know if it is normal.", VIGNETTE) == (
        "My eyes are cloudy."
    )
    assert checked_situation("I'm interested in learning more about glaucoma.", VIGNETTE) is None
    assert checked_situation("Is this normal for my age?", VIGNETTE) is None  # a question
    asks = "My eyes have been cloudy since May. Is it normal? My son says no."
    assert checked_situation(asks, VIGNETTE) == "My eyes have been cloudy since May."
    assert checked_situation("I asked the chatbot about it yesterday.", VIGNETTE) is None  # the simulation
    assert (
        checked_situation("Margaret, 81 years old, calling the clinic's voice line", VIGNETTE) is None
    )  # a copy
    assert checked_situation("My eyes hurt.", VIGNETTE) is None  # three words: too short
    assert usable_situations(["My mum has it too.", "My mum has it too.", "Why?"], VIGNETTE) == [
        "My mum has it too."
    ]


def test_a_story_is_told_by_the_patient_at_the_patients_age():
    assert checked_situation("A 65-year-old patient is being evaluated for cataracts.", VIGNETTE) is None
    assert checked_situation("I'm a 30-year-old woman and my eyes are cloudy.", VIGNETTE) is None
    assert checked_situation("I am 52 and my eyes have been cloudy since May.", VIGNETTE) is None
    assert checked_situation("I am 80 and my eyes have been cloudy since May.", VIGNETTE)  # a year off
    # a relative's age, a pregnancy week or a dose is no age of the writer's
    for told in ("My son is 54 and has cataracts.", "I'm 22 weeks pregnant and my sight is blurry."):
        assert checked_situation(told, VIGNETTE) == told
    # but a relative's age must fit the writer's: an 81-year-old's mother is not 81, her son not 3
    assert checked_situation("My mother is 81 and has cataracts.", VIGNETTE) is None
    assert checked_situation("My 3-year-old son has cloudy eyes.", VIGNETTE) is None
    assert checked_situation("My sister, who is 79, has cataracts.", VIGNETTE)


def test_no_two_situations_share_a_sentence_and_none_copies_an_example():
    example = "My mother is 81 and lives alone since 2019. I drive her to all her appointments."
    told = [
        "My mother is 81 and lives alone since 2019. Her eyes got cloudy in March.",  # the example's
        "I have diabetes for 12 years. I need to get my sugar under control before it gets worse.",
        "My wife has diabetes for 3 years. I need to get my sugar under control before it gets any worse.",
        "I have had blurry sight since my operation 2 years ago.",
    ]
    # a shared sentence is left out; what is left is told where it is still a story of one's own
    left = "My wife has diabetes for 3 years."
    assert usable_situations(told, VIGNETTE, [example]) == [told[1], left, told[3]]
    # nor one a situation written before
    assert usable_situations(told[3:], VIGNETTE, had=[told[3]]) == []


def test_examples_of_a_situation_are_in_the_personas_register_and_language():
    pool = load_prompt_data("situation_examples")[0]
    personas = {p.id: p for p in load_personas(PERSONAS)}
    learner = situation_examples(personas["non-native-a2"], seed=1)
    assert len(learner) == 2 and set(learner) <= set(pool["learner"])
    assert set(situation_examples(personas["low-literacy"], seed=1)) <= set(pool["plain"])
    assert situation_examples(personas["low-literacy"], 1) != situation_examples(personas["low-literacy"], 2)
    german = Persona(**{**personas["typical-adult"].model_dump(), "language": "de"})
    german_pool = load_prompt_data("situation_examples", "de")[0]
    assert set(situation_examples(german, seed=1)) <= set(german_pool["standard"])  # German ones


SITUATIONS = [
    "My sister was told last month that she has cataracts in both eyes.",
    "I drive a taxi at night and the headlights have started to look blurry.",
]


def _patient(request: dict) -> Reply:
    schema = request["response_format"]["json_schema"]["schema"]
    reply = {"questions": reworded(request)}
    if "situations" in schema["properties"]:
        reply["situations"] = SITUATIONS
    return Reply(json.dumps(reply))


def _run_typical_adult(project, llm: FakeOpenAIServer) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Two QAP variants of one seed for the typical adult; the run and the probe-writing requests."""
    config = (
        "name: told\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 2\n"
        f"limit: 1\nscenarios: []\nllm: {{base_url: '{llm.base_url}'}}\n"
    )
    run = simpop(
        "run", str(write_config(project, config)), "--personas", "typical-adult", "--no-judge",
        cwd=project, env={"SIMPOP_CACHE_DIR": str(project / "cache")},
    )  # fmt: skip
    return run, [r for r in llm.requests if "response_format" in r and not r.get("logprobs")]


def test_a_run_tells_the_situations_the_llm_wrote_one_per_message(project):
    with FakeOpenAIServer(default=with_judges(_patient)) as llm:
        run, asked = _run_typical_adult(project, llm)
    assert run.returncode == 0, run.stderr
    task = asked[0]["messages"][-1]["content"]
    assert "apart from the questions, write 2 different things" in task
    pool = load_prompt_data("situation_examples")[0]["standard"]
    assert sum(example in task for example in pool) == 2  # two examples of how people tell theirs
    [folder] = (project / "runs").iterdir()
    probes = [json.loads(line) for line in (folder / "probes.jsonl").read_text().splitlines()]
    told = {p["variant"]: p for p in probes if p["fidelity"]["story"] == "written"}
    assert told
    for probe in told.values():
        assert SITUATIONS[probe["variant"]] in probe["text"]  # each message its own situation
    assert all(p["fidelity"]["story"] in ("written", None) for p in probes)  # no frame needed
    summary = json.loads((folder / "summary.json").read_text())
    [row] = summary["fidelity"]["personas"]
    assert row["stories_written"] == len(told) and row["stories_from_frames"] == 0


def test_a_retry_asks_for_no_situations_once_enough_are_in_hand(project):
    """The first reply's questions are unusable (they name no topic), its situations fine: the
    retry asks for questions alone (situations cost a third of a call's tokens)."""
    calls: list[int] = []

    def patient(request: dict) -> Reply:
        if "response_format" not in request or request.get("logprobs"):
            return _patient(request)
        calls.append(1)
        if len(calls) > 1:
            return _patient(request)
        n = len(reworded(request))
        return Reply(
            json.dumps({"questions": ["Where do I park my car today?"] * n, "situations": SITUATIONS})
        )

    with FakeOpenAIServer(default=with_judges(patient)) as llm:
        run, asked = _run_typical_adult(project, llm)
    assert run.returncode == 0, run.stderr
    assert len(asked) >= 2
    first, retry = asked[0], asked[1]
    assert "situations" in first["response_format"]["json_schema"]["schema"]["properties"]
    assert "situations" not in retry["response_format"]["json_schema"]["schema"]["properties"]
    assert "apart from the questions" not in retry["messages"][-1]["content"]
    [folder] = (project / "runs").iterdir()
    probes = [json.loads(line) for line in (folder / "probes.jsonl").read_text().splitlines()]
    # the first reply's situations still tell the stories of the retry's questions
    assert any(p["fidelity"]["story"] == "written" for p in probes)
