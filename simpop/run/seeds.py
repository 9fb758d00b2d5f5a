"""The seeds a run's patients rephrase (the ``seeds`` file, else a QAP bot's own QAPs) and each
seed's gold ids: its own QAP and the QAPs of the bot's catalogue equivalent to it, or the
knowledge-base chunks that hold its answer."""

from __future__ import annotations

from pathlib import Path

from simpop.config import load_qaps
from simpop.errors import ConfigError
from simpop.knowledge import load_chunks
from simpop.models import QAP, RunConfig, Scenario
from simpop.population.gold import equivalent_qaps, gold_chunk_ids
from simpop.targets.qap import matchable


def seed_file(config: RunConfig) -> Path:
    """The QAP file the patients rephrase: ``seeds``, else a QAP target's own QAPs."""
    if config.seeds is not None:
        return config.seeds
    if config.target.own_qaps() is not None:
        return config.target.own_qaps()
    raise ConfigError(
        f"field 'seeds': required for a {config.target.kind} target when variants or QAP-seeded "
        "scenarios are run (a QAP file to rephrase)"
    )


def asks_own_qaps(config: RunConfig) -> bool:
    """A QAP target asked its own questions (all of its QAP file, or seeds that are some of its
    QAPs, by id): the seed QAP is the one it should match. Seeds of which only some are the
    target's are a ConfigError; seeds of which none are ask other questions."""
    own = config.target.own_qaps()
    if own is None:
        return False
    seeds = seed_file(config)
    if seeds == own:
        return True
    own_ids = {q.id for q in load_qaps(own)}
    seed_ids = [q.id for q in load_qaps(seeds)]
    foreign = [i for i in seed_ids if i not in own_ids]
    if foreign and len(foreign) < len(seed_ids):
        raise ConfigError(
            f"field 'seeds': {seeds} has {len(foreign)} QAP ids that are not the target's "
            f"({', '.join(foreign[:3])}{' ...' if len(foreign) > 3 else ''}): a seeds file of the "
            "target's own QAPs (some or all, by id) scores QAP-match accuracy; one of other "
            "questions does not"
        )
    return not foreign


def load_seeds(
    config: RunConfig, scenarios: list[Scenario], own: bool
) -> tuple[list[QAP], int, dict[str, list[str] | None], dict[str, list[str]]]:
    """The first ``limit`` QAPs with a distinct question (more where a multi-question scenario
    combines more: a message of several questions needs that many), how many repeat an earlier
    one, each seed's gold ids (its own QAP, or the knowledge-base chunks that hold its answer),
    and, asked of a QAP bot's own QAPs, the QAPs of its catalogue equivalent to each seed (a
    match to one is right; they are not gold for retrieval, which the bot's own index may leave
    them out of)."""
    if not config.variants and not any(s.source in ("qap", "multi_question") for s in scenarios):
        return [], 0, {}, {}
    qaps = load_qaps(seed_file(config))
    distinct = matchable(qaps)
    combined = [max(s.combine) for s in scenarios if s.source == "multi_question"]
    seeds = distinct[: max([config.limit, *combined])]
    gold: dict[str, list[str] | None] = dict.fromkeys((q.id for q in seeds), None)
    equivalents: dict[str, list[str]] = {}
    if own:  # asks_own_qaps(config)
        gold = {q.id: [q.id] for q in seeds}
        same = equivalent_qaps(load_qaps(config.target.own_qaps() or seed_file(config)))
        equivalents = {q.id: same[q.id] for q in seeds if q.id in same}
    elif config.target.documents() is not None:
        chunks = load_chunks(config.target.documents())
        gold = {q.id: gold_chunk_ids(q, chunks) for q in seeds}
    return seeds, len(qaps) - len(distinct), gold, equivalents
