"""A whole run at the LLM's pace: how far the pipeline is from the time its LLM calls need.

A fake OpenAI-compatible server on 127.0.0.1 answers every call (probe writing and the judges)
after a fixed latency. ``simpop run`` drives a naive RAG bot over the eye knowledge base: six
personas, ``--limit 4 --variants 2``, every scenario with 2 probes, judges on,
``--concurrency 16``. Printed:

- wall seconds; LLM calls; ideal = calls x latency / concurrency; wall / ideal (goal 1.5);
- peak RSS of the run;
- an identical second run served from the cache: wall, LLM calls (goal 0) and the speed-up (goal
  20 x, 3 s), and whether its records are the first run's (run id and bot latency aside).

``--study`` runs the full study's config instead (``targets/eye-qap.yaml --variants 3 --limit
10``: the predefined-QAP bot, seven personas, every scenario with 3 probes, 420 cells) at the
fake LLM, so its cached re-run is measured without hours of the real LLM first.

Run it twice: identical runs make identical numbers of calls (identical requests in flight are
asked once). ``--checkout PATH`` measures another source tree (an older commit) the same way.

    python bench/pipeline.py [--latency 0.05] [--concurrency 16] [--limit 4] [--variants 2] [--study]
                             [--again 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from simpop.models import EmbeddingConfig
from simpop.run.generate import load_tables
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import judge_request, reworded, with_judges

ROOT = Path(__file__).resolve().parent.parent


def variants_reply(request: dict) -> Reply:
    """Probe writing gets reworded seed questions; the naive RAG bot's free-text call an answer."""
    if "response_format" not in request:
        return Reply("Glaucoma damages the optic nerve. See your eye doctor soon.")
    return Reply(json.dumps({"questions": reworded(request)}))


def run(
    config: Path, args: argparse.Namespace, env: dict[str, str], out: Path, label: str
) -> tuple[float, int, int]:
    """Wall seconds, exit status and peak RSS (KB) of one ``simpop run``."""
    profile = ["-m", "cProfile", "-o", f"{args.profile}.{label}"] if args.profile else []
    entry = os.environ.get("BENCH_ENTRY", "").split() or ["-m", "simpop"]
    command = [sys.executable, *profile, *entry, "run", str(config), "--limit", str(args.limit)]
    command += ["--variants", str(args.variants), "--probes", str(args.probes)]
    command += ["--concurrency", str(args.concurrency)]
    command += ["--out", str(out)]
    start = time.perf_counter()
    global STARTED
    STARTED = time.monotonic()
    if args.checkout:
        env = {**env, "PYTHONPATH": str(args.checkout)}
    process = subprocess.Popen(
        command, cwd=args.checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    _, stderr = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0 or os.environ.get("BENCH_ENTRY"):
        print(stderr[-6000:], file=sys.stderr)
    return wall, process.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


STARTED = 0.0
RECORD_FILES = ("probes.jsonl", "responses.jsonl", "scores.jsonl")
VOLATILE = {"run_id", "latency_s"}


def records(path: Path) -> list[dict]:
    """A run's records without what differs between identical runs (its id, the bot's latency)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return sorted(
        (json.dumps({k: v for k, v in r.items() if k not in VOLATILE}, sort_keys=True) for r in rows)
    )


def kind(request: dict) -> str:
    if request.get("logprobs") or judge_request(request):
        return "judge"
    return "bot" if "response_format" not in request else "patient"


def print_timeline(requests: list[dict], arrivals: list[float], wall: float) -> None:
    """When the first and the last request of each kind reached the server, from the start."""
    seen: dict[str, list[float]] = {}
    for request, at in zip(requests, arrivals, strict=True):
        seen.setdefault(kind(request), []).append(at - STARTED)
    for name, times in seen.items():
        print(f"  {name:8} {len(times):5} calls, first at {min(times):5.1f} s, last at {max(times):5.1f} s")
    print(f"  process ends at {wall:.1f} s")


def cached_vectors(cache: Path) -> int:
    if not (cache / "embeddings.sqlite").exists():
        return 0
    with sqlite3.connect(cache / "embeddings.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]


def index_knowledge_base(embedding: EmbeddingConfig) -> None:
    """Embed and index the knowledge base the way the bot will (once per knowledge base and
    embedding model, not per run)."""
    from simpop.embed import Embedder
    from simpop.models import KnowledgeBaseConfig, RetrievalConfig
    from simpop.targets.retriever import Retriever

    embedder = Embedder(embedding)
    Retriever(KnowledgeBaseConfig(path=ROOT / "data/medquad-eye/kb"), RetrievalConfig(), embedder)
    embedder.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--limit", type=int, default=4)
    parser.add_argument("--variants", type=int, default=2)
    parser.add_argument("--probes", type=int, default=2)
    parser.add_argument("--again", type=int, default=1, help="cached re-runs (the median is printed)")
    parser.add_argument("--study", action="store_true", help="the full study's QAP config (420 cells)")
    parser.add_argument(
        "--served-embeddings", action="store_true", help="embeddings from the fake server too (bag of words)"
    )
    parser.add_argument("--checkout", help="run the simpop source tree at this path (to compare versions)")
    parser.add_argument("--profile", help="write each run's cProfile statistics to PROFILE.first and .again")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE if the shell sets it (every module compiled at every start)",
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        FakeOpenAIServer(default=with_judges(variants_reply), latency=args.latency) as server,
    ):
        work = Path(folder)
        config = work / "run.yaml"
        if args.study:  # the study's own bot: targets/eye-qap.yaml's target, its QAPs' path made absolute
            args.limit, args.variants, args.probes = 10, 3, 3
            study = yaml.safe_load((ROOT / "targets/eye-qap.yaml").read_text(encoding="utf-8"))["target"]
            study["qaps"] = str((ROOT / "targets" / study["qaps"]).resolve())
            target = f"target: {json.dumps(study)}\nscenarios: all\n"
        else:
            target = (
                "target:\n  kind: naive_rag\n"
                f"  knowledge_base: {{path: {ROOT / 'data/medquad-eye/kb'}}}\n"
                f"seeds: {ROOT / 'data/medquad-eye/qaps.jsonl'}\n"
            )
        config.write_text(
            "name: pipeline\n"
            + target
            + f"personas: {ROOT / 'personas'}\nscenario_dir: {ROOT / 'scenarios'}\n"
            f"domain: {ROOT / 'targets/eye-domain.yaml'}\n"
            f"llm: {{base_url: '{server.base_url}', model: fake}}\n"
            + (
                f"embedding: {{base_url: '{server.base_url}', model: fake}}\n"
                if args.served_embeddings
                else ""
            )
        )
        embedding = (
            EmbeddingConfig(base_url=server.base_url, model="fake")
            if args.served_embeddings
            else EmbeddingConfig()
        )
        env = {**os.environ, "SIMPOP_CACHE_DIR": str(work / "cache")}
        os.environ["SIMPOP_CACHE_DIR"] = env["SIMPOP_CACHE_DIR"]
        if not args.no_bytecode_cache:
            # Python's default, as on a user's machine: each module compiled once, kept in
            # __pycache__ (a shell with PYTHONDONTWRITEBYTECODE compiles every module at every start)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"bytecode cache: {'off' if env.get('PYTHONDONTWRITEBYTECODE') else 'on'}")
        start = time.perf_counter()
        if not args.study:
            index_knowledge_base(embedding)
        load_tables({"en"})
        print(
            "knowledge base indexed and word tables built beforehand (once per machine, not per run): "
            f"{time.perf_counter() - start:.1f} s"
        )
        vectors_before = cached_vectors(work / "cache")
        wall, status, rss = run(config, args, env, work / "runs", "first")
        calls = len(server.requests)
        ideal = calls * args.latency / args.concurrency
        print_timeline(server.requests, server.arrivals, wall)
        print(f"  {cached_vectors(work / 'cache') - vectors_before} texts embedded")
        print(f"first run: exit {status}, {wall:.1f} s wall, {calls} LLM calls, ideal {ideal:.1f} s")
        print(f"  wall / ideal {wall / ideal:.1f} (goal 1.5); peak RSS {rss / 1024:.0f} MB")
        times = []
        for n in range(args.again):
            again, status, _ = run(config, args, env, work / "runs", f"again{n or ''}")
            times.append(again)
        if os.environ.get("BENCH_SHOW_UNCACHED"):
            for request in server.requests[calls:]:
                print(json.dumps(request)[:600])
        again = statistics.median(times)
        each = ", ".join(f"{t:.2f}" for t in times)
        print(
            f"cached re-run: exit {status}, {again:.2f} s wall (median of {each}), "
            f"{len(server.requests) - calls} LLM calls, {wall / again:.1f} x faster (goal 20 x and 3 s)"
        )
        first_run, second_run = sorted((work / "runs").iterdir())[:2]
        same = [name for name in RECORD_FILES if records(first_run / name) == records(second_run / name)]
        listed = ", ".join(same)
        print(f"  records identical to the first run's: {len(same)} of {len(RECORD_FILES)} files ({listed})")


if __name__ == "__main__":
    main()
