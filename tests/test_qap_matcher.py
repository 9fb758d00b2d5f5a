"""The predefined-QAP matcher with the real embedding model and a real Chroma store."""

from __future__ import annotations

import asyncio

import pytest

from simpop.models import QAP
from simpop.targets.chroma import open_chroma
from simpop.targets.qap import QAPMatcher, QAPTargetConfig, matchable

QAPS = [
    QAP(id="glaucoma", question="What is glaucoma?", answer="Glaucoma damages the optic nerve."),
    QAP(
        id="cataract-surgery", question="How is cataract surgery done?", answer="The cloudy lens is replaced."
    ),
    QAP(id="dry-eye", question="What are the symptoms of dry eye?", answer="Stinging, burning, redness."),
    QAP(id="glaucoma-2", question="What is  Glaucoma?", answer="A second answer to the same question."),
]


def matcher(tmp_path, embedder, qaps=QAPS, **config) -> QAPMatcher:
    return QAPMatcher(
        QAPTargetConfig(kind="qap", qaps="unused", **config), qaps, embedder, index_dir=tmp_path / "chroma"
    )


def test_argmax_of_cosine_similarity(tmp_path, embedder):
    bot = matcher(tmp_path, embedder, threshold=0.3)
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


def test_under_threshold_gets_no_answer(tmp_path, embedder):
    bot = matcher(tmp_path, embedder, threshold=0.9)
    answer = bot.match("How do I renew my car insurance policy?")
    assert answer.text is None and answer.matched_id is None
    assert answer.similarity < 0.9 and "under threshold 0.9" in answer.no_answer_reason


def test_fewer_than_three_words_gets_no_answer(tmp_path, embedder):
    bot = matcher(tmp_path, embedder, threshold=0.0)
    assert bot.match("glaucoma?").no_answer_reason == "fewer than 3 words"
    assert bot.match("what glaucoma").text is None
    assert bot.match("what is glaucoma").matched_id == "glaucoma"


def test_repeated_questions_resolve_to_the_first_qap(tmp_path, embedder):
    assert [q.id for q in matchable(QAPS)] == ["glaucoma", "cataract-surgery", "dry-eye"]
    bot = matcher(tmp_path, embedder)
    for _ in range(3):
        assert bot.match("What is glaucoma?").matched_id == "glaucoma"


def test_index_is_reused_and_rebuilt_only_on_change(tmp_path, embedder):
    matcher(tmp_path, embedder)
    client = open_chroma(tmp_path / "chroma")
    names = [c.name for c in client.list_collections()]
    matcher(tmp_path, embedder)
    assert [c.name for c in client.list_collections()] == names
    changed = QAPS[:2] + [QAP(id="dry-eye", question="What causes dry eye?", answer="Age.")]
    matcher(tmp_path, embedder, qaps=changed)
    after = [c.name for c in client.list_collections()]
    assert len(after) == 2 and set(names) < set(after)


def test_ask_is_the_async_interface(tmp_path, embedder):
    bot = matcher(tmp_path, embedder)
    answer = asyncio.run(bot.ask("How do they do surgery for a cataract?"))
    assert answer.matched_id == "cataract-surgery"
