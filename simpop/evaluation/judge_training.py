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
from simpop.evaluation.agreement import judge_probabilities
from simpop.judging.crossval import Agreement, agreement, out_of_fold, threshold_fit
from simpop.judging.verifier import VerifierModel, feature_matrix, fit_verifier, verifier_fit
from simpop.labels.files import LabelledItem, load_label_file, read_scale
from simpop.llm import open_llm
from simpop.metrics.judge import Judge
from simpop.models import EmbeddingConfig, LLMConfig
from simpop.sentences import split_sentences

MIN_CONTEXTS = 5  # grouped 5-fold cross-validation needs a context per fold at least


async def train_verifier(
    files: list[Path],
    config: LLMConfig,
    embedding: EmbeddingConfig,
    label: str = "supported",
    columns: dict[str, str] | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> tuple[VerifierModel, list[Agreement]]:
    """The verifier fitted on every labelled statement of ``files`` (the ``answer`` column is
    the statement, ``context`` what it should rest on), and the out-of-fold agreement of the
    judge alone and of the verifier, folds grouped by context. With several files, each file's
    figures apart: out of fold on all of them, and fitted on the other files only (transfer)."""
    items, sources = [], []
    for file in files:
        found = labelled_statements(file, label, columns)
        items += found
        sources += [file.name if sum(f.name == file.name for f in files) == 1 else str(file)] * len(found)
    groups = [f"{source}\n{i.context}" for source, (i, _) in zip(sources, items, strict=True)]
    y = np.array([yes for _, yes in items], dtype=int)
    embedder = Embedder(embedding)
    llm = open_llm(config, use_cache=use_cache)
    try:
        with progress if progress is not None else nullcontext():
            found = await judge_probabilities(
                Judge(llm, model=config.model), [(i.context, i.answer) for i, _ in items], progress
            )
        judge_p = [0.5 if p is None else p for p in found]
        x = feature_matrix(
            embedder, [(split_sentences(i.context), i.context, i.answer) for i, _ in items], judge_p
        )
    finally:
        await llm.aclose()
        llm.endpoint.close()
        embedder.close()
    masks = {name: np.array([s == name for s in sources]) for name in dict.fromkeys(sources)}
    rows = []
    for name, fit in (
        (f"{config.model} P(yes)", threshold_fit(0)),
        (f"{config.model} + verifier", verifier_fit),
    ):
        p, verdict, thresholds = out_of_fold(x, y, groups, fit)
        for source, mine in masks.items() if len(masks) > 1 else [("", np.ones(len(y), dtype=bool))]:
            shown = f"{name} · {source}" if source else name
            rows.append(agreement(shown, y[mine], p[mine], verdict[mine], _pick(groups, mine), thresholds))
    for source, mine in masks.items() if len(masks) > 1 else []:
        predict = verifier_fit(x[~mine], y[~mine])  # the other files only: does the fit carry?
        p, verdict = predict(x[mine])
        name = f"{config.model} + verifier fitted on the others · {source}"
        rows.append(agreement(name, y[mine], p, verdict, _pick(groups, mine), [predict.threshold]))
    where = f"{', '.join(masks)}: {len(y)} statements on {len(set(groups))} contexts, judge {config.model}"
    return fit_verifier(x, y, where, config.model), rows


def _pick(values: list[str], mask: np.ndarray) -> list[str]:
    return [v for v, keep in zip(values, mask, strict=True) if keep]


def labelled_statements(
    file: Path, label: str, columns: dict[str, str] | None
) -> list[tuple[LabelledItem, bool]]:
    """The statements of one label file with their yes/no ``label``, checked for what a grouped
    cross-validation needs."""
    items = load_label_file(file, columns)
    try:
        scale, carrying, y_levels = read_scale(items, label)
    except ConfigError as error:  # which of the files given it is
        raise ConfigError(f"{file}: {error}") from None
    if len(scale.levels) != 2:
        raise ConfigError(f"{file}, label '{label}': a verifier needs yes/no labels, found {scale.levels}")
    empty = next((i for i in carrying if not i.answer.strip() or not i.context.strip()), None)
    if empty is not None:
        raise ConfigError(f"{file}, item {empty.id}: a statement (answer) and its context are both needed")
    contexts = len({i.context for i in carrying})
    if contexts < MIN_CONTEXTS:
        raise ConfigError(
            f"{file}: {contexts} distinct contexts; grouped cross-validation needs {MIN_CONTEXTS}"
        )
    return [(i, bool(level)) for i, level in zip(carrying, y_levels, strict=True)]
