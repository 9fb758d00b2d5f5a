"""A run killed mid-way and resumed ends with exactly one record per planned cell."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from helpers import HANG, simpop, write_config

from simpop.cli.interrupt import run_interruptibly
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import judge_request, reworded, with_judges


def variants_reply(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def counts(path):
    """Records, and the most records with one key (cell id, and metric for scores)."""
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    ids = [(r["cell_id"], r.get("metric")) for r in rows]
    return len(ids), max(Counter(ids).values(), default=0)


def test_killed_run_resumes_to_exactly_one_record_per_cell(project):
    with FakeOpenAIServer(default=with_judges(variants_reply), latency=0.4) as server:
        config = (
            "name: resume\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\n"
            f"variants: 3\nlimit: 5\nscenarios: []\nllm: {{base_url: '{server.base_url}', concurrency: 2}}\n"
        )
        path = write_config(project, config)
        planned = 5 * len(list((project / "personas").glob("*.yaml"))) * 3
        process = subprocess.Popen(
            [sys.executable, "-m", "simpop", "run", str(path)],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=os.environ.copy(),
        )
        deadline = time.time() + 120
        probes = None
        while time.time() < deadline:
            runs = list((project / "runs").glob("*/probes.jsonl")) if (project / "runs").exists() else []
            if runs and counts(runs[0])[0] >= 12:
                probes = runs[0]
                break
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert probes is not None, "the run never started writing probes"
        run_dir = probes.parent
        before, _ = counts(probes)
        assert 12 <= before < planned, "the kill did not land mid-way"
        assert not (run_dir / "summary.json").exists()

        result = simpop("run", str(path), "--resume", run_dir.name, cwd=project)
        assert result.returncode == 0, result.stderr
        clean = simpop("run", str(path), "--out", "clean", cwd=project)
        assert clean.returncode == 0, clean.stderr
    for name in ("probes.jsonl", "responses.jsonl"):
        assert counts(run_dir / name) == (planned, 1), name
    # eight metric families per cell: QAP match, retrieval of the seed QAP, answer similarity,
    # the embedding metrics, CF, refusal, CR and the safe-behaviour verdict
    assert counts(run_dir / "scores.jsonl") == (8 * planned, 1)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["planned_cells"] == planned
    assert summary["accuracy"]["total"]["n"] + sum(summary["excluded"].values()) == planned
    # one request per persona and seed QAP: replies received before the kill come from the
    # cache on resume; only the requests in flight at the kill (concurrency 2) go again
    writing = [r for r in server.requests if not judge_request(r)]
    groups = planned // 3
    assert groups <= len(writing) <= groups + 2
    # the killed-and-resumed run and a clean run of the same config write the same summary,
    # apart from the run id, the time taken, what this process asked of the LLM and how many
    # times the run was started
    [clean_dir] = (project / "clean").iterdir()
    assert comparable(run_dir / "summary.json") == comparable(clean_dir / "summary.json")
    assert json.loads((run_dir / "summary.json").read_text())["invocations"] == 2  # the killed one too


def comparable(path):
    summary = json.loads(path.read_text())
    for field in ("run_id", "duration_s", "llm", "invocations"):
        summary.pop(field)
    return json.dumps(summary, sort_keys=True)


# Ctrl-C, and SIGTERM (a CI cancel, ``docker stop``, ``kill``): 128 + the signal
@pytest.mark.parametrize(
    "signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_stop_signal_leaves_whole_records_a_resume_command_and_its_status(project, signum, status):
    with FakeOpenAIServer(default=with_judges(variants_reply), latency=0.4) as server:
        config = (
            "name: stop\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\n"
            f"variants: 3\nlimit: 5\nscenarios: []\nllm: {{base_url: '{server.base_url}', concurrency: 2}}\n"
        )
        path = write_config(project, config)
        planned = 5 * len(list((project / "personas").glob("*.yaml"))) * 3
        process = subprocess.Popen(
            [sys.executable, "-m", "simpop", "run", str(path), "--no-judge"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        probes = None
        while probes is None and process.poll() is None:
            runs = list((project / "runs").glob("*/probes.jsonl")) if (project / "runs").exists() else []
            if runs and counts(runs[0])[0] >= 12:
                probes = runs[0]
            time.sleep(0.02)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=HANG)
        assert probes is not None, stderr
        assert process.returncode == status, stderr
        assert "Traceback" not in stderr
        run_dir = probes.parent
        last = stderr.strip().splitlines()[-1]
        assert last.startswith(f"interrupted: the records written so far are kept in runs/{run_dir.name};")
        assert last.endswith(f"finish with: simpop run {path} --resume {run_dir.name} --out runs")
        assert not (run_dir / "summary.json").exists()
        for name in ("probes.jsonl", "responses.jsonl", "scores.jsonl"):
            assert counts(run_dir / name)[1] <= 1, name  # every line a whole record, once
        assert counts(probes)[0] < planned, "the interrupt did not land mid-way"

        stopped = [json.loads(line) for line in (run_dir / "invocations.jsonl").read_text().splitlines()]
        assert len(stopped) == 1 and not stopped[0]["finished"] and stopped[0]["seconds"] > 0
        result = simpop("run", str(path), "--no-judge", "--resume", run_dir.name, cwd=project)
    assert result.returncode == 0, result.stderr
    for name in ("probes.jsonl", "responses.jsonl"):
        assert counts(run_dir / name) == (planned, 1), name
    # the summary's time is both invocations', not the resume's alone
    both = [json.loads(line) for line in (run_dir / "invocations.jsonl").read_text().splitlines()]
    assert [i["finished"] for i in both] == [False, True] and both[0] == stopped[0]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["invocations"] == 2
    assert summary["duration_s"] == pytest.approx(both[0]["seconds"] + both[1]["seconds"], abs=0.002)
    assert summary["duration_s"] > both[1]["seconds"]
    # and its LLM use is both invocations' too: the stopped one's calls count
    assert both[0]["llm"]["requests"] > 0 and len(server.requests) >= both[0]["llm"]["requests"]
    assert summary["llm"]["requests"] == both[0]["llm"]["requests"] + both[1]["llm"]["requests"]


def test_the_signal_handlers_before_a_run_are_back_after_it():
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}

    async def work() -> int:
        assert signal.getsignal(signal.SIGTERM) != before[signal.SIGTERM]  # the run's own
        return 7

    assert run_interruptibly(work(), lambda: None) == 7
    assert {signum: signal.getsignal(signum) for signum in before} == before


# Ctrl-C pressed while ``module`` is being imported: by the command line's own start (rich, which
# simpop.cli loads first) or inside the run command (its run modules, loaded once it has begun).
INTERRUPT_ON_IMPORT = """
import builtins, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (a background job ignores it)
real, module = builtins.__import__, sys.argv[1]
def hooked(name, *args, **kwargs):
    if name == module:
        builtins.__import__ = real
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **kwargs)
builtins.__import__ = hooked
sys.argv = ["simpop", *sys.argv[2:]]
from simpop.__main__ import main
main()
"""


@pytest.mark.parametrize("module", ["rich.console", "simpop.run.execute"])
def test_ctrl_c_before_the_run_starts_is_one_line_and_130(project, module):
    # an LLM endpoint of its own: the embedded server would start, and be timed, before the run
    with FakeOpenAIServer(default=with_judges(variants_reply)) as server:
        config = (
            "name: stop\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nscenarios: []\n"
            f"llm: {{base_url: '{server.base_url}'}}\n"
        )
        path = write_config(project, config)
        command = [sys.executable, "-c", INTERRUPT_ON_IMPORT, module, "run", str(path), "--no-judge"]
        result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=HANG)
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == "interrupted"
    assert not list(project.glob("runs/*/probes.jsonl"))  # stopped before the first probe
