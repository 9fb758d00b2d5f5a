"""The predefined-QAP matcher with the real embedding model."""

from __future__ import annotations

import asyncio

import pytest

from simpop.models import QAP
from simpop.targets.qap import QAPMatcher, QAPTargetConfig, matchable

QAPS = [
    QAP(id="glaucoma", question="What is glaucoma?", answer="Glaucoma damages the optic nerve."),
    QAP(
        id="cataract-surgery", question="How is cataract surgery done?", answer="The cloudy lens is replaced."
    ),
    QAP(id="dry-eye", question="What are the symptoms of dry eye?", answer="Stinging, burning, redness."),
    QAP(id="glaucoma-2", question="What is  Glaucoma?", answer="A second answer to the same question."),
]


def matcher(embedder, qaps=QAPS, **config) -> QAPMatcher:
    return QAPMatcher(QAPTargetConfig(kind="qap", qaps="unused", **config), qaps, embedder)


def test_argmax_of_cosine_similarity(embedder):
    bot = matcher(embedder, threshold=0.3)
    answer = bot.match("my eyes feel dry and they burn, what are the signs of that?")
    assert answer.matched_id == "dry-eye"
    assert answer.text == "Stinging, burning, redness."
    similarities = [c.score for c in answer.contexts]
    assert similarities == sorted(similarities, reverse=True) and answer.similarity == similarities[0]
    vectors = embedder.embed(
        [
            answer.contexts[0].text.split("\n")[0],
            "my eyes feel dry and they burn, what are the signs of that?",
        ]
    )
    assert answer.similarity == pytest.approx(float(vectors[0] @ vectors[1]), abs=1e-4)


def test_under_threshold_gets_no_answer(embedder):
    bot = matcher(embedder, threshold=0.9)
    answer = bot.match("How do I renew my car insurance policy?")
    assert answer.text is None and answer.matched_id is None
    assert answer.similarity < 0.9 and "under threshold 0.9" in answer.no_answer_reason


def test_fewer_than_three_words_gets_no_answer(embedder):
    bot = matcher(embedder, threshold=0.0)
    assert bot.match("glaucoma?").no_answer_reason == "fewer than 3 words"
    assert bot.match("what glaucoma").text is None
    assert bot.match("what is glaucoma").matched_id == "glaucoma"


def test_repeated_questions_resolve_to_the_first_qap(embedder):
    assert [q.id for q in matchable(QAPS)] == ["glaucoma", "cataract-surgery", "dry-eye"]
    bot = matcher(embedder)
    for _ in range(3):
        assert bot.match("What is glaucoma?").matched_id == "glaucoma"


def test_the_best_three_of_every_qap_are_ranked_exactly(embedder):
    question = "my eyes feel dry and they burn, what are the signs of that?"
    answer = matcher(embedder, threshold=0.3).match(question)
    kept = matchable(QAPS)
    vectors = embedder.embed([q.question for q in kept] + [question])
    cosines = sorted(
        ((float(v @ vectors[-1]), q.id) for q, v in zip(kept, vectors, strict=False)), reverse=True
    )
    assert [c.id for c in answer.contexts] == [qap_id for _, qap_id in cosines]
    assert [c.score for c in answer.contexts] == pytest.approx([cosine for cosine, _ in cosines], abs=1e-6)


def test_a_changed_qap_is_matched_by_its_new_question(embedder):
    question = "what causes dry eyes?"
    before = matcher(embedder, threshold=0.0).match(question)
    changed = QAPS[:2] + [QAP(id="dry-eye", question="What causes dry eye?", answer="Age.")]
    after = matcher(embedder, qaps=changed, threshold=0.0).match(question)
    assert before.text == "Stinging, burning, redness." and after.text == "Age."
    assert after.similarity > before.similarity


def test_ask_is_the_async_interface(embedder):
    bot = matcher(embedder)
    answer = asyncio.run(bot.ask("How do they do surgery for a cataract?"))
    assert answer.matched_id == "cataract-surgery"
