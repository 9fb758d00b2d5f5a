"""Prompt templates (Jinja2 files beside this module); each carries a version: its content hash.
English ones lie here, another language's in a folder of its code (``de/``)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

from simpop.errors import ConfigError

_FOLDER = Path(__file__).parent
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(_FOLDER),
    undefined=jinja2.StrictUndefined,
    autoescape=False,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass(frozen=True)
class Prompt:
    """A named template and the version recorded on everything it produces."""

    name: str
    version: str
    template: jinja2.Template

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def render(self, **values: object) -> str:
        return self.template.render(**values).strip()


_INCLUDE = re.compile(r'{%-?\s*include\s+"([^"]+)"')


def _source(file: str, folder: Path = _FOLDER) -> str:
    """A template's text followed by that of every template it includes (its version covers
    them); an include is looked for beside the template first, then among simpop's own."""
    text = (folder / file if (folder / file).is_file() else _FOLDER / file).read_text(encoding="utf-8")
    return text + "".join(_source(included, folder) for included in _INCLUDE.findall(text))


def prompt_file(name: str, language: str = "en") -> str:
    """The file of ``name`` (``stories.yaml``, ``patient_system.j2``) in ``language``, relative
    to this folder; a one-line error where that language has none."""
    file = name if language == "en" else f"{language}/{name}"
    if not (_FOLDER / file).is_file():
        raise ConfigError(f"language '{language}': no prompt file '{name}' (simpop/prompts/{file})")
    return file


def has_prompt(name: str, language: str) -> bool:
    return (_FOLDER / (name if language == "en" else f"{language}/{name}")).is_file()


@lru_cache(maxsize=None)
def load_prompt(name: str | Path, language: str = "en") -> Prompt:
    """The template ``<name>.j2`` of simpop's own in ``language``, or the template file ``name``
    (a metric's own, beside its module: ``Path(__file__).with_name("judge_x.j2")``; it may
    include simpop's shared parts, such as ``_judge_exchange.j2``)."""
    if isinstance(name, Path):
        return _file_prompt(name)
    file = prompt_file(f"{name}.j2", language)
    version = hashlib.sha256(_source(file).encode()).hexdigest()[:8]
    return Prompt(name=name, version=version, template=_ENV.get_template(file))


def _file_prompt(path: Path) -> Prompt:
    if not path.is_file():
        raise ConfigError(f"{path}: no such prompt template")
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(path.parent), _ENV.loader])
    environment = _ENV.overlay(loader=loader)
    version = hashlib.sha256(_source(path.name, path.parent).encode()).hexdigest()[:8]
    return Prompt(name=path.stem, version=version, template=environment.get_template(path.name))


@lru_cache(maxsize=None)
def load_prompt_data(name: str, language: str = "en") -> tuple[Any, str]:
    """The YAML data file ``<name>.yaml`` in ``language`` that prompts draw on, and its version
    (content hash)."""
    source = (_FOLDER / prompt_file(f"{name}.yaml", language)).read_text(encoding="utf-8")
    return yaml.safe_load(source), hashlib.sha256(source.encode()).hexdigest()[:8]
