"""A whole run at the LLM's pace: how far the pipeline is from the time its LLM calls need.

A fake OpenAI-compatible server on 127.0.0.1 answers every call (probe writing and the judges)
after a fixed latency. ``simpop run`` drives a naive RAG bot over the eye knowledge base: six
personas, ``--limit 4 --variants 2``, every scenario with 2 probes, judges on,
``--concurrency 16``. Printed:

- wall seconds; LLM calls; ideal = calls x latency / concurrency; wall / ideal (goal 1.5);
- peak RSS of the run;
- an identical second run served from the cache: wall and the speed-up (goal 20 x, 3 s).

    python bench/pipeline.py [--latency 0.05] [--concurrency 16] [--limit 4] [--variants 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import reworded, with_judges

ROOT = Path(__file__).resolve().parent.parent


def variants_reply(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def run(config: Path, args: argparse.Namespace, env: dict[str, str], out: Path) -> tuple[float, int, int]:
    """Wall seconds, exit status and peak RSS (KB) of one ``simpop run``."""
    command = [sys.executable, "-m", "simpop", "run", str(config), "--limit", str(args.limit)]
    command += ["--variants", str(args.variants), "--probes", "2", "--concurrency", str(args.concurrency)]
    command += ["--out", str(out)]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, stderr = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0:
        print(stderr[-2000:], file=sys.stderr)
    return wall, process.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--limit", type=int, default=4)
    parser.add_argument("--variants", type=int, default=2)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        FakeOpenAIServer(default=with_judges(variants_reply), latency=args.latency) as server,
    ):
        work = Path(folder)
        config = work / "run.yaml"
        config.write_text(
            "name: pipeline\n"
            "target:\n  kind: naive_rag\n"
            f"  knowledge_base: {{path: {ROOT / 'data/medquad-eye/kb'}}}\n"
            f"seeds: {ROOT / 'data/medquad-eye/qaps.jsonl'}\n"
            f"personas: {ROOT / 'personas'}\nscenario_dir: {ROOT / 'scenarios'}\n"
            f"domain: {ROOT / 'targets/eye-domain.yaml'}\n"
            f"llm: {{base_url: '{server.base_url}', model: fake}}\n"
        )
        env = {**os.environ, "SIMPOP_CACHE_DIR": str(work / "cache")}
        wall, status, rss = run(config, args, env, work / "runs")
        calls = len(server.requests)
        ideal = calls * args.latency / args.concurrency
        print(f"first run: exit {status}, {wall:.1f} s wall, {calls} LLM calls, ideal {ideal:.1f} s")
        print(f"  wall / ideal {wall / ideal:.1f} (goal 1.5); peak RSS {rss / 1024:.0f} MB")
        again, status, _ = run(config, args, env, work / "runs")
        print(
            f"cached re-run: exit {status}, {again:.1f} s wall, {len(server.requests) - calls} LLM calls, "
            f"{wall / again:.1f} x faster (goal 20 x and 3 s)"
        )


if __name__ == "__main__":
    main()
