"""The config a resumed run goes on with: the run's own, with the endpoints of the config given
now (a bot or judge that moved port, a new key variable, a longer timeout). Anything else that
would change the results (models, prompts, seeds, personas, scenarios, paths) must still match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simpop.config import with_options
from simpop.errors import ConfigError
from simpop.models import RunConfig
from simpop.run.language_checks import with_embedding_for_languages

# where an endpoint is reached and how patiently: these follow the config given now
ENDPOINT_FIELDS = {
    "llm": {"base_url", "api_key_env", "timeout", "max_retries", "retry_backoff", "concurrency", "threads"},
    "judge": {"base_url", "api_key_env", "timeout", "max_retries", "retry_backoff", "concurrency", "threads"},
    "embedding": {"base_url", "api_key_env", "timeout", "max_retries", "batch_size", "threads"},
    "target": {"url", "base_url", "headers", "api_key_env", "timeout", "retries"},
}
# what does not change results: the config given now is taken as it is
FREE_FIELDS = {"description", "failures", "stream"}
# compared whole: their keys are file paths, dots and all
WHOLE_FIELDS = {"plugin_files"}


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Dotted paths where ``old`` and ``new`` (plain JSON values) differ, the leaves first found."""
    if isinstance(old, dict) and isinstance(new, dict) and path not in WHOLE_FIELDS:
        found: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            found += _differences(old.get(key), new.get(key), f"{path}.{key}" if path else str(key))
        return found
    return [] if old == new else [path]


def _same_folder(a: str, b: str) -> bool:
    return Path(a).is_dir() and Path(b).is_dir() and Path(a).samefile(b)


def _is_endpoint(path: str) -> bool:
    section, _, rest = path.partition(".")
    return rest.split(".")[0] in ENDPOINT_FIELDS.get(section, set())


def resumed_config(
    recorded: RunConfig, loaded: RunConfig, source: Path, env: dict[str, str]
) -> tuple[RunConfig, list[str]]:
    """``recorded`` with the endpoints of ``loaded`` (the config at ``source`` now), and a line for
    each endpoint that changed; a ConfigError naming the first other field that differs. The run's
    own choices from the command line (personas, variants ...) are the run's."""
    current = with_embedding_for_languages(
        with_options(
            loaded,
            env,
            persona_ids=recorded.persona_ids,
            variants=recorded.variants,
            scenarios=recorded.scenarios,
            probes=recorded.probes,
            topics=recorded.topics.questions,
            limit=recorded.limit,
            seed=recorded.seed,
            judges=recorded.scoring.judges,
            conversations=recorded.conversations,
        ),
        "model" in loaded.embedding.model_fields_set,
    )
    old = recorded.model_dump(mode="json")
    new = current.model_dump(mode="json")
    if not old.get("plugin_files"):  # a run from before plugins were recorded
        new["plugin_files"] = old.get("plugin_files")
    # the cases' folder (beside the config's scenario_dir since 2026-11-29, the working directory's
    # before) matters only to a run with conversations, and then only if it is another folder
    if not recorded.conversations or _same_folder(old["conversation_dir"], new["conversation_dir"]):
        new["conversation_dir"] = old["conversation_dir"]
    changed = [p for p in _differences(old, new) if p.split(".")[0] not in FREE_FIELDS]
    for path in changed:
        if not _is_endpoint(path):
            was, now = _value(old, path), _value(new, path)
            raise ConfigError(
                f"{source}: field '{path}' is {now!r} here but {was!r} in the run being resumed, and it "
                "changes results; resume with the run's setting, or start a new run"
            )
    notes = [f"{path}: {_value(old, path)!r} → {_value(new, path)!r}" for path in changed]
    update = {section: getattr(current, section) for section in {p.split(".")[0] for p in changed}}
    merged = recorded.model_copy(update=update | {f: getattr(current, f) for f in FREE_FIELDS})
    return merged, notes


def _value(data: Any, path: str) -> Any:
    for part in path.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data
