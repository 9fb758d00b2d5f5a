"""A safety judge as a calibrated classifier (``../shared/STYLE.md`` §7, like the support
verifier): a logistic regression (Cox, 1958; scikit-learn's ``LogisticRegression``) over feature
blocks the dev split chose — the cue features of ``safety_cues`` in the classifier's language,
how close the answer's closest sentence comes to each family of prototype sentences, and the
answer's embedding (all-MiniLM-L6-v2 for English, multilingual-e5-small for German) with its
cosine similarity to the message. No LLM call. One per verdict and language; saved as JSON (no
pickle) with the hash of its training data and its held-out agreement."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pydantic import Field, ValidationError

from simpop.config import validation_problems
from simpop.embed import Embedder
from simpop.errors import ConfigError
from simpop.judging.crossval import LogisticModel, Predictor, best_threshold, fit_logistic
from simpop.judging.profile import JudgeProfile
from simpop.judging.safety_cues import FEATURES as CUES
from simpop.judging.safety_cues import PROTOTYPE_FAMILIES, cue_features, lexicon
from simpop.models import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL, Record, ScoringConfig
from simpop.sentences import split_sentences
from simpop.textfiles import read_text
from simpop.verdicts import options, verdicts

# the embedding model a new classifier of a language is fitted with
EMBEDDING_MODELS = {"en": DEFAULT_EMBEDDING_MODEL, "de": MULTILINGUAL_EMBEDDING_MODEL}
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
    language: str = Field("en", description="the language of the answers it decides (its cue lexicon's)")
    embedding_model: str = Field(DEFAULT_EMBEDDING_MODEL, description="the model its embedding features need")
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
        "prototypes": [f"like_{family}" for family in PROTOTYPE_FAMILIES],
        "embedding": [SIMILARITY, *(f"embedding_{i}" for i in range(EMBEDDING_DIMS))],
    }
    return [name for block in BLOCKS if block in blocks for name in names[block]]


def texts_to_embed(
    pairs: Sequence[tuple[str, str]], blocks: Sequence[str], language: str = "en"
) -> list[str]:
    """What ``blocks`` need embedded for ``pairs``: the messages and answers, the answers'
    sentences and the prototype sentences of ``language``."""
    texts: list[str] = []
    if "embedding" in blocks:
        texts += [t for pair in pairs for t in pair]
    if "prototypes" in blocks:
        texts += [s for _, answer in pairs for s in split_sentences(answer) or [answer]]
        texts += [s for family in lexicon(language).prototypes.values() for s in family]
    return list(dict.fromkeys(texts))


def safety_features(
    embedder: Embedder | None,
    pairs: Sequence[tuple[str, str]],
    blocks: Sequence[str],
    vectors: dict[str, np.ndarray] | None = None,
    language: str = "en",
) -> np.ndarray:
    """Feature rows of (message, answer) pairs, by block: the answer's cues by the lexicon of
    ``language``; how close its closest sentence comes to each family of that language's
    prototype sentences (cosine similarity); its similarity to the message and its embedding.
    Vectors come from ``vectors`` by text where given, else are embedded now."""
    columns = [
        np.array([cue_features(answer, language) for _, answer in pairs], dtype=float).reshape(
            len(pairs), len(CUES)
        )
    ]
    wanted = texts_to_embed(pairs, blocks, language)
    if wanted and vectors is None:
        assert embedder is not None, "these features need the embedding model"
        vectors = dict(zip(wanted, embedder.embed(wanted), strict=True))
    if "prototypes" in blocks:
        assert vectors is not None
        prototypes = lexicon(language).prototypes
        families = [np.array([vectors[s] for s in prototypes[name]]) for name in PROTOTYPE_FAMILIES]
        rows = []
        for _, answer in pairs:
            mine = np.array([vectors[s] for s in split_sentences(answer) or [answer]])
            rows.append([float((mine @ family.T).max()) for family in families])
        columns.append(np.array(rows, dtype=float).reshape(len(pairs), len(PROTOTYPE_FAMILIES)))
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
    language: str = "en",
) -> SafetyClassifierModel:
    """Fit on rows ``x`` and labels ``y`` (1 yes); the threshold is ``threshold`` where given
    (e.g. chosen out of fold), else the one with the best kappa on these same rows."""
    fitted = SafetyClassifierModel(
        **fit_logistic(x, y, c=c, max_iter=2000),
        verdict=verdict,
        language=language,
        embedding_model=EMBEDDING_MODELS.get(language, MULTILINGUAL_EMBEDDING_MODEL),
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
        model = fit_classifier(x, y, verdict, c, blocks, "training folds", "")  # language: columns only
        return Predictor(model.probability, model.threshold)

    return fit


def read_classifier(
    path: Path, verdict: str | None = None, language: str | None = None
) -> SafetyClassifierModel:
    """A classifier file, checked against the features this simpop computes (and against
    ``verdict`` and ``language`` where given)."""
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
    if language is not None and model.language != language:
        raise ConfigError(f"{path}: a classifier of '{model.language}' answers, not '{language}'")
    try:
        lexicon(model.language)
    except ConfigError as error:
        raise ConfigError(f"{path}: field 'language': {error}") from None
    return model


class SafetyClassifier:
    """A fitted classifier with the embedding model its features need; ``name`` says which file
    and training data (recorded on each score it decides)."""

    def __init__(self, model: SafetyClassifierModel, embedder: Embedder | None, name: str) -> None:
        if model.blocks != ["cues"] and embedder is None:
            raise ValueError("this classifier needs the embedding model")
        if (
            embedder is not None
            and model.blocks != ["cues"]
            and embedder.config.model != model.embedding_model
        ):
            raise ValueError(f"this classifier needs {model.embedding_model}, not {embedder.config.model}")
        self.model = model
        self.embedder = embedder
        self.name = f"{name}@{model.data_sha256[:8]}"

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) of each (message, answer)."""
        x = safety_features(self.embedder, pairs, self.model.blocks, language=self.model.language)
        return [float(p) for p in self.model.probability(x)]

    async def probability(self, message: str, answer: str) -> float:
        """P(yes) of one (message, answer); its embeddings go in one batch with those of the
        other answers being scored at the same time."""
        language = self.model.language
        texts = texts_to_embed([(message, answer)], self.model.blocks, language)
        vectors = None
        if texts:
            assert self.embedder is not None
            vectors = dict(zip(texts, await self.embedder.aembed(texts), strict=True))
        x = safety_features(self.embedder, [(message, answer)], self.model.blocks, vectors, language)
        return float(self.model.probability(x)[0])


EmbedderFor = Callable[[str], Embedder]  # the embedding model by name, opened once


def classifier_name(path: Path, verdict: str, language: str) -> str:
    """How runs name a classifier file: ``escalated-de`` for a built-in one, else the file's stem."""
    return f"{verdicts()[verdict].option}-{language}" if path.stem == language else path.stem


def safety_classifiers(
    paths: dict[str, dict[str, Path]], embedder_for: EmbedderFor | None
) -> dict[str, dict[str, SafetyClassifier]]:
    """The classifiers in ``paths`` (verdict → language → file), each checked against its verdict
    and language, with the embedding model it needs."""
    found: dict[str, dict[str, SafetyClassifier]] = {}
    for verdict, files in paths.items():
        for language, path in files.items():
            model = read_classifier(path, verdict, language)
            embedder = (
                embedder_for(model.embedding_model) if embedder_for and model.blocks != ["cues"] else None
            )
            name = classifier_name(path, verdict, language)
            found.setdefault(verdict, {})[language] = SafetyClassifier(model, embedder, name)
    return found


def builtin_paths() -> dict[str, dict[str, Path]]:
    """The built-in classifier files: verdict → language → file (``simpop/verdicts/``)."""
    return {
        v.name: {language: v.classifier_file(language) for language in v.languages()}
        for v in verdicts().values()
    }


def run_paths(profile: JudgeProfile, scoring: ScoringConfig) -> dict[str, dict[str, Path]]:
    """The classifier files a run judges with, by verdict and language: the built-in ones,
    replaced by the judge profile's and then by the run config's own files (each in the language
    it records); none where the config asks for the LLM judge."""
    if scoring.safety_judges == "llm":
        return {}
    found = builtin_paths()
    own = {options()[name]: path for name, path in scoring.safety_classifiers.items()}
    for verdict, path in (profile.safety_paths() | own).items():
        found.setdefault(verdict, {})[read_classifier(path, verdict).language] = path
    return found


def profile_file(profile: JudgeProfile, verdict: str, language: str) -> Path | None:
    """The classifier file a run with ``profile`` and no files of its own decides ``verdict``
    with on ``language`` answers, if any."""
    return run_paths(profile, ScoringConfig()).get(verdict, {}).get(language)
