"""--retry-failed: a run's failed records are taken out so --resume does them again; the rest
stays byte for byte."""

from __future__ import annotations

import json

from simpop.models import Conversation, ConversationTurn, Probe, Response, Score
from simpop.run.retry import drop_failed, retry_line
from simpop.store import RunStore

IDS = dict(run_id="r", persona_id="p", scenario_id="x", seed_id="s", variant=0)


def probe(cell: str, error: str | None = None) -> Probe:
    text = None if error else "q?"
    made = dict(sampling_seed=1, prompt="p@1", llm_model="m")
    return Probe(**IDS, **made, cell_id=cell, text=text, expected_behaviour="answer", error=error)


def response(cell: str, error: str | None = None) -> Response:
    answer = None if error else "a."
    return Response(**IDS, cell_id=cell, target="bot", question="q?", answer=answer, error=error)


def score(cell: str, metric: str, judge_error: bool = False) -> Score:
    excluded = "judge_error" if judge_error else None
    return Score(**IDS, cell_id=cell, metric=metric, value=None if judge_error else 1.0, excluded=excluded)


def turn(cell: str, number: int, error: str | None = None) -> ConversationTurn:
    answer = None if error else "a."
    return ConversationTurn(**IDS, cell_id=cell, turn=number, text="m", answer=answer, error=error)


def conversation(cell: str, turns: list[ConversationTurn], ending: str) -> Conversation:
    return Conversation(
        **IDS,
        cell_id=cell,
        turns=turns,
        ending=ending,
        expected_behaviour="escalate",
        severity="high",
        sampling_seed=1,
        prompt="patient_turn@1",
        llm_model="m",
    )


def write(path, records) -> None:
    path.write_text("".join(r.model_dump_json() + "\n" for r in records))


def cells(path, key=("cell_id",)) -> list:
    return [tuple(json.loads(line).get(k) for k in key) for line in path.read_text().splitlines()]


def test_only_the_failed_records_go_and_every_kind_is_counted(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{}")
    write(run / "probes.jsonl", [probe("ok"), probe("unwritten", "LLM answered 500"), probe("unasked")])
    write(run / "responses.jsonl", [response("ok"), response("unwritten"), response("unasked", "timeout")])
    ok_turns = [turn("talk", 1), turn("talk", 2)]
    stopped = [turn("stuck", 1), turn("stuck", 2, "bot answered 502")]
    patient_failed = [turn("mute", 1)]
    write(run / "turns.jsonl", [*ok_turns, *stopped, *patient_failed])
    write(
        run / "conversations.jsonl",
        [
            conversation("talk", ok_turns, "goal_met"),
            conversation("stuck", stopped, "error"),
            conversation("mute", patient_failed, "error"),  # the patient's LLM failed at turn 2
        ],
    )
    write(
        run / "scores.jsonl",
        [
            score("ok", "faithfulness"),
            score("ok", "refusal", judge_error=True),
            score("unasked", "qap_match"),
            score("talk/t1", "refusal"),
            score("talk/t2", "refusal", judge_error=True),
            score("talk", "conversation"),
            score("stuck/t1", "refusal"),
            score("stuck", "conversation"),
            score("mute", "conversation"),
        ],
    )
    kept_bytes = (run / "probes.jsonl").read_text().splitlines()[0]

    dropped = drop_failed(RunStore(run))

    assert dropped == {"conversations": 2, "turns": 1, "answers": 2, "probes": 1, "scores": 7}
    assert cells(run / "probes.jsonl") == [("ok",), ("unasked",)]
    assert (run / "probes.jsonl").read_text().splitlines()[0] == kept_bytes
    assert cells(run / "responses.jsonl") == [("ok",)]
    # a judge failed on turn 2 of a finished conversation: that verdict and the outcome go
    assert cells(run / "scores.jsonl", ("cell_id", "metric")) == [
        ("ok", "faithfulness"),
        ("talk/t1", "refusal"),
    ]
    assert cells(run / "conversations.jsonl") == [("talk",)]
    # the failed turn goes; those before it stay, so the conversation goes on from there
    assert cells(run / "turns.jsonl", ("cell_id", "turn")) == [
        ("talk", 1),
        ("talk", 2),
        ("stuck", 1),
        ("mute", 1),
    ]
    assert not list(run.glob(".*.tmp"))
    # nothing left to take out the second time
    assert set(drop_failed(RunStore(run)).values()) == {0}
    assert retry_line(dropped) == (
        "retry: taken out to do again: 2 conversations, 1 turns, 2 answers, 1 probes, 7 scores"
    )
    assert retry_line(dict.fromkeys(dropped, 0)) == "retry: nothing had failed"
