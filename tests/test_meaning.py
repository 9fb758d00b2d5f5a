"""The meaning check on hand-built seed/probe pairs: the same question reworded keeps its
seed's meaning; a different question about the same disease, or another disease, does not."""

from __future__ import annotations

import pytest

from simpop.population.meaning import (
    AspectModel,
    aspect_of_qtype,
    check_meaning,
    mask_topic,
    names_topic,
    topic_words,
)

EVERYDAY = {"cataract": "cloudy eye", "surgery": "operation"}

SAME = [  # (seed, topic, MedQuAD qtype, the seed's question in a patient's words)
    (
        "How to diagnose Breast Cancer ?",
        "Breast Cancer",
        "exams and tests",
        "How do doctors find out if I have breast cancer?",
    ),
    (
        "How to diagnose Breast Cancer ?",
        "Breast Cancer",
        "exams and tests",
        "What tests will they do to check my breast lump for cancer?",
    ),
    (
        "Who is at risk for Breast Cancer? ?",
        "Breast Cancer",
        "susceptibility",
        "Who is more likely to get breast cancer?",
    ),
    ("What is the outlook for Breast Cancer ?", "Breast Cancer", "outlook", "Will I survive breast cancer?"),
    (
        "What are the symptoms of Male Breast Cancer ?",
        "Male Breast Cancer",
        "symptoms",
        "What signs should a man look for with breast cancer?",
    ),
    ("What is (are) Cataract ?", "Cataract", "information", "what is this cloudy eye thing i have"),
    (
        "What are the treatments for Cataract ?",
        "Cataract",
        "treatment",
        "Can they fix my cataracts with an operation?",
    ),
    ("Is Glaucoma inherited ?", "Glaucoma", "inheritance", "Does glaucoma run in families?"),
]
DIFFERENT = [  # (seed, topic, qtype, a different question, the reason's start)
    (
        "How to diagnose Breast Cancer ?",
        "Breast Cancer",
        "exams and tests",
        "What are the symptoms of breast cancer?",
        "asks about symptoms",
    ),
    (
        "How to diagnose Breast Cancer ?",
        "Breast Cancer",
        "exams and tests",
        "How is breast cancer treated?",
        "asks about treatment",
    ),
    (
        "Who is at risk for Breast Cancer? ?",
        "Breast Cancer",
        "susceptibility",
        "What is the main cause of breast cancer?",
        "asks about causes",
    ),
    (
        "Who is at risk for Breast Cancer? ?",
        "Breast Cancer",
        "susceptibility",
        "Who is at risk for a heart attack?",
        "does not name",
    ),
    (
        "What is the outlook for Breast Cancer ?",
        "Breast Cancer",
        "outlook",
        "What are the stages of breast cancer?",
        "asks about stages",
    ),
    ("What is (are) Cataract ?", "Cataract", "information", "What is a cat? Is it a pet?", "does not name"),
    (
        "What is (are) Breast Cancer ?",
        "Breast Cancer",
        "information",
        "What is thyroid cancer?",
        "does not name",
    ),
    (
        "What are the treatments for Cataract ?",
        "Cataract",
        "treatment",
        "How do I know if I have a cataract?",
        "asks about diagnosis",
    ),
    (
        "What causes Kidney Stones in Adults ?",
        "Kidney Stones in Adults",
        "causes",
        "What does kidney stones lead to?",
        "asks what it causes",
    ),
    (
        "Who is at risk for Kidney Stones in Adults? ?",
        "Kidney Stones in Adults",
        "susceptibility",
        "How can I determine if I am at risk for kidney stones?",
        "asks about the writer's own case",
    ),
    (
        "What are the symptoms of Kidney Stones in Adults ?",
        "Kidney Stones in Adults",
        "symptoms",
        "What are the signs of kidney stones and how are they treated?",
        "asks a second question",
    ),
]


@pytest.fixture(scope="module")
def aspects(embedder):
    return AspectModel(embedder)


@pytest.mark.parametrize(("seed", "topic", "qtype", "probe"), SAME)
def test_the_same_question_reworded_keeps_its_meaning(aspects, seed, topic, qtype, probe):
    [check] = check_meaning(aspects, seed, [probe], topic, qtype, EVERYDAY)
    assert check.kept, check.reason


@pytest.mark.parametrize(("seed", "topic", "qtype", "probe", "reason"), DIFFERENT)
def test_a_different_question_about_the_same_disease_drifts(aspects, seed, topic, qtype, probe, reason):
    [check] = check_meaning(aspects, seed, [probe], topic, qtype, EVERYDAY)
    assert not check.kept
    assert check.reason.startswith(reason)


def test_without_a_qtype_the_seed_aspect_is_read_from_the_seed(aspects):
    [kept, drifted] = check_meaning(
        aspects, "Can cataract surgery be done on both eyes ?", ["Can they operate on both my eyes?"], None
    ) + check_meaning(aspects, "What causes Dry Eye ?", ["How do they treat dry eye?"], "Dry Eye")
    assert kept.kept
    assert (drifted.seed_aspect, drifted.probe_aspect, drifted.kept) == ("causes", "treatment", False)


def test_a_pronoun_may_stand_for_the_topic_named_in_the_story(aspects):
    seed, topic = "Is Breast Cancer inherited ?", "Breast Cancer"
    story = "My mother had breast cancer when she was 50."
    [with_story] = check_meaning(aspects, seed, ["Will I get it too?"], topic, "inheritance", context=[story])
    [alone] = check_meaning(aspects, seed, ["Will I get it too?"], topic, "inheritance")
    assert with_story.kept and not alone.kept


def test_topic_words_masking_and_naming():
    assert topic_words("Diabetic Eye Problems")[0] == "diabetic"  # the rarest word first
    assert mask_topic("What is (are) Breast Cancer ?", "Breast Cancer") == "What is  it ?"
    assert mask_topic("my cloudy eyes are bad", "Cataract", EVERYDAY) == "my it are bad"
    assert names_topic("Do my cataracts need surgery?", "Cataract")
    assert names_topic("can they fix my cloudy eye", "Cataract", EVERYDAY)
    assert not names_topic("What is a cat?", "Cataract", EVERYDAY)
    assert aspect_of_qtype("exams and tests") == "diagnosis"
    assert aspect_of_qtype("no such type") is None
