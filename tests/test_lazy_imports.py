"""Commands that only read files never import the heavy libraries (issue 20: a command that
only validates a file starts in a fraction of a second)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import reworded, with_judges

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


def loaded(*args: str, cwd, before: str = "", heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The ``heavy`` modules loaded by ``simpop ARGS`` in a fresh interpreter (after ``before``)."""
    code = PROBE.format(heavy=repr(heavy), before=before)
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


def test_a_run_whose_every_reply_is_cached_loads_no_solver_word_list_or_llm_client(tmp_path, monkeypatch):
    """Issue 45 part 5: a cached re-run of the full study took 4.9 s, a fifth of it loading what
    it had used the first time: wordfreq (its frequencies are now a table in the cache folder),
    ``scipy.optimize`` for the transport problems (now kept by cost matrix) and openai."""
    monkeypatch.setenv("SIMPOP_CACHE_DIR", str(tmp_path / "cache"))  # nothing built yet
    shutil.copytree(
        ROOT / "personas",
        tmp_path / "personas",
        ignore=lambda d, names: [n for n in names if n.endswith(".yaml") and n != "typical-adult.yaml"],
    )
    shutil.copy(ROOT / "data/medquad-eye/qaps.jsonl", tmp_path / "qaps.jsonl")
    heavy = ("wordfreq", "scipy", "scipy.optimize", "openai", "torch")

    def patient(request: dict) -> Reply:
        return Reply(json.dumps({"questions": reworded(request)}))

    with FakeOpenAIServer(default=with_judges(patient)) as llm:
        (tmp_path / "run.yaml").write_text(
            "name: cached\ntarget: {kind: qap, qaps: qaps.jsonl}\nvariants: 2\nlimit: 3\n"
            f"scenario_dir: {ROOT / 'scenarios'}\ndomain: {ROOT / 'targets/eye-domain.yaml'}\n"
            f"scenarios: [in-scope-in-kb]\nprobes: 2\nllm: {{base_url: '{llm.base_url}'}}\n"
        )
        first = loaded("run", "run.yaml", cwd=tmp_path, heavy=heavy)
        asked = len(llm.requests)
        again = loaded("run", "run.yaml", cwd=tmp_path, heavy=heavy)
        assert len(llm.requests) == asked  # every reply from the cache
    assert {"wordfreq", "scipy", "openai", "torch"} <= set(first)  # the first run needed them
    assert again == []
    runs = sorted(Path(tmp_path / "runs").iterdir())
    assert [(r / "scores.jsonl").read_text().count("\n") for r in runs] == [
        (runs[0] / "scores.jsonl").read_text().count("\n")
    ] * 2
