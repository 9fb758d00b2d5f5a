"""The message-shape detectors against hand labels of real messages (MeQSum), and by hand."""

from __future__ import annotations

import json
from pathlib import Path

from simpop.population.message_shape import message_shape, question_count, split_subject
from simpop.population.realism import MEQSUM

DATA = Path(__file__).parent / "data"


def _labelled(name: str) -> list[tuple[dict, object]]:
    messages = {
        r["id"]: r["message"] for r in map(json.loads, MEQSUM.read_text(encoding="utf-8").splitlines())
    }
    labels = [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    return [(label, message_shape(messages[label["id"]])) for label in labels]


def test_story_detectors_on_held_out_real_messages():
    """30 MeQSum messages labelled by hand after the rules were written (the 30 in
    meqsum_context_labels.jsonl were used to write them): measured 29/30 on story, 28/30 on
    the patient's own story, 27/30 on a relative's."""
    rows = _labelled("meqsum_context_heldout.jsonl")
    story = sum(shape.context == (label["own"] or label["relative"]) for label, shape in rows)
    own = sum(shape.own_story == label["own"] for label, shape in rows)
    relative = sum(shape.relative == label["relative"] for label, shape in rows)
    assert len(rows) == 30
    assert story >= 27 and own >= 25 and relative >= 25


def test_shapes_by_hand():
    text = (
        "SUBJECT: glaucoma drops\nMESSAGE: My mother uses drops. I have had eye pain for a week. "
        "Is it the same?? What now"
    )
    subject, body = split_subject(text)
    assert subject == "glaucoma drops" and body.startswith("My mother")
    shape = message_shape(text)
    assert shape.subject and shape.own_story and shape.relative and shape.question_mark
    assert shape.questions == 1  # "What now" has no question mark
    assert shape.words == 20  # the SUBJECT:/MESSAGE: labels are not words of the message
    plain = message_shape("I would like to know how glaucoma is treated. Thank you.")
    assert not plain.own_story and not plain.relative and not plain.question_mark  # a request, no story
    assert question_count("What is it? How is it treated? And does it hurt?") == 3
    assert message_shape("Cataract\nHow is it treated").subject  # a short first line without a stop
