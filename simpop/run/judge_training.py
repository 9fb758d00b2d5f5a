"""``simpop judge train``: fit the support verifier on a team's own labelled statements (a
statement, the context it should rest on, supported yes/no), the human calibration step of HCAT
applied to the judge; its agreement is measured out of fold before the final fit on all."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import numpy as np
from rich.progress import Progress

from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judging.crossval import Agreement, agreement, out_of_fold, threshold_fit
from simpop.judging.verifier import VerifierModel, feature_matrix, fit_verifier, verifier_fit
from simpop.labels.files import load_label_file, read_scale
from simpop.llm import open_llm
from simpop.metrics.judge import Judge
from simpop.models import EmbeddingConfig, LLMConfig
from simpop.run.agreement import judge_probabilities
from simpop.sentences import split_sentences

MIN_CONTEXTS = 5  # grouped 5-fold cross-validation needs a context per fold at least


async def train_verifier(
    labels: Path,
    config: LLMConfig,
    embedding: EmbeddingConfig,
    label: str = "supported",
    columns: dict[str, str] | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> tuple[VerifierModel, list[Agreement]]:
    """The verifier fitted on every labelled statement of ``labels`` (the ``answer`` column is
    the statement, ``context`` what it should rest on), and the out-of-fold agreement of the
    judge alone and of the verifier, folds grouped by context."""
    items = load_label_file(labels, columns)
    scale, carrying, y_levels = read_scale(items, label)
    if len(scale.levels) != 2:
        raise ConfigError(f"{labels}, label '{label}': a verifier needs yes/no labels, found {scale.levels}")
    empty = next((i for i in carrying if not i.answer.strip() or not i.context.strip()), None)
    if empty is not None:
        raise ConfigError(f"{labels}, item {empty.id}: a statement (answer) and its context are both needed")
    groups = [i.context for i in carrying]
    if len(set(groups)) < MIN_CONTEXTS:
        raise ConfigError(
            f"{labels}: {len(set(groups))} distinct contexts; grouped cross-validation needs {MIN_CONTEXTS}"
        )
    y = np.array(y_levels, dtype=int)
    embedder = Embedder(embedding)
    llm = open_llm(config, use_cache=use_cache)
    try:
        with progress if progress is not None else nullcontext():
            found = await judge_probabilities(
                Judge(llm, model=config.model), [(i.context, i.answer) for i in carrying], progress
            )
        judge_p = [0.5 if p is None else p for p in found]
        x = feature_matrix(
            embedder, [(split_sentences(i.context), i.context, i.answer) for i in carrying], judge_p
        )
    finally:
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    rows = []
    for name, fit in (
        (f"{config.model} P(yes)", threshold_fit(0)),
        (f"{config.model} + verifier", verifier_fit),
    ):
        p, verdict, thresholds = out_of_fold(x, y, groups, fit)
        rows.append(agreement(name, y, p, verdict, groups, thresholds))
    where = f"{labels.name}: {len(y)} statements on {len(set(groups))} contexts, judge {config.model}"
    return fit_verifier(x, y, where, config.model), rows
