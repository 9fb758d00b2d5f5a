from __future__ import annotations

import random
from pathlib import Path

import pytest

from simpop.models import NoiseConfig
from simpop.population.noise import (
    DEFAULT_ASR,
    DEFAULT_ASR_RATE,
    ASRParameters,
    Token,
    _merge,
    _resegment,
    _split,
    apply_noise,
    asr_noise,
    lexicon,
    total_errors,
    typo_noise,
    word_errors,
)
from simpop.population.noise_fit import estimate, fit, load_pairs, simulate

DATA = Path(__file__).resolve().parents[1] / "data" / "asr-errors" / "primock_data_final_outcomes.csv"
NOTHING = ASRParameters(
    dropout=0,
    truncation=0,
    truncated_share=0,
    filler_deletion=0,
    deletion=0,
    substitution=0,
    boundary=0,
    insertion=0,
)
SENTENCES = [
    "Can I drive after my cataract surgery next week?",
    "What are the early signs of glaucoma and is it painful?",
    "My right eye has been red and sore since Monday, should I see a doctor?",
    "How long do the drops they put in at the eye exam last?",
]


def test_word_errors_hand_counted():
    errors = word_errors("I have eye pain today", "I have i pain.")
    assert (errors.substitutions, errors.deletions, errors.insertions) == (1, 1, 0)
    assert errors.wer == pytest.approx(2 / 5)
    assert errors.share("deletions") == pytest.approx(1 / 2)
    assert word_errors("I have eye pain", "Um, I have eye pain").insertions == 1
    assert word_errors("", "").wer is None
    total = total_errors([("a b", "a"), ("c d", "c d e")])
    assert (total.reference_words, total.deletions, total.insertions) == (4, 1, 1)


def test_asr_is_deterministic_under_a_seed():
    text = SENTENCES[1]
    assert asr_noise(text, None, 7) == asr_noise(text, None, 7)
    assert len({asr_noise(text, None, seed) for seed in range(20)}) > 5


def test_rate_zero_changes_nothing_and_none_model_gives_none():
    for text in SENTENCES:
        assert asr_noise(text, 0.0, 3) == text
        assert typo_noise(text, 0.0, 3) == text
    assert apply_noise("hello there", NoiseConfig(model="none"), 1) is None
    assert apply_noise("hello there", NoiseConfig(model="asr", rate=0.0), 1) == "hello there"


def test_each_mechanism_alone():
    fillers = NOTHING.model_copy(update={"filler_deletion": 1.0})
    assert asr_noise("um I uh think so", None, 0, fillers) == "I think so"
    cut = NOTHING.model_copy(update={"truncation": 1.0, "truncated_share": 0.5})
    words = "one two three four five six seven eight nine ten".split()
    for seed in range(20):
        out = asr_noise(" ".join(words), None, seed, cut).split()
        assert 1 <= len(out) < len(words) and out == words[: len(out)]
    lost = NOTHING.model_copy(update={"dropout": 1.0})
    assert asr_noise("anything at all", None, 0, lost) == ""
    inserted = NOTHING.model_copy(update={"insertion": 1.0})
    assert len(asr_noise("one two three", None, 0, inserted).split()) == 6


def test_substitutions_sound_alike_and_keep_punctuation():
    lex = lexicon()
    assert {"write", "rite"} & set(lex.similar("right")[:3])  # homophones first
    assert "big" in lex.similar("bit")
    only = NOTHING.model_copy(update={"substitution": 1.0})
    out = asr_noise("Right, bit.", None, 1, only)
    first, second = out.split()
    assert first.endswith(",") and first[0].isupper() and second.endswith(".")
    assert first[:-1].lower() in lex.similar("right") and second[:-1] in lex.similar("bit")


def test_word_boundaries():
    lex = lexicon()
    assert _merge(Token.parse("a"), Token.parse("part"), lex).word == "apart"
    assert [t.word for t in _split(Token.parse("Airport"), lex)] == ["Air", "port"]
    assert [t.render() for t in _resegment(Token.parse("ice"), Token.parse("cream,"), lex)] == [
        "i",
        "scream,",
    ]


def test_typos_rate_on_a_large_sample():
    rng = random.Random(0)
    words = ["glaucoma", "pressure", "vision", "doctor", "drops", "surgery", "retina", "lens"]
    text = " ".join(rng.choice(words) for _ in range(5000))
    noisy = typo_noise(text, 0.1, 42)
    changed = sum(a != b for a, b in zip(text.split(" "), noisy.split(" "), strict=True))
    assert 0.08 * 5000 <= changed <= 0.11 * 5000  # a swap of equal letters changes nothing
    assert noisy == typo_noise(text, 0.1, 42)


def test_rate_scales_the_error_rate():
    pairs = [(s, "") for s in SENTENCES * 50]
    low = simulate(pairs, DEFAULT_ASR, seeds=2, rate=DEFAULT_ASR_RATE / 2).wer
    full = simulate(pairs, DEFAULT_ASR, seeds=2).wer
    assert 0.35 < low / full < 0.65


def test_default_asr_reproduces_the_real_errors_within_20_percent():
    pairs = load_pairs(DATA)
    assert len(pairs) == 175
    real = total_errors(pairs)
    assert real.wer == pytest.approx(819 / 2222)  # 234 substitutions, 504 deletions, 81 insertions
    simulated = simulate(pairs, DEFAULT_ASR, seeds=5)
    assert simulated.wer == pytest.approx(real.wer, rel=0.2)
    for kind in ("substitutions", "deletions", "insertions"):
        assert simulated.share(kind) == pytest.approx(real.share(kind), rel=0.2)


def test_fit_recovers_known_parameters():
    """Data made by the model itself: the fit finds the rates it was made with."""
    truth = NOTHING.model_copy(update={"substitution": 0.1, "deletion": 0.05, "insertion": 0.03})
    references = [s for s in SENTENCES for _ in range(60)]
    pairs = [(ref, asr_noise(ref, None, i, truth)) for i, ref in enumerate(references)]
    first = estimate(pairs)
    assert first.deletion == pytest.approx(0.05, abs=0.02) and first.insertion == pytest.approx(
        0.03, abs=0.015
    )
    result = fit(pairs, seeds=3)
    assert result.simulated.wer == pytest.approx(result.real.wer, rel=0.1)


def test_load_pairs_errors(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(Exception, match="x.csv: no column 'norm_ground_truth'"):
        load_pairs(bad)
    with pytest.raises(Exception, match="missing.csv: file not found"):
        load_pairs(tmp_path / "missing.csv")
