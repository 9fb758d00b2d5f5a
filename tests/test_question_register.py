"""Each persona keeps the usable wordings nearest its register (hand-made candidates)."""

from __future__ import annotations

from simpop.models import Fidelity, Persona
from simpop.population.fidelity import most_usable
from simpop.population.language_level import level_score
from simpop.population.probes import angles
from simpop.population.question_register import register_order
from simpop.population.readability import reading_grade

PLAIN = "Why do I get stones?"
MIDDLE = "What makes gallstones form in the body?"
PRECISE = "Which physiological mechanisms predispose individuals to cholesterol gallstone formation?"
CANDIDATES = [MIDDLE, PRECISE, None, PLAIN]


def _persona(literacy: str = "medium", level: str = "native", language: str = "en") -> Persona:
    return Persona(
        id="p", name="p", vignette="v", health_literacy=literacy, language_level=level, language=language
    )


def _ok() -> Fidelity:
    return Fidelity(reading_grade=None, words=3, seed_similarity=None, duplicate_of=None, valid=True)


def test_the_hand_made_wordings_differ_in_grade_and_level():
    assert reading_grade(PLAIN) < reading_grade(MIDDLE) < reading_grade(PRECISE)
    assert level_score(PLAIN) < level_score(PRECISE)


def test_low_literacy_keeps_the_plainest_high_the_most_precise():
    checks = [_ok(), _ok(), None, _ok()]
    low = most_usable(checks, 1, order=register_order(CANDIDATES, _persona("low")))
    high = most_usable(checks, 1, order=register_order(CANDIDATES, _persona("high")))
    assert [CANDIDATES[i] for i in low] == [PLAIN]
    assert [CANDIDATES[i] for i in high] == [PRECISE]


def test_medium_keeps_the_middle_and_a_learner_the_lowest_level():
    checks = [_ok(), _ok(), None, _ok()]
    middle = most_usable(checks, 1, order=register_order(CANDIDATES, _persona()))
    learner = most_usable(checks, 1, order=register_order(CANDIDATES, _persona("high", "A2")))
    assert [CANDIDATES[i] for i in middle] == [MIDDLE]
    assert [CANDIDATES[i] for i in learner] == [PLAIN]


GERMAN = [
    "Welche diagnostischen Verfahren werden zur Abklärung eines Mammakarzinoms eingesetzt?",
    "Wie findet man Brustkrebs?",
    None,
    "Wie stellt der Arzt Brustkrebs fest?",
]


def test_german_wordings_are_kept_by_the_german_reading_grade():
    checks = [_ok(), _ok(), None, _ok()]
    low = most_usable(checks, 1, order=register_order(GERMAN, _persona("low", language="de")))
    high = most_usable(checks, 1, order=register_order(GERMAN, _persona("high", language="de")))
    learner = most_usable(checks, 1, order=register_order(GERMAN, _persona("high", "A2", language="de")))
    # Wiener Sachtextformel: 18.2, 1.4 and -0.4
    assert [GERMAN[i] for i in low] == [GERMAN[3]] == [GERMAN[i] for i in learner]
    assert [GERMAN[i] for i in high] == [GERMAN[0]]


def test_another_language_and_copies_of_the_seed_keep_their_place():
    checks = [_ok(), _ok(), None, _ok()]
    french = register_order(CANDIDATES, _persona("low", language="fr"))  # no reading grade for French
    assert most_usable(checks, 3, order=french) == [0, 1, 3]
    # a copy of the seed goes last whatever its register
    assert most_usable(checks, 3, last={3}, order=register_order(CANDIDATES, _persona("low"))) == [0, 1, 3]


def test_the_prompt_asks_each_register_for_its_own_wordings():
    plain, formal = angles("wording", _persona("low")), angles("wording", _persona("high"))
    learner, standard = angles("wording", _persona("high", "A2")), angles("wording")
    assert len({tuple(plain), tuple(formal), tuple(learner), tuple(standard)}) == 4
    assert all(len(a) >= 8 for a in (plain, formal, learner, standard))  # one per question asked
    assert angles("wording", _persona()) == standard
