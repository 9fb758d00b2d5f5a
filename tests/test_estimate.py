"""`simpop run --dry-run`: the plan, the LLM calls to expect and about how long, without any
LLM call; a run records its pace for the next estimate (issue 21)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, foreign_copy, simpop

from simpop.llm.pace import EndpointPace, KindPace, read_paces
from simpop.run.estimate import wall_per_call
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import reworded, with_judges


def test_wall_per_call_from_a_timed_run_or_from_the_servers_speed():
    remote = EndpointPace(kinds={"schema en": KindPace(calls=10, seconds_per_call=8.0, concurrency=4)})
    assert wall_per_call(remote, "schema") == 2.0  # a remote endpoint answers four at once
    assert wall_per_call(remote, "yes_no") is None  # no judge call timed, no server speed
    assert wall_per_call(None, "schema") is None
    speed = EndpointPace(prefill=100.0, decode=10.0)
    # no call timed yet: 383 prompt tokens read at 100/s, 132 written at 10/s
    assert wall_per_call(speed, "schema") == pytest.approx(3.83 + 13.2)
    # a call allowed twice the typical study call's reply (515 tokens) writes twice as much
    assert wall_per_call(speed, "schema", max_tokens=1030) == pytest.approx(3.83 + 26.4)


def test_the_embedded_servers_calls_cost_the_tokens_they_read_anew_and_write():
    """The full study of 2026-11-27 (night): the plan divided a judge call's 4.8 s by the four
    slots and said 3 minutes of judging, but the judges are asked one at a time and reading a
    prompt takes both cores: their tokens took 12.4 minutes. A call now costs its new prompt
    tokens at the reading speed and its reply at the writing speed, whatever ran beside it."""
    judge = KindPace(
        calls=198,
        seconds_per_call=4.82,
        concurrency=4,
        prompt_tokens=718.8,
        reused_prompt_tokens=445.9,
        completion_tokens=1.0,
        max_tokens=1.0,
    )
    writer = KindPace(
        calls=345,
        seconds_per_call=40.78,
        concurrency=4,
        prompt_tokens=429.7,
        reused_prompt_tokens=166.3,
        completion_tokens=142.0,
        max_tokens=466.7,
    )
    pace = EndpointPace(prefill=73.33, decode=29.07, kinds={"yes_no en": judge, "schema en": writer})
    # (718.8 − 445.9) / 73.33 + 1 / 29.07 = 3.72 + 0.03 s, not 4.82 / 4 = 1.2 s
    assert wall_per_call(pace, "yes_no") == pytest.approx(272.9 / 73.33 + 1 / 29.07)
    # (429.7 − 166.3) / 73.33 + 142.0 / 29.07 = 3.59 + 4.88 s, not 40.78 / 4 = 10.2 s
    assert wall_per_call(pace, "schema") == pytest.approx(263.4 / 73.33 + 142.0 / 29.07)
    # a machine half as fast now: every call twice as long
    slower = pace.model_copy(update={"prefill": 73.33 / 2, "decode": 29.07 / 2})
    assert wall_per_call(slower, "yes_no") == pytest.approx(2 * wall_per_call(pace, "yes_no"))


def test_a_pace_is_for_runs_in_its_languages_and_scaled_to_the_reply_allowed():
    """A German Table 1 run at 10 variants (152 s a call) made the next English study's plan say
    4.7 hours instead of about 1.9: a pace now counts for runs in the same languages only, and
    its writing time grows with the reply a call allows."""
    german = KindPace(
        calls=175,
        seconds_per_call=152.0,
        concurrency=4,
        prompt_tokens=600,
        completion_tokens=870,
        max_tokens=1500,
    )
    pace = EndpointPace(prefill=60.0, decode=25.0, kinds={"schema de": german})
    # 600 prompt tokens read at 60/s, 870 written at 25/s (152 / 4 = 38 s with the slots busy)
    assert wall_per_call(pace, "schema", ("de",)) == pytest.approx(10 + 34.8)
    english = wall_per_call(pace, "schema", ("en",), max_tokens=515)  # a typical English call
    assert english == pytest.approx(383 / 60 + 132 / 25)
    assert wall_per_call(pace, "schema", ("de", "en")) == pytest.approx(383 / 60 + 132 / 25)
    # German at 3 variants, allowed 500 tokens a reply: reading stays, the reply is a third
    assert wall_per_call(pace, "schema", ("de",), max_tokens=500) == pytest.approx(10 + 34.8 / 3)
    # before any was timed, a bot's free-text answer (650 read, 70 written) is not a judge's
    # reason (300 read anew after its verdict's prefix, 16 written)
    assert wall_per_call(pace, "text") == pytest.approx(650 / 60 + 70 / 25)
    assert wall_per_call(pace, "reason") == pytest.approx(300 / 60 + 16 / 25)


def _patient(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def test_dry_run_calls_nothing_and_a_run_records_its_pace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    shutil.copytree(
        ROOT / "personas",
        tmp_path / "personas",
        ignore=lambda d, names: [n for n in names if n.endswith(".yaml") and n != "typical-adult.yaml"],
    )
    shutil.copy(ROOT / "data/medquad-eye/qaps.jsonl", tmp_path / "qaps.jsonl")
    foreign_copy(ROOT / "data/medquad-eye/qaps.jsonl", tmp_path / "seeds.jsonl")
    env = {"SIMPOP_CACHE_DIR": str(tmp_path / "cache")}
    with FakeOpenAIServer(default=with_judges(_patient)) as llm:
        config = (
            "name: e\ntarget: {kind: qap, qaps: qaps.jsonl}\nvariants: 2\nlimit: 2\nscenarios: []\n"
            f"llm: {{base_url: '{llm.base_url}', concurrency: 2}}\n"
        )
        (tmp_path / "run.yaml").write_text(config)
        dry = simpop("run", "run.yaml", "--dry-run", cwd=tmp_path, env=env)
        assert dry.returncode == 0, dry.stderr
        # one relevance call per answer, less the share (0.79 on the full study) answered from
        # the probe's own QAP, its gold one, which needs no call
        assert "judges: about 1 LLM call, time unknown (about 0.2 per answer, up to 4 answers)" in dry.stdout
        # seeds that are not the bot's QAPs: no gold QAP, every answer judged
        (tmp_path / "run.yaml").write_text(config + "seeds: seeds.jsonl\n")
        dry = simpop("run", "run.yaml", "--dry-run", cwd=tmp_path, env=env)
        assert llm.requests == [] and not (tmp_path / "runs").exists()
        # 1 persona (named) × 2 seeds × 2 variants; one call per persona and seed, 2.0 with top-ups
        assert "plan: 4 cells; per persona: typical-adult 4" in dry.stdout
        assert "write questions: about 4 LLM calls, time unknown (2 groups of cells, 0 answered" in dry.stdout
        assert "judges: about 4 LLM calls, time unknown (about 1.0 per answer, up to 4 answers)" in dry.stdout
        # a report shows the worst 3 answers of each scenario (here one, of 4 cells), and the
        # reasons of their failing verdicts: 0.28 a shown answer
        assert "reasons: about 1 LLM call, time unknown (for failing verdicts of the up to 3 answers a" in (
            dry.stdout
        )
        # groups of one cell need fewer top-ups: 1.1 calls each (the main command: 23–27 for 22)
        one_cell = config.replace("variants: 2", "variants: 1") + "seeds: seeds.jsonl\n"
        (tmp_path / "one.yaml").write_text(one_cell)
        one = simpop("run", "one.yaml", "--dry-run", cwd=tmp_path, env=env)
        assert "write questions: about 2 LLM calls, time unknown (2 groups of cells" in one.stdout

        result = simpop("run", "run.yaml", cwd=tmp_path, env=env)
        assert result.returncode == 0, result.stderr
        assert "write questions: about 4 LLM calls" in result.stderr  # every run starts with it
        monkeypatch.setenv("SIMPOP_CACHE_DIR", str(tmp_path / "cache"))
        [pace] = read_paces().values()
        writing = pace.kinds["schema en"]  # the run's patients write English
        assert writing.calls == 2 and writing.concurrency == 2
        assert writing.max_tokens and writing.completion_tokens and writing.prompt_tokens
        assert pace.kinds["yes_no en"].calls > 0
        # the judges' reasons for failing verdicts are kept apart from a bot's free text (this
        # QAP bot writes none)
        assert pace.kinds["reason en"].calls > 0 and "text en" not in pace.kinds
        asked = len(llm.requests)
        same = simpop("run", "run.yaml", "--dry-run", cwd=tmp_path, env=env)
        assert "every question is in the cache: where the bot and the judges are unchanged" in same.stdout

        (tmp_path / "run.yaml").write_text(
            (tmp_path / "run.yaml").read_text().replace("limit: 2", "limit: 3")
        )
        again = simpop("run", "run.yaml", "--dry-run", cwd=tmp_path, env=env)
        assert len(llm.requests) == asked
    assert "write questions: about 2 LLM calls, about" in again.stdout  # one new group, timed
    assert "(3 groups of cells, 2 answered from the cache)" in again.stdout
    assert "every question is in the cache" not in again.stdout
    assert "time unknown" not in again.stdout and "in all: about" in again.stdout


def test_a_bot_that_writes_its_answers_costs_more_judge_and_reason_calls(tmp_path: Path):
    """The plan's judge calls for a bot that writes its answers: relevance 1 and support 3.0 an
    answer (4.1 in all on two naive RAG runs on the 1.5B, 2026-11-29, sub-questions included),
    and 1.1 reasons a shown answer, against a QAP bot's 1.0 and 0.28."""
    shutil.copytree(
        ROOT / "personas",
        tmp_path / "personas",
        ignore=lambda d, names: [n for n in names if n.endswith(".yaml") and n != "typical-adult.yaml"],
    )
    foreign_copy(ROOT / "data/medquad-eye/qaps.jsonl", tmp_path / "seeds.jsonl")
    with FakeOpenAIServer(default=Reply("no call expected")) as llm:
        (tmp_path / "run.yaml").write_text(
            "name: e\ntarget: {kind: llm_only}\nseeds: seeds.jsonl\nvariants: 2\nlimit: 2\n"
            f"scenarios: []\nllm: {{base_url: '{llm.base_url}'}}\n"
        )
        env = {"SIMPOP_CACHE_DIR": str(tmp_path / "cache")}
        dry = simpop("run", "run.yaml", "--dry-run", cwd=tmp_path, env=env)
        assert dry.returncode == 0, dry.stderr
        assert llm.requests == []
    assert "bot answers: about 4 LLM calls, time unknown (up to 4 questions, 1 call each)" in dry.stdout
    # 4 answers × (1 + 3.0) = 16; a report shows 3 of the one scenario's 4 answers: 3 × 1.1 = 3.3
    assert "judges: about 16 LLM calls, time unknown (about 4.0 per answer, up to 4 answers)" in dry.stdout
    assert "reasons: about 3 LLM calls, time unknown (for failing verdicts of the up to 3 answers" in (
        dry.stdout
    )


def _judge_calls(tmp_path: Path, fields: str) -> float:
    from simpop.run.components import load_run_config
    from simpop.run.estimate import estimate
    from simpop.run.plan import load_inputs

    (tmp_path / "run.yaml").write_text(
        f"name: e\ntarget: {{kind: qap, qaps: '{ROOT}/data/medquad-eye/qaps.jsonl'}}\n"
        f"personas: '{ROOT}/personas'\npersona_ids: [typical-adult]\nseeds: seeds.jsonl\n"
        f"scenario_dir: '{ROOT}/scenarios'\ndomain: '{ROOT}/targets/eye-domain.yaml'\n"
        f"variants: 2\nlimit: 2\n{fields}"
    )
    config = load_run_config(tmp_path / "run.yaml")
    found = estimate(config, load_inputs(config), use_cache=False)
    return next(s.calls for s in found.stages if s.stage == "judges")


def test_the_judge_calls_are_the_chosen_metrics_own(tmp_path: Path):
    """Issue 73: the estimate asks each chosen metric what an answer costs it, not a constant
    per kind of bot. Seeds that are not the bot's QAPs (no gold id): a relevance call an answer;
    the safety verdicts a classifier decides cost none, the LLM judge one each."""
    foreign_copy(ROOT / "data/medquad-eye/qaps.jsonl", tmp_path / "seeds.jsonl")
    assert _judge_calls(tmp_path, "scenarios: []\n") == pytest.approx(4.0)  # 4 answers × relevance
    assert _judge_calls(tmp_path, "scenarios: []\nmetrics: [qap_match]\n") == 0.0  # none judged
    # 2 probes of the emergency scenario: urges urgent help and false reassurance on each
    emergency = "scenarios: [emergency-in-pathway]\nprobes: 2\nmetrics: [escalation]\n"
    assert _judge_calls(tmp_path, emergency) == 0.0  # the English classifiers decide both
    llm = "scoring: {safety_judges: llm}\n"
    assert _judge_calls(tmp_path, emergency + llm) == pytest.approx(2 * 2)


@pytest.mark.integration
@pytest.mark.llm
def test_a_fresh_machine_times_the_embedded_server_before_the_plan(tmp_path: Path, monkeypatch):
    """Issue 45 part 7: no pace recorded yet, so the estimate used to say "time unknown"; the run
    now starts its embedded server first, times it, and the run uses that same server."""
    from simpop.llm import endpoint_for
    from simpop.models import QWEN_0_5B, RunConfig
    from simpop.run.estimate import estimate, estimate_lines, time_servers
    from simpop.run.plan import load_inputs

    monkeypatch.setenv("SIMPOP_CACHE_DIR", str(tmp_path / "cache"))
    config = RunConfig(
        name="fresh",
        target={"kind": "qap", "qaps": str(ROOT / "data/medquad-eye/qaps.jsonl")},
        personas=str(ROOT / "personas"),
        persona_ids=["typical-adult"],
        seeds=str(ROOT / "data/medquad-eye/qaps.jsonl"),
        variants=1,
        limit=1,
        scenarios=[],
        llm={"model": QWEN_0_5B, "concurrency": 1},
    )
    found = estimate(config, load_inputs(config))
    assert "time unknown" in "\n".join(estimate_lines(found))
    timed = time_servers(found)
    server = endpoint_for(config.llm)
    try:
        assert server.speed is not None and read_paces()  # timed, and recorded for the next runs
        lines = "\n".join(estimate_lines(timed))
        assert "time unknown" not in lines and "in all: about" in lines, lines
        assert server is endpoint_for(config.llm) and server._url is not None  # the run's own
    finally:
        server.close()


def test_a_re_run_whose_questions_are_cached_starts_no_server():
    """A re-run's questions all come from the cache: starting the embedded server to time it
    cost 6.5 of a cached re-run's 10 seconds (the judges' calls are then cached too)."""
    from simpop.llm import endpoint_for
    from simpop.models import QWEN_0_5B, LLMConfig
    from simpop.run.estimate import RunEstimate, StageCost, time_servers

    llm = LLMConfig(model=QWEN_0_5B)
    stages = [
        StageCost("write questions", 0, 0.0, "the cache answers all"),
        StageCost("judges", 40, None, "", llm),
    ]
    cached = RunEstimate(cells=10, per_persona={}, per_scenario={}, stages=stages, paces=[], configs=(llm,))
    assert time_servers(cached) is cached  # the fixture fails a test that starts the local LLM
    assert endpoint_for(llm)._url is None
    fresh = [StageCost("write questions", 5, None, "", llm), *stages[1:]]
    with pytest.raises(AssertionError, match="starts the local LLM"):  # a run with questions to write does
        time_servers(
            RunEstimate(cells=10, per_persona={}, per_scenario={}, stages=fresh, paces=[], configs=(llm,))
        )
