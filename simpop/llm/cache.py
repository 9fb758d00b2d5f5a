"""A persistent LLM response cache in SQLite, keyed by everything that shapes a reply."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from simpop.redact import redact


def cache_key(request: dict[str, Any], base_url: str | None = None) -> str:
    """Hash of a request (model, messages, sampling parameters, output schema) and of the
    endpoint it went to: two servers may serve different weights under one model name. The
    embedded server (``base_url`` None) is named by ``model``, a built-in whose weights are
    hash-checked."""
    keyed = request if base_url is None else {**request, "base_url": base_url.rstrip("/")}
    text = json.dumps(keyed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Raw reply text per request key. Safe to share between runs and processes (WAL mode)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL,"
            " prompt_tokens INTEGER, completion_tokens INTEGER, created REAL)"
        )

    def get(self, key: str) -> str | None:
        row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, reply: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?)",
            (key, redact(reply), prompt_tokens, completion_tokens, time.time()),
        )

    def delete(self, *keys: str) -> None:
        self._db.executemany("DELETE FROM replies WHERE key = ?", [(key,) for key in keys])

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        self._db.close()
