"""The docs site (issue 46): ``mkdocs build --strict`` passes, and fails on a broken anchor; the
reference generated from the models is up to date; the README stays short and names every metric.
(Every YAML block of the README and the docs runs in ``test_readme_configs.py``.)"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``config`` into ``site``, as ``.ci/run`` builds it."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "--site-dir", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_the_docs_site_builds_strictly(tmp_path):
    result = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr, result.stderr[-3000:]
    cli = (tmp_path / "site/reference/cli/index.html").read_text(encoding="utf-8")
    assert "simpop run" in cli and "--resume" in cli  # generated from the click commands
    config = (tmp_path / "site/reference/config/index.html").read_text(encoding="utf-8")
    assert "conversation_repeats" in config and "answer_path" in config  # the schemas, included


def test_a_broken_anchor_fails_the_build(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "targets").symlink_to(ROOT / "targets")  # a page includes a demo config
    with (tmp_path / "docs/index.md").open("a", encoding="utf-8") as index:
        index.write("\nSee [nothing](measured.md#no-such-section).\n")
    result = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0 and "no-such-section" in result.stderr, result.stderr[-3000:]


def _run_config_schema() -> dict:
    from simpop.models import RunConfig

    return RunConfig.model_json_schema()


def _target_schemas() -> dict:
    import simpop.run.components  # noqa: F401 - registers the built-in kinds
    from simpop.models.registry import target_kinds

    return {kind: config.model_json_schema() for kind, config in sorted(target_kinds().items())}


def _summary_schema() -> dict:
    from simpop.models import RunSummary

    return RunSummary.model_json_schema()


SCHEMAS = {
    "docs/reference/run-config.schema.json": _run_config_schema,
    "docs/reference/targets.schema.json": _target_schemas,
    "docs/summary.schema.json": _summary_schema,
}


@pytest.mark.parametrize("path", SCHEMAS)
def test_the_generated_reference_is_up_to_date(path: str):
    committed = json.loads((ROOT / path).read_text(encoding="utf-8"))
    assert committed == SCHEMAS[path](), (
        f"{path} is out of date: write it again with the command in docs/reference/contributing.md"
    )
    contributing = (ROOT / "docs/reference/contributing.md").read_text(encoding="utf-8")
    assert f"> {path}" in contributing  # the command that writes it is documented


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move the rest to docs/"


def test_the_readme_names_every_metric():
    from simpop.metrics.metric import registered

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in readme.splitlines() if line.startswith("| `"))
    for metric in registered():
        assert f"`{metric.name}`" in table, metric.name
        for measure in metric.measures:
            suffix = measure.name.removeprefix(metric.name)
            assert f"`{suffix or metric.name}`" in table, measure.name


def test_the_readme_links_to_pages_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert links
    for link in links:
        assert (ROOT / link).is_file(), link
