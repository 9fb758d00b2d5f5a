"""``simpop run`` against RAG and bring-your-own-bot targets; ``simpop benchmark yesno``."""

from __future__ import annotations

import json

import pytest
from helpers import assert_one_line_error, simpop, write_config

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import count, quoted, with_judges

QAPS = [
    {
        "id": "g1",
        "question": "How is glaucoma treated?",
        "answer": "Eye drops lower the pressure in the eye.",
        "doc_id": "glaucoma",
    },
    {
        "id": "c1",
        "question": "What is a cataract?",
        "answer": "A cataract is a clouding of the lens.",
        "doc_id": "cataract",
    },
]
DOCS = {
    "glaucoma.md": "# Glaucoma\n\nIt damages the optic nerve.\n\nEye drops lower the pressure in the eye.\n",
    "cataract.md": "# Cataract\n\nA cataract is a clouding of the lens. Surgery can replace the lens.\n",
}


def variants_reply(request: dict) -> Reply:
    if "response_format" not in request:  # the bot's own answer
        return Reply("Ask your eye doctor about drops.")
    topic = quoted(request)[0].rstrip("?")
    forms = ["{t}?", "Please, {t} (second try)?", "Tell me again, {t}?"]
    return Reply(json.dumps({"questions": [forms[i % 3].format(t=topic) for i in range(count(request))]}))


@pytest.fixture
def rag_project(project):
    (project / "kb").mkdir()
    for name, text in DOCS.items():
        (project / "kb" / name).write_text(text)
    (project / "seeds.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QAPS))
    return project


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_naive_rag_run_records_retrieval_and_scores(rag_project):
    with FakeOpenAIServer(default=with_judges(variants_reply)) as server:
        config = f"""
name: rag
target:
  kind: naive_rag
  knowledge_base: {{path: kb, chunk_size: 60, chunk_overlap: 0}}
  retrieval: {{k: 2}}
seeds: seeds.jsonl
personas: personas
variants: 2
scenarios: []
llm: {{base_url: '{server.base_url}'}}
"""
        path = write_config(rag_project, config)
        result = simpop("run", str(path), "--personas", "high-literacy,older-phone", cwd=rag_project)
    assert result.returncode == 0, result.stderr
    [run_dir] = (rag_project / "runs").iterdir()
    probes = {p["cell_id"]: p for p in read_jsonl(run_dir / "probes.jsonl")}
    responses = read_jsonl(run_dir / "responses.jsonl")
    assert len(probes) == len(responses) == 2 * 2 * 2
    gold = {p["seed_id"]: p["gold_ids"] for p in probes.values()}
    # glaucoma#0 is the title and first paragraph; cataract#0 the title and the first sentence
    assert gold == {"g1": ["glaucoma#1"], "c1": ["cataract#0"]}
    for response in responses:
        if response["skipped"] == "invalid":  # the speech-to-text noise left nothing of it: not asked
            assert probes[response["cell_id"]]["fidelity"]["reason"].startswith("the noise left ")
            assert probes[response["cell_id"]]["persona_id"] == "older-phone"
            continue
        assert response["answer"] == "Ask your eye doctor about drops."
        assert len(response["contexts"]) == 2 and all(c["score"] is not None for c in response["contexts"])
        assert response["prompt"].startswith("bot_system@")
    scores = read_jsonl(run_dir / "scores.jsonl")
    assert sorted({s["metric"] for s in scores}) == [
        "answer_similarity",
        "context_relevance",
        "embedding",
        "faithfulness",
        "refusal",
        "retrieval",
        "safe_behaviour",
    ]
    for score in scores:
        if score["metric"] == "retrieval" and not score["excluded"]:
            response = next(r for r in responses if r["cell_id"] == score["cell_id"])
            ranked = [c["id"] for c in response["contexts"]]
            gold_ids = probes[score["cell_id"]]["gold_ids"]
            expected_rr = next((1 / (i + 1) for i, c in enumerate(ranked) if c in gold_ids), 0.0)
            assert score["values"]["reciprocal_rank"] == expected_rr
    asked = sum(1 for r in responses if not r["skipped"])
    assert asked >= 6
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["accuracy"] is None and summary["target_kind"] == "naive_rag"
    totals = {m["metric"]: m for m in summary["metrics"] if m["group"] == "total"}
    assert totals["retrieval.reciprocal_rank"]["n"] == asked
    assert 0 <= totals["retrieval.average_precision"]["mean"] <= 1
    assert "retrieval and similarity" in result.stdout and "nDCG@5" in result.stdout
    # the one sentence is information by rule; the fake judge's P(yes) of 0.1 finds it
    # unsupported; the built-in profile's refusal classifier (no LLM call) reads "Ask your eye
    # doctor about drops." to a question it does not answer as a redirect-only refusal
    assert summary["judge"]["judged"] == asked and summary["judge"]["errors"] == {}
    assert summary["judge"]["no_information"] == 0
    assert summary["judge"]["judged_by"]["classifier"] == asked  # the refusal verdict of each answer
    assert totals["safe_behaviour"]["n"] == asked and totals["safe_behaviour"]["mean"] == 0.0
    assert totals["refusal.over_refusal"]["mean"] == 1.0
    assert totals["faithfulness"]["n"] == asked and totals["faithfulness"]["mean"] == 0.0
    assert {m["scenario_id"] for m in summary["metrics_by_scenario"]} == {"qap-variant"}
    assert "safety and faithfulness" in result.stdout


def test_http_bot_failures_are_recorded_the_run_goes_on_and_a_retry_asks_just_those_again(rag_project):
    down = {"now": True}

    def bot(body):
        if down["now"] and "second try" in body["q"]:
            return BotReply({"error": "boom"}, status=500)
        return BotReply({"reply": "Eye drops.", "docs": [{"id": "glaucoma#1", "text": "...", "score": 0.9}]})

    with FakeOpenAIServer(default=with_judges(variants_reply)) as llm, HTTPBotServer(bot) as server:
        config = f"""
name: mybot
target:
  kind: http
  url: {server.url}/ask
  body: {{q: "{{{{ question }}}}"}}
  answer_path: reply
  contexts_path: docs
  retries: 1
seeds: seeds.jsonl
personas: personas
variants: 2
scenarios: []
llm: {{base_url: '{llm.base_url}'}}
"""
        path = write_config(rag_project, config)
        result = simpop("run", str(path), "--personas", "high-literacy", cwd=rag_project)
        [run_dir] = (rag_project / "runs").iterdir()
        first = {name: read_jsonl(run_dir / name) for name in ("responses.jsonl", "scores.jsonl")}
        asked = len(server.requests)
        down["now"] = False
        again = simpop("run", str(path), "--resume", run_dir.name, "--retry-failed", cwd=rag_project)
        asked_again = server.requests[asked:]
    assert result.returncode == 0, result.stderr
    responses = first["responses.jsonl"]
    failed = [r for r in responses if r["error"]]
    assert len(failed) == 2 and all("answered 500 (2 tries)" in r["error"] for r in failed)
    ok = [r for r in responses if not r["error"]]
    assert len(ok) == 2 and all(r["contexts"][0]["id"] == "glaucoma#1" for r in ok)
    assert "2 target_error" in result.stdout
    assert f"--resume {run_dir.name} --retry-failed" in result.stdout  # the warning says how

    # the bot is back: only the two failed questions go to it again, once each
    assert again.returncode == 0, again.stderr
    assert "retry: taken out to do again: 2 answers" in again.stderr
    assert sorted(r[3]["q"] for r in asked_again) == sorted(r["question"] for r in failed)
    responses = read_jsonl(run_dir / "responses.jsonl")
    assert len(responses) == 4 and not any(r["error"] for r in responses)
    assert responses[:2] == ok  # what worked is kept as it was, first in the file
    scores = read_jsonl(run_dir / "scores.jsonl")
    assert len({(s["cell_id"], s["metric"]) for s in scores}) == len(scores)
    excluded = [[s for s in found if s["excluded"]] for found in (first["scores.jsonl"], scores)]
    assert {s["cell_id"] for s in excluded[0]} == {r["cell_id"] for r in failed} and excluded[1] == []
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["excluded"] == {}


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("{kind: naive_rag, knowledge_base: {path: kb}}", "field 'seeds': required for a naive_rag target"),
        ("{kind: naive_rag, knowledge_base: {path: nowhere}}", "nowhere: knowledge base not found"),
        ("{kind: rag}", "field 'target': Input tag 'rag' found using 'kind' does not match"),
        (
            "{kind: naive_rag, knowledge_base: {path: kb}, retrieval: {kk: 3}}",
            "field 'target.retrieval.kk': unknown",
        ),
        ("{kind: python, function: 'nomodule:f'}", "target.function: cannot import 'nomodule'"),
    ],
)
def test_bad_target_configs(rag_project, target, message):
    seeds = "" if "seeds" in message else "seeds: seeds.jsonl\n"
    path = write_config(rag_project, f"name: bad\ntarget: {target}\n{seeds}personas: personas\n")
    with FakeOpenAIServer(default=with_judges(variants_reply)) as llm:
        text = path.read_text() + f"llm: {{base_url: '{llm.base_url}'}}\nvariants: 1\nscenarios: []\n"
        path.write_text(text)
        result = simpop("run", str(path), "--personas", "high-literacy", "--limit", "1", cwd=rag_project)
    assert_one_line_error(result, message)


BENCH_QUESTIONS = [
    {"pmid": "1", "question": "Do eye drops lower eye pressure in glaucoma?", "final_decision": "yes"},
    {"pmid": "2", "question": "Does cataract surgery damage the optic nerve?", "final_decision": "no"},
    {"pmid": "3", "question": "Is pinkeye contagious?", "final_decision": "maybe"},
    {"pmid": "4", "question": "Do artificial tears cure glaucoma?", "final_decision": "no"},
]
BENCH_PASSAGES = [
    {
        "passage_id": "1_0",
        "pmid": "1",
        "text": "Eye drops lowered intraocular pressure in glaucoma patients.",
    },
    {"passage_id": "1_1", "pmid": "1", "text": "Pressure fell by a third in patients on drops."},
    {"passage_id": "2_0", "pmid": "2", "text": "Cataract surgery did not harm the optic nerve in the trial."},
    {"passage_id": "4_0", "pmid": "4", "text": "Artificial tears relieved dry eye symptoms."},
]


def test_yes_no_benchmark_table(tmp_path):
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(q) + "\n" for q in BENCH_QUESTIONS))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p in BENCH_PASSAGES))

    def reply(request: dict) -> Reply:
        user = request["messages"][-1]["content"]
        if "Knowledge base excerpts" not in user:
            return Reply("Yes.")  # llm_only always says yes: right on item 1 only
        return Reply("No, not per the excerpts." if "tears" in user else "I think yes")

    with FakeOpenAIServer(default=with_judges(reply)) as llm:
        config = f"""
name: tiny-bench
dataset:
  questions: q.jsonl
  corpus: &corpus {{path: p.jsonl, id_field: passage_id, chunk_size: 500, chunk_overlap: 0}}
  id_field: pmid
  decision_field: final_decision
  gold_match_field: pmid
k: 2
targets:
  - {{name: llm_only, target: {{kind: llm_only, answer_format: yes_no}}}}
  - name: naive
    thresholds: [-1.0, 0.99]
    target: {{kind: naive_rag, answer_format: yes_no, knowledge_base: *corpus,
              retrieval: {{mode: threshold, threshold: 0.5, max_chunks: 2}}}}
llm: {{base_url: '{llm.base_url}'}}
"""
        path = write_config(tmp_path, config, "bench.yaml")
        result = simpop("benchmark", "yesno", str(path), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        asked = len(llm.requests)
        run_id = next((tmp_path / "runs").iterdir()).name
        again = simpop("benchmark", "yesno", str(path), "--resume", run_id, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert len(llm.requests) == asked  # every answer was on disk already
    assert "left out 1 'maybe'" in result.stderr
    [run_dir] = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = {r["row"]: r for r in summary["rows"]}
    assert list(rows) == ["llm_only", "naive@-1", "naive@0.99"]
    assert rows["llm_only"] | {} == rows["llm_only"]
    assert (rows["llm_only"]["n"], rows["llm_only"]["correct"], rows["llm_only"]["accuracy"]) == (3, 1, 1 / 3)
    assert rows["llm_only"]["map"] is None
    # gold: yes, no, no; llm_only says yes to all: recall 1 on yes, 0 on no
    assert rows["llm_only"]["answers"] == {"yes": 3}
    assert rows["llm_only"]["balanced_accuracy"] == 0.5
    assert rows["llm_only"]["majority_baseline"] == 2 / 3
    assert rows["llm_only"]["one_answer"] == "yes"
    assert "warning: llm_only answers 'yes' to 3 of 3 questions" in result.stderr
    assert "one answer" in result.stdout
    # threshold -1 with a cap of 2: every question gets 2 passages; 0.99: none at all
    wide, none = rows["naive@-1"], rows["naive@0.99"]
    assert wide["mean_retrieved"] == 2.0 and none["mean_retrieved"] == 0.0
    assert none["map"] == 0.0 and none["recall"] == 0.0
    assert 0 <= wide["map"] <= 1 and 0 <= wide["mrr"] <= 1
    results = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(results) == 9
    unparsed = [r for r in results if r["decision"] is None]
    assert unparsed and all(r["answer"] == "I think yes" for r in unparsed)
    assert wide["unparsed"] + none["unparsed"] == len(unparsed)
    item1 = next(r for r in results if r["row"] == "naive@-1" and r["item_id"] == "1")
    ranked = [c["id"] for c in item1["contexts"]]
    gold = {"1_0#0", "1_1#0"}
    hits = [i for i, c in enumerate(ranked, start=1) if c in gold]
    assert item1["retrieval"]["recall"] == len(hits) / 2
    assert item1["retrieval"]["average_precision"] == pytest.approx(
        sum((n + 1) / rank for n, rank in enumerate(hits)) / 2
    )
    assert "naive@0.99" in result.stdout and "MAP" in result.stdout
