"""Prompt templates (Jinja2 files beside this module); each carries a version: its content hash."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

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


def _source(file: str) -> str:
    """A template's text followed by that of every template it includes (its version covers them)."""
    text = (_FOLDER / file).read_text(encoding="utf-8")
    return text + "".join(_source(included) for included in _INCLUDE.findall(text))


@lru_cache(maxsize=None)
def load_prompt(name: str) -> Prompt:
    """The template ``<name>.j2``."""
    version = hashlib.sha256(_source(f"{name}.j2").encode()).hexdigest()[:8]
    return Prompt(name=name, version=version, template=_ENV.get_template(f"{name}.j2"))


@lru_cache(maxsize=None)
def load_prompt_data(name: str) -> tuple[Any, str]:
    """The YAML data file ``<name>.yaml`` that prompts draw on, and its version (content hash)."""
    source = (_FOLDER / f"{name}.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(source), hashlib.sha256(source.encode()).hexdigest()[:8]
