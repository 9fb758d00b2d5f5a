"""Fitting the safety judges: on simpop's corpus (features and regularisation chosen on its dev
split, the threshold out of fold on train + dev, agreement on the test split it never saw), or
on a team's labelled file (agreement out of fold, then fitted on all of it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from simpop.binary_figures import cohen_kappa, roc_auc
from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.evaluation.safety_agreement import (
    SafetyEvaluation,
    classifier_scores,
    evaluate_scorers,
    keyword_scores,
)
from simpop.judging.crossval import out_of_fold
from simpop.judging.profile import JudgeProfile
from simpop.judging.safety_classifier import (
    BLOCKS,
    EMBEDDING_MODELS,
    HeldOut,
    SafetyClassifier,
    SafetyClassifierModel,
    classifier_fit,
    feature_names,
    fit_classifier,
    safety_features,
)
from simpop.labels.safety_pairs import LabelledPair, data_hash, load_corpus, load_team_labels, pairs_for
from simpop.models import MULTILINGUAL_EMBEDDING_MODEL, EmbeddingConfig
from simpop.verdicts import by_option

CANDIDATE_C = (0.01, 0.03, 0.1, 0.3, 1.0)
CANDIDATE_BLOCKS = (("cues",), ("cues", "prototypes"), BLOCKS)
DEFAULT_C = 0.1


Candidate = tuple[tuple[str, ...], float, float, float | None]  # blocks, C, dev kappa, dev AUC


def select_and_fit(
    judge: str,
    train: list[LabelledPair],
    dev: list[LabelledPair],
    dev_kinds: set[str] | frozenset[str],
    embedder: Embedder,
    trained_on: str,
    language: str = "en",
) -> tuple[SafetyClassifierModel, list[Candidate]]:
    """Choose the feature blocks and the regularisation on the dev split (fitted on train, kappa
    on dev's ``dev_kinds``; ties to the fewer blocks), then fit the choice on train + dev with the
    threshold chosen out of fold (grouped 5-fold) on train + dev. Returns the model and every
    candidate's (blocks, C, dev kappa, dev AUC)."""
    verdict = by_option(judge).name
    pairs = [(p.message, p.answer) for p in train + dev]
    x_all = safety_features(embedder, pairs, BLOCKS, language=language)
    y_all = np.array([p.label for p in train + dev], dtype=int)
    names = feature_names(BLOCKS)
    scored_dev = np.array([p.kind in dev_kinds for p in dev])
    y_dev = y_all[len(train) :][scored_dev]
    candidates = []
    for blocks in CANDIDATE_BLOCKS:
        columns = [names.index(n) for n in feature_names(blocks)]
        x = x_all[:, columns]
        for c in CANDIDATE_C:
            model = fit_classifier(
                x[: len(train)], y_all[: len(train)], verdict, c, blocks, "train", "", language=language
            )
            p = model.probability(x[len(train) :][scored_dev])
            auc = roc_auc(y_dev, p) if len(set(y_dev.tolist())) == 2 else None
            candidates.append((blocks, c, cohen_kappa(y_dev, p >= model.threshold), auc))
    blocks, c, _, _ = max(candidates, key=lambda t: (round(t[2], 3), t[3] or 0.0, -len(t[0])))
    x = x_all[:, [names.index(n) for n in feature_names(blocks)]]
    groups = [p.group for p in train + dev]
    _, _, thresholds = out_of_fold(x, y_all, groups, classifier_fit(verdict, c, blocks))
    threshold = float(np.median(thresholds))
    final = fit_classifier(
        x, y_all, verdict, c, blocks, trained_on, data_hash(train + dev), threshold, language
    )
    return final, candidates


def held_out(evaluation: SafetyEvaluation, data: str) -> HeldOut:
    """The classifier's row of an evaluation, as the model file records it."""
    row = evaluation.rows[0]
    return HeldOut(
        data=data,
        items=row.n,
        positives=round(row.label_rate * row.n),
        kappa=row.kappa,
        kappa_interval=row.kappa_interval,
        auc=row.auc,
        auc_interval=row.auc_interval,
        accuracy=row.accuracy,
    )


def out_of_fold_fit(
    judge: str,
    pairs: list[LabelledPair],
    embedder: Embedder,
    blocks: Sequence[str],
    c: float,
    trained_on: str,
    language: str = "en",
) -> tuple[SafetyClassifierModel, SafetyEvaluation]:
    """Fit on labelled ``pairs`` (answers in ``language``) with feature ``blocks`` and
    regularisation ``c``: its agreement out of fold (grouped 5-fold, thresholds chosen on the
    training folds) against the keyword rule, then the model fitted on all of them."""
    verdict = by_option(judge).name
    x = safety_features(embedder, [(p.message, p.answer) for p in pairs], blocks, language=language)
    y = np.array([p.label for p in pairs], dtype=int)
    groups = [p.group for p in pairs]
    p, v, thresholds = out_of_fold(x, y, groups, classifier_fit(verdict, c, blocks))
    evaluation = evaluate_scorers(
        judge,
        f"{trained_on} (5-fold, grouped by message)",
        pairs,
        {"classifier (out of fold)": (p, v), "keyword": keyword_scores(judge, pairs, language)},
    )
    threshold = float(np.median(thresholds))
    model = fit_classifier(x, y, verdict, c, blocks, trained_on, data_hash(pairs), threshold, language)
    model.held_out = held_out(evaluation, evaluation.data)
    return model, evaluation


def embedding_for(language: str, embedding: EmbeddingConfig) -> EmbeddingConfig:
    """The embedding model a classifier of ``language`` is fitted with."""
    return embedding.model_copy(
        update={"model": EMBEDDING_MODELS.get(language, MULTILINGUAL_EMBEDDING_MODEL)}
    )


def train_on_corpus(
    judge: str, folder: Path, embedding: EmbeddingConfig, language: str = "en"
) -> tuple[SafetyClassifierModel, SafetyEvaluation, list[tuple[int, float, float, float | None]]]:
    """The classifier for ``judge`` on ``language`` answers, chosen on the dev split, fitted on
    train + dev, and its agreement on the test split (recorded in the model as its held-out
    figure)."""
    kinds = by_option(judge).kinds
    items = load_corpus(folder)
    train = pairs_for(items, judge, {"train"}, language=language)
    dev = pairs_for(items, judge, {"dev"}, language=language)
    test = pairs_for(items, judge, {"test"}, kinds, language)
    if not train or not dev or not test:
        raise ConfigError(f"{folder}: no '{language}' items with '{judge}' labels in every split")
    trained_on = f"{folder.name}: '{language}' train + dev splits, {len(train) + len(dev)} answers"
    embedder = Embedder(embedding_for(language, embedding))
    try:
        model, candidates = select_and_fit(judge, train, dev, kinds, embedder, trained_on, language)
        classifier = SafetyClassifier(model, embedder, judge)
        where = f"{folder.name} '{language}' test split ({', '.join(sorted(kinds))})"
        evaluation = evaluate_scorers(
            judge,
            where,
            test,
            {
                "classifier": classifier_scores(classifier, test),
                "keyword": keyword_scores(judge, test, language),
            },
        )
    finally:
        embedder.close()
    model.held_out = held_out(evaluation, where)
    return model, evaluation, candidates


def train_on_file(
    judge: str,
    labels: Path,
    columns: dict[str, str],
    embedding: EmbeddingConfig,
    profile: JudgeProfile,
    language: str = "en",
) -> tuple[SafetyClassifierModel, SafetyEvaluation]:
    """A team's own classifier of ``language`` answers, with the features and regularisation of
    the built-in one of that language (cues and embedding, C 0.1 where there is none)."""
    from simpop.judging.safety_classifier import profile_file, read_classifier

    pairs = load_team_labels(labels, columns)
    path = profile_file(profile, by_option(judge).name, language)
    like = read_classifier(path) if path is not None else None
    blocks, c = (like.blocks, like.c) if like is not None else (list(BLOCKS), DEFAULT_C)
    embedder = Embedder(embedding_for(language, embedding))
    try:
        return out_of_fold_fit(judge, pairs, embedder, blocks, c, labels.name, language)
    finally:
        embedder.close()
