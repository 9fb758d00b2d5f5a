"""Plugins are code (issue 44): opening someone else's run or config never imports them unasked,
a plugin never replaces a built-in metric or target kind, and a plugin that exits or raises on
import is a one-line error, not a silent exit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT, assert_one_line_error, simpop, write_config

from simpop.testing.hand_built import build_run

# a plugin that leaves a mark when it is imported
MARKING = "from pathlib import Path\nPath({mark!r}).write_text('imported')\n"


def received_run(root: Path, name: str, plugin: Path) -> Path:
    """A finished run whose config names ``plugin``, as if someone sent it."""
    run = build_run(root, name, {("low", "emergency"): [1.0, 0.0], ("high", "in-scope"): [1.0]})
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps(config | {"plugins": [str(plugin)]}))
    return run


def test_reading_a_received_run_never_imports_its_plugins_unasked(tmp_path):
    mark = tmp_path / "mark"
    plugin = tmp_path / "evil.py"
    plugin.write_text(MARKING.format(mark=str(mark)))
    run_a = received_run(tmp_path / "runs", "a", plugin)
    run_b = received_run(tmp_path / "runs", "b", plugin)
    policy = ROOT / "policies" / "release.yaml"
    commands = [
        ("report", str(run_a)),
        ("gate", str(run_a), "--policy", str(policy)),
        ("compare", str(run_a), str(run_b)),
        ("export-labels", str(run_a)),
        ("fidelity", str(run_a)),
        ("sweep-threshold", str(run_a)),
    ]
    for command in commands:
        result = simpop(*command, cwd=tmp_path)
        assert "Traceback" not in result.stderr, command
        assert not mark.exists(), f"simpop {command[0]} imported the run's plugin"
    assert (run_a / "report.html").is_file()  # the report was still written
    assert simpop("report", str(run_a), "--allow-plugins", cwd=tmp_path).returncode == 0
    assert mark.exists()  # asked to, it imports them


def test_a_dry_run_of_someone_s_config_runs_none_of_its_code(project):
    mark = project / "mark"
    (project / "evil.py").write_text(MARKING.format(mark=str(mark)))
    path = write_config(project, "name: t\nplugins: [evil.py]\ntarget: {kind: qap, qaps: data/qaps.jsonl}\n")
    result = simpop("run", str(path), "--dry-run", "--scenarios", "none", "--limit", "1", cwd=project)
    assert result.returncode == 0, result.stderr
    assert not mark.exists()


REPLACING = {
    "metric": (
        "from simpop.metrics import Metric, metric\n"
        "@metric\nclass Fake(Metric):\n    name = 'refusal'\n    measures = ()\n"
        "    async def score(self, cases, scorers, done):\n        return []\n",
        ["metric 'refusal'", "simpop_plugin_evil", "simpop.metrics.refusal"],
    ),
    "target kind": (
        "from typing import Literal\nfrom simpop.models import TargetSettings\n"
        "from simpop.models.registry import register_settings\n"
        "@register_settings\nclass Fake(TargetSettings):\n    kind: Literal['qap']\n",
        ["target kind 'qap'", "simpop_plugin_evil", "simpop.targets.qap"],
    ),
    "exit": ("import sys\nsys.exit(0)\n", ["field 'plugins'", "SystemExit"]),
    "interrupt": ("raise KeyboardInterrupt\n", ["field 'plugins'", "KeyboardInterrupt"]),
}


@pytest.mark.parametrize("case", list(REPLACING))
def test_a_plugin_that_replaces_a_built_in_or_exits_is_a_one_line_error(project, case):
    code, needles = REPLACING[case]
    (project / "evil.py").write_text(code)
    path = write_config(project, "name: t\nplugins: [evil.py]\ntarget: {kind: qap, qaps: data/qaps.jsonl}\n")
    assert_one_line_error(simpop("run", str(path), cwd=project), "run.yaml", *needles)
    assert not (project / "runs").exists()


def test_a_data_folder_is_not_a_plugin(project):
    path = write_config(project, "name: t\nplugins: [personas]\ntarget: {kind: qap, qaps: data/qaps.jsonl}\n")
    assert_one_line_error(simpop("run", str(path), cwd=project), "field 'plugins'", "not a Python module")
    path = write_config(project, "name: t\nplugins: ['../x y']\ntarget: {kind: qap, qaps: data/qaps.jsonl}\n")
    assert_one_line_error(simpop("run", str(path), cwd=project), "field 'plugins'", "not a .py file")
