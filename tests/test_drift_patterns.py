"""Drift the aspect check cannot see: a second question, a reversed relation, a personalised
scope (hand-made questions; the kidney-stone ones are the issue's)."""

import pytest

from simpop.population.drift_patterns import asks_two_things, pattern_drift

DRIFTS = [
    ("What causes it?", "causes", "What does it lead to?", "asks what it causes"),
    ("What causes it?", "causes", "What can it cause in older people?", "asks what it causes"),
    ("What causes it?", "causes", "What are the effects of it on the body?", "asks what it causes"),
    ("What causes it?", "causes", "What happens to my kidneys when it forms?", "asks what it causes"),
    ("Who is at risk for it?", "susceptibility", "Am I at risk for it?", "asks about the writer"),
    (
        "Who is at risk for it?",
        "susceptibility",
        "How can I determine if I am at risk?",
        "asks about the writer",
    ),
    ("What is it?", "information", "Do I have it?", "asks about the writer"),
    (
        "What are the symptoms of it?",
        "symptoms",
        "What are the symptoms and how is it treated?",
        "asks a second",
    ),
    (
        "What are the symptoms of it?",
        "symptoms",
        "What are the symptoms and treatments of it?",
        "asks a second",
    ),
    ("How to diagnose it?", "diagnosis", "How is it found, and what are the signs?", "asks a second"),
    ("What are the symptoms of it?", "symptoms", "What is it and its symptoms?", "asks a second"),
    ("What are the symptoms of it?", "symptoms", "Do you have any signs of it?", "asks about the bot"),
    ("What is it?", "information", "Could you tell me if you have it?", "asks about the bot"),
    ("What are the symptoms of it?", "symptoms", "What are the symptoms of it in children?", "narrows"),
    ("Who is at risk for it?", "susceptibility", "What is the risk of getting it again?", "narrows"),
    ("How to diagnose it?", "diagnosis", "How do you diagnose it at home?", "narrows"),
    ("Who is at risk for it?", "susceptibility", "What is the risk of it for me?", "asks about the writer"),
]

KEPT = [
    ("What causes it?", "causes", "Why do people get it?"),
    ("What causes it?", "causes", "What can cause it in adults?"),
    ("How to prevent it?", "prevention", "What can I do to lower my risk of it?"),
    ("Who is at risk for it?", "susceptibility", "What raises my risk of getting it?"),
    ("What are the symptoms of it?", "symptoms", "How can I tell if I have it?"),
    ("What are the symptoms of it?", "symptoms", "What are the signs and symptoms of it?"),
    ("What is it?", "information", "What is it, can you tell me?"),
    ("Is it inherited?", "inheritance", "Do I have it because my mother had it?"),
    ("What are the symptoms and treatments of it?", "symptoms", "What are its symptoms and treatments?"),
    ("How to diagnose it?", "diagnosis", "How do you diagnose it?"),
    ("What are the symptoms of it?", "symptoms", "What do you usually feel with it?"),
    ("What is it in children?", "information", "What is it in children?"),
]


@pytest.mark.parametrize(("seed", "aspect", "probe", "reason"), DRIFTS)
def test_a_reversed_personalised_or_second_question_drifts(seed, aspect, probe, reason):
    found = pattern_drift(seed, probe, aspect)
    assert found is not None and found.startswith(reason)


@pytest.mark.parametrize(("seed", "aspect", "probe"), KEPT)
def test_the_seeds_question_in_other_words_fits_no_pattern(seed, aspect, probe):
    assert pattern_drift(seed, probe, aspect) is None


def test_two_aspects_count_only_when_joined():
    assert asks_two_things("the symptoms or the treatment of it")
    assert not asks_two_things("what symptoms does the treatment of it cause")
    assert not asks_two_things("the signs and symptoms of it")
