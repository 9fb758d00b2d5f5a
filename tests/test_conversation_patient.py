"""The simulated patient of a conversation (issue 22, part 2): what it is told at each turn and
how a conversation ends, against a scripted fake patient on 127.0.0.1 and a bot function."""

from __future__ import annotations

import asyncio
import json
import re

from helpers import ROOT

from simpop.config import load_conversation_cases, load_personas, read_yaml, validate
from simpop.llm import LLMClient, RemoteEndpoint
from simpop.models import ConversationTurn, Domain, LLMConfig
from simpop.population.conversation_patient import play
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import task_text

CASES = {c.id: c for c in load_conversation_cases(ROOT / "scenarios/conversations")}
[PERSONA] = load_personas(ROOT / "personas", ["typical-adult"])
EYE = validate(Domain, read_yaml(ROOT / "targets/eye-domain.yaml"), "eye-domain.yaml")
# what relative-downplays' second message must say of the husband's remark: the scripted
# patient leaves it out, so simpop adds it
HUSBAND = "My husband says it is only indigestion and I should wait until the morning."
# and its first message must say the due fact told from the start, added in the same way
OPENING = "The pressure started half an hour ago while I was resting."


def scripted_patient(request: dict) -> Reply:
    """Message N says so; the goal is met once the chatbot has said to call 999."""
    task = task_text(request)
    turn = 1 if "Write your first message" in task else int(re.findall(r"message (\d+) (?:of|to)", task)[-1])
    return Reply(json.dumps({"message": f"message {turn}", "done": "call 999" in task, "gives_up": False}))


def played(case_id: str, answers: list[str], turns: list[ConversationTurn] | None = None, patient=None):
    """Play ``case_id`` with a bot giving ``answers`` in turn (the last one from then on),
    going on from ``turns``."""
    seen: list[tuple[list[tuple[str, str | None]], str]] = []

    async def ask(
        history: list[ConversationTurn], message: str, flag: str | None, added: list[str]
    ) -> ConversationTurn:
        seen.append(([(t.text, t.answer) for t in history], message))
        answer = answers[min(len(seen), len(answers)) - 1]
        return said(len(history) + 1, message, answer).model_copy(update={"flag": flag, "added": added})

    with FakeOpenAIServer(default=patient or scripted_patient) as server:
        config = LLMConfig(base_url=server.base_url, model="fake-patient", retry_backoff=0.01)
        llm = LLMClient(config, RemoteEndpoint(server.base_url), None)

        async def go():
            try:
                return await play(llm, PERSONA, CASES[case_id], EYE, ask, seed=7, turns=turns)
            finally:
                await llm.aclose()

        result = asyncio.run(go())
        tasks = [task_text(r) for r in server.requests]
    return result, seen, tasks


def said(turn: int, message: str, answer: str | None, error: str | None = None) -> ConversationTurn:
    ids = dict(run_id="r", cell_id="c", persona_id=PERSONA.id, scenario_id="case", seed_id="s", variant=0)
    return ConversationTurn(**ids, turn=turn, text=message, answer=answer or None, error=error)


def test_a_conversation_stops_at_max_turns_with_the_history_in_order():
    (turns, ending), seen, tasks = played("relative-downplays", ["It may be nothing.", "Rest and see."])
    assert CASES["relative-downplays"].max_turns == 4
    assert ending == "max_turns" and [t.turn for t in turns] == [1, 2, 3, 4]
    first, second = f"message 1 {OPENING}", f"message 2 {HUSBAND}"
    assert [m for _, m in seen] == [first, second, "message 3", "message 4"]
    assert [len(h) for h, _ in seen] == [0, 1, 2, 3]
    assert seen[2][0] == [(first, "It may be nothing."), (second, "Rest and see.")]
    assert (
        len(tasks) == 6
    )  # one patient call a turn (messages 1 and 2 twice: they left out what they must say)
    assert "Chatbot: Rest and see." in tasks[4] and "Chatbot: Rest and see." not in tasks[3]


def test_the_patients_flag_ends_it_and_the_bot_can_end_it():
    (turns, ending), seen, tasks = played("relative-downplays", ["Go on.", "Please call 999 now."])
    assert ending == "goal_met" and len(turns) == 2 and len(tasks) == 5
    (turns, ending), _, _ = played("relative-downplays", ["Go on.", ""])
    assert ending == "bot_ended" and len(turns) == 2


def test_a_conversation_goes_on_from_the_turns_recorded_before_a_kill():
    before = [said(1, "message 1", "It may be nothing."), said(2, "message 2", "Rest and see.")]
    (turns, ending), seen, tasks = played("relative-downplays", ["Go on."], turns=before)
    assert ending == "max_turns" and turns[:2] == before and [t.turn for t in turns] == [1, 2, 3, 4]
    assert [m for _, m in seen] == ["message 3", "message 4"]  # turns 1 and 2 are not asked again
    assert "Chatbot: Rest and see." in tasks[0]
    # a conversation that had ended (a failed call) is not played on
    (turns, ending), seen, tasks = played(
        "relative-downplays", ["Go on."], turns=[said(1, "m", None, "boom")]
    )
    assert ending == "error" and len(turns) == 1 and not seen and not tasks


def test_facts_are_told_when_due_and_events_at_their_turn():
    (turns, _), _, tasks = played("emergency-revealed-late", ["Fine."])
    late = "Since this morning you have had this: sudden loss of vision in one or both eyes."
    # message 3 is asked for twice: "message 3" leaves the red flag out
    assert [late in t for t in tasks] == [False, False, True, True, True, True]
    said = "Since this morning I have had this: sudden loss of vision in one or both eyes. I think it is"
    # the patient left the red flag out: simpop adds it in its voice and says so, not a flaw
    assert turns[2].text.startswith(f"message 3 {said}") and turns[2].added[0].startswith(said)
    assert turns[2].text == " ".join(["message 3", *turns[2].added])
    assert [t.flag for t in turns] == [None] * 5
    assert [t.added for t in turns[:2] + turns[3:]] == [[]] * 4
    assert "Write your message 3 to the chatbot. In your own words" in tasks[2]
    assert f"it must tell the chatbot this: {late}" in tasks[2]
    assert all("Only if the chatbot's last message asks" in t and "home alone" in t for t in tasks)
    (turns, _), _, tasks = played("relative-downplays", ["Fine."])
    assert ["Your husband" in t for t in tasks] == [False, False, True, True, False, False]
    assert "it must tell the chatbot this: Your husband" in tasks[2]
    # the husband's words are due at message 2: left out, they are added in the patient's voice
    assert turns[1].text == f"message 2 {HUSBAND}" and turns[1].added == [HUSBAND] and turns[1].flag is None
    assert turns[0].text == f"message 1 {OPENING}" and turns[0].added == [OPENING]
    assert "crushing pressure in your chest" in tasks[0]


def test_a_message_that_breaks_character_is_written_again_and_flagged_if_still_bad():
    def as_the_bot(request: dict) -> Reply:
        """The first try of message 2 speaks as the chatbot (the second is a patient's); both
        tries of message 3 do."""
        task = task_text(request)
        turn = (
            1 if "Write your first message" in task else int(re.findall(r"message (\d+) (?:of|to)", task)[-1])
        )
        first = request["seed"] == 7 + turn
        text = f"message {turn}"
        if (turn == 2 and first) or turn == 3:
            text = "Hello! How can I help you today?"
        return Reply(json.dumps({"message": text, "done": False, "gives_up": False}))

    (turns, ending), seen, tasks = played("relative-downplays", ["Fine."], patient=as_the_bot)
    assert [t.text for t in turns] == [
        f"message 1 {OPENING}",
        f"message 2 {HUSBAND}",
        "Hello! How can I help you today?",
        "message 4",
    ]
    assert [t.flag for t in turns] == [None, None, "speaks as the chatbot", None]
    assert len(tasks) == 7  # turns 1, 2 and 3 asked twice
    # message 3 of the late emergency must tell the red flag: both tries speak as the chatbot
    # and leave it out, so the first is sent flagged, with the red flag added all the same
    (turns, _), _, _ = played("emergency-revealed-late", ["Fine."], patient=as_the_bot)
    assert turns[2].text.startswith("Hello! How can I help you today? Since this morning I have had this")
    assert turns[2].flag == "speaks as the chatbot" and turns[2].added[0].startswith("Since this morning")


def test_the_patient_cannot_end_a_case_before_its_last_due_message():
    # the bot says "call 999" at once: the patient's "done" at message 2 is ignored, for the
    # red flag is due at message 3; at message 4 it ends the conversation
    (turns, ending), seen, tasks = played("emergency-revealed-late", ["Please call 999 now."])
    assert CASES["emergency-revealed-late"].last_scheduled_turn == 3
    assert ending == "goal_met" and [t.turn for t in turns] == [1, 2, 3]
    assert len(tasks) == 5  # messages 1 to 4, message 3 twice (the first left the red flag out)
    assert "sudden loss of vision" in turns[2].text
