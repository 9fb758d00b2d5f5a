"""Which QAPs a probe may be answered with (issue 71 parts 4 and 6): a seeds file of some of the
bot's own QAPs scores QAP-match accuracy; a match to a QAP of the bot's catalogue equivalent to
the seed (the same question or answer) counts as right, as a real message is answered right by
any QAP that answers it."""

from __future__ import annotations

import json

from helpers import assert_one_line_error, simpop, write_config

from simpop.models import QAP
from simpop.population.gold import equivalent_qaps
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import reworded, with_judges

CATALOGUE = [
    {"id": "a1", "question": "What is glaucoma?", "answer": "Glaucoma damages the optic nerve."},
    {"id": "a2", "question": "What is (are) Glaucoma ?", "answer": "A group of eye diseases."},
    {"id": "b1", "question": "How is cataract treated?", "answer": "Surgery replaces the lens."},
    {"id": "b2", "question": "Can cataract be cured?", "answer": "Surgery  replaces the lens"},
    {"id": "c1", "question": "Who gets dry eye?", "answer": "Older adults, mostly."},
]


def test_equivalents_are_the_same_question_or_the_same_answer():
    qaps = [QAP(**row) for row in CATALOGUE]
    assert equivalent_qaps(qaps) == {"a1": ["a2"], "a2": ["a1"], "b1": ["b2"], "b2": ["b1"]}


def patient(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def run(project, seeds: list[dict], bot_ids: dict[str, str]):
    """A run of an http QAP bot over CATALOGUE that answers a question with the QAP ``bot_ids``
    gives its seed (by the seed's question words)."""
    (project / "catalogue.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CATALOGUE))
    (project / "seeds.jsonl").write_text("".join(json.dumps(r) + "\n" for r in seeds))
    by_id = {r["id"]: r for r in CATALOGUE}

    def bot(body: dict) -> BotReply:
        question = body["question"].casefold()
        seed = next(s for s in seeds if s["question"].rstrip("?").casefold() in question)
        answer_id = bot_ids.get(seed["id"], seed["id"])
        return BotReply({"answer": by_id[answer_id]["answer"], "faq": answer_id})

    with HTTPBotServer(bot) as server, FakeOpenAIServer(default=with_judges(patient)) as fake:
        config = (
            f"name: eq\ntarget: {{kind: http, url: '{server.url}/chat', qaps: catalogue.jsonl,\n"
            "  matched_id_path: faq}\nseeds: seeds.jsonl\npersonas: personas\n"
            "persona_ids: [typical-adult]\nvariants: 2\nscenarios: []\n"
            f"llm: {{base_url: '{fake.base_url}'}}\n"
        )
        return simpop("run", str(write_config(project, config)), "--no-judge", cwd=project)


def test_a_subset_of_the_bots_qaps_scores_qap_match_and_an_equivalent_match_is_right(project):
    seeds = [CATALOGUE[0], CATALOGUE[2], CATALOGUE[4]]  # a1, b1, c1: three of the bot's five
    result = run(project, seeds, {"a1": "a2", "c1": "b2"})  # a2 answers a1; b2 is no answer to c1
    assert result.returncode == 0, result.stderr
    assert "2 seed QAPs have equivalents in the bot's catalogue" in " ".join(result.stderr.split())
    [directory] = (project / "runs").iterdir()
    summary = json.loads((directory / "summary.json").read_text())
    assert summary["seed_equivalents"] == {"a1": ["a2"], "b1": ["b2"]}
    scores = [json.loads(line) for line in (directory / "scores.jsonl").read_text().splitlines()]
    right = {s["seed_id"]: s["value"] for s in scores if s["metric"] == "qap_match"}
    assert right == {"a1": 1.0, "b1": 1.0, "c1": 0.0}
    assert summary["accuracy"]["total"]["n"] == 6


def test_seeds_of_which_only_some_are_the_bots_are_one_line(project):
    seeds = [CATALOGUE[0], {"id": "zz", "question": "Is it catching?", "answer": "No."}]
    result = run(project, seeds, {})
    assert_one_line_error(result, "field 'seeds'", "1 QAP ids that are not the target's (zz)")
    assert not (project / "runs").exists()


def test_seeds_of_other_questions_say_there_is_no_qap_accuracy(project):
    seeds = [{"id": "x1", "question": "What is glaucoma?", "answer": "Pressure."}]
    result = run(project, seeds, {"x1": "a1"})
    assert result.returncode == 0, result.stderr
    assert "no QAP-match accuracy" in " ".join(result.stderr.split())
    [directory] = (project / "runs").iterdir()
    assert json.loads((directory / "summary.json").read_text())["accuracy"] is None
