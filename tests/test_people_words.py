"""A seed's topic in the words a person uses, and the check for a message that copies the
catalogue's phrase."""

from __future__ import annotations

import pytest

from simpop.models import MessageStyle, Persona
from simpop.population.message_style import compose
from simpop.population.people_words import (
    catalogue_phrase,
    copies_phrase,
    in_peoples_words,
    spoken_topic,
    would_not_say,
)
from simpop.population.probes import ProbeSource


@pytest.mark.parametrize(
    ("topic", "spoken"),
    [
        ("Kidney Stones in Adults", "kidney stones"),
        ("Urinary Tract Infections in Children", "urinary tract infections"),
        ("Age-related Macular Degeneration (AMD)", "age-related macular degeneration"),
        ("Leukemia, Adult Acute", "adult acute leukemia"),
        ("Diabetes, Type 2 - Overview", "type 2 diabetes"),
        ("Parkinson's Disease", "Parkinson's disease"),
        ("HIV/AIDS", "HIV/AIDS"),
        ("Glaucoma", "glaucoma"),
    ],
)
def test_spoken_topic(topic, spoken):
    assert spoken_topic(topic) == spoken


def test_only_a_phrase_of_three_words_a_person_says_otherwise_is_a_catalogue_phrase():
    assert catalogue_phrase("Kidney Stones in Adults") == "Kidney Stones in Adults"
    assert catalogue_phrase("Diabetic Retinopathy") is None  # two words
    assert catalogue_phrase("Vision Impairment and Blindness") is None  # said the same way


def _persona(literacy: str) -> Persona:
    return Persona(
        id="p", name="P", vignette="You are a patient.", health_literacy=literacy, language_level="native"
    )


def test_a_copy_of_the_catalogue_phrase_is_flagged_unless_the_persona_has_high_literacy():
    topic = "Kidney Stones in Adults"
    assert would_not_say(topic, _persona("high")) is None
    phrase = would_not_say(topic, _persona("low"))
    assert copies_phrase("Can you describe Kidney Stones in Adults?", phrase)
    assert copies_phrase("what are kidney-stones in adults", phrase)
    assert not copies_phrase("My son has kidney stones, is that common in kids?", phrase)


def test_the_seed_is_shown_and_the_story_told_in_a_persons_words():
    source = ProbeSource(questions=["What causes Kidney Stones in Adults ?"], topic="Kidney Stones in Adults")
    assert source.shown_questions == ["What causes kidney stones?"]
    assert in_peoples_words("What is (are) Glaucoma ?", None) == "What is (are) Glaucoma ?"
    persona = _persona("low").model_copy(update={"style": MessageStyle(story=1.0, relative=0.0)})
    for seed in range(20):
        message, _, _ = compose(
            "What causes them?", persona, "Kidney Stones in Adults", seed, story_needed=True
        )
        assert "kidney stones" in message and "in adults" not in message.lower()
