"""A sequential run (``simpop run --policy FILE --until-decided``, issue 72): it stops once every
rule is decided, before the plan is spent; the gate decides it on confidence sequences in the
order its rounds chose the cells; a killed run resumes to the same cells and decision; an
undecided rule fails the gate and is named so in the JUnit file. The patients' LLM is a fake
server on loopback; the bot is simpop's QAP matcher with the real embedding model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

from helpers import assert_one_line_error, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, quoted

PASSING = "rules:\n  - {metric: qap_match, min: 0.2, per: persona}\n"
PLAN_CELLS = 2 * 8 * 2  # personas x QAPs x variants


def patient_reply(request: dict) -> Reply:
    """The seed's first words, so the matcher finds it: every probe is answered right."""
    seeds = quoted(request)
    words = " ".join(seeds[0].split()[:8]) if seeds else "Hello there"
    return Reply(json.dumps({"questions": [f"{words} (take {i})?" for i in range(count(request))]}))


def config(project: Path, llm: FakeOpenAIServer, extra: str = "") -> Path:
    return write_config(
        project,
        "name: seq\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\n"
        "persona_ids: [low-literacy, high-literacy]\nvariants: 2\nlimit: 8\nscenarios: []\n"
        f"llm: {{base_url: '{llm.base_url}'}}\n" + extra,
    )


def rounds(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "rounds.jsonl").read_text().splitlines()]


def test_a_sequential_run_stops_once_every_rule_is_decided(project):
    (project / "p.yaml").write_text(PASSING)
    with FakeOpenAIServer(default=patient_reply) as llm:
        path = config(project, llm)
        result = simpop("run", str(path), "--policy", "p.yaml", "--until-decided", "--no-judge", cwd=project)
    assert result.returncode == 0, result.stderr + result.stdout
    [run] = (project / "runs").iterdir()
    found = rounds(run)
    decided = [r for r in found if r["stage"] == "decided"]
    # round 0: one cell per persona; the sequence needs 3 right answers per persona
    # to show min 0.2 (the bet on "above 0.2" turns 1 into 4, 16, 64 > 2 / 0.05), so the run
    # stops after the round that gives each persona its third value, far short of the plan
    assert decided[-1]["rules"][0]["decision"] == "passed"
    assert [r["rules"][0]["decision"] for r in decided[:-1]] == ["undecided"] * (len(decided) - 1)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["planned_cells"] == decided[-1]["cells"] < PLAN_CELLS
    assert found[0]["planned"] == PLAN_CELLS
    assert len(found[0]["units"]) == 2 and {u[0] for u in found[0]["units"]} == {
        "low-literacy",
        "high-literacy",
    }
    assert "sequential gate: " in result.stdout and "rule 1 qap_match: passed after" in result.stdout
    # the gate decides the finished run as it was run: on its sequences
    gated = simpop("gate", str(run), "--policy", "p.yaml", cwd=project)
    assert gated.returncode == 0 and "(sequence)" in gated.stdout, gated.stdout
    # its values go into the sequences in the order the rounds chose their cells
    from simpop.report.gate import run_order
    from simpop.store import load_run

    order, left, groups = run_order(load_run(run))
    assert set(order.values()) == set(range(len(decided))) and left and groups == 2  # one per persona
    assert all(order[key[2]] == r["round"] for r in found if r["stage"] == "chosen" for key in r["units"])
    # the report plots each rule's sequences by round
    reported = simpop("report", str(run), "--policy", "p.yaml", cwd=project)
    assert reported.returncode == 0, reported.stderr
    html = (run / "report.html").read_text()
    assert html.count('alt="confidence sequences by round"') == 1 and "rule 1 group" not in html
    assert [len(r["rules"][0]["bounds"]) for r in decided] == [2] * len(decided)


def test_an_undecided_rule_fails_the_gate_and_the_junit_file_names_it(project):
    """min 0.99 on a dozen answers cannot be shown: the budget is spent, the rule undecided; a
    rule on a figure the run has not measured (yet) is undecided too, not failed, while the plan
    has cells the run did not reach."""
    (project / "p.yaml").write_text(
        "allow_unvalidated: true\nrules:\n  - {metric: qap_match, min: 0.99}\n"
        "  - {metric: faithfulness, min: 0.5}\n"
    )
    with FakeOpenAIServer(default=patient_reply) as llm:
        path = config(project, llm, "gate: {sequential: true, budget: {cells: 12}}\n")
        result = simpop("run", str(path), "--policy", "p.yaml", "--no-judge", cwd=project)
    assert result.returncode == 1, result.stderr + result.stdout
    [run] = (project / "runs").iterdir()
    assert rounds(run)[-1]["cells"] <= 12
    assert "undecided: its confidence sequence" in result.stdout
    assert "it needs about" in result.stdout and "rule 1 qap_match: undecided still after" in result.stdout
    assert "rule 2 faithfulness: undecided" in result.stdout
    assert "no values yet: the sequential run stopped before its cells" in result.stdout
    failures = list(ElementTree.parse(run / "junit.xml").iter("failure"))
    assert failures and all(f.get("type") == "undecided" for f in failures)


def test_a_killed_sequential_run_resumes_to_the_same_cells_and_decision(project, tmp_path):
    (project / "p.yaml").write_text(PASSING)
    with FakeOpenAIServer(default=patient_reply) as llm:
        path = config(project, llm)
        whole = simpop(
            "run",
            str(path),
            "--policy",
            "p.yaml",
            "--until-decided",
            "--no-judge",
            "--out",
            "whole",
            cwd=project,
        )
        assert whole.returncode == 0, whole.stderr
        [reference] = (project / "whole").iterdir()
        # the same run, killed once its second round is chosen, then resumed
        slow = FakeOpenAIServer(default=patient_reply, latency=1.0)
        with slow:
            path = config(project, slow)
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "simpop",
                    "run",
                    str(path),
                    "--policy",
                    "p.yaml",
                    "--until-decided",
                    "--no-judge",
                    "--out",
                    "killed",
                ],
                cwd=project,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "NO_COLOR": "1"},
            )
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                runs = list((project / "killed").glob("*/rounds.jsonl"))
                if runs and '"round":1,"stage":"chosen"' in runs[0].read_text():
                    break
                time.sleep(0.2)
            process.send_signal(signal.SIGKILL)
            process.wait()
        [killed] = (project / "killed").iterdir()
        assert not any(r["round"] == 1 and r["stage"] == "decided" for r in rounds(killed))
        path = config(project, llm)
        again = simpop(
            "run",
            str(path),
            "--resume",
            killed.name,
            "--policy",
            "p.yaml",
            "--until-decided",
            "--no-judge",
            "--out",
            "killed",
            cwd=project,
        )
        assert again.returncode == 0, again.stderr
    chosen = lambda run: [(r["round"], r["units"]) for r in rounds(run) if r["stage"] == "chosen"]  # noqa: E731
    assert chosen(killed) == chosen(reference)
    assert rounds(killed)[-1]["rules"] == rounds(reference)[-1]["rules"]


def test_a_sequential_run_needs_a_policy(project):
    with FakeOpenAIServer(default=patient_reply) as llm:
        path = config(project, llm)
        result = simpop("run", str(path), "--until-decided", cwd=project)
    assert_one_line_error(result, "--until-decided (gate.sequential): needs --policy FILE")
    assert not (project / "runs").exists()


def test_conversations_take_part_in_the_rounds(project):
    """A bot that never sends the patient on: each persona's conversations fail the outcome,
    and the run stops once a persona's sequence shows it, before every conversation is played."""
    import re
    import shutil

    from helpers import ROOT

    from simpop.testing.http_bot import BotReply, HTTPBotServer
    from simpop.testing.patients import task_text, with_judges

    shutil.copytree(ROOT / "scenarios/conversations", project / "conversations")
    shutil.copy(ROOT / "targets/eye-domain.yaml", project / "domain.yaml")

    def patient(request: dict) -> Reply:
        task = task_text(request)
        turn = (
            1 if "Write your first message" in task else int(re.findall(r"message (\d+) (?:of|to)", task)[-1])
        )
        return Reply(
            json.dumps({"message": f"my eye is red, message {turn}", "done": False, "gives_up": False})
        )

    (project / "p.yaml").write_text(
        "rules:\n  - {metric: conversation.outcome_met, min: 0.9, per: persona}\n"
    )
    body = '{messages: "{{ messages }}", session: "c-{{ session_id }}"}'
    with (
        FakeOpenAIServer(default=with_judges(patient)) as llm,
        HTTPBotServer(lambda _: BotReply({"answer": "Rest your eye, it is nothing."})) as bot,
    ):
        write_config(
            project,
            f"name: conv\ntarget: {{kind: http, url: '{bot.url}/chat', body: {body}}}\npersonas: personas\n"
            "persona_ids: [typical-adult, low-literacy]\nvariants: 0\nscenarios: []\n"
            "conversation_dir: conversations\nconversations: [relative-downplays]\nconversation_repeats: 5\n"
            f"domain: domain.yaml\nllm: {{base_url: '{llm.base_url}', retry_backoff: 0.01}}\n"
            "scoring: {safety_judges: llm}\ngate: {sequential: true, round_units: 2}\n",
        )
        result = simpop("run", "run.yaml", "--policy", "p.yaml", cwd=project)
    assert result.returncode == 1, result.stderr + result.stdout
    [run] = (project / "runs").iterdir()
    played = (run / "conversations.jsonl").read_text().splitlines()
    assert 2 <= len(played) < 10  # 2 personas x 5 repeats planned
    assert rounds(run)[-1]["rules"][0]["decision"] == "failed"
    assert "rule 1 conversation.outcome_met: failed after" in result.stdout
