"""Where simpop keeps caches and built-in model files on this machine."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def cache_dir() -> Path:
    """LLM response cache, embedding cache and vector indexes (``SIMPOP_CACHE_DIR`` overrides)."""
    path = Path(os.environ.get("SIMPOP_CACHE_DIR") or platformdirs.user_cache_dir("simpop"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir() -> Path:
    """Built-in model files assembled from their packages (``SIMPOP_MODELS_DIR`` overrides)."""
    default = Path(platformdirs.user_cache_dir("simpop")) / "models"
    path = Path(os.environ.get("SIMPOP_MODELS_DIR") or default)
    path.mkdir(parents=True, exist_ok=True)
    return path
