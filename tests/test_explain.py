"""Reasons only for the verdicts a report shows (issue 18): scoring asks none; the run's last step
asks them for the worst probes per scenario, and the report shows them."""

from __future__ import annotations

import hashlib
import json
import shutil

from helpers import ROOT, simpop, write_config

from simpop.aggregate import EXAMPLES_PER_SCENARIO, metric_values, worst_cells
from simpop.models import Judgement, Score
from simpop.store import with_reasons
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, judge_reason, quoted, with_judges

SCENARIOS = "off-topic,emergency-in-pathway,in-scope-in-kb"
JUDGED_REASONS = ("context_relevance", "refusal", "escalation", "clarification")  # LLM reasons only


def patient_reply(request: dict) -> Reply:
    seeds = quoted(request)
    words = " ".join(seeds[0].split()[:6]) if seeds else "Hello there"
    return Reply(json.dumps({"questions": [f"{words} (take {i})?" for i in range(count(request))]}))


def reply(request: dict) -> Reply:
    """Every yes/no verdict P(yes) 0.1 (so most fail); a reason names the verdict it explains."""
    if judge_reason(request):
        return Reply("why-" + hashlib.sha256(request["messages"][0]["content"].encode()).hexdigest()[:8])
    return with_judges(patient_reply)(request)


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_reasons_are_asked_at_the_end_for_the_worst_probes_per_scenario_only(project):
    shutil.copytree(ROOT / "scenarios", project / "scenarios")
    shutil.copy(ROOT / "targets/eye-domain.yaml", project / "domain.yaml")
    with FakeOpenAIServer(default=reply) as llm:
        path = write_config(
            project,
            "name: why\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\n"
            "scenario_dir: scenarios\ndomain: domain.yaml\nvariants: 2\nlimit: 4\nprobes: 3\n"
            f"llm: {{base_url: '{llm.base_url}'}}\n",
        )
        args = ("--personas", "low-literacy,older-phone", "--scenarios", SCENARIOS)
        result = simpop("run", str(path), *args, cwd=project)
        assert result.returncode == 0, result.stderr
        asked_why = [r for r in llm.requests if judge_reason(r)]
        run = next((project / "runs").iterdir())
        llm.requests.clear()
        again = simpop("run", str(path), "--resume", run.name, *args, cwd=project)
        assert again.returncode == 0, again.stderr
        assert llm.requests == []  # every shown verdict explained already: nothing asked again

    scores, explained = read(run / "scores.jsonl"), read(run / "explained.jsonl")
    # scoring asked no reasons, although most verdicts failed
    judged = [s for s in scores if s["metric"] in JUDGED_REASONS]
    assert judged and all(s["reason"] is None or not s["reason"].startswith("why-") for s in judged)
    # (context relevance fails where the bot's context is not the probe's gold QAP: gold is relevant)
    assert sum(s["value"] == 0.0 for s in judged if s["metric"] == "context_relevance") >= 5
    # the explained cells are exactly the worst per scenario, as the report picks them
    values: dict[str, dict[str, float]] = {}
    for s in scores:
        if not s["excluded"]:
            values.setdefault(s["cell_id"], {}).update(
                (k, v) for k, v in metric_values(Score(**s)).items() if v is not None
            )
    responses = read(run / "responses.jsonl")
    asked = [
        (r["cell_id"], r["scenario_id"]) for r in responses if r["question"] is not None and not r["skipped"]
    ]
    worst = worst_cells(asked, values, EXAMPLES_PER_SCENARIO)
    assert {s["cell_id"] for s in explained} == {c for cells in worst.values() for c in cells}
    assert len(responses) > 3 * len(worst)  # the restriction left most probes unexplained
    # each reason asked is in an explained score, and the report shows it
    shown = json.dumps(explained)
    assert asked_why and all(reply(r).content in shown for r in asked_why)
    report = simpop("report", str(run), cwd=project)
    assert report.returncode == 0, report.stderr
    html = (run / "report.html").read_text()
    assert all(reply(r).content in html for r in asked_why)


def test_a_reason_is_shown_only_where_its_verdicts_are_the_runs_own():
    ids = dict(
        run_id="r",
        cell_id="c",
        persona_id="p",
        scenario_id="s",
        seed_id="-",
        variant=0,
        metric="faithfulness",
    )
    score = Score(
        **ids, value=0.5, details=[Judgement(text="A.", verdict=True), Judgement(text="B.", verdict=False)]
    )
    why = [
        Judgement(text="A.", verdict=True),
        Judgement(text="B.", verdict=False, reason="not in the context"),
    ]
    assert with_reasons(score, Score(**ids, value=0.5, details=why)).details[1].reason == "not in the context"
    flipped = [Judgement(text="A.", verdict=False), Judgement(text="B.", verdict=False, reason="x")]
    assert with_reasons(score, Score(**ids, value=0.0, details=flipped)) is score
    assert with_reasons(score, Score(**ids, value=0.5, details=flipped)) is score
    assert with_reasons(score, None) is score
