"""The real-patients arm (issue 71 part 1): real messages asked of the bot as probes are, scored
by the same metrics into records of their own, and set beside the simulated figure."""

from __future__ import annotations

import json

import pytest
from helpers import assert_one_line_error, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import reworded, with_judges

CATALOGUE = [
    {"id": "g", "question": "What is glaucoma?", "answer": "Glaucoma damages the optic nerve."},
    {"id": "c", "question": "How is cataract treated?", "answer": "Surgery replaces the clouded lens."},
    {"id": "d", "question": "What causes dry eye?", "answer": "Too few or poor tears."},
    {"id": "m", "question": "Who gets macular degeneration?", "answer": "Mostly people over 60."},
]
REAL = [  # asked around their situation, as real patients write: none repeats its FAQ's words
    {
        "message": "my mum was told her eye nerve is damaged by pressure, what does that mean",
        "seed_ids": ["g"],
    },
    {"message": "Subject: lens op\nhow do they fix cloudy vision in old people?", "seed_ids": ["c", "g"]},
    {"id": "r3", "message": "eyes gritty all day at work. why??", "seed_ids": ["d"]},
    {"message": "Is the central vision thing something my dad (72) could get", "seed_ids": ["m"]},
]


def patient(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def bot(body: dict) -> BotReply:
    """Right for a message with its FAQ's words (the simulated rephrasings), wrong for the rest."""
    question = body["question"].casefold()
    for qap in CATALOGUE:
        if qap["question"].rstrip("?").casefold() in question:
            return BotReply({"answer": qap["answer"], "faq": qap["id"]})
    answer = "g" if "lens op" in question or "central" in question else "m"  # right for message 2 alone
    return BotReply({"answer": CATALOGUE[0]["answer"], "faq": answer})


def run(project, real: list[dict] | None, fake: FakeOpenAIServer, server: HTTPBotServer, name="run.yaml"):
    (project / "catalogue.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CATALOGUE))
    lines = "".join(json.dumps(r) + "\n" for r in real or [])
    (project / "real.jsonl").write_text(lines)
    config = (
        f"name: real\ntarget: {{kind: http, url: '{server.url}/chat', qaps: catalogue.jsonl, "
        "matched_id_path: faq}\npersonas: personas\npersona_ids: [typical-adult]\nvariants: 2\n"
        f"scenarios: []\nllm: {{base_url: '{fake.base_url}'}}\n"
        + ("real_patients: real.jsonl\n" if real is not None else "")
    )
    out = f"runs-{name.split('.')[0]}"
    return simpop("run", str(write_config(project, config, name)), "--no-judge", "--out", out, cwd=project)


def test_real_messages_answered_wrong_show_the_gap_beside_the_simulated_figure(project):
    with HTTPBotServer(bot) as server, FakeOpenAIServer(default=with_judges(patient)) as fake:
        alone = run(project, None, fake, server, "alone.yaml")
        simulated_calls = len(fake.requests)
        result = run(project, REAL, fake, server)
        real_calls = len(fake.requests) - simulated_calls
        [directory] = (project / "runs-run").iterdir()
        dry = simpop("run", "run.yaml", "--dry-run", cwd=project)
        assert "real patients: 4 messages to the bot" in dry.stdout, dry.stderr
        asked = len(server.requests)
        again = simpop("run", "run.yaml", "--resume", directory.name, "--out", "runs-run", cwd=project)
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == asked  # a resumed run asks no real message twice
    assert alone.returncode == 0 and result.returncode == 0, alone.stderr + result.stderr
    assert real_calls == 0  # the simulated probes came from the cache; no call for a real message
    summary = json.loads((directory / "summary.json").read_text())
    real = summary["real_patients"]
    assert (real["messages"], real["asked"], real["errors"]) == (4, 4, 0)
    [accuracy] = [p for p in real["predictive"] if p["metric"] == "qap_match"]
    assert accuracy["simulated"]["mean"] == 1.0 and accuracy["simulated"]["n"] == 8
    # message 2 is answered with g, one of its two seeds; the others wrong
    assert accuracy["real"]["mean"] == 0.25 and accuracy["real"]["n"] == 4
    assert accuracy["gap"] == 0.75
    corrected = accuracy["corrected"]
    assert corrected["ci_low"] <= 0.25 <= corrected["ci_high"] and corrected["tuning"] == 0.0
    assert corrected["predictions"] == "seeds"  # no unlabelled message to predict from replies
    # the real messages' records are their own: no simulated figure mixes with them
    assert len((directory / "real_probes.jsonl").read_text().splitlines()) == 4
    probes = [json.loads(line) for line in (directory / "probes.jsonl").read_text().splitlines()]
    assert {p["persona_id"] for p in probes} == {"typical-adult"}
    assert summary["accuracy"]["total"]["accuracy"] == 1.0
    assert "real-patients" not in {g["group"] for g in summary["metrics"]}
    assert "real patients (4 of 4 messages asked, 4 labelled) beside simulated" in " ".join(
        result.stdout.split()
    )
    report = simpop("report", str(directory), cwd=project)
    assert report.returncode == 0, report.stderr
    page = (directory / "report.html").read_text()
    assert "Real patients beside the simulated ones" in page and "4 of 4 real messages" in page


@pytest.mark.parametrize(
    "rows, needles",
    [
        (
            [{"message": "hi there doctor", "seed_ids": ["nope"]}],
            ["real.jsonl", "'nope' is none of the QAPs"],
        ),
        ([{"message": "", "seed_ids": ["g"]}], ["real.jsonl line 1", "message"]),
        ([{"message": "what is it", "seed_ids": "g"}], ["real.jsonl line 1", "seed_ids"]),
        ([{"message": "what is it", "seed_ids": ["g"], "mood": "sad"}], ["real.jsonl line 1", "mood"]),
        ([], ["real.jsonl", "no real patient's message"]),
    ],
)
def test_a_bad_real_patients_file_is_one_line_before_any_work(project, rows, needles):
    with HTTPBotServer(bot) as server, FakeOpenAIServer(default=with_judges(patient)) as fake:
        result = run(project, rows, fake, server)
        assert fake.requests == []
    assert_one_line_error(result, *needles)
    assert not (project / "runs-run").exists()


def test_a_csv_of_real_messages_reads_like_the_jsonl(tmp_path):
    from simpop.config import load_real_patients

    path = tmp_path / "real.csv"
    path.write_text('id,message,seed_ids,tags\nq1,"my eye hurts, what now",g; c,pilot\n,second one,d,\n')
    first, second = load_real_patients(path)
    assert (first.id, first.seed_ids, first.tags) == ("q1", ["g", "c"], ["pilot"])
    assert (second.id, second.seed_ids, second.expected) == ("3", ["d"], "answer")


def test_unlabelled_real_messages_are_predicted_from_the_bots_replies_and_gate_the_corrected_figure(project):
    """Labelled and unlabelled real messages: the unlabelled ones are asked, not scored against a
    label, and the predictor fitted on the simulated cells reads each from the bot's reply; a
    policy with ``basis: corrected`` gates the corrected estimate."""

    def shy_bot(body: dict) -> BotReply:
        if "??" in body["question"]:
            return BotReply({"answer": "Sorry, I have no answer to that.", "faq": None})
        return bot(body)

    labelled = [
        {"message": "what is glaucoma exactly, my mum has it", "seed_ids": ["g"]},  # right
        {"message": "how is cataract treated in old people", "seed_ids": ["c"]},  # right
        {"message": "my eyes are gritty", "seed_ids": ["d"]},  # wrong
        {"message": "blurry middle of my vision", "seed_ids": ["g"]},  # wrong
        {"message": "eye drops ??", "seed_ids": ["d"]},  # not answered
        {"message": "is it old age ??", "seed_ids": ["m"]},  # not answered
    ]
    unlabelled = [{"message": m} for m in ("why ??", "help ??", "what now ??", "a", "b c", "d e f")]
    with HTTPBotServer(shy_bot) as server, FakeOpenAIServer(default=with_judges(patient)) as fake:
        (project / "catalogue.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CATALOGUE))
        (project / "real.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labelled + unlabelled))
        config = (
            f"name: unl\ntarget: {{kind: http, url: '{server.url}/chat', qaps: catalogue.jsonl, "
            "matched_id_path: faq, no_answer: {patterns: ['no answer to that']}}\npersonas: personas\n"
            "persona_ids: [typical-adult]\nvariants: 3\nscenarios: []\n"
            f"llm: {{base_url: '{fake.base_url}'}}\nreal_patients: real.jsonl\n"
        )
        result = simpop(
            "run", str(write_config(project, config, "unl.yaml")), "--no-judge", "--out", "o", cwd=project
        )
    assert result.returncode == 0, result.stderr
    [directory] = (project / "o").iterdir()
    real = json.loads((directory / "summary.json").read_text())["real_patients"]
    assert (real["messages"], real["labelled"]) == (12, 6)
    [accuracy] = [p for p in real["predictive"] if p["metric"] == "qap_match"]
    assert accuracy["real"]["n"] == 6 and accuracy["real"]["mean"] == pytest.approx(2 / 6)
    # 12 simulated cells, all answered and right: an answered message is right (12+1)/(12+2);
    # 7 of the 12 real messages are answered
    assert accuracy["predicted"] == pytest.approx(round(7 / 12 * 13 / 14, 4))
    assert accuracy["corrected"]["predictions"] == "replies" and accuracy["corrected"]["n"] == 6
    scored = [json.loads(line) for line in (directory / "real_scores.jsonl").read_text().splitlines()]
    assert len([s for s in scored if s["metric"] == "qap_match"]) == 6  # the unlabelled: none
    # how far the simulated patients sit from these real ones (labelled or not): the fidelity tests
    fidelity = simpop("fidelity", str(directory), cwd=project)
    assert fidelity.returncode == 0 and "real.jsonl" in fidelity.stdout, fidelity.stderr
    for low, code in ((0.0, 0), (0.9, 1)):
        (project / "p.yaml").write_text(f"basis: corrected\nrules:\n  - {{metric: qap_match, min: {low}}}\n")
        gated = simpop("gate", str(directory), "--policy", "p.yaml", cwd=project)
        assert gated.returncode == code, gated.stdout + gated.stderr
    # 2 of 6 labelled right: min 0.9 is above the corrected interval, or inside it
    assert "corrected 95% upper bound" in gated.stdout or "the corrected 95% interval" in gated.stdout
    (project / "bad.yaml").write_text(
        "basis: corrected\nrules:\n  - {metric: qap_match, min: 0.5, per: persona}\n"
    )
    bad = simpop("gate", str(directory), "--policy", "bad.yaml", cwd=project)
    assert_one_line_error(bad, "rule 1: basis 'corrected' gates the real patients' corrected estimate")
