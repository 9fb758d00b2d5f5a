"""Issue 44, bad input at the trust boundaries: YAML nested too deep, too big or a billion-laughs
bomb, a symlink loop, a verifier or judge profile of the wrong shape, and a scenario, case or
persona id that nothing has are each one line and exit 2, before any run directory exists."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, assert_one_line_error, closed_port, simpop, write_config

from simpop.config import read_yaml
from simpop.errors import ConfigError
from simpop.testing.hand_built import build_run

GOOD = (
    "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\nlimit: 1\n"
    "scenarios: []\n"
)
DEEP = "[" * 2000 + "]" * 2000  # past Python's recursion limit in PyYAML's composer
BOMB = "\n".join(  # billion laughs: 9^9 strings from 10 short lines
    ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
)
PROFILES = Path("simpop/judging/profiles")
VERIFIER_15B = "qwen2.5-coder-1.5b-instruct-q4_k_m.verifier.json"


def offline(extra: str = "") -> str:
    """A config whose LLM is a closed port: a run that got past its inputs stops at the endpoint
    check with another error than the one a test looks for."""
    return GOOD + f"llm: {{base_url: 'http://127.0.0.1:{closed_port()}/v1', max_retries: 0}}\n" + extra


def assert_nothing_written(project: Path) -> None:
    assert not (project / "runs").exists()


def short_of_a_weight(source: Path, target: Path) -> Path:
    """A copy of a fitted model file with its last coefficient left out."""
    model = json.loads(source.read_text(encoding="utf-8"))
    model["coef"] = model["coef"][:-1]
    target.write_text(json.dumps(model), encoding="utf-8")
    return target


LIMITS = {  # where: (file, its text, config lines, command-line options, what the error says)
    "config nested": ("run.yaml", None, "", (), "nested more than 50 levels deep"),
    "persona nested": (
        "personas/zz-deep.yaml",
        f"id: zz\nname: Z\nvignette: {DEEP}\n",
        "",
        (),
        "nested more than 50 levels deep",
    ),
    "case nested": (
        "conversations/deep.yaml",
        f"id: deep\nname: {DEEP}\n",
        "conversation_dir: conversations\nconversations: all\n",
        (),
        "nested more than 50 levels deep",
    ),
    "policy nested": (
        "policy.yaml",
        f"rules: {DEEP}\n",
        "",
        ("--policy", "policy.yaml"),
        "nested more than 50 levels deep",
    ),
    "config bomb": ("run.yaml", None, "", (), "aliases expand to more than"),
    "persona too big": (
        "personas/zz-big.yaml",
        "id: zz\n" + "# words\n" * 300_000,
        "",
        (),
        "bytes, more than",
    ),
    "alias in itself": ("personas/zz-loop.yaml", "id: zz\nname: &a [*a]\n", "", (), "an alias inside"),
}


@pytest.mark.parametrize("where", list(LIMITS))
def test_yaml_past_the_limits_is_one_line_naming_the_file(project, where):
    name, text, extra, options, needle = LIMITS[where]
    config = offline(extra)
    if where == "config nested":
        config += f"notes: {DEEP}\n"
    elif where == "config bomb":
        config += BOMB + "\n"
    write_config(project, config)
    if text is not None:
        (project / name).parent.mkdir(exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    result = simpop("run", "run.yaml", *options, cwd=project)
    assert_one_line_error(result, Path(name).name, needle)
    assert_nothing_written(project)


def test_a_qap_file_nested_too_deep_is_one_line_naming_the_line(project):
    row = '{"id": "q1", "question": "Why?", "answer": "So.", "x": ' + DEEP + "}"
    (project / "data/deep.jsonl").write_text(row + "\n", encoding="utf-8")
    write_config(project, offline().replace("data/qaps.jsonl", "data/deep.jsonl"))
    result = simpop("run", "run.yaml", cwd=project)
    assert_one_line_error(result, "deep.jsonl line 1", "JSON nested too deeply")
    assert_nothing_written(project)


def test_the_yaml_reader_names_the_line_of_the_deep_part(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text(f"name: x\nfine: [1, 2]\nnotes: {DEEP}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"deep.yaml: line 3: nested more than 50 levels"):
        read_yaml(path)
    chain = "\n".join(["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 3000)])
    path.write_text(chain + "\n", encoding="utf-8")  # each line one level deeper than the last
    with pytest.raises(ConfigError, match=r"deep.yaml: nested more than 50 levels deep through its aliases"):
        read_yaml(path)
    path.write_text("name: &n [x, y]\nalso: *n\n", encoding="utf-8")  # an ordinary alias is fine
    assert read_yaml(path) == {"name": ["x", "y"], "also": ["x", "y"]}
    # a key given twice is an error, not the last one kept in silence; a merge key is no repeat
    path.write_text("rules:\n  - metric: m\n    min: 0.5\n    min: 0.9\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"deep.yaml: line 4 malformed YAML: the key 'min' is given twice"):
        read_yaml(path)
    path.write_text("base: &b {a: 1}\nmore:\n  <<: *b\n  c: 2\n", encoding="utf-8")
    assert read_yaml(path)["more"] == {"a": 1, "c": 2}


LOOPS = {  # the link: (the config's text in place of another, command-line options, what the error says)
    "data/loop.jsonl": (("data/qaps.jsonl", "data/loop.jsonl"), (), ("field 'target.qaps'", "{path}")),
    "people": (("personas: personas", "personas: people"), (), ("field 'personas'", "{path}")),
    "policy.yaml": (("", ""), ("--policy", "policy.yaml"), ("{path}",)),
    "out": (("", ""), ("--out", "out"), ("--out out",)),
}


@pytest.mark.parametrize("link", list(LOOPS))
def test_a_symlink_loop_is_one_line_naming_the_path(project, link):
    (old, new), options, needles = LOOPS[link]
    os.symlink(Path(link).name, project / link)  # a link to itself
    write_config(project, offline().replace(old, new) if old else offline())
    result = simpop("run", "run.yaml", *options, cwd=project)
    assert_one_line_error(result, *(n.format(path=project / link) for n in needles), "symlink loop")
    assert_nothing_written(project)


@pytest.mark.parametrize(
    ("source", "scoring", "field"),
    [
        (VERIFIER_15B, "{verifier: bad.json}", "scoring.verifier"),
        (
            "../../verdicts/escalated/en.json",
            "{safety_classifiers: {escalated: bad.json}}",
            "scoring.safety_classifiers",
        ),
    ],
)
def test_a_fitted_model_whose_weights_do_not_fit_its_features_is_one_line(project, source, scoring, field):
    short_of_a_weight(ROOT / PROFILES / source, project / "bad.json")
    write_config(project, offline(f"scoring: {scoring}\n"))
    result = simpop("run", "run.yaml", cwd=project)
    assert_one_line_error(result, f"field '{field}", "bad.json", "field 'coef'", "one per feature")
    assert_nothing_written(project)


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """A copy of the simpop package, as an installed one whose judge profiles a user can edit."""
    shutil.copytree(ROOT / "simpop", tmp_path / "pkg/simpop", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "pkg"


def run_installed(package: Path, project: Path, *args: str) -> subprocess.CompletedProcess:
    """``simpop ARGS`` from the ``package`` copy; a hang is a failure, not a wait (a bomb in a
    profile once ran past 300 s)."""
    env = {**os.environ, "PYTHONPATH": str(package)}
    return subprocess.run(
        [sys.executable, "-m", "simpop", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )


BAD_PROFILES = {  # what: (the profile's text, what the error says)
    "bad value": ("name: bad\nmodels: ['x*']\nthresholds: {refused: high}\n", "field 'thresholds.refused'"),
    "unknown verdict": ("name: bad\nmodels: ['x*']\nthresholds: {refusd: 0.7}\n", "unknown verdict 'refusd'"),
    "threshold past 1": (
        "name: bad\nmodels: ['x*']\nthresholds: {refused: 7}\n",
        "field 'thresholds.refused'",
    ),
    "missing verifier": (
        "name: bad\nmodels: ['x*']\nverifier: nowhere.json\n",
        "nowhere.json: file not found",
    ),
    "not yaml": ("name: [bad\n", "malformed YAML"),
    "bomb": (BOMB + "\nname: bad\nmodels: ['x*']\n", "aliases expand to more than"),
}


@pytest.mark.parametrize("what", list(BAD_PROFILES))
def test_a_corrupt_judge_profile_is_one_line_before_the_run(project, installed, what):
    text, needle = BAD_PROFILES[what]
    (installed / PROFILES / "aaa-bad.yaml").write_text(text, encoding="utf-8")
    write_config(project, offline())
    result = run_installed(installed, project, "run", "run.yaml")
    assert_one_line_error(result, "aaa-bad.yaml", needle)
    assert_nothing_written(project)


def test_the_judge_profiles_verifier_is_checked_before_the_run(project, installed):
    short_of_a_weight(ROOT / PROFILES / VERIFIER_15B, installed / PROFILES / VERIFIER_15B)
    write_config(project, offline())  # the default judge model: the 1.5B's profile
    result = run_installed(installed, project, "run", "run.yaml")
    assert_one_line_error(result, "judge profile", "field 'verifier'", VERIFIER_15B, "field 'coef'")
    assert_nothing_written(project)


def test_a_conversation_case_of_an_unknown_scenario_is_one_line(project):
    shutil.copytree(ROOT / "scenarios", project / "scenarios")
    shutil.copy(ROOT / "targets/eye-domain.yaml", project / "domain.yaml")
    case = yaml.safe_load((ROOT / "scenarios/conversations/relative-downplays.yaml").read_text())
    case |= {"id": "typo-case", "scenario": "no-such-scenario"}
    (project / "scenarios/conversations/typo.yaml").write_text(yaml.safe_dump(case), encoding="utf-8")
    write_config(project, offline("conversations: [typo-case]\ndomain: domain.yaml\n"))
    result = simpop("run", "run.yaml", cwd=project)
    assert_one_line_error(result, "typo.yaml", "field 'scenario'", "unknown scenario 'no-such-scenario'")
    assert_nothing_written(project)
    # the shipped cases name shipped scenarios
    (project / "scenarios/conversations/typo.yaml").unlink()
    write_config(project, offline("conversations: [relative-downplays]\ndomain: domain.yaml\n"))
    assert "unknown scenario" not in simpop("run", "run.yaml", cwd=project).stderr


POLICY_IDS = {  # what: (the policy's extra fields, what the error says)
    "allow_untested": ({"allow_untested": ["no-such-scenario"]}, "field 'allow_untested': unknown id"),
    "a rule's personas": (
        {"rules": [{"metric": "safe_behaviour", "min": 0.5, "per": "persona", "personas": ["loww"]}]},
        "rule 1: field 'personas': unknown persona id 'loww'; did you mean 'low'?",
    ),
    "a rule's scenarios": (
        {"rules": [{"metric": "safe_behaviour", "min": 0.5, "scenarios": ["emergancy"]}]},
        "rule 1: field 'scenarios': unknown scenario or conversation case id 'emergancy'",
    ),
}


@pytest.mark.parametrize("what", list(POLICY_IDS))
def test_a_policy_naming_an_unknown_id_is_bad_input_not_a_gate(tmp_path, what):
    run = build_run(tmp_path / "built", "bot", {("low", "emergency"): [1, 1], ("high", "emergency"): [1]})
    fields, needle = POLICY_IDS[what]
    policy = {"rules": [{"metric": "safe_behaviour", "min": 0.5}]} | fields
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy), encoding="utf-8")
    result = simpop("gate", str(run), "--policy", "policy.yaml", cwd=tmp_path)
    assert_one_line_error(result, "policy.yaml", needle)


def test_a_policy_may_name_the_runs_ids_and_its_folders(tmp_path):
    run = build_run(tmp_path / "built", "bot", {("low", "emergency"): [1, 1], ("high", "emergency"): [1]})
    policy = {
        "basis": "point",  # two probes: an interval could not decide it
        "allow_untested": ["emergency", "low", "off-topic", "relative-downplays", "qap-variant"],
        "rules": [{"metric": "safe_behaviour", "min": 0.5, "personas": ["low"], "scenarios": ["emergency"]}],
    }
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump(policy), encoding="utf-8")
    # off-topic and relative-downplays: in the scenario folders the run's config names
    assert simpop("gate", str(run), "--policy", str(path), cwd=ROOT).returncode == 0
    for shipped in ("release.yaml", "floor.yaml"):
        assert simpop("gate", str(run), "--policy", f"policies/{shipped}", cwd=ROOT).returncode != 2


def test_a_run_with_a_policy_naming_an_unknown_id_stops_before_it_starts(project):
    policy = {"allow_untested": ["no-such-scenario"], "rules": [{"metric": "safe_behaviour", "min": 0.5}]}
    (project / "policy.yaml").write_text(yaml.safe_dump(policy), encoding="utf-8")
    write_config(project, offline())
    result = simpop("run", "run.yaml", "--policy", "policy.yaml", cwd=project)
    assert_one_line_error(result, "policy.yaml", "field 'allow_untested': unknown id 'no-such-scenario'")
    assert_nothing_written(project)


def test_a_folder_or_a_device_given_for_a_file_is_named_as_such(tmp_path):
    """ "file not found" for a folder or a pipe sends a user looking for a typo that is not there."""
    import os

    from simpop.textfiles import not_a_file

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert not_a_file(tmp_path) == "is a folder, not a file"
    assert not_a_file(pipe) == "is not a regular file"
    assert not_a_file(tmp_path / "nowhere.csv", "label file") == "label file not found"
    with pytest.raises(ConfigError, match="pipe: is not a regular file"):
        read_yaml(pipe)
