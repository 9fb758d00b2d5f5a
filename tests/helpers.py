"""Helpers shared by the tests: the ``simpop`` command (in process or in its own), its errors,
loopback ports, configs."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# where the modules a command may leave imported come from (not the user's bot or plugin)
KEPT = (sys.prefix, sys.base_prefix, str(ROOT / "simpop"), str(ROOT / "tests"))


# a guard against a hang, not a time limit: a busy two-core machine runs a small real-LLM run
# in minutes (one took over 5 with two other local-LLM runs beside it)
HANG = 1800


def simpop(
    *args: str, cwd: Path, env: dict | None = None, process: bool = False
) -> subprocess.CompletedProcess:
    """Run the ``simpop`` command on ARGS in ``cwd`` and capture what it printed: in this test
    process (the embedding model and the local LLM load once per process), or as ``python -m
    simpop`` in a process of its own where that is what a test checks (``process``: signals, the
    console script's exit, start-up). ``PYTHONPATH`` in ``env`` is put first on the import path.
    ``SIMPOP_TESTS_IN_PROCESS=0`` runs every command in a process of its own."""
    if process or os.environ.get("SIMPOP_TESTS_IN_PROCESS") == "0":
        return subprocess.run(
            [sys.executable, "-m", "simpop", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=HANG,
            env={**os.environ, **(env or {})},
        )
    return in_process(list(args), cwd, env or {})


def forget_users_modules(kept: set[str]) -> None:
    """Drop the user's modules (a bot, a plugin file: imported from outside simpop and the
    environment) that are not in ``kept``."""
    for name in set(sys.modules) - kept:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if name.startswith("simpop_plugin_") or (file and not file.startswith(KEPT)):
            del sys.modules[name]


def in_process(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """``simpop ARGS`` through click's test runner, as the console script runs it: an uncaught
    exception is a traceback on stderr and exit status 1. What one command imports, registers or
    allows (a bot's module, plugins, their kinds and metrics) is undone after it, as a process
    would forget it."""
    from click.testing import CliRunner

    import simpop.run.components  # noqa: F401 - the built-in kinds and metrics, as a command registers them
    from simpop.cli import cli
    from simpop.cli.common import err_console
    from simpop.models import registry

    # the registries (``simpop.targets.target`` and ``simpop.metrics.metric`` are also the decorators' names)
    tables = (
        registry._SETTINGS,
        sys.modules["simpop.targets.target"]._BUILDERS,
        sys.modules["simpop.metrics.metric"]._METRICS,
    )
    saved = [dict(table) for table in tables]
    forget_users_modules(set())  # a module another test imported (its bot, say) is not this one's
    modules, path = set(sys.modules), list(sys.path)
    before = Path.cwd()
    os.chdir(cwd)
    sys.path[:0] = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    width = err_console._width  # a new process reads COLUMNS when it makes its consoles
    if env.get("COLUMNS", "").isdigit():
        err_console.width = int(env["COLUMNS"])
    try:
        result = CliRunner().invoke(cli, args, env=env, prog_name="simpop")
    finally:
        os.chdir(before)
        err_console._width = width
        registry._allowed = False
        for table, kept in zip(tables, saved, strict=True):
            table.clear()
            table.update(kept)
        sys.path[:] = path
        forget_users_modules(modules)
    stderr, code = result.stderr, result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))  # "Traceback (most recent ..."
        code = 1
    return subprocess.CompletedProcess(["simpop", *args], code, result.stdout, stderr)


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


def foreign_copy(qaps: Path, to: Path) -> Path:
    """The QAPs of ``qaps`` under other ids: seeds that are not the target's own QAPs (no gold
    QAP to match), though they ask the same questions."""
    import json

    rows = [json.loads(line) for line in qaps.read_text(encoding="utf-8").splitlines() if line.strip()]
    key = "id" if "id" in rows[0] else "qid"
    to.write_text("".join(json.dumps(row | {key: f"copy-{row[key]}"}) + "\n" for row in rows))
    return to
