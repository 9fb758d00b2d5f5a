"""Before a run does any work or makes its directory: every endpoint it will call (the LLM, the
judge's LLM, the embeddings, the bot) answers and takes our credentials."""

from __future__ import annotations

import httpx

from simpop.errors import SimpopError
from simpop.models import EmbeddingConfig, LLMConfig, RunConfig
from simpop.redact import secret_env
from simpop.targets.target import HealthCheck, RemoteTargetConfig

TIMEOUT_S = 10.0


def _model_list(what: str, base_url: str | None, key: str | None) -> HealthCheck | None:
    """``GET /models`` on an OpenAI-compatible endpoint with its key (None: no endpoint)."""
    if base_url is None:
        return None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return HealthCheck(what, base_url, base_url.rstrip("/") + "/models", "GET", headers, json_api=True)


def llm_health_check(config: LLMConfig) -> HealthCheck | None:
    """A remote LLM endpoint's model list (None for the embedded server)."""
    key = secret_env(config.api_key_env) or secret_env("OPENAI_API_KEY")
    return _model_list("LLM endpoint", config.base_url, key)


def embedding_health_check(config: EmbeddingConfig) -> HealthCheck | None:
    """An embeddings endpoint's model list (None for the local model)."""
    return _model_list("embedding endpoint", config.base_url, secret_env(config.api_key_env))


def health_checks(config: RunConfig) -> list[HealthCheck]:
    """What a run of ``config`` will call: its LLM, its judge's LLM (judges on), its bot."""
    checks = [llm_health_check(config.llm), embedding_health_check(config.embedding)]
    if config.scoring.judges and config.judge is not None:
        checks.append(llm_health_check(config.judge))
    if isinstance(config.target, RemoteTargetConfig):
        checks.append(config.target.health_check())
    unique = {(c.method, c.url): c for c in checks if c is not None}
    return list(unique.values())


def check_endpoint(check: HealthCheck, timeout: float = TIMEOUT_S) -> str | None:
    """A SimpopError naming the endpoint when it cannot be reached or refuses our credentials
    (the credentials themselves are never shown); a note when it is slow to answer (a busy
    server is not a missing one)."""
    try:
        response = httpx.request(check.method, check.url, headers=check.headers, timeout=timeout)
    except httpx.TimeoutException:
        return f"{check.what} {check.endpoint} did not answer a health check within {timeout:g}s"
    except httpx.HTTPError as error:
        raise SimpopError(f"cannot reach {check.what} {check.endpoint} ({type(error).__name__})") from None
    if response.status_code in (401, 403):
        raise SimpopError(
            f"{check.what} {check.endpoint} refused our credentials ({response.status_code}); "
            "check the API key or headers it is given"
        )
    if check.json_api and response.is_success and not _is_json(response):
        kind = response.headers.get("content-type", "").split(";")[0] or "a body"
        raise SimpopError(
            f"{check.what} {check.endpoint} answered {check.url} with {kind} that is not JSON: "
            "is it the API's address (an OpenAI-compatible one often ends in /v1)?"
        )
    return None


def _is_json(response: httpx.Response) -> bool:
    try:
        response.json()
    except ValueError:
        return False
    return True


def check_endpoints(config: RunConfig) -> list[str]:
    """Every endpoint of ``config``, in turn: the notes of the slow ones."""
    return [note for check in health_checks(config) if (note := check_endpoint(check))]
