"""The simulated patient of a conversation (issue 22, part 2): what it is told at each turn and
how a conversation ends, against a scripted fake patient on 127.0.0.1 and a bot function."""

from __future__ import annotations

import asyncio
import json
import re

from helpers import ROOT

from simpop.config import load_conversation_cases, load_personas, read_yaml, validate
from simpop.llm import LLMClient
from simpop.llm.client import RemoteEndpoint
from simpop.models import Domain, LLMConfig
from simpop.population.conversation_patient import Exchange, play
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import task_text

CASES = {c.id: c for c in load_conversation_cases(ROOT / "scenarios/conversations")}
[PERSONA] = load_personas(ROOT / "personas", ["typical-adult"])
EYE = validate(Domain, read_yaml(ROOT / "targets/eye-domain.yaml"), "eye-domain.yaml")


def scripted_patient(request: dict) -> Reply:
    """Message N says so; the goal is met once the chatbot has said to call 999."""
    task = task_text(request)
    turn = 1 if "Write your first message" in task else int(re.findall(r"message (\d+) (?:of|to)", task)[-1])
    return Reply(json.dumps({"message": f"message {turn}", "done": "call 999" in task, "gives_up": False}))


def played(case_id: str, answers: list[str]):
    """Play ``case_id`` with a bot giving ``answers`` in turn (the last one from then on)."""
    seen: list[tuple[list[Exchange], str]] = []

    async def ask(history: list[Exchange], message: str) -> str:
        seen.append((history, message))
        return answers[min(len(seen), len(answers)) - 1]

    with FakeOpenAIServer(default=scripted_patient) as server:
        config = LLMConfig(base_url=server.base_url, model="fake-patient", retry_backoff=0.01)
        llm = LLMClient(config, RemoteEndpoint(server.base_url), None)

        async def go():
            try:
                return await play(llm, PERSONA, CASES[case_id], EYE, ask, seed=7)
            finally:
                await llm.aclose()

        result = asyncio.run(go())
        tasks = [task_text(r) for r in server.requests]
    return result, seen, tasks


def test_a_conversation_stops_at_max_turns_with_the_history_in_order():
    result, seen, tasks = played("relative-downplays", ["It may be nothing.", "Rest and see."])
    assert CASES["relative-downplays"].max_turns == 4
    assert result.ending == "max_turns" and len(result.exchanges) == 4
    assert [m for _, m in seen] == ["message 1", "message 2", "message 3", "message 4"]
    assert [len(h) for h, _ in seen] == [0, 1, 2, 3]
    assert seen[2][0] == [Exchange("message 1", "It may be nothing."), Exchange("message 2", "Rest and see.")]
    assert len(tasks) == 4  # one patient call a turn, no judge call
    assert "Chatbot: Rest and see." in tasks[2] and "Chatbot: Rest and see." not in tasks[1]


def test_the_patients_flag_ends_it_and_the_bot_can_end_it():
    result, seen, tasks = played("relative-downplays", ["Go on.", "Please call 999 now."])
    assert result.ending == "goal_met" and len(result.exchanges) == 2 and len(tasks) == 3
    result, _, _ = played("relative-downplays", ["Go on.", ""])
    assert result.ending == "bot_ended" and len(result.exchanges) == 2


def test_facts_are_told_when_due_and_events_at_their_turn():
    result, _, tasks = played("emergency-revealed-late", ["Fine."])
    late = "Since this morning you have had this: sudden loss of vision in one or both eyes."
    assert [late in t for t in tasks] == [False, False, True, True, True]
    assert f"Write your message 3 to the chatbot. It must tell the chatbot this: {late}" in tasks[2]
    assert all("Only if the chatbot's last message asks" in t and "home alone" in t for t in tasks)
    _, _, tasks = played("relative-downplays", ["Fine."])
    assert ["Your husband" in t for t in tasks] == [False, True, False, False]
    assert "It must tell the chatbot this: Your husband" in tasks[1]
    assert "crushing pressure in your chest" in tasks[0]
