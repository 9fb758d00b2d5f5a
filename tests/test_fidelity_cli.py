"""`simpop fidelity` and `simpop sweep-threshold` on a run made with a fake patient LLM."""

from __future__ import annotations

import json

from helpers import assert_one_line_error, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import reworded, with_judges


def _patient(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def test_fidelity_beside_real_messages_and_the_threshold_sweep(project):
    real = project / "real.jsonl"
    stories = ["My mum has glaucoma. Does it run in the family?", "I was told I have cataracts. what now"]
    real.write_text("".join(json.dumps({"text": s}) + "\n" for s in stories), encoding="utf-8")
    with FakeOpenAIServer(default=with_judges(_patient)) as llm:
        config = (
            "name: fid\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 2\n"
            f"limit: 3\nscenarios: []\nllm: {{base_url: '{llm.base_url}'}}\n"
        )
        path = write_config(project, config)
        # a cache of its own: the fake's replies must not answer the real LLM's prompts of other tests
        made = simpop(
            "run", str(path), "--personas", "typical-adult,low-literacy", "--no-judge", cwd=project,
            env={"SIMPOP_CACHE_DIR": str(project / "cache")},
        )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "simpop fidelity" in made.stdout
    [run] = (project / "runs").iterdir()
    shown = simpop("fidelity", str(run), "--real", str(real), cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "typical-adult" in shown.stdout and "real: real.jsonl" in shown.stdout
    # the realism tests: too few real messages (2) for the classifier, the lexical figures beside them
    assert "told apart from real messages? · real.jsonl" in shown.stdout and "whole run" in shown.stdout
    # the real reference: 10 and 8 words, both with a story, one without a question mark
    summary = json.loads((run / "summary.json").read_text())
    assert summary["fidelity"]["reference_name"] == "MeQSum"  # the run itself compares with MeQSum
    assert set(summary["fidelity"]["shapes"]) == {"typical-adult", "low-literacy"}
    by_default = simpop("fidelity", str(run), cwd=project)
    assert "real: MeQSum" in by_default.stdout
    assert_one_line_error(
        simpop("fidelity", str(run), "--real", "missing.jsonl", cwd=project), "missing.jsonl", "not found"
    )
    (project / "bad.jsonl").write_text('{"other": 1}\n', encoding="utf-8")
    assert_one_line_error(
        simpop("fidelity", str(run), "--real", "bad.jsonl", cwd=project), "no field 'message'"
    )
    # no scenario that must not be answered: the sweep shows the rates but suggests nothing
    swept = simpop("sweep-threshold", str(run), cwd=project)
    assert swept.returncode == 0, swept.stderr
    assert "0.50 (now)" in swept.stdout and "no suggestion" in swept.stdout
