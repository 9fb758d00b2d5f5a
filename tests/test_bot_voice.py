"""The classifier of a patient's message in the bot's voice (issue 42)."""

from __future__ import annotations

import math

from simpop.population.bot_voice import bot_voice_probability, speaks_as_the_bot, terms
from simpop.population.conversation_fidelity import turn_flaws


def test_terms_are_scikit_learn_s_unigrams_and_bigrams():
    # the default token pattern drops one-letter words ("I", "a")
    assert terms("I see a Doctor, doctor!") == ["see", "doctor", "doctor", "see doctor", "doctor doctor"]


def test_the_probability_is_sublinear_tf_idf_l2_normalised_through_the_logistic():
    weights = {"hello": (2.0, 1.0), "hello there": (1.0, -1.0)}
    # "hello" twice: (1 + ln 2) * 2 = 3.3863; "hello there" once: 1 * 1; "there" has no weight
    x = [(1 + math.log(2)) * 2.0, 1.0]
    norm = math.hypot(*x)  # 3.5309
    z = 0.5 + x[0] / norm * 1.0 + x[1] / norm * -1.0  # 0.5 + 0.9591 - 0.2832 = 1.1758
    expected = 1 / (1 + math.exp(-z))
    assert abs(bot_voice_probability("Hello there hello", weights, 0.5) - expected) < 1e-12
    assert abs(expected - 0.7642) < 1e-4
    assert bot_voice_probability("nothing known", weights, 0.0) == 0.5


def test_the_shipped_classifier_finds_the_bot_s_voice_the_phrase_patterns_miss():
    as_bot = (
        "Of course, you can use the new drops with your other tablets. "
        "They're both important for your eye health."
    )
    assert speaks_as_the_bot(as_bot) and "speaks as the chatbot" in turn_flaws(as_bot, [], [])
    patient = "My husband says it is only indigestion. Should I wait until the morning?"
    assert not speaks_as_the_bot(patient) and turn_flaws(patient, [], []) == []
