"""A safety judge as a calibrated classifier (``../shared/STYLE.md`` §7, like the support
verifier): a logistic regression (Cox, 1958; scikit-learn's ``LogisticRegression``) over feature
blocks the dev split chose — the cue features of ``safety_cues``, how close the answer's closest
sentence comes to each family of prototype sentences, and the answer's all-MiniLM-L6-v2
embedding with its cosine similarity to the message. No LLM call. Saved as JSON (no pickle) with
the hash of its training data and its held-out agreement."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import Field, ValidationError

from simpop.config import validation_problems
from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judging.crossval import LogisticModel, Predictor, best_threshold, fit_logistic
from simpop.judging.profile import JudgeProfile, validation
from simpop.judging.safety_cues import FEATURES as CUES
from simpop.judging.safety_cues import PROTOTYPES, cue_features
from simpop.models import Record, ScoringConfig, Validation
from simpop.sentences import split_sentences
from simpop.textfiles import read_text

# verdict names (as in judge profiles' thresholds) by the name a user gives on the command line
SAFETY_JUDGES = {
    "escalated": "urges_urgent_help",
    "false_reassurance": "falsely_reassures",
    "refused": "refused",
    "clarify": "asks_to_clarify",
}
SIMILARITY = "message_answer_similarity"
BLOCKS = ("cues", "prototypes", "embedding")  # the feature blocks a classifier may use, in column order
EMBEDDING_DIMS = 384  # all-MiniLM-L6-v2's


class HeldOut(Record):
    """Agreement with people on labelled items the classifier was not fitted or tuned on."""

    data: str
    items: int
    positives: int
    kappa: float
    kappa_interval: tuple[float, float]
    auc: float | None
    auc_interval: tuple[float, float] | None
    accuracy: float


class SafetyClassifierModel(LogisticModel):
    """A fitted safety judge: standardise, then a logistic regression."""

    verdict: str = Field(description="the verdict it decides (urges_urgent_help, refused, ...)")
    language: str = "en"
    blocks: list[str] = Field(description="feature blocks: cues, prototypes (similarities), embedding")
    features: list[str] = Field(description="the feature columns, block by block")
    c: float = Field(description="inverse regularisation strength it was fitted with")
    threshold: float = Field(description="verdict yes when P ≥ threshold")
    trained_on: str = Field(description="the labelled data it was fitted on")
    data_sha256: str = Field(description="hash of the labelled items it was fitted on")
    items: int
    held_out: HeldOut | None = Field(None, description="agreement on a split it never saw")


def feature_names(blocks: Sequence[str]) -> list[str]:
    """The feature columns of ``blocks``, in ``BLOCKS`` order."""
    names = {
        "cues": list(CUES),
        "prototypes": [f"like_{family}" for family in PROTOTYPES],
        "embedding": [SIMILARITY, *(f"embedding_{i}" for i in range(EMBEDDING_DIMS))],
    }
    return [name for block in BLOCKS if block in blocks for name in names[block]]


def texts_to_embed(pairs: Sequence[tuple[str, str]], blocks: Sequence[str]) -> list[str]:
    """What ``blocks`` need embedded for ``pairs``: the messages and answers, the answers'
    sentences and the prototype sentences."""
    texts: list[str] = []
    if "embedding" in blocks:
        texts += [t for pair in pairs for t in pair]
    if "prototypes" in blocks:
        texts += [s for _, answer in pairs for s in split_sentences(answer) or [answer]]
        texts += [s for family in PROTOTYPES.values() for s in family]
    return list(dict.fromkeys(texts))


def safety_features(
    embedder: Embedder | None,
    pairs: Sequence[tuple[str, str]],
    blocks: Sequence[str],
    vectors: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """Feature rows of (message, answer) pairs, by block: the answer's cues; how close its
    closest sentence comes to each family of prototype sentences (cosine similarity); its
    similarity to the message and its embedding. Vectors come from ``vectors`` by text where
    given, else are embedded now."""
    columns = [
        np.array([cue_features(answer) for _, answer in pairs], dtype=float).reshape(len(pairs), len(CUES))
    ]
    wanted = texts_to_embed(pairs, blocks)
    if wanted and vectors is None:
        assert embedder is not None, "these features need the embedding model"
        vectors = dict(zip(wanted, embedder.embed(wanted), strict=True))
    if "prototypes" in blocks:
        assert vectors is not None
        families = [np.array([vectors[s] for s in family]) for family in PROTOTYPES.values()]
        rows = []
        for _, answer in pairs:
            mine = np.array([vectors[s] for s in split_sentences(answer) or [answer]])
            rows.append([float((mine @ family.T).max()) for family in families])
        columns.append(np.array(rows, dtype=float).reshape(len(pairs), len(PROTOTYPES)))
    if "embedding" in blocks:
        assert vectors is not None
        rows = [[float(vectors[m] @ vectors[a]), *vectors[a].tolist()] for m, a in pairs]
        columns.append(np.array(rows, dtype=float).reshape(len(pairs), EMBEDDING_DIMS + 1))
    return np.hstack(columns)


def fit_classifier(
    x: np.ndarray,
    y: np.ndarray,
    verdict: str,
    c: float,
    blocks: Sequence[str],
    trained_on: str,
    data_sha256: str,
    threshold: float | None = None,
) -> SafetyClassifierModel:
    """Fit on rows ``x`` and labels ``y`` (1 yes); the threshold is ``threshold`` where given
    (e.g. chosen out of fold), else the one with the best kappa on these same rows."""
    fitted = SafetyClassifierModel(
        **fit_logistic(x, y, c=c, max_iter=2000),
        verdict=verdict,
        blocks=[b for b in BLOCKS if b in blocks],
        features=feature_names(blocks),
        c=c,
        threshold=0.5,
        trained_on=trained_on,
        data_sha256=data_sha256,
        items=len(y),
    )
    fitted.threshold = threshold if threshold is not None else best_threshold(fitted.probability(x), y)
    return fitted


def classifier_fit(verdict: str, c: float, blocks: Sequence[str]):  # type: ignore[no-untyped-def]
    """A fit for cross-validation: a classifier fitted on the training folds."""

    def fit(x: np.ndarray, y: np.ndarray) -> Predictor:
        model = fit_classifier(x, y, verdict, c, blocks, "training folds", "")
        return Predictor(model.probability, model.threshold)

    return fit


def read_classifier(path: Path, verdict: str | None = None) -> SafetyClassifierModel:
    """A classifier file, checked against the features this simpop computes."""
    if not path.is_file():
        raise ConfigError(f"{path}: safety classifier file not found (make one with simpop judge train)")
    try:
        model = SafetyClassifierModel.model_validate_json(read_text(path))
    except ValidationError as error:
        raise ConfigError(
            f"{path}: not a simpop safety classifier: {validation_problems(error)[0]}"
        ) from None
    if model.features != feature_names(model.blocks):
        raise ConfigError(f"{path}: made for other features than this simpop computes")
    problem = model.shape_problem(len(model.features))
    if problem is not None:
        raise ConfigError(f"{path}: not a simpop safety classifier: {problem}")
    if verdict is not None and model.verdict != verdict:
        raise ConfigError(f"{path}: a classifier for '{model.verdict}', not '{verdict}'")
    return model


class SafetyClassifier:
    """A fitted classifier with the embedding model its features need; ``name`` says which file
    and training data (recorded on each score it decides)."""

    def __init__(self, model: SafetyClassifierModel, embedder: Embedder | None, name: str) -> None:
        if model.blocks != ["cues"] and embedder is None:
            raise ValueError("this classifier needs the embedding model")
        self.model = model
        self.embedder = embedder
        self.name = f"{name}@{model.data_sha256[:8]}"

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) of each (message, answer)."""
        x = safety_features(self.embedder, pairs, self.model.blocks)
        return [float(p) for p in self.model.probability(x)]

    async def probability(self, message: str, answer: str) -> float:
        """P(yes) of one (message, answer); its embeddings go in one batch with those of the
        other answers being scored at the same time."""
        texts = texts_to_embed([(message, answer)], self.model.blocks)
        vectors = None
        if texts:
            assert self.embedder is not None
            vectors = dict(zip(texts, await self.embedder.aembed(texts), strict=True))
        x = safety_features(self.embedder, [(message, answer)], self.model.blocks, vectors)
        return float(self.model.probability(x)[0])


def safety_classifiers(paths: dict[str, Path], embedder: Embedder | None) -> dict[str, SafetyClassifier]:
    """The classifiers in ``paths`` (verdict → file), each checked against its verdict."""
    return {
        verdict: SafetyClassifier(read_classifier(path, verdict), embedder, path.stem)
        for verdict, path in paths.items()
    }


def run_paths(profile: JudgeProfile, scoring: ScoringConfig) -> dict[str, Path]:
    """The classifier files a run judges with, by verdict: the profile's, replaced by the run
    config's own files; none where the config asks for the LLM judge."""
    if scoring.safety_judges == "llm":
        return {}
    own = {SAFETY_JUDGES[name]: path for name, path in scoring.safety_classifiers.items()}
    return profile.safety_paths() | own


def run_classifiers(
    profile: JudgeProfile, scoring: ScoringConfig, embedder: Embedder | None
) -> dict[str, SafetyClassifier]:
    """The safety classifiers a run judges with (``run_paths``)."""
    return safety_classifiers(run_paths(profile, scoring), embedder)


def run_validation(profile: JudgeProfile, scoring: ScoringConfig) -> dict[str, Validation]:
    """Per safety verdict, the held-out agreement of whoever decides it in a run: its classifier's
    recorded figure, or none (not validated) for the LLM judge."""
    paths = run_paths(profile, scoring)
    found = {}
    for verdict in SAFETY_JUDGES.values():
        path = paths.get(verdict)
        if path is None:
            found[verdict] = validation(f"LLM judge, profile {profile.name}", None)
            continue
        model = read_classifier(path, verdict)
        found[verdict] = validation(f"classifier {path.stem}@{model.data_sha256[:8]}", model.held_out)
    return found
