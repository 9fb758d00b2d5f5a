"""Fit the ``asr`` noise model to real speech-to-text errors and check it reproduces them."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from simpop.errors import ConfigError
from simpop.population.noise import (
    DEFAULT_ASR,
    FILLERS,
    ASRParameters,
    WordErrors,
    asr_noise,
    normalise,
    total_errors,
)
from simpop.textfiles import read_text

REFERENCE_COLUMN = "norm_ground_truth"
HYPOTHESIS_COLUMN = "norm_hypothesis"


def load_pairs(
    path: Path, reference: str = REFERENCE_COLUMN, hypothesis: str = HYPOTHESIS_COLUMN
) -> list[tuple[str, str]]:
    """(human transcript, speech-to-text transcript) pairs from a CSV file."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    try:
        missing = [c for c in (reference, hypothesis) if c not in (reader.fieldnames or [])]
        if missing:
            raise ConfigError(f"{path}: no column '{missing[0]}'")
        pairs = [(row[reference] or "", row[hypothesis] or "") for row in reader]
    except csv.Error as error:
        raise ConfigError(f"{path}: cannot read ({error})") from None
    pairs = [(ref, hyp) for ref, hyp in pairs if normalise(ref)]
    if not pairs:
        raise ConfigError(f"{path}: no utterance with a reference transcript")
    return pairs


def estimate(pairs: list[tuple[str, str]]) -> ASRParameters:
    """First estimates of each event's probability, read off the word alignments."""
    lost = cut = fillers = filler_deleted = words = deleted = substituted = inserted = 0
    cut_shares: list[float] = []
    kept = 0
    for reference, hypothesis in pairs:
        ref, hyp = normalise(reference), normalise(hypothesis)
        if not hyp:
            lost += 1
            continue
        kept += 1
        ops = Levenshtein.editops(ref, hyp)
        tail = 0
        deleted_at = {op.src_pos for op in ops if op.tag == "delete"}
        while len(ref) - 1 - tail in deleted_at:
            tail += 1
        if tail >= 2:
            cut += 1
            cut_shares.append(tail / len(ref))
        else:
            tail = 0
        body = len(ref) - tail
        for op in ops:
            if op.tag == "delete" and op.src_pos < body:
                if ref[op.src_pos] in FILLERS:
                    filler_deleted += 1
                else:
                    deleted += 1
            elif op.tag == "replace":
                substituted += 1
            elif op.tag == "insert":
                inserted += 1
        n_fillers = sum(1 for w in ref[:body] if w in FILLERS)
        fillers += n_fillers
        words += body - n_fillers
    return ASRParameters(
        dropout=lost / len(pairs),
        truncation=cut / kept if kept else 0.0,
        truncated_share=sum(cut_shares) / len(cut_shares) if cut_shares else 0.0,
        filler_deletion=filler_deleted / fillers if fillers else 0.0,
        deletion=deleted / words if words else 0.0,
        substitution=substituted / words if words else 0.0,
        boundary=DEFAULT_ASR.boundary,
        insertion=inserted / words if words else 0.0,
    )


def simulate(
    pairs: list[tuple[str, str]], params: ASRParameters, seeds: int = 1, rate: float | None = None
) -> WordErrors:
    """The errors the model makes on the references, summed over ``seeds`` repetitions."""
    return total_errors(
        (ref, asr_noise(ref, rate, seed * 100_003 + i, params))
        for seed in range(seeds)
        for i, (ref, _) in enumerate(pairs)
    )


@dataclass(frozen=True)
class NoiseFit:
    """The fitted parameters with the real error figures and the model's on the same text."""

    params: ASRParameters
    real: WordErrors
    simulated: WordErrors


def fit(pairs: list[tuple[str, str]], seeds: int = 10, rounds: int = 4) -> NoiseFit:
    """Alignment estimates, then rounds of simulate-and-rescale so the simulated substitution,
    deletion and insertion counts match the real ones (moment matching)."""
    real = total_errors(pairs)
    params = estimate(pairs)
    for _ in range(rounds):
        sim = simulate(pairs, params, seeds)
        per = seeds  # the simulation counts every reference ``seeds`` times
        update = params.model_dump()
        if sim.substitutions:
            update["substitution"] *= real.substitutions * per / sim.substitutions
        if sim.insertions:
            update["insertion"] *= real.insertions * per / sim.insertions
        if sim.deletions:
            update["deletion"] *= real.deletions * per / sim.deletions
        params = ASRParameters(**{k: round(min(v, 1.0), 4) for k, v in update.items()})
    return NoiseFit(params, real, simulate(pairs, params, seeds))
