"""Telling simulated messages from real ones: stock sentences, the classifier two-sample test,
distinct-n and self-BLEU, with hand-computed values."""

from __future__ import annotations

import math

import pytest

from simpop.errors import ConfigError
from simpop.population.realism import real_messages
from simpop.population.separability import (
    check_language,
    distinct_n,
    is_formula,
    realism_tests,
    self_bleu,
    separability,
    stock_sentences,
    stock_share,
    two_sample_auc,
)

REAL = real_messages()  # MeQSum


def test_a_run_of_copies_of_one_sentence_is_all_stock_and_always_told_apart():
    copies = ["My family is worried too. What is glaucoma?"] * 30
    test = separability(copies, REAL)
    assert test.stock_share == 1.0
    assert test.stock[0].sentence == "My family is worried too." and test.stock[0].messages == 30
    assert test.auc == 1.0
    # 8 words, 7 distinct bigrams in each of the 30 copies
    assert test.self_bleu == 1.0 and test.distinct_2 == pytest.approx(7 / (30 * 7), abs=1e-4)


def test_stock_sentences_count_messages_not_occurrences_and_leave_greetings_aside():
    texts = [
        "Hello. My eye hurts. My eye hurts. Is it glaucoma?",
        "Hello. My eye hurts. What drops help?",
        "hello.  my EYE hurts.   Can I drive?",
        "Hello. Something else entirely.",
    ]
    stock = stock_sentences(texts)
    assert [(s.sentence, s.messages, s.share) for s in stock] == [("My eye hurts.", 3, 0.75)]
    assert stock_share(texts, stock) == 0.75
    assert is_formula("Thank you so much!") and is_formula("Hello.")
    assert not is_formula("Thank you for telling me about the risks of surgery.")
    # a greeting or thank-you of at most four words, however it goes on (the exemption)
    assert is_formula("Hello, excuse me.") and is_formula("Thank you in advance.")
    assert not is_formula("Many thanks for your help.") and not is_formula("Excuse me, hello.")
    # German greetings and thanks (issue 73): "Danke, Entschuldigung mein Deutsch." is a thanks
    assert is_formula("Hallo, guten Tag.") and is_formula("Danke, Entschuldigung mein Deutsch.")
    assert is_formula("Vielen Dank im Voraus.") and is_formula("Mit freundlichen Grüßen")
    assert not is_formula("Beim Termin konnte ich nicht alles fragen.")


def test_real_messages_against_other_real_messages_are_not_told_apart():
    auc, (low, high) = two_sample_auc(REAL[:200], REAL[200:600])
    assert 0.35 < auc < 0.65 and low < 0.5 < high


def test_too_few_messages_give_no_classifier_test():
    assert two_sample_auc(["What is glaucoma?"] * 9, REAL) is None


def test_distinct_n_by_hand():
    assert distinct_n(["a b a b", "a c"], 1) == round(3 / 6, 4)  # a b c over 6 words
    assert distinct_n(["a b a b", "a c"], 2) == round(3 / 4, 4)  # ab ba ab ac: ab, ba, ac
    assert distinct_n([""], 2) is None


def test_self_bleu_by_hand():
    assert self_bleu(["a b c d", "a b c d"]) == 1.0
    assert self_bleu(["a b", "c d"]) == 0.0  # no word in common
    # "a b c d" against "a b c e": 1-grams 3/4; smoothed 2-grams (2+1)/(3+1), 3-grams (1+1)/(2+1),
    # 4-grams (0+1)/(1+1); same length, no brevity penalty; the other message alike
    expected = math.exp((math.log(3 / 4) + math.log(3 / 4) + math.log(2 / 3) + math.log(1 / 2)) / 4)
    assert self_bleu(["a b c d", "a b c e"]) == pytest.approx(expected, abs=1e-4)


def test_realism_tests_warn_of_stock_sentences_separable_personas_and_uncovered_languages():
    phrase_bank = [f"My family is worried too. What is condition {i}?" for i in range(40)]
    texts = {"typical-adult": phrase_bank, "learner-de": ["Was ist ein Glaukom?"] * 12}
    found, warnings = realism_tests(
        texts, {"typical-adult": "en", "learner-de": "de"}, {"typical-adult"}, REAL
    )
    assert set(found) == {"typical-adult", "learner-de", "all"}
    assert found["all"].stock_share == 1.0 and found["all"].n == 40  # the realism test's messages
    # a language with no real messages to compare with still has its verbatim repeats counted
    de = found["learner-de"]
    assert (de.n, de.stock_share, de.auc, de.self_bleu) == (12, 1.0, None, None)
    assert any("no realism test for language 'de'" in w for w in warnings)
    # the repeats warning counts every message of the run, whatever its language
    assert any(
        "2 sentence(s)" in w and '"My family is worried too."' in w and "40 of 52" in w for w in warnings
    )
    assert any("persona 'typical-adult'" in w and "at most 0.80" in w for w in warnings)
    assert warnings[-1].startswith("most separable from real messages: persona 'typical-adult'")


def test_a_language_without_function_words_is_a_clear_error():
    check_language("en-GB")
    with pytest.raises(ConfigError, match="no function-word list for language 'de'"):
        check_language("de")
