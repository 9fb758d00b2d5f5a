"""Commands that only read files never import the heavy libraries (issue 20: a command that
only validates a file starts in a fraction of a second)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import ROOT

HEAVY = (
    "torch",
    "chromadb",
    "sentence_transformers",
    "transformers",
    "sklearn",
    "scipy",
    "openai",
    "xllamacpp",
)
PROBE = """
import json, sys
{before}
from simpop.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
except (SystemExit, Exception):
    pass
print(json.dumps(sorted(m for m in {heavy} if m in sys.modules)))
"""


def loaded(*args: str, cwd, before: str = "") -> list[str]:
    """The heavy modules loaded by ``simpop ARGS`` in a fresh interpreter (after ``before``)."""
    code = PROBE.format(heavy=repr(HEAVY), before=before)
    result = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("command", ["personas", "scenarios"])
def test_listing_personas_or_scenarios_imports_no_heavy_library(command):
    assert loaded(command, cwd=ROOT) == []


def test_a_config_that_fails_validation_imports_no_heavy_library(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text("name: bad\ntarget: {kind: qap, qaps: missing.jsonl}\nvariants: 2\ncolour: red\n")
    assert loaded("run", str(config), cwd=tmp_path) == []
    # the check itself can fail: a heavy module loaded on the way is seen
    assert loaded("run", str(config), cwd=tmp_path, before="import scipy") == ["scipy"]
