"""The ``simpop`` command: a click group and one module per family of commands. Each command
parses its options, calls the library and prints; nothing else lives here."""

from __future__ import annotations

# the command modules register their commands on the group when imported
from simpop.cli import judging, labels, parts, report, run  # noqa: F401
from simpop.cli.common import cli


def main() -> None:
    cli()
