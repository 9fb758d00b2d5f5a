"""Loading YAML and data files into records, with errors that name the file and the field."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Collection
from difflib import get_close_matches
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from simpop.errors import ConfigError
from simpop.models import QAP, Domain, LLMConfig, Persona, RealMessage, RunConfig, Scenario, Vignette
from simpop.models.conversation_case import ConversationCase
from simpop.textfiles import not_a_file, read_text, real_path
from simpop.yamlfiles import load_yaml

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", Persona, Scenario)


def field_names(model: type[BaseModel]) -> set[str]:
    """The names of ``model``'s fields and of every record's nested in them (or subclassing one)."""
    names: set[str] = set()
    seen: set[type] = set()
    stack: list[Any] = [model]
    while stack:
        kind = stack.pop()
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if kind in seen:
                continue
            seen.add(kind)
            names |= set(kind.model_fields)
            stack += [f.annotation for f in kind.model_fields.values()]
            stack += kind.__subclasses__()  # a registered target kind's config
        else:
            stack += list(get_args(kind))
    return names


def validation_problems(error: ValidationError, known: Collection[str] = ()) -> list[str]:
    """Every problem as "field 'x': what", unknown fields first: a misspelled field is usually
    the cause of the missing one it was meant to be; one close to a ``known`` name says so."""
    found = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
    problems = []
    for problem in found:
        field = ".".join(str(part) for part in problem["loc"]) or "(top level)"
        kind = problem["type"]
        what = {"extra_forbidden": "unknown field", "missing": "missing required field"}.get(
            kind, problem["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
        )
        if kind == "extra_forbidden" and (close := get_close_matches(str(problem["loc"][-1]), known, 1, 0.6)):
            what += f"; did you mean '{close[0]}'?"
        if kind == "too_short" and not problem.get("input"):
            what = f"needs at least {problem['ctx']['min_length']} item(s), has none"
        problems.append(f"field '{field}': {what}")
    return problems


def describe_validation_error(source: str, error: ValidationError, known: Collection[str] = ()) -> str:
    """One line naming the source and the first bad field (an unknown one first)."""
    problems = validation_problems(error, known)
    more = len(problems) - 1
    suffix = f" (and {more} more problem{'s' if more > 1 else ''}; --verbose lists them)" if more else ""
    return f"{source}: {problems[0]}{suffix}"


def validate(model: type[M], data: Any, source: str) -> M:
    """Build ``model`` from ``data``; a bad field becomes a ConfigError naming ``source``."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        known = field_names(model)
        details = tuple(f"{source}: {p}" for p in validation_problems(error, known))
        raise ConfigError(describe_validation_error(source, error, known), details) from None


def read_yaml(path: Path) -> dict[str, Any]:
    """A YAML mapping from ``path``, or a ConfigError naming the file (and the line); within
    ``load_yaml``'s limits of size, nesting and alias expansion."""
    data = load_yaml(path)
    if not isinstance(data, dict):
        got = "an empty file" if data is None else f"a {type(data).__name__}"
        raise ConfigError(f"{path}: expected a mapping of fields, got {got}")
    return data


def resolve_paths(record: M, base: Path, source: str | None = None) -> M:
    """``record`` with every relative path in it (nested records too) made absolute from ``base``;
    a path that is a symlink loop is a ConfigError naming ``source`` and the field."""
    try:
        return _resolve_paths(record, base, "")
    except ConfigError as error:
        raise ConfigError(f"{source}: {error}" if source else str(error)) from None


def _resolve_paths(record: M, base: Path, prefix: str) -> M:
    update: dict[str, Any] = {}
    for name in type(record).model_fields:
        value, field = getattr(record, name), f"{prefix}{name}"
        if isinstance(value, Path):
            update[name] = _real_path(base / value, field)
        elif isinstance(value, BaseModel):
            update[name] = _resolve_paths(value, base, f"{field}.")
        elif isinstance(value, dict) and any(isinstance(v, Path) for v in value.values()):
            update[name] = {
                k: _real_path(base / v, f"{field}.{k}") if isinstance(v, Path) else v
                for k, v in value.items()
            }
    return record.model_copy(update=update)


def _real_path(path: Path, field: str) -> Path:
    try:
        return real_path(path)
    except ConfigError as error:
        raise ConfigError(f"field '{field}': {error}") from None


def read_run_config(path: Path) -> dict[str, Any]:
    """The run config in ``path`` as data: its domain file read in, its plugin files made
    relative to it, like every path in it (the data ``run_config`` validates)."""
    data = read_yaml(path)
    if isinstance(data.get("domain"), str):  # the domain in a file of its own
        domain_file = path.resolve().parent / data["domain"]
        data = data | {"domain": validate(Domain, read_yaml(domain_file), str(domain_file)).model_dump()}
    plugins = data.get("plugins")
    if isinstance(plugins, list):
        data["plugins"] = [
            str(real_path(path.resolve().parent / p)) if isinstance(p, str) and p.endswith(".py") else p
            for p in plugins
        ]
    return data


def run_config(data: dict[str, Any], path: Path, plugin_files: dict[str, str] | None = None) -> RunConfig:
    """The run config ``data`` read from ``path``; relative paths in it are resolved against its
    folder (``personas`` too when given; its default ``personas`` folder is the working
    directory's, its default ``conversation_dir`` the ``conversations`` folder of its
    ``scenario_dir``). Its target kind and metrics must be registered: ``plugin_files`` are the
    plugins imported for it, ``None`` where they were not."""
    try:
        config = validate(RunConfig, data, str(path)).model_copy(update={"plugin_files": plugin_files or {}})
    except ConfigError as error:
        if data.get("plugins") and plugin_files is None:
            raise ConfigError(
                f"{error} (its plugins were not imported: --allow-plugins imports them)"
            ) from None
        if data and set(data) <= set(Domain.model_fields):
            raise ConfigError(
                f"{path}: a bot's domain file, not a run config (a run config names it with `domain:`)",
                error.details,
            ) from None
        raise
    resolved = resolve_paths(config, path.resolve().parent, str(path))
    for folder in ("personas", "scenario_dir", "conversation_dir"):  # the defaults: the working directory's
        if folder not in data:
            resolved = resolved.model_copy(update={folder: getattr(config, folder)})
    if "conversation_dir" not in data and "scenario_dir" in data:  # the cases beside the scenarios
        resolved = resolved.model_copy(update={"conversation_dir": resolved.scenario_dir / "conversations"})
    return resolved


def load_scenario(file: Path) -> Scenario:
    """One scenario file; its ``vignettes`` path is relative to it."""
    scenario = validate(Scenario, read_yaml(file), str(file))
    return resolve_paths(scenario, file.resolve().parent, str(file))


def load_scenarios(folder: Path, ids: list[str] | None = None) -> list[Scenario]:
    """Every ``*.yaml`` scenario in ``folder`` (sorted by id), or just the ``ids`` asked for."""
    return _load_folder(folder, "scenario", load_scenario, ids)


def load_conversation_cases(
    folder: Path, ids: list[str] | None = None, scenarios: Collection[str] | None = None
) -> list[ConversationCase]:
    """Every ``*.yaml`` conversation case in ``folder`` (sorted by id), or just the ``ids`` asked
    for; given the known ``scenarios``, a case of any other is an error naming its file."""
    return _load_folder(folder, "conversation case", lambda file: _load_case(file, scenarios), ids)


def _load_case(file: Path, scenarios: Collection[str] | None) -> ConversationCase:
    case = validate(ConversationCase, read_yaml(file), str(file))
    if scenarios is not None and case.scenario not in scenarios:
        close = get_close_matches(case.scenario, sorted(scenarios), n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(scenarios))}"
        raise ConfigError(f"{file}: field 'scenario': unknown scenario '{case.scenario}' ({hint})")
    return case


def load_vignettes(path: Path) -> list[Vignette]:
    """Triage vignettes (JSONL: urgency_level, correct_diagnosis, case_description)."""
    if not path.is_file():
        raise ConfigError(f"{path}: vignette file not found")
    return [validate(Vignette, row, where) for where, row in read_jsonl(path)]


def load_personas(folder: Path, ids: list[str] | None = None) -> list[Persona]:
    """Every ``*.yaml`` persona in ``folder`` (sorted by id), or just the ``ids`` asked for."""
    return _load_folder(folder, "persona", lambda file: validate(Persona, read_yaml(file), str(file)), ids)


def _load_folder(folder: Path, kind: str, load: Callable[[Path], R], ids: list[str] | None) -> list[R]:
    """One record per ``*.yaml`` file of ``folder``, each with a unique ``id``."""
    if not folder.is_dir():
        raise ConfigError(f"{folder}: {kind} folder not found")
    records: dict[str, R] = {}
    for file in sorted(folder.glob("*.y*ml")):
        record = load(file)
        if record.id in records:
            raise ConfigError(f"{file}: field 'id': duplicate {kind} id '{record.id}'")
        records[record.id] = record
    if not records:
        raise ConfigError(f"{folder}: no {kind} files (*.yaml) found")
    if ids is None:
        return [records[key] for key in sorted(records)]
    unknown = [i for i in ids if i not in records]
    if unknown:
        known = ", ".join(sorted(records))
        raise ConfigError(f"unknown {kind} id '{unknown[0]}' (known in {folder}: {known})")
    return [records[i] for i in ids]


_QAP_ID_KEYS = ("id", "qid")
_QAP_FIELDS = {"question", "answer", "topic", "doc_id", "url"}


def _qap_from_row(row: dict[str, Any], source: str) -> QAP:
    key = next((k for k in _QAP_ID_KEYS if row.get(k) not in (None, "")), None)
    if key is None:
        raise ConfigError(f"{source}: field 'id': missing required field (or 'qid')")
    data: dict[str, Any] = {"id": str(row[key])}
    data.update({k: v for k, v in row.items() if k in _QAP_FIELDS})
    data.setdefault("topic", row.get("focus"))
    data["metadata"] = {k: v for k, v in row.items() if k not in _QAP_FIELDS | {key, "focus"}}
    return validate(QAP, data, source)


def read_jsonl(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each non-blank line of a JSONL file as (``"<file> line <n>"``, object)."""
    rows = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ConfigError(f"{where}: malformed JSON: {error.msg}") from None
        except RecursionError:
            raise ConfigError(f"{where}: JSON nested too deeply to read") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{where}: expected a JSON object")
        rows.append((where, row))
    return rows


def load_qaps(path: Path) -> list[QAP]:
    """QAPs from a JSONL or CSV file with ``id`` (or ``qid``), ``question`` and ``answer``."""
    if not path.is_file():
        raise ConfigError(f"{path}: {not_a_file(path, 'QAP file')}")
    rows: list[tuple[str, dict[str, Any]]] = []
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
        for number, row in enumerate(reader, start=2):
            rows.append((f"{path} line {number}", row))
    else:
        rows = read_jsonl(path)
    qaps = [_qap_from_row(row, source) for source, row in rows]
    if not qaps:
        raise ConfigError(f"{path}: no QAPs found")
    seen: set[str] = set()
    for (source, _), qap in zip(rows, qaps, strict=True):
        if qap.id in seen:
            raise ConfigError(f"{source}: field 'id': duplicate QAP id '{qap.id}'")
        seen.add(qap.id)
    return qaps


def _text_id(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(row["id"])} if isinstance(row.get("id"), int) else {}


def load_real_patients(path: Path) -> list[RealMessage]:
    """Real patients' messages from a JSONL or CSV file: ``message``, ``seed_ids`` (a list, or
    ids separated by ``;`` in a CSV), optional ``id``, ``expected`` and ``tags``; a ConfigError
    naming the file, the line and the field."""
    if not path.is_file():
        raise ConfigError(f"{path}: {not_a_file(path, 'real patients file')}")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
        rows = [(f"{path} line {n}", dict(row)) for n, row in enumerate(reader, start=2)]
        for _, row in rows:
            for field in ("seed_ids", "tags"):
                if isinstance(row.get(field), str):
                    row[field] = [part.strip() for part in row[field].split(";") if part.strip()]
            for field in ("id", "expected"):  # an empty cell: not given
                if not row.get(field):
                    row.pop(field, None)
    else:
        rows = read_jsonl(path)
    messages = [
        validate(RealMessage, {"id": where.rsplit(" ", 1)[-1]} | row | _text_id(row), where)
        for where, row in rows
    ]
    if not messages:
        raise ConfigError(f"{path}: no real patient's message in it")
    counts: dict[str, int] = {}
    for message in messages:
        counts[message.id] = counts.get(message.id, 0) + 1
    repeated = next((i for i, n in counts.items() if n > 1), None)
    if repeated is not None:
        raise ConfigError(f"{path}: field 'id': '{repeated}' is used {counts[repeated]} times")
    return messages


LLM_ENV = {
    "SIMPOP_LLM_BASE_URL": "base_url",
    "SIMPOP_LLM_MODEL": "model",
    "SIMPOP_LLM_TEMPERATURE": "temperature",
    "SIMPOP_LLM_MAX_TOKENS": "max_tokens",
    "SIMPOP_LLM_CONCURRENCY": "concurrency",
    "SIMPOP_LLM_TIMEOUT": "timeout",
    "SIMPOP_LLM_THREADS": "threads",
}


def apply_llm_env(config: LLMConfig, environ: dict[str, str]) -> LLMConfig:
    """``SIMPOP_LLM_*`` environment variables override the config file's ``llm:`` section."""
    update = {field: environ[var] for var, field in LLM_ENV.items() if environ.get(var)}
    if not update:
        return config
    data = config.model_dump() | update
    try:
        return LLMConfig.model_validate(data)
    except ValidationError as error:
        field = str(error.errors()[0]["loc"][0])
        var = next(v for v, f in LLM_ENV.items() if f == field)
        raise ConfigError(f"environment variable {var}: {error.errors()[0]['msg']}") from None


def with_options(
    config: RunConfig,
    env: dict[str, str],
    *,
    persona_ids: list[str] | None = None,
    variants: int | None = None,
    scenarios: list[str] | str | None = None,
    probes: int | None = None,
    topics: int | None = None,
    limit: int | None = None,
    seed: int | None = None,
    judges: bool = True,
    conversations: list[str] | str | None = None,
) -> RunConfig:
    """``config`` with the command line's choices (``None``: the config's own) and the LLM
    endpoint of the environment (``SIMPOP_LLM_*``)."""
    update = {
        "persona_ids": persona_ids or config.persona_ids,
        "variants": config.variants if variants is None else variants,
        "scenarios": config.scenarios if scenarios is None else scenarios,
        "probes": probes or config.probes,
        "topics": config.topics.model_copy(
            update={"questions": config.topics.questions if topics is None else topics}
        ),
        "limit": limit or config.limit,
        "scoring": config.scoring.model_copy(update={"judges": config.scoring.judges and judges}),
        "seed": config.seed if seed is None else seed,
        "conversations": config.conversations if conversations is None else conversations,
        "llm": apply_llm_env(config.llm, env),
    }
    return RunConfig.model_validate(config.model_dump() | update)
