"""LLM calls and seconds per conversation turn, on the built-in model (issue 22).

Runs ``simpop run targets/eye-naive-rag.yaml`` with conversations only (no variants, no
scenarios) and the LLM cache off, so every call is made: the simulated patient writes each
message (one call, two for a flagged message), the naive RAG bot condenses the history into a
retrieval query (from the second turn) and answers, and the judges score every bot turn (off
with ``--no-judge``). Printed: conversations, turns, LLM calls per turn and wall seconds per
turn, quiet and, with ``--busy N``, beside N processes spinning on the CPU.

    python bench/conversation.py [--cases emergency-revealed-late,relative-downplays]
        [--personas typical-adult] [--no-judge] [--busy 1] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from busy import busy

ROOT = Path(__file__).resolve().parent.parent


def one_run(args: argparse.Namespace, out: Path) -> tuple[int, int, int, float]:
    """Conversations, turns, LLM calls and wall seconds of one uncached conversation run."""
    command = [
        sys.executable, "-m", "simpop", "run", "targets/eye-naive-rag.yaml",
        "--variants", "0", "--scenarios", "none", "--conversations", args.cases,
        "--personas", args.personas, "--no-cache", "--out", str(out),
    ]  # fmt: skip
    if args.no_judge:
        command.append("--no-judge")
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    [run] = out.iterdir()
    summary = json.loads((run / "summary.json").read_text())
    conversations = [json.loads(line) for line in (run / "conversations.jsonl").read_text().splitlines()]
    turns = sum(len(c["turns"]) for c in conversations)
    calls = summary["llm"]["requests"] + ((summary.get("judge") or {}).get("llm") or {}).get("requests", 0)
    return len(conversations), turns, calls, seconds


def report(label: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(args.keep) / label.replace(" ", "-") if args.keep else Path(folder)
        conversations, turns, calls, seconds = one_run(args, out)
    print(
        f"{label}: {conversations} conversations, {turns} turns, {calls} LLM calls "
        f"({calls / turns:.1f} per turn), {seconds:.0f} s ({seconds / turns:.1f} s per turn, "
        "start-up included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="emergency-revealed-late,relative-downplays")
    parser.add_argument("--personas", default="typical-adult")
    parser.add_argument("--no-judge", action="store_true")
    parser.add_argument("--busy", type=int, default=0, help="also run beside N busy processes")
    parser.add_argument("--keep", help="keep the runs in this folder (a new one)")
    args = parser.parse_args()
    report("quiet", args)
    if args.busy:
        with busy(args.busy):
            report(f"beside {args.busy} busy processes", args)


if __name__ == "__main__":
    main()
