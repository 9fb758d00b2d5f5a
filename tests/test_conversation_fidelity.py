"""The per-turn fidelity checks of a simulated patient in a conversation, on hand-made turns."""

from __future__ import annotations

from simpop.models import ConversationTurn
from simpop.population.conversation_fidelity import first_person, in_own_voice, tells, turn_flaw, turn_flaws

IDS = dict(run_id="r", cell_id="c", persona_id="p", scenario_id="case", seed_id="conversation", variant=0)
KEPT = ["You are at home alone and could get to a hospital in half an hour."]


def bot(answer: str) -> list[ConversationTurn]:
    return [ConversationTurn(**IDS, turn=1, text="My eye hurts.", answer=answer)]


def test_a_patient_who_speaks_as_the_chatbot_or_repeats_it_is_flagged():
    assert turn_flaw("Hello! How can I assist you today?", [], KEPT) == "speaks as the chatbot"
    assert turn_flaw("As an AI I cannot say.", [], KEPT) == "speaks as the chatbot"
    # the helper's part in a patient's mouth: offers of help, its questions, its sympathy
    for said in (
        "Thank you! Is there anything else I can help you with?",
        "Do you have any other questions about glaucoma?",
        "I'd be happy to help you understand what dry eye is.",
        "I'm sorry to hear that you're having trouble with your vision. Have you been to a doctor yet?",
        "Hi there! I'm just a chatbot, so I can't see you.",
        "Is there anything else you would like to know about my condition?",
        "Do you want to know if this is something to worry about?",
        "Could you tell me more about the symptoms you're experiencing?",
    ):
        assert turn_flaws(said, [], KEPT) == ["speaks as the chatbot"], said
    # a patient asking for help, saying sorry or asking about a doctor is a patient
    for said in (
        "Can you help me understand my eye drops?",
        "I'm sorry, I didn't understand your answer. Do I need to see a doctor?",
        "My husband says I should not bother the doctor. What do you think?",
        "Have I got glaucoma? I have no other symptoms.",
        "Is there anything I can do to reduce the pressure in my eyes?",
    ):
        assert turn_flaws(said, [], KEPT) == [], said
    answer = "Rest your eye and use artificial tears four times a day for a week."
    said = "ok. Rest your eye and use artificial tears four times a day for a week."
    assert turn_flaw(said, bot(answer), KEPT) == "repeats the chatbot's answer"
    assert turn_flaw("Will artificial tears sting?", bot(answer), KEPT) is None
    # a copy of an earlier answer, not the last one, is a copy too
    earlier = [*bot(answer), ConversationTurn(**IDS, turn=2, text="And then?", answer="See your doctor.")]
    assert turn_flaw(said, earlier, KEPT) == "repeats the chatbot's answer"


def test_a_fact_kept_until_asked_may_be_told_only_after_a_question():
    told = "I'm home alone, I could get to the hospital in about half an hour."
    assert tells(told, KEPT[0]) and not tells("My eye still hurts a lot.", KEPT[0])
    assert turn_flaw(told, bot("Rest your eye."), KEPT) == "tells what it was to keep until asked"
    assert turn_flaw(told, bot("Is anyone with you right now?"), KEPT) is None
    assert turn_flaw(told, [], KEPT) == "tells what it was to keep until asked"


def test_the_single_message_checks_apply_too():
    assert turn_flaw("My eye 眼睛 hurts", [], KEPT) == "slips into another script"
    assert turn_flaw("It hurts. It hurts. It hurts.", [], KEPT) == "repeats itself"


def test_a_fact_due_at_this_turn_must_be_told_and_is_told_in_the_patients_voice():
    due = ["Since this morning you have had this: sudden loss of vision in one eye. You think it is nothing."]
    assert (
        turn_flaw("I noticed a bit of trouble seeing things.", [], [], due) == "leaves out what it must tell"
    )
    told = "Since this morning I suddenly lost the vision in one eye, probably nothing though."
    assert turn_flaw(told, [], [], due) is None
    assert first_person(due[0]) == (
        "Since this morning I have had this: sudden loss of vision in one eye. I think it is nothing."
    )
    assert first_person("Your husband, who is with you, says you should rest.") == (
        "My husband, who is with me, says I should rest."
    )


def test_a_patient_repeating_its_own_message_is_flagged_and_a_copied_fact_is_voiced():
    before = [
        ConversationTurn(
            **IDS, turn=1, text="Can you tell me what macular degeneration is, please?", answer="Yes."
        )
    ]
    again = "Can you tell me what macular degeneration is, please? I wonder."
    assert turn_flaw(again, before, KEPT) == "repeats an earlier message of its own"
    assert turn_flaw("And how is it treated?", before, KEPT) is None
    # every flaw is listed, in the order the checks run; the first is the flag
    both = "How can I help you today? Can you tell me what macular degeneration is, please?"
    assert turn_flaws(both, before, KEPT) == [
        "speaks as the chatbot",
        "repeats an earlier message of its own",
    ]
    assert turn_flaw(both, before, KEPT) == "speaks as the chatbot"
    facts = [
        "Since this morning you have had this: sudden loss of vision in one eye. You think it is nothing."
    ]
    copied = "Hi. Since this morning you have had this: sudden loss of vision in one eye. Can you help?"
    assert in_own_voice(copied, facts) == (
        "Hi. Since this morning I have had this: sudden loss of vision in one eye. Can you help?"
    )
    assert (
        in_own_voice("Can you help me with my eye drops today?", facts)
        == "Can you help me with my eye drops today?"
    )
