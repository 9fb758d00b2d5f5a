"""The message a persona's question is put into: deterministic, by register, shaped like real
messages on average."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from simpop.config import load_personas
from simpop.models import MessageStyle, Persona
from simpop.population.message_shape import message_shape
from simpop.population.message_style import compose, register, stated_age, style_of


def _persona(literacy: str = "medium", level: str = "native", **style: float) -> Persona:
    return Persona(
        id="p",
        name="p",
        vignette="v",
        health_literacy=literacy,
        language_level=level,
        style=MessageStyle(**style),
    )


def test_registers_and_style_defaults():
    assert register(_persona("low")) == "plain"
    assert register(_persona("high")) == "formal"
    assert register(_persona("high", "A2")) == "learner"
    assert register(_persona()) == "standard"
    assert style_of(_persona(story=0.1)).story == 0.1  # the persona's own share wins
    assert style_of(_persona()).story == style_of(_persona("medium", "C1")).story


def test_the_same_seed_gives_the_same_message():
    persona = _persona()
    first = compose("How is glaucoma treated?", persona, "Glaucoma", seed=7)
    assert first == compose("How is glaucoma treated?", persona, "Glaucoma", seed=7)
    assert "glaucoma treated" in first[0]
    others = {compose("How is glaucoma treated?", persona, "Glaucoma", seed=s)[0] for s in range(20)}
    assert len(others) > 10


def test_a_question_that_says_it_gets_a_story_naming_the_topic():
    persona = _persona(story=0.0)  # no story unless one is needed
    for seed in range(20):
        alone, _, _ = compose("Is it passed down in families?", persona, "Glaucoma", seed)
        assert "glaucoma" not in alone.lower()
        told, _, _ = compose("Is it passed down in families?", persona, "Glaucoma", seed, story_needed=True)
        assert "glaucoma" in told.lower() and told.lower().index("glaucoma") < told.index("passed down")


def test_without_a_topic_no_frame_names_one():
    for seed in range(30):
        text, subject, _ = compose("What should I do now?", _persona(story=1.0), None, seed)
        assert "{" not in text and "  " not in text and subject is None


def test_shares_follow_the_style():
    persona = _persona(story=1.0, relative=0.0, no_question_mark=0.0, greeting=0.0, closing=0.0, detail=0.0)
    shapes = [
        message_shape(compose("How is glaucoma treated?", persona, "Glaucoma", s)[0]) for s in range(100)
    ]
    assert all(s.question_mark for s in shapes)
    assert sum(s.own_story for s in shapes) >= 80  # an own story every time, detected in most
    plain = _persona(story=0.0, no_question_mark=1.0, greeting=0.0, closing=0.0, second_question=0.0)
    texts = [compose("How is glaucoma treated?", plain, "Glaucoma", s)[0] for s in range(50)]
    assert not any("?" in t for t in texts)
    assert statistics.median(len(t.split()) for t in texts) < 12


def test_ages_relatives_and_channel_fit_the_persona():
    personas = {p.id: p for p in load_personas(Path(__file__).parent.parent / "personas")}
    margaret = personas["older-phone"]  # 81, on the clinic's voice line
    assert stated_age(margaret) == 81 and stated_age(personas["high-literacy"]) == 52
    assert stated_age(personas["typical-adult"]) is None
    own_age = re.compile(r"\b(?:i am|i'm|im|i have)\s+(\d{2})\b", re.IGNORECASE)
    relative_age = re.compile(r"\bmy (\w+)(?:,)? (?:who )?is (\d+)\b", re.IGNORECASE)
    styled = margaret.model_copy(update={"style": MessageStyle(story=1.0, detail=1.0, background=1.0)})
    ages, relatives = set(), set()
    for seed in range(300):
        message, _, _ = compose("What is glaucoma?", styled, "Glaucoma", seed)
        assert not re.search(r"\bwrit(?:e|ing)\b", message, re.IGNORECASE), message
        ages |= {int(a) for a in own_age.findall(message)}
        relatives |= {(r.lower(), int(a)) for r, a in relative_age.findall(message)}
    assert ages == {81}
    assert relatives and not {r for r, _ in relatives} & {"mother", "father", "mum", "dad", "grandmother"}
    assert all(1 <= a <= 100 for _, a in relatives)


def test_a_written_situation_is_told_instead_of_a_frame_and_says_so():
    persona = _persona(story=1.0)
    situation = "My dad was told last month that he has glaucoma in both eyes."
    for seed in range(20):
        body, _, story = compose(
            "Is it passed down in families?", persona, "Glaucoma", seed, situation=situation
        )
        assert story == "written" and situation in body
        framed = compose("How is glaucoma treated?", persona, "Glaucoma", seed)
        assert framed.story == "frame" and situation not in framed.body
    never = _persona(story=0.0)
    assert compose("How is glaucoma treated?", never, "Glaucoma", 3, situation=situation).story is None


def test_only_a_wh_question_is_put_as_a_request():
    persona = _persona(literacy="low", no_question_mark=1.0, story=0.0, greeting=0.0, closing=0.0)
    for seed in range(30):
        body = compose("I want to know what cataract is?", persona, "Cataract", seed).body
        assert body.lower().count("want to know") == 1, body
    standard = _persona(no_question_mark=1.0, story=0.0, greeting=0.0, closing=0.0, second_question=0.0)
    asks = [compose("Can you describe the symptoms?", standard, None, seed).body for seed in range(30)]
    assert set(asks) == {"Can you describe the symptoms."}  # never "Please tell me can you ..."
    wh = {compose("What causes it?", standard, None, seed).body for seed in range(30)}
    assert "What causes it." in wh and any(b.endswith("what causes it") for b in wh)
