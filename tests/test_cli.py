"""The real ``simpop`` command: bad input gets one line on stderr and exit status 2."""

from __future__ import annotations

import pytest
from helpers import ROOT, assert_one_line_error, closed_port, simpop, write_config

GOOD = (
    "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\nlimit: 1\n"
    "scenarios: []\n"
)


def test_malformed_yaml(project):
    path = write_config(project, "name: t\ntarget: [kind: qap\n")
    assert_one_line_error(simpop("run", str(path), cwd=project), "run.yaml", "malformed YAML")


def test_unknown_field(project):
    path = write_config(project, GOOD + "variantz: 3\n")
    assert_one_line_error(
        simpop("run", str(path), cwd=project), "run.yaml", "field 'variantz': unknown field"
    )


def test_missing_qap_file(project):
    path = write_config(project, GOOD.replace("data/qaps.jsonl", "data/none.jsonl"))
    assert_one_line_error(simpop("run", str(path), cwd=project), "none.jsonl: QAP file not found")
    assert not (project / "runs").exists()


def test_a_misspelled_field_of_a_config_or_a_policy_gets_the_field_it_was_meant_to_be(project):
    typos = GOOD.replace("variants: 1", "variantz: 1").replace("qaps:", "treshold: 0.5, qaps:")
    result = simpop("--verbose", "run", str(write_config(project, typos)), "--dry-run", cwd=project)
    assert "field 'variantz': unknown field; did you mean 'variants'?" in result.stderr
    # a field of the qap kind's own config
    assert "field 'target.treshold': unknown field; did you mean 'threshold'?" in result.stderr
    (project / "policy.yaml").write_text("rules:\n  - {metric: safe_behaviour, minimum: 0.5}\n")
    path = write_config(project, GOOD)
    policy = simpop("run", str(path), "--policy", "policy.yaml", "--dry-run", cwd=project)
    assert_one_line_error(policy, "field 'rules.0.minimum': unknown field; did you mean 'min'?")


def test_a_folder_given_for_a_file_says_so(project):
    assert_one_line_error(simpop("run", "personas", cwd=project), "personas: is a folder, not a file")
    assert_one_line_error(simpop("run", "nope.yaml", cwd=project), "nope.yaml: file not found")
    # a shipped domain file given as the run config
    domain = ROOT / "targets" / "eye-domain.yaml"
    assert_one_line_error(simpop("run", str(domain), cwd=project), "eye-domain.yaml: a bot's domain file")


def test_unknown_persona_id(project):
    path = write_config(project, GOOD)
    result = simpop("run", str(path), "--personas", "high-literacy,nobody", cwd=project)
    assert_one_line_error(result, "unknown persona id 'nobody'")


def test_a_misspelled_persona_field_is_named_first_and_verbose_lists_every_problem(project):
    (project / "personas" / "typo.yaml").write_text(
        "id: typo\nname: T\nvignette: v\nlanguage_level: B2\nhealth_literacey: low\n"
    )
    result = simpop("personas", cwd=project)
    assert_one_line_error(
        result,
        "typo.yaml: field 'health_literacey': unknown field; did you mean 'health_literacy'? "
        "(and 1 more problem; --verbose lists them)",
    )
    verbose = simpop("--verbose", "personas", cwd=project)
    assert verbose.returncode == 2 and "Traceback" not in verbose.stderr
    assert "typo.yaml: field 'health_literacy': missing required field" in verbose.stderr
    assert verbose.stderr.index("'health_literacey'") < verbose.stderr.index("'health_literacy'")
    assert "2 problems:" in verbose.stderr and "--verbose lists them" not in verbose.stderr
    assert verbose.stderr.count("'health_literacey'") == 1  # each problem once


def test_bad_persona_file(project):
    (project / "personas" / "broken.yaml").write_text("id: broken\nname: B\n")
    assert_one_line_error(simpop("personas", cwd=project), "broken.yaml", "missing required field")


def test_personas_lists_every_file(project):
    result = simpop("personas", cwd=project)
    assert result.returncode == 0
    for file in (project / "personas").glob("*.yaml"):
        assert file.stem in result.stdout


def test_resume_of_an_unknown_run(project):
    path = write_config(project, GOOD)
    assert_one_line_error(simpop("run", str(path), "--resume", "nope", cwd=project), "no run there")


@pytest.mark.parametrize("flag", ["--variants=-1", "--probes=0", "--limit=-1"])
def test_bad_option_values(project, flag):
    path = write_config(project, GOOD)
    result = simpop("run", str(path), flag, cwd=project)
    assert result.returncode == 2 and "Traceback" not in result.stderr


@pytest.mark.parametrize("option", ["--personas", "--scenarios", "--conversations"])
def test_an_id_list_that_names_none_is_an_error_not_all(project, option):
    path = write_config(project, GOOD)
    for value in (",", " , ", ""):
        result = simpop("run", str(path), option, value, "--dry-run", cwd=project)
        assert_one_line_error(result, option, "no id in it")
        assert result.stdout == ""


@pytest.mark.integration
@pytest.mark.llm
def test_doctor_reports_each_check(project):
    from simpop.testing.fake_openai import FakeOpenAIServer, Reply

    with FakeOpenAIServer(default=Reply('{"ok": true}')) as server:
        good = simpop("doctor", cwd=project, env={"SIMPOP_LLM_BASE_URL": server.base_url, "COLUMNS": "200"})
    assert good.returncode == 0, good.stdout + good.stderr
    for name in ("embedding model", "local LLM", "configured endpoint", "chroma"):
        assert name in good.stdout
    assert "384 dimensions" in good.stdout and "sha256 ok" in good.stdout
    assert server.base_url in good.stdout and "FAIL" not in good.stdout

    url = f"http://127.0.0.1:{closed_port()}/v1"
    skip = ["--skip", "local-llm", "--skip", "embedding"]
    bad = simpop("doctor", *skip, cwd=project, env={"SIMPOP_LLM_BASE_URL": url, "COLUMNS": "200"})
    assert bad.returncode == 1
    [line] = [line for line in bad.stdout.splitlines() if "configured endpoint" in line]
    assert "FAIL" in line and f"cannot reach LLM endpoint {url}" in line
    for name in ("local LLM", "embedding model"):
        [line] = [line for line in bad.stdout.splitlines() if name in line]
        assert "skipped" in line and "FAIL" not in line and "sha256" not in line


def test_doctor_with_every_failing_check_skipped_passes(project):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    skip = ["--skip", "local-llm", "--skip", "embedding", "--skip", "endpoint"]
    result = simpop("doctor", *skip, cwd=project, env={"SIMPOP_LLM_BASE_URL": url, "COLUMNS": "200"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("skipped") == 3 and "chroma" in result.stdout and "FAIL" not in result.stdout
    unknown = simpop("doctor", "--skip", "gpu", cwd=project)
    assert unknown.returncode == 2 and "gpu" in unknown.stderr and "Traceback" not in unknown.stderr


def test_personas_and_scenarios_tables_say_how_many_and_from_where(project):
    result = simpop("personas", cwd=project)
    assert result.returncode == 0, result.stderr
    count = len(list((project / "personas").glob("*.yaml")))
    assert f"{count} personas (from personas/)" in result.stdout
