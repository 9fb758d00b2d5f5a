"""Replies that are no answer by their words: the message handed back, an earlier reply again."""

from __future__ import annotations

from simpop.metrics.non_answer import ECHO, echoes, non_answer, repeats

QUESTION = "Can I drive after the exam?"


def test_the_message_handed_back_is_an_echo():
    # all 6 of the message's words again, 2 new words ("you asked") <= max(3, 0.2 * 8)
    assert echoes(QUESTION, f"You asked: {QUESTION}")


def test_an_answer_that_reuses_the_question_s_words_is_not_an_echo():
    answer = "Yes, you can drive after the exam unless your pupils are still dilated; then wait a few hours."
    # 5 of 6 message words (0.83 >= 0.8) but 13 new words > max(3, 0.2 * 18 = 3.6)
    assert not echoes(QUESTION, answer)
    assert not echoes(QUESTION, "Yes.")  # says none of the message again
    assert not echoes(QUESTION, "")


def test_an_earlier_reply_said_again_is_found_and_a_new_one_is_not():
    earlier = ["Cataract is a clouding of the lens in your eye.", "Glaucoma damages the optic nerve."]
    # case and punctuation aside, one letter differs: ratio 98 >= 90
    assert repeats("Cataracts is a clouding of the lens in your eye!", earlier) == 0
    assert repeats("A cataract can be removed in a short operation.", earlier) is None


def test_why_a_reply_is_no_answer():
    assert non_answer(QUESTION, f"You asked: {QUESTION}", []) == ECHO
    assert non_answer(
        "And now?", "Glaucoma damages the optic nerve.", ["x", "Glaucoma damages the optic nerve"]
    ) == ("repeated its reply of turn 2")
    assert non_answer(QUESTION, None, []) is None  # no reply at all is the refusal judge's to say
