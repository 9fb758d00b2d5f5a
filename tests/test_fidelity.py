from __future__ import annotations

import json

import pytest

from simpop.models import Fidelity, Persona, Probe
from simpop.population.fidelity import (
    check_group,
    distinct_ratio,
    flaw,
    most_usable,
    near_duplicates,
    same_words,
)
from simpop.population.fidelity_summary import fidelity_summary
from simpop.population.message_style import ages_fit
from simpop.population.readability import reading_grade, syllables


def test_reading_grade_hand_computed():
    # 6 words, 1 sentence, 6 syllables: 0.39 * 6 + 11.8 * 1 - 15.59
    assert reading_grade("The cat sat on the mat.") == pytest.approx(-1.45)
    # 4 words, 2 sentences, 7 syllables (glau-co-ma, pain-ful): 0.39 * 2 + 11.8 * 7 / 4 - 15.59
    assert reading_grade("Is glaucoma painful? Yes.") == pytest.approx(
        0.39 * 2 + 11.8 * 7 / 4 - 15.59, abs=0.01
    )
    assert reading_grade("???") is None
    # a last sentence without a stop is a sentence too: 5 words in 2 sentences, 5 syllables
    assert reading_grade("I feel bad. what now") == pytest.approx(0.39 * 5 / 2 + 11.8 * 1 - 15.59, abs=0.01)
    assert [syllables(w) for w in ("eye", "operation", "blorpit", "flarbe")] == [
        1,
        4,
        2,
        1,
    ]  # dictionary, then vowel groups


def test_near_duplicates_and_distinct_ratio():
    texts = [
        "What is glaucoma?",
        "what is  glaucoma?",
        "What is glaucoma ?",
        None,
        "How is glaucoma treated?",
    ]
    assert near_duplicates(texts) == [None, 0, 0, None, None]
    assert distinct_ratio(["a b c", "A b c", "x y z", "p q r"]) == 0.75
    # the count near_duplicates gives: 3 distinct and the empty message of 5
    assert distinct_ratio(texts[:3] + ["", "How is glaucoma treated?"]) == 0.6


def test_flaws_of_generated_questions():
    assert (
        flaw("What is a cataract exactly?", ["what is a cataract exactly"], "")
        == "copies an example of the prompt"
    )
    prompt = "The chatbot is for an information line of an eye clinic for adult patients and their families."
    echo = "The chatbot is for an information line of an eye clinic for adults, what is it?"
    assert flaw(echo, [], prompt) == "echoes the prompt"
    assert (
        flaw("Can it make me blind? Can it make me blind? Can it make me blind?", [], "") == "repeats itself"
    )
    assert flaw("Can it make me blind? And does it hurt?", ["Is it bad?"], prompt) is None


def test_most_usable_prefers_valid_distinct_candidates():
    checks = [
        Fidelity(reading_grade=1, words=2, valid=False),
        None,
        Fidelity(reading_grade=1, words=2),
        Fidelity(reading_grade=1, words=2, duplicate_of=2),
        Fidelity(reading_grade=1, words=2),
    ]
    assert most_usable(checks, 2) == [2, 4]
    assert most_usable(checks, 4) == [2, 4, 0, 1]
    assert most_usable(checks, 2, last={2}) == [4, 2]  # a copy of the seed comes after the others


def test_check_group_marks_drifted_meaning_invalid(embedder):
    seed = "What is (are) Glaucoma ?"
    texts = [
        "what is glaucoma exactly",
        "What is glaucoma exactly?",
        "Where can I park my car at the hospital?",
        None,
    ]
    checks = check_group(texts, seed, embedder, min_similarity=0.6)
    assert checks[0].valid and checks[0].seed_similarity > 0.6 and checks[0].duplicate_of is None
    assert checks[1].duplicate_of == 0
    assert not checks[2].valid and checks[2].seed_similarity < 0.6 and "drifted" in checks[2].reason
    assert checks[3] is None
    unbound = check_group(texts, seed, embedder, min_similarity=None)
    assert unbound[2].valid  # scenarios that write new questions are not held to the seed


def test_check_group_marks_a_copy_of_the_catalogue_phrase_invalid(embedder):
    texts = ["Can you describe Kidney Stones in Adults?", "What are kidney stones, and why do I get them?"]
    checks = check_group(
        texts, "What is (are) Kidney Stones in Adults ?", embedder, None, catalogue="Kidney Stones in Adults"
    )
    assert (
        not checks[0].valid and checks[0].reason == "copies the catalogue's wording 'Kidney Stones in Adults'"
    )
    assert checks[1].valid


def _persona(pid: str, literacy: str) -> Persona:
    return Persona(id=pid, name=pid, vignette="v", health_literacy=literacy, language_level="native")


def _probe(
    pid: str, i: int, text: str | None, grade: float, valid: bool = True, twin: int | None = None
) -> Probe:
    fidelity = None
    if text:
        fidelity = Fidelity(reading_grade=grade, words=len(text.split()), duplicate_of=twin, valid=valid)
    return Probe(
        run_id="r",
        cell_id=f"{pid}{i}",
        persona_id=pid,
        scenario_id="s",
        seed_id="q",
        variant=i,
        text=text,
        noisy_text="I have i pain" if pid == "low" and text else None,
        expected_behaviour="answer",
        fidelity=fidelity,
        sampling_seed=0,
        prompt="p",
        llm_model="m",
    )


def test_fidelity_summary_shares_and_warnings():
    personas = [_persona("low", "low"), _persona("high", "high")]
    probes = [
        _probe("low", 0, "I have eye pain today", 9.0),
        _probe("low", 1, "I have eye pain today", 9.0, twin=0),
        _probe("low", 2, "Where do I park?", 8.0, valid=False),
        _probe("low", 3, None, 0.0),
        _probe("high", 0, "What is glaucoma?", 4.0),
        _probe("high", 1, "How is glaucoma treated?", 6.0),
    ]
    summary = fidelity_summary(personas, probes)
    low = summary.personas[0]
    assert (low.planned, low.generated, low.invalid) == (4, 3, 1)
    assert low.valid_share == 0.25 and low.duplicate_share == pytest.approx(0.333)
    assert low.distinct_ratio == pytest.approx(0.667) and low.mean_reading_grade == pytest.approx(8.667)
    # "I have i pain" for 5 + 5 + 4 words: 2 + 2 + 3 (where/do/park substituted) errors
    assert low.noisy == 3 and low.noisy_wer == pytest.approx(7 / 14)
    # by literacy: the valid probes only (the invalid "Where do I park?" is left out)
    assert summary.reading_grade_by_literacy == {"low": 9.0, "medium": None, "high": 5.0}
    assert any("do not rise" in w for w in summary.warnings)
    # the share of the probes written: the one the LLM never wrote is the run's failure
    [low_warning] = [w for w in summary.warnings if "'low'" in w]
    assert "only 33% of its written probes are usable" in low_warning and "1 not written" in low_warning
    assert not any("'high'" in w for w in summary.warnings)


def test_reading_grades_must_rise_with_intervals_apart():
    personas = [_persona("low", "low"), _persona("high", "high")]

    def probes(low: list[float], high: list[float]) -> list[Probe]:
        return [_probe("low", i, "a b", g) for i, g in enumerate(low)] + [
            _probe("high", i, "c d", g) for i, g in enumerate(high)
        ]

    apart = fidelity_summary(personas, probes([3.0, 3.5, 4.0], [9.0, 9.5, 10.0]))
    assert not any("reading grades" in w for w in apart.warnings)
    overlapping = fidelity_summary(personas, probes([3.0, 6.0, 9.0], [4.0, 7.0, 10.0]))
    assert any("rise, but their 95% intervals overlap" in w for w in overlapping.warnings)


def test_a_learner_is_left_out_of_the_health_literacy_ordering():
    """A learner at medium health literacy writes plainly because of her language level: counted
    in medium, her grade 2 would put medium below low."""
    learner = _persona("learner", "medium").model_copy(update={"language_level": "A2"})
    personas = [_persona("low", "low"), _persona("mid", "medium"), learner, _persona("high", "high")]
    grades = {"low": [3.0, 3.5, 4.0], "mid": [6.0, 6.5, 7.0], "learner": [1.0, 1.5, 2.0, 1.0, 1.5, 2.0],
              "high": [9.0, 9.5, 10.0]}  # fmt: skip
    probes = [_probe(pid, i, "a b", g) for pid, values in grades.items() for i, g in enumerate(values)]
    summary = fidelity_summary(personas, probes)
    assert summary.reading_grade_by_literacy == {"low": 3.5, "medium": 6.5, "high": 9.5}
    assert not any("reading grades" in w for w in summary.warnings)
    # the same learner at native level counts, and medium no longer rises above low
    native = learner.model_copy(update={"language_level": "native"})
    counted = fidelity_summary([personas[0], personas[1], native, personas[3]], probes)
    medium = (6.0 + 6.5 + 7.0 + 2 * 4.5) / 9
    assert counted.reading_grade_by_literacy["medium"] == pytest.approx(medium, abs=1e-3)
    assert any("do not rise" in w for w in counted.warnings)


def test_the_literacy_grades_are_of_the_question_alone_where_it_was_written_alone():
    personas = [_persona("low", "low"), _persona("high", "high")]
    plain, precise = (
        "Why do I get stones?",
        "Which physiological mechanisms predispose individuals to gallstones?",
    )
    probes = []
    for i in range(3):
        # the story around each question (its message grade) says the opposite of the questions
        low, high = _probe("low", i, "story " + plain, 12.0), _probe("high", i, "story " + precise, 1.0)
        low.fidelity.question, high.fidelity.question = plain, precise
        probes += [low, high]
    summary = fidelity_summary(personas, probes)
    grades = summary.reading_grade_by_literacy
    assert grades["low"] == pytest.approx(reading_grade(plain)) and grades["high"] == pytest.approx(
        reading_grade(precise)
    )
    assert not any("reading grades" in w for w in summary.warnings)


def test_typical_personas_are_compared_with_real_messages(tmp_path):
    real = tmp_path / "real.jsonl"
    stories = ["My mum has glaucoma. Does it run in families?", "I was told I have it. what now", "is it bad"]
    real.write_text("".join(json.dumps({"message": m}) + "\n" for m in stories))
    typical = _persona("typ", "medium").model_copy(update={"tags": ["typical"]})
    texts = ["What is glaucoma?", "How is glaucoma treated?", "Is it bad?"]
    summary = fidelity_summary([typical], [_probe("typ", i, t, 5.0) for i, t in enumerate(texts)], real)
    assert summary.reference.n == 3 and summary.reference.median_words == 8  # 9, 8 and 3 words
    assert summary.reference.context == pytest.approx(0.667) and summary.reference.no_question_mark == 0.667
    shapes = summary.shapes["typ"]
    assert (shapes.median_words, shapes.context, shapes.no_question_mark) == (3, 0.0, 0.0)
    [warning] = [w for w in summary.warnings if "typical" in w]
    # length (3 - 8) / 8 = -62.5%; context and question marks: -100%
    assert (
        f"median_words {-0.625:+.0%}" in warning
        and "context -100%" in warning
        and "no_question_mark -100%" in warning
        and "(3 messages; few for this test" in warning
    )
    assert summary.reference_name == "real.jsonl"


def test_leaks_of_the_prompt_the_persona_and_the_seed():
    examples = ["what actually is asthma", "Could you explain to me what asthma is, please?"]
    persona = "You are Gary, a 61-year-old retired warehouse worker who left school at 16."
    seed = "What is (are) Breast Cancer ?"
    template = "Could you explain to me what breast cancer is, please?"
    assert flaw(template, examples, "") == "copies an example of the prompt"  # one word swapped
    assert flaw("I am a 61-year-old retired warehouse worker who left school at 16.", [], "", persona) == (
        "copies the persona's description"
    )
    assert same_words("What is (are) breast cancer?", seed)  # kept, but used last (most_usable)
    assert not same_words("What is breast cancer?", seed)
    prompt = "Ask the chatbot for exactly the same information, the way you yourself would ask it."
    assert flaw(
        "I ask the chatbot for exactly the same information the way you yourself would", [], prompt
    ) == ("echoes the prompt")
    # a patient's own question keeps clear of all of them
    assert flaw("My mum had breast cancer. What is it exactly?", examples, prompt, persona) is None
    assert (
        flaw("What is breast cancer?", examples, prompt, persona) is None
    )  # short examples are not templates
    assert flaw("What is it? And how is it treated?", [], "", one_question=True) == (
        "writes more than the one question asked for"
    )
    assert flaw("What is 乳腺癌?", [], "") == "slips into another script"


def test_the_reference_shapes_are_kept_on_disk_and_follow_their_file(tmp_path):
    from simpop.paths import cache_dir
    from simpop.population.fidelity_summary import reference_shapes

    real = tmp_path / "real.jsonl"
    real.write_text('{"message": "My eye hurts. What should I do?"}\n{"message": "is glaucoma bad"}\n')
    first = reference_shapes(real)
    reference_shapes.cache_clear()  # a new process: from the file on disk
    assert reference_shapes(real) == first and first.n == 2
    assert len(list((cache_dir() / "reference-shapes").glob("*.json"))) >= 1
    real.write_text('{"message": "hello there doctor"}\n')
    reference_shapes.cache_clear()
    changed = reference_shapes(real)
    assert changed.n == 1 and changed.median_words == 3.0


def test_a_question_written_alone_that_speaks_of_the_chatbot_is_a_flaw():
    assert flaw("What eye problems can the chatbot detect?", [], "", one_question=True) == (
        "speaks of the chatbot (the prompt's wording)"
    )
    assert flaw("Can this bot tell me about glaucoma?", [], "", one_question=True) is not None
    assert flaw("What are the symptoms of glaucoma?", [], "", one_question=True) is None
    # a message to the bot may speak of it ("can this chatbot book appointments?")
    assert flaw("Can this chatbot book me an appointment?", [], "") is None


def test_ages_a_message_gives_are_counted_against_the_personas():
    assert ages_fit("I am 81 and my son is 55.", 81) is True
    assert ages_fit("I'm a 30-year-old woman.", 81) is False  # the writer's own
    assert ages_fit("My mother is 81 and has it.", 81) is False  # a relative the writer cannot have
    assert ages_fit("My 3-year-old son has cloudy eyes.", 81) is False
    assert ages_fit("My eyes hurt since 3 weeks.", 81) is None  # no age given
    assert ages_fit("I am 30.", None) is None  # no age to hold it against
    old = _persona("old", "medium").model_copy(update={"vignette": "Margaret, 81 years old."})
    texts = ["I am 81 and my eyes hurt.", "I'm 52 and my eyes hurt.", "My sister is 79.", "My eyes hurt."]
    summary = fidelity_summary([old], [_probe("old", i, t, 5.0) for i, t in enumerate(texts)])
    [row] = summary.personas
    assert (row.ages_stated, row.ages_off) == (3, 1)
    assert any("1 of the 3 messages giving an age" in w for w in summary.warnings)
