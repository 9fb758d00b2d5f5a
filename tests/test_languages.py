"""Personas in German (issue 43): the language pieces, each with hand-computed values, and the
one-line error for a language a piece does not cover."""

from __future__ import annotations

import random

import pytest
from helpers import ROOT

from simpop.errors import ConfigError
from simpop.models import MULTILINGUAL_EMBEDDING_MODEL, EmbeddingConfig, NoiseConfig, Persona
from simpop.population.language_level import language_of, language_profile
from simpop.population.languages import check_persona_language
from simpop.population.message_style import compose, frames
from simpop.population.noise import FILLERS, apply_noise, asr_noise, lexicon
from simpop.population.phonetics_de import koelner_phonetik
from simpop.population.probes import everyday_words, persona_system, scenario_prompt
from simpop.population.readability import (
    flesch_amstad,
    flesch_kincaid,
    german_syllables,
    reading_grade,
    wiener_sachtextformel,
)
from simpop.population.typos import neighbour_key, typo_noise
from simpop.prompts import load_prompt, load_prompt_data


def persona(language: str = "de", **fields) -> Persona:
    values = dict(
        id="p", name="P", vignette="Du bist Anna, 52 Jahre alt.", health_literacy="medium",
        language_level="native", language=language,
    )  # fmt: skip
    return Persona(**(values | fields))


# --- reading grade ------------------------------------------------------------------------------

GERMAN = "Die Mammographie ist eine Röntgenuntersuchung der Brust. Sie dauert kurz."


def test_german_syllables_count_vowel_nuclei() -> None:
    # Mam-mo-gra-phie, dau-ert, Fei-er, The-a-ter, Bein, Boot, Häu-ser
    counts = [
        german_syllables(w) for w in ("Mammographie", "dauert", "Feier", "Theater", "Bein", "Boot", "Häuser")
    ]
    assert counts == [4, 2, 2, 3, 1, 1, 2]


def test_wiener_sachtextformel_by_hand() -> None:
    # 10 words, 2 sentences, 20 syllables; >= 3 syllables: Mammographie (4), Röntgenuntersuchung
    # (6): MS 20; SL 5; more than six letters: the same two: IW 20; one syllable: Die, ist, der,
    # Brust, Sie, kurz: ES 60. 0.1935*20 + 0.1672*5 + 0.1297*20 - 0.0327*60 - 0.875 = 4.463
    assert wiener_sachtextformel(GERMAN) == 4.46


def test_flesch_amstad_by_hand() -> None:
    # 180 - 10/2 - 58.5 * 20/10 = 58.0
    assert flesch_amstad(GERMAN) == 58.0


def test_reading_grade_picks_the_language_formula() -> None:
    assert reading_grade(GERMAN, "de") == wiener_sachtextformel(GERMAN)
    assert reading_grade("The cat sat on the mat.", "en") == flesch_kincaid("The cat sat on the mat.")
    # longer words and sentences read harder in German, as in English
    hard = "Die Nachsorgeuntersuchungen nach brusterhaltender Operation umfassen regelmäßige Mammographien."
    assert reading_grade(hard, "de") > reading_grade("Tut das weh? Ich habe Angst.", "de")
    with pytest.raises(ConfigError, match="no reading-grade formula for language 'fr'"):
        reading_grade("Bonjour", "fr")


# --- noise ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "code"),
    [("Müller-Lüdenscheidt", "65752682"), ("Wikipedia", "3412"), ("Breschnew", "17863"), ("Xaver", "4837")],
)
def test_koelner_phonetik_published_examples(word: str, code: str) -> None:
    assert koelner_phonetik(word) == code


def test_german_speech_noise_hears_german_words() -> None:
    lex = lexicon("de")
    assert "prost" in lex.similar("brust")  # one Kölner code: 1782
    text = (
        "Ähm, ich wollte fragen, wie oft sollte ich eine Mammographie machen lassen, "
        "wenn meine Mutter Brustkrebs hatte?"
    )
    noisy = [asr_noise(text, None, seed, language="de") for seed in range(30)]
    assert noisy == [asr_noise(text, None, seed, language="de") for seed in range(30)]
    assert sum(n != text for n in noisy) >= 20
    words = {w.strip(",.?").lower() for n in noisy for w in n.split()}
    assert not words & FILLERS  # no English "um" or "uh" in a German transcript
    assert {w for w in words if w not in {x.lower().strip(",.?") for x in text.split()}} <= set(lex.ranks)


def test_german_typos_use_the_qwertz_keyboard() -> None:
    neighbours = {neighbour_key("z", random.Random(seed), "de") for seed in range(200)}
    assert neighbours == {"t", "u", "g", "h", "j"}  # on QWERTY, "z" lies beside "a", "s", "x"
    assert "ä" in {neighbour_key("ö", random.Random(seed), "de") for seed in range(200)}
    assert typo_noise("Mammographie Untersuchung", 1.0, 3, "de") != "Mammographie Untersuchung"
    assert apply_noise("Tut das weh", NoiseConfig(model="typos", rate=0.0), 1, "de") == "Tut das weh"


# --- prompts, frames, words ------------------------------------------------------------------------


def test_german_prompts_make_the_llm_write_german() -> None:
    system = persona_system(persona(language_level="A2"))
    assert "Schreibe nur auf Deutsch, auf dem Sprachniveau A2" in system
    assert "Write only" not in system
    with pytest.raises(ConfigError, match="language 'fr': no prompt file 'patient_system.j2'"):
        load_prompt("patient_system", "fr")


def test_the_builtin_variant_scenario_has_a_german_prompt() -> None:
    from simpop.population.cells import variant_scenario

    assert "Informationsblatt" in scenario_prompt(variant_scenario(), "de")
    other = variant_scenario().model_copy(update={"prompt_in": {}})
    with pytest.raises(ConfigError, match="field 'prompt_in': no prompt in language 'de'"):
        scenario_prompt(other, "de")


# words of the English frames that German does not have ("was", "am" it has)
ENGLISH_FRAME_WORDS = {
    "the",
    "and",
    "my",
    "thank",
    "thanks",
    "hello",
    "i",
    "have",
    "doctor",
    "please",
    "is",
    "with",
}


@pytest.mark.parametrize(
    "fields",
    [
        {"health_literacy": "high"},
        {"health_literacy": "low"},
        {"language_level": "A2"},
        {"tags": ["voice"], "noise": {"model": "asr"}},
    ],
)
def test_a_german_message_has_no_english_wrapper(fields: dict) -> None:
    someone = persona(**fields)
    for seed in range(60):
        body = compose("Wie oft sollte ich zur Mammographie gehen?", someone, "Brustkrebs", seed).body
        assert language_of(body) == "de", body
        assert not {w.strip(",.?!:").lower() for w in body.split()} & ENGLISH_FRAME_WORDS, body


def test_german_relatives_take_their_case() -> None:
    relatives = frames("de")["relatives"]
    assert {"kind": "father", "nom": "mein Vater", "acc": "meinen Vater", "dat": "meinem Vater"} in relatives
    bodies = [
        compose("Ist das erblich?", persona(), "Brustkrebs", s, story_needed=True).body for s in range(80)
    ]
    assert any("Vater" in b or "Mutter" in b or "Schwester" in b for b in bodies)
    assert not any("{" in b for b in bodies)


def test_german_everyday_words_match_capitalised_nouns() -> None:
    found = everyday_words(persona(health_literacy="low"), "Wie läuft eine Mammographie ab?")
    assert found and found[0][0] == "Mammographie"
    assert load_prompt_data("everyday_words", "de")[0]["Mammographie"] == found[0][1]


def test_german_messages_are_detected_as_german() -> None:
    profile = language_profile(["Ich habe Angst vor der Untersuchung.", "Tut die Mammographie weh?"], "de")
    assert profile.in_language == 1.0
    assert profile.level is None  # no CEFR model for German: word-frequency bands only
    assert 0 < profile.rare_words < 1


# --- coverage errors ----------------------------------------------------------------------------


def test_a_language_without_pieces_is_a_one_line_error() -> None:
    check_persona_language(persona("de", noise={"model": "asr"}))
    check_persona_language(persona("de"), conversations=True)
    with pytest.raises(
        ConfigError, match=r"persona 'p': language 'fr' has no prompt file 'patient_system.j2'"
    ):
        check_persona_language(persona("fr"))


def test_minilm_is_refused_for_german() -> None:
    from simpop.embed import check_model_languages, model_for
    from simpop.errors import SimpopError

    assert model_for({"en"}) == "all-MiniLM-L6-v2"
    assert model_for({"en", "de"}) == MULTILINGUAL_EMBEDDING_MODEL
    check_model_languages(EmbeddingConfig(model=MULTILINGUAL_EMBEDDING_MODEL), {"de", "en"})
    with pytest.raises(SimpopError, match="all-MiniLM-L6-v2 covers en, not 'de'"):
        check_model_languages(EmbeddingConfig(), {"de"})


def test_the_german_personas_ship_and_load() -> None:
    from simpop.config import load_personas

    found = load_personas(ROOT / "personas" / "de")
    assert {p.id for p in found} == {
        "high-literacy-de",
        "low-literacy-de",
        "low-language-literacy-de",
        "older-phone-de",
        "typical-adult-de",
    }
    assert all(p.language == "de" for p in found)
    for p in found:
        check_persona_language(p)


# --- the German demo, end to end up to the plan -------------------------------------------------


def test_the_german_demo_plans_offline(tmp_path) -> None:
    from helpers import simpop

    result = simpop("run", str(ROOT / "targets" / "breast-qap-de.yaml"), "--variants", "1", "--limit", "2",
                    "--dry-run", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    # 2 QAP variants and the ten hazard scenarios' 3 probes each, per persona, from their German prompts
    assert "plan: 160 cells; per persona: 5 × 32" in result.stdout
    assert "emergency-in-pathway 15" in result.stdout


def test_a_persona_in_an_uncovered_language_stops_the_run(tmp_path) -> None:
    from helpers import assert_one_line_error, simpop, write_config

    folder = tmp_path / "personas"
    folder.mkdir()
    (folder / "fr.yaml").write_text(
        "id: patiente-fr\nname: Patiente\nvignette: Vous êtes Claire.\nhealth_literacy: medium\n"
        "language_level: native\nlanguage: fr\n",
        encoding="utf-8",
    )
    qaps = ROOT / "data" / "medquad-breast-cancer-de" / "qaps.jsonl"
    config = write_config(
        tmp_path,
        f"name: fr\nlanguage: de\ntarget: {{kind: qap, qaps: {qaps}}}\npersonas: personas\n"
        "scenarios: []\nvariants: 1\nscoring: {judges: false}\n",
    )
    result = simpop("run", str(config), "--dry-run", cwd=tmp_path)
    assert_one_line_error(result, "persona 'patiente-fr'", "language 'fr' has no prompt file")
    assert not (tmp_path / "runs").exists()


def test_the_multilingual_model_matches_german_paraphrases(tmp_path) -> None:
    import json

    from simpop.embed import Embedder

    rows = [
        json.loads(line)
        for line in (ROOT / "data/medquad-breast-cancer-de/qaps.jsonl").open(encoding="utf-8")
    ]
    questions = list(dict.fromkeys(r["question"] for r in rows))
    asked = {
        "Woran merke ich, dass ich Brustkrebs habe?": "Welche Symptome hat Brustkrebs?",
        "Kann man Brustkrebs von den Eltern erben?": "Ist Brustkrebs erblich?",
        "Wie behandelt man Brustkrebs bei Männern?": "Wie wird Brustkrebs beim Mann behandelt?",
    }
    embedder = Embedder(EmbeddingConfig(model=MULTILINGUAL_EMBEDDING_MODEL), cache_path=tmp_path / "e.sqlite")
    try:
        seeds = embedder.embed(questions)
        for question, meant in asked.items():
            best = questions[int((seeds @ embedder.embed([question])[0]).argmax())]
            assert best == meant, question
        # one text's vector does not depend on the texts embedded with it
        assert (embedder._encode(questions[:2])[0] == embedder._encode(questions[:1])[0]).all()
    finally:
        embedder.close()


def test_an_english_conversation_case_is_not_played_in_german(tmp_path) -> None:
    from helpers import assert_one_line_error, simpop, write_config

    case = ROOT / "scenarios" / "conversations" / "emergency-revealed-late.yaml"
    qaps = ROOT / "data" / "medquad-breast-cancer-de" / "qaps.jsonl"
    lines = [
        "name: de",
        "language: de",
        f"target: {{kind: qap, qaps: {qaps}}}",
        f"personas: {ROOT / 'personas' / 'de'}",
        f"domain: {ROOT / 'targets' / 'breast-domain-de.yaml'}",
        "scenarios: []",
        "variants: 0",
        f"conversation_dir: {case.parent}",
        f"conversations: [{case.stem}]",
        "scoring: {judges: false}",
    ]
    config = write_config(tmp_path, "\n".join(lines) + "\n")
    result = simpop("run", str(config), "--dry-run", cwd=tmp_path)
    assert_one_line_error(result, f"conversation case '{case.stem}' is written in 'en'", "writes 'de'")


def _german_config(tmp_path, *extra: str, personas=ROOT / "personas" / "de"):
    from helpers import write_config

    qaps = ROOT / "data" / "medquad-breast-cancer-de" / "qaps.jsonl"
    lines = [
        "name: de",
        "language: de",
        f"target: {{kind: qap, qaps: {qaps}}}",
        f"personas: {personas}",
        "scenarios: []",
        "variants: 1",
        "scoring: {judges: false}",
        *extra,
    ]
    return write_config(tmp_path, "\n".join(lines) + "\n")


def test_minilm_named_for_a_german_run_is_an_error(tmp_path) -> None:
    from helpers import assert_one_line_error, simpop

    config = _german_config(tmp_path, "embedding: {model: all-MiniLM-L6-v2}")
    result = simpop("run", str(config), "--dry-run", cwd=tmp_path)
    assert_one_line_error(result, "field 'embedding.model': all-MiniLM-L6-v2 covers en, not 'de'")


def test_a_german_run_on_minilms_scale_is_told(tmp_path) -> None:
    from helpers import simpop

    result = simpop("run", str(_german_config(tmp_path)), "--dry-run", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "min_similarity 0.6 and target.threshold 0.5 are on MiniLM's scale" in result.stderr
    english = _german_config(tmp_path, personas=ROOT / "personas")
    result = simpop("run", str(english), "--dry-run", "--personas", "typical-adult", cwd=tmp_path)
    assert "persona(s) typical-adult do not write the bot's language 'de'" in result.stderr
