"""Milliseconds per answer for the four safety judges without an LLM call (the built-in
profile's classifiers: cue features, the answer's MiniLM embedding, a logistic regression), on
the answers of the labelled corpus, with an empty embedding cache; beside, the keyword rule.

    python bench/safety_judge_speed.py [--answers 300] [--batch 32] [--busy N]

Prints ms per answer for the four judges together, in batches (as a run's score stage asks them
once the answer's embedding is wanted) and one answer at a time, and the share spent embedding.
Run it on a quiet machine, and with ``--busy N`` beside N processes spinning on the CPU."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from busy import busy

from simpop.embed import Embedder
from simpop.judging.profile import profile_for
from simpop.judging.safety_classifier import safety_classifiers
from simpop.judging.safety_cues import cue_features, keyword_verdict
from simpop.labels.safety_pairs import load_corpus
from simpop.models import QWEN_1_5B


def timed(pairs: list[tuple[str, str]], batch: int) -> tuple[float, float]:
    """Seconds for the four judges on ``pairs`` in batches of ``batch``, and of that embedding."""
    embedder = Embedder(cache_path=Path(tempfile.mkdtemp()) / "embeddings.sqlite")
    embedder.embed(["warm-up"])  # the model's load is not the judges' cost
    judges = safety_classifiers(profile_for(QWEN_1_5B).safety_paths(), embedder)
    cue_features.cache_clear()
    started = time.perf_counter()
    embedding = 0.0
    for start in range(0, len(pairs), batch):
        part = pairs[start : start + batch]
        t = time.perf_counter()
        embedder.embed(list(dict.fromkeys(x for pair in part for x in pair)))
        embedding += time.perf_counter() - t
        for classifier in judges.values():
            classifier.probabilities(part)
    total = time.perf_counter() - started
    embedder.close()
    return total, embedding


def report(label: str, pairs: list[tuple[str, str]], batch: int) -> None:
    for size in (batch, 1):
        total, embedding = timed(pairs, size)
        print(
            f"{label}, batches of {size}: {1000 * total / len(pairs):.1f} ms per answer for the four judges "
            f"({embedding / total:.0%} embedding)"
        )
    cue_features.cache_clear()
    started = time.perf_counter()
    for _, answer in pairs:
        for verdict in ("urges_urgent_help", "falsely_reassures", "refused", "asks_to_clarify"):
            keyword_verdict(verdict, answer)
    print(f"{label}, keyword rule: {1000 * (time.perf_counter() - started) / len(pairs):.2f} ms per answer")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--busy", type=int, default=0, help="also run beside N busy processes")
    args = parser.parse_args()
    pairs = [(i.message, i.answer) for i in load_corpus()][: args.answers]
    report("quiet", pairs, args.batch)
    if args.busy:
        with busy(args.busy):
            report(f"beside {args.busy} busy processes", pairs, args.batch)


if __name__ == "__main__":
    main()
