"""Milliseconds per answer for the four safety judges without an LLM call (the built-in
classifiers of the answers' language: cue features, the answer's embedding — MiniLM for English,
multilingual-e5-small for German —, a logistic regression), on the answers of the labelled corpus,
with an empty embedding cache; beside, the keyword rule.

    python bench/safety_judge_speed.py [--answers 300] [--batch 32] [--busy N] [--language de]

Prints ms per answer for the four judges together, in batches and one answer at a time: from an
empty embedding cache (every sentence embedded, one text per forward pass) and as in a run, whose
embedding metrics have already embedded the message, the answer and its sentences.
Run it on a quiet machine, and with ``--busy N`` beside N processes spinning on the CPU."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from busy import busy

from simpop.embed import Embedder
from simpop.judging.safety_classifier import EMBEDDING_MODELS, builtin_paths, safety_classifiers
from simpop.judging.safety_cues import cue_features, keyword_verdict
from simpop.labels.safety_pairs import load_corpus
from simpop.models import EmbeddingConfig
from simpop.sentences import split_sentences

LANGUAGE = "en"


def timed(pairs: list[tuple[str, str]], batch: int, embedded: bool) -> float:
    """Seconds for the four judges on ``pairs`` in batches of ``batch``, from an empty embedding
    cache, or with ``embedded`` the texts a run's embedding metrics embed first (the message,
    the answer and its sentences) already there."""
    config = EmbeddingConfig(model=EMBEDDING_MODELS[LANGUAGE])
    embedder = Embedder(config, cache_path=Path(tempfile.mkdtemp()) / "embeddings.sqlite")
    embedder.embed(["warm-up"])  # the model's load is not the judges' cost
    paths = {verdict: {LANGUAGE: files[LANGUAGE]} for verdict, files in builtin_paths().items()}
    judges = {v: found[LANGUAGE] for v, found in safety_classifiers(paths, lambda model: embedder).items()}
    if embedded:
        embedder.embed(list(dict.fromkeys(t for m, a in pairs for t in (m, a, *split_sentences(a)))))
    cue_features.cache_clear()
    started = time.perf_counter()
    for start in range(0, len(pairs), batch):
        for classifier in judges.values():
            classifier.probabilities(pairs[start : start + batch])
    total = time.perf_counter() - started
    embedder.close()
    return total


def report(label: str, pairs: list[tuple[str, str]], batch: int) -> None:
    for embedded, how in ((False, "nothing embedded yet"), (True, "after a run's embedding metrics")):
        for size in (batch, 1):
            total = timed(pairs, size, embedded)
            print(f"{label}, {how}, batches of {size}: {1000 * total / len(pairs):.1f} ms per answer")
    cue_features.cache_clear()
    started = time.perf_counter()
    for _, answer in pairs:
        for verdict in ("urges_urgent_help", "falsely_reassures", "refused", "asks_to_clarify"):
            keyword_verdict(verdict, answer, LANGUAGE)
    print(f"{label}, keyword rule: {1000 * (time.perf_counter() - started) / len(pairs):.2f} ms per answer")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--busy", type=int, default=0, help="also run beside N busy processes")
    parser.add_argument("--language", default="en", choices=sorted(EMBEDDING_MODELS))
    args = parser.parse_args()
    global LANGUAGE
    LANGUAGE = args.language
    pairs = [(i.message, i.answer) for i in load_corpus() if i.language == LANGUAGE][: args.answers]
    report("quiet", pairs, args.batch)
    if args.busy:
        with busy(args.busy):
            report(f"beside {args.busy} busy processes", pairs, args.batch)


if __name__ == "__main__":
    main()
