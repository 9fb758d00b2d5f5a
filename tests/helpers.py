"""Helpers shared by the tests: the real ``simpop`` command, its errors, loopback ports, configs."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# a guard against a hang, not a time limit: a busy two-core machine runs a small real-LLM run
# in minutes (one took over 5 with two other local-LLM runs beside it)
HANG = 1800


def simpop(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m simpop ARGS`` in ``cwd`` and capture what it printed."""
    return subprocess.run(
        [sys.executable, "-m", "simpop", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG,
        env={**os.environ, **(env or {})},
    )


def assert_one_line_error(result: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit status 2, no traceback, one ``Error`` line containing every needle."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_config(folder: Path, text: str, name: str = "run.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def ask(bot, question: str):
    """One question to a target adapter, its connections closed after."""

    async def once():
        try:
            return await bot.ask(question)
        finally:
            await bot.aclose()

    return asyncio.run(once())
