"""The components a run can name: the built-in target kinds and metrics, registered when this
module is imported, then the plugins a config names. A command that reads a config or a run
imports this module first, so that no lower layer has to know where the built-in ones live."""

from __future__ import annotations

from pathlib import Path

import simpop.metrics  # noqa: F401 - the built-in metrics register on import
import simpop.targets  # noqa: F401 - the built-in target kinds register on import (before any plugin)
from simpop.config import read_run_config, run_config
from simpop.errors import ConfigError
from simpop.models import RunConfig
from simpop.models.registry import import_plugins


def load_run_config(path: Path, with_plugins: bool = True) -> RunConfig:
    """The run config in ``path``. Its plugins are imported first (their kinds and metrics may be
    in it) unless ``with_plugins`` is off; a plugin may add a kind or metric, never replace a
    built-in one."""
    data = read_run_config(path)
    if not with_plugins:
        return run_config(data, path, None)
    plugins = data.get("plugins")
    try:
        imported = import_plugins([str(p) for p in plugins] if isinstance(plugins, list) else [])
    except ValueError as error:
        raise ConfigError(f"{path}: field 'plugins': {error}") from None
    return run_config(data, path, imported)
