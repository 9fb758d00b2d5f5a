"""The German meaning check on hand-built seed/message pairs (issue 73, part 4): German words,
compounds and umlauts for the topic, German drift patterns, German aspect wordings embedded by
multilingual-e5-small; a language the check has no tables for is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from simpop.population.drift_patterns import asks_two_things, pattern_drift
from simpop.population.drift_patterns_de import GERMAN
from simpop.population.meaning import AspectModel, check_meaning, mask_topic, names_topic, topic_words
from simpop.population.meaning_language import meaning_language

EVERYDAY = {"Brustkrebs": "Krebs in der Brust"}


def test_german_topic_words_masks_and_naming():
    assert topic_words("Brustkrebs beim Mann", "de") == ("brustkrebs", "mann")  # "beim": a stop word
    # a compound the topic begins keeps its rest; inflections and umlauts are the topic too
    assert mask_topic("Wie hoch ist mein Brustkrebsrisiko?", "Brustkrebs", language="de") == (
        "Wie hoch ist mein Risiko?"
    )
    assert mask_topic("Ist es bei Männern erblich?", "Brustkrebs beim Mann", language="de") == (
        "Ist es bei es erblich?"
    )
    assert mask_topic("Was ist Brustkrebs?", "Brustkrebs", language="de") == "Was ist es?"
    assert names_topic("Tut eine Brustkrebsbehandlung weh?", "Brustkrebs", language="de")
    assert names_topic("Ist Krebs in der Brust erblich?", "Brustkrebs", EVERYDAY, language="de")
    assert not names_topic("Meine Frage ist: Was ist dein Alter?", "Brustkrebs", EVERYDAY, language="de")


@pytest.mark.parametrize(
    ("seed", "message", "aspect", "reason"),
    [
        (
            "Wie wird es behandelt?",
            "Was sind die Symptome und wie wird es behandelt?",
            "treatment",
            "a second",
        ),
        (
            "Wie wird es behandelt?",
            "Welche Anzeichen und welche Behandlung gibt es?",
            "treatment",
            "a second",
        ),
        ("Was verursacht es?", "Wozu führt es im Körper?", "causes", "asks what it causes"),
        ("Welche Symptome hat es?", "Haben Sie selbst schon Symptome gehabt?", "symptoms", "the bot's own"),
        ("Wie wird es behandelt?", "Wie wird es bei Kindern behandelt?", "treatment", "narrows"),
        (
            "Wer hat ein erhöhtes Risiko für es?",
            "Habe ich ein erhöhtes Risiko?",
            "susceptibility",
            "the writer",
        ),
    ],
)
def test_german_drift_patterns(seed, message, aspect, reason):
    assert reason in pattern_drift(seed, message, aspect, GERMAN)


def test_german_patterns_leave_the_seeds_own_question_alone():
    treatment = ("Wie wird es behandelt?", "Welche Behandlung gibt es dafür?", "treatment")
    assert pattern_drift(*treatment, GERMAN) is None
    # the seed asks about the writer's own case itself: not a drift
    own = ("Habe ich ein erhöhtes Risiko?", "Habe ich ein höheres Risiko?", "susceptibility")
    assert pattern_drift(*own, GERMAN) is None
    assert not asks_two_things("Welche Untersuchungen macht man, um es festzustellen?", GERMAN)


@pytest.fixture(scope="module")
def german_aspects(tmp_path_factory: pytest.TempPathFactory):
    from simpop.embed import Embedder
    from simpop.models import MULTILINGUAL_EMBEDDING_MODEL, EmbeddingConfig

    cache: Path = tmp_path_factory.mktemp("e5") / "e.sqlite"
    embedder = Embedder(EmbeddingConfig(model=MULTILINGUAL_EMBEDDING_MODEL), cache_path=cache)
    yield AspectModel(embedder, "de")
    embedder.close()


@pytest.mark.parametrize(
    ("seed", "qtype", "message"),
    [
        (
            "Wie wird Brustkrebs behandelt?",
            "treatment",
            "Was können die Ärzte gegen meinen Brustkrebs machen?",
        ),
        ("Ist Brustkrebs erblich?", "inheritance", "Liegt Brustkrebs in der Familie?"),
        ("Welche Symptome hat Brustkrebs?", "symptoms", "Woran merkt man, dass man Brustkrebs hat?"),
    ],
)
def test_a_german_rewording_keeps_its_meaning(german_aspects, seed, qtype, message):
    [check] = check_meaning(german_aspects, seed, [message], "Brustkrebs", qtype, EVERYDAY)
    assert check.kept, check.reason


@pytest.mark.parametrize(
    ("seed", "qtype", "message", "reason"),
    [
        ("Tut Brustkrebs weh?", "symptoms", "Meine Frage ist: Was ist dein Alter?", "does not name"),
        (
            "Wie wird Brustkrebs behandelt?",
            "treatment",
            "Welche Symptome hat Brustkrebs?",
            "asks about symptoms",
        ),
        (
            "Ist Brustkrebs erblich?",
            "inheritance",
            "Wie kann man Brustkrebs vorbeugen?",
            "asks about prevention",
        ),
    ],
)
def test_a_different_german_question_drifts(german_aspects, seed, qtype, message, reason):
    [check] = check_meaning(german_aspects, seed, [message], "Brustkrebs", qtype, EVERYDAY)
    assert not check.kept and check.reason.startswith(reason)


def test_a_language_without_tables_is_a_clear_error():
    with pytest.raises(ValueError, match="the meaning check has no 'fr' \\(it has de, en\\)"):
        meaning_language("fr")
