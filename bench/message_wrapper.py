"""The shape of the persona's message wrapper (``message_style.compose``) beside real messages,
without the LLM's sample noise: each kept question of a run is wrapped again with many seeds.

    python bench/message_wrapper.py RUN_DIR [--seeds 40] [--half even|odd|all] [--style story=0.8]

A run has ~20 wrapped messages per persona, too few to set the wrapper's shares from; this
prints per persona the median words, story share and no-question-mark share of ~800 wrappings
and their relative gap to MeQSum. ``--style`` tries other shares on every persona; ``--half``
compares with only the even or odd messages, so shares set on one half are checked on the
other.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simpop.config import load_personas, load_qaps
from simpop.models import Probe
from simpop.population.meaning import names_topic_of
from simpop.population.message_style import STORIES_LANGUAGE, compose
from simpop.population.probes import everyday_lexicon
from simpop.population.realism import message_shapes, real_messages, relative_gaps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run", type=Path)
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--half", choices=("even", "odd", "all"), default="all")
    parser.add_argument("--style", action="append", default=[], help="a share to try, e.g. story=0.8")
    args = parser.parse_args()
    tried = {k: float(v) for k, v in (s.split("=") for s in args.style)}
    config = json.loads((args.run / "config.json").read_text(encoding="utf-8"))
    personas = load_personas(Path(config["personas"]), config.get("persona_ids"))
    topics = {q.id: q.topic for q in load_qaps(Path(config["seeds"] or config["target"]["qaps"]))}
    probes = [Probe.model_validate_json(line) for line in (args.run / "probes.jsonl").open()]
    real = real_messages()
    if args.half != "all":
        real = real[args.half == "odd" :: 2]
    reference = message_shapes(real)
    everyday = everyday_lexicon()
    print(f"{'persona':24} {'n':>5} {'words':>6} {'story':>6} {'no ?':>6}   gaps (words, story, no ?)")
    for persona in personas:
        persona = persona.model_copy(update={"style": persona.style.model_copy(update=tried)})
        if persona.language != STORIES_LANGUAGE:
            continue
        kept = [
            p
            for p in probes
            if p.persona_id == persona.id and p.fidelity and p.fidelity.valid and p.fidelity.question
        ]
        texts = []
        for index, probe in enumerate(kept):
            question = probe.fidelity.question or ""
            topic = topics.get(probe.seed_id)
            named = names_topic_of(question, topic, everyday)
            for seed in range(args.seeds):
                body, subject, _ = compose(
                    question, persona, topic, index * 1000 + seed, story_needed=not named
                )
                texts.append(f"{subject}\n{body}" if subject else body)
        if not texts:
            continue
        shapes = message_shapes(texts)
        gaps = relative_gaps(shapes, reference)
        print(
            f"{persona.id:24} {shapes.n:5d} {shapes.median_words:6.0f} {shapes.context:6.2f} "
            f"{shapes.no_question_mark:6.2f}   "
            + ", ".join(f"{g:+.0%}" for g in gaps.values() if g is not None)
        )
    print(
        f"{'real: MeQSum (' + args.half + ')':24} {reference.n:5d} {reference.median_words:6.0f} "
        f"{reference.context:6.2f} {reference.no_question_mark:6.2f}"
    )


if __name__ == "__main__":
    main()
