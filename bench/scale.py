"""Memory and time of a run as it grows: 1k, 10k and 100k cells.

A fake OpenAI-compatible server on 127.0.0.1 writes the patients' messages and serves the
embeddings (bag of words); a fake HTTP bot on 127.0.0.1 answers every question. The seeds are
``N`` synthetic QAPs, rephrased by the built-in personas ``--variants`` times each, no
scenarios, judges off. Each size runs in a child of its own (its own peak RSS); a first run
of one seed, not shown, builds the word tables as the first run on a machine does. Printed per
size: the cells planned, wall seconds, peak RSS of ``simpop run`` and RSS per cell (goal: 100k
cells within 500 MB).

    python bench/scale.py [--cells 1000 10000 100000] [--variants 6] [--concurrency 64] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.http_bot import BotReply, HTTPBotServer
from simpop.testing.patients import reworded

ROOT = Path(__file__).resolve().parent.parent
PERSONAS = len(list((ROOT / "personas").glob("*.yaml")))
CONDITIONS = ("glaucoma", "cataract", "dry eye", "macular degeneration", "a detached retina", "pink eye")
ASPECTS = ("the symptoms of", "the treatments for", "the causes of", "the risk factors for")


def qaps(n: int) -> list[dict]:
    """``n`` distinct question-answer pairs about eye conditions."""
    rows = []
    for i in range(n):
        condition, aspect = CONDITIONS[i % len(CONDITIONS)], ASPECTS[(i // len(CONDITIONS)) % len(ASPECTS)]
        question = f"What are {aspect} {condition} in case {i}?"
        answer = f"The usual {aspect.split()[1]} of {condition} are described in leaflet {i}."
        rows.append({"id": f"q{i}", "question": question, "answer": answer})
    return rows


def answer(body: object) -> BotReply:
    question = body.get("question", "") if isinstance(body, dict) else ""
    return BotReply({"answer": f"About your question ({question[:40]}): see your eye doctor."})


def patients(request: dict) -> Reply:
    return Reply(json.dumps({"questions": reworded(request)}))


def run_once(
    cells: int, args: argparse.Namespace, work: Path, llm: str, bot: str
) -> tuple[int, float, int, int]:
    """Cells planned, wall seconds, exit status and the peak RSS (KB) of one run of at least
    ``cells`` cells."""
    n = math.ceil(cells / (PERSONAS * args.variants))
    seeds = work / f"qaps-{n}.jsonl"
    seeds.write_text("".join(json.dumps(row) + "\n" for row in qaps(n)))
    config = work / f"scale-{cells}.yaml"
    config.write_text(
        f"name: scale-{cells}\n"
        f"target: {{kind: http, url: '{bot}'}}\n"
        f"seeds: {seeds}\npersonas: {ROOT / 'personas'}\nscenario_dir: {ROOT / 'scenarios'}\n"
        f"domain: {ROOT / 'targets/eye-domain.yaml'}\n"
        "scenarios: []\n"
        f"variants: {args.variants}\n"
        f"llm: {{base_url: '{llm}', model: fake, concurrency: {args.concurrency}}}\n"
        f"embedding: {{base_url: '{llm}', model: fake}}\n"
    )
    command = [sys.executable, "-m", "simpop", "run", str(config), "--no-judge", "--out", str(work / "runs")]
    env = {**os.environ, "SIMPOP_CACHE_DIR": str(work / "cache")}
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    errors = child.stderr.read()  # read while it runs: a full pipe would stall it
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak RSS, in KB
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode != 0:
        print(errors.decode(errors="replace")[-2000:], file=sys.stderr)
    return n * PERSONAS * args.variants, wall, child.returncode, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--variants", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--keep", type=Path, help="write the runs and configs here and keep them")
    args = parser.parse_args()
    with (
        nullcontext(str(args.keep)) if args.keep else tempfile.TemporaryDirectory() as folder,
        FakeOpenAIServer(default=patients) as llm,
        HTTPBotServer(answer) as bot,
    ):
        # the word tables are built the first time on a machine (hundreds of MB, once): not
        # what a run of N cells costs
        run_once(PERSONAS * args.variants, args, Path(folder), llm.base_url, bot.url)
        print(f"{'cells':>8} {'wall s':>8} {'cells/s':>8} {'peak RSS MB':>12} {'KB/cell':>8}")
        for cells in sorted(args.cells):
            cells, wall, status, rss = run_once(cells, args, Path(folder), llm.base_url, bot.url)
            llm.requests.clear(), llm.arrivals.clear(), llm.embedding_requests.clear(), bot.requests.clear()
            note = "" if status == 0 else f"  (exit {status})"
            print(
                f"{cells:>8} {wall:>8.1f} {cells / wall:>8.0f} {rss / 1024:>12.0f} {rss / cells:>8.1f}{note}"
            )


if __name__ == "__main__":
    main()
