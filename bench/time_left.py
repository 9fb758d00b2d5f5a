"""How honest a run's times are (issue 45 part 7): the plan's estimate and the progress lines'
time left, each against what it actually took.

    python bench/time_left.py [--log FILE] -- simpop run targets/eye-first.yaml

runs the command with plain progress lines (stderr is not a terminal), stamps every line it
prints with the seconds since the start (and writes them to ``--log``), and prints:

- the plan's "in all: about …" against the run's wall time (ratio estimate ÷ actual);
- per stage, for every progress line once ≥ 20 % of the stage was done, the time left it said
  against the time the stage then really took to finish (ratio said ÷ actual; the goal is every
  ratio within 0.7–1.3), with the worst one.

Run it quiet, then beside a busy process (``python bench/busy.py`` in another shell) to
measure both."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

LINE = re.compile(
    r"^(?P<stage>[^:]+): (?P<done>\d+)/(?P<total>\d+) \((?P<share>\d+)%\), [^,]+, (?P<left>.+) left$"
)
PLAN = re.compile(r"in all: about (?P<amount>[\d.]+) (?P<unit>s|min|h) of LLM time")
UNITS = {"s": 1, "min": 60, "h": 3600}
GOAL = (0.7, 1.3)


def seconds(text: str) -> float | None:
    """``1h 02m``, ``9m 40s``, ``12s`` (the progress lines' format); None for ``–``."""
    parts = re.findall(r"(\d+)([hms])", text)
    return sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts) if parts else None


def stamped(command: list[str], log: Path | None) -> tuple[list[tuple[float, str]], int]:
    """Every line of stderr and stdout with its second since the start, and the exit status."""
    start = time.monotonic()
    process = subprocess.Popen(command, stderr=subprocess.STDOUT, stdout=subprocess.PIPE, text=True)
    lines = []
    with open(log, "w", encoding="utf-8") if log else open("/dev/null", "w") as out:
        for raw in process.stdout:
            at = time.monotonic() - start
            lines.append((at, raw.rstrip("\n")))
            out.write(f"{at:9.1f} {raw}")
            out.flush()
    return lines, process.wait()


def report(lines: list[tuple[float, str]]) -> None:
    wall = lines[-1][0] if lines else 0.0
    plan = next((PLAN.search(text) for _, text in lines if PLAN.search(text)), None)
    if plan:
        said = float(plan["amount"]) * UNITS[plan["unit"]]
        print(f"plan: about {said / 60:.1f} min; the run took {wall / 60:.1f} min; ratio {said / wall:.2f}")
    else:
        print(f"plan: no estimate printed; the run took {wall / 60:.1f} min")
    progress: dict[str, list[tuple[float, int, int, float | None]]] = {}
    for at, text in lines:
        if match := LINE.match(text.strip()):
            done, total = int(match["done"]), int(match["total"])
            progress.setdefault(match["stage"], []).append((at, done, total, seconds(match["left"])))
    for stage, seen in progress.items():
        finished = next((at for at, done, total, _ in seen if done == total), seen[-1][0])
        ratios = [
            left / (finished - at)
            for at, done, total, left in seen
            if left is not None and done >= 0.2 * total and done < total and finished > at
        ]
        if not ratios:
            print(f"{stage}: no line with a time left after 20 %")
            continue
        worst = max(ratios, key=lambda r: abs(r - 1))
        inside = sum(GOAL[0] <= r <= GOAL[1] for r in ratios)
        print(
            f"{stage}: {len(ratios)} lines after 20 %, time left said ÷ taken {min(ratios):.2f}–"
            f"{max(ratios):.2f} (worst {worst:.2f}); {inside}/{len(ratios)} within ±30 %"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, help="write the stamped lines here")
    parser.add_argument("--read", type=Path, help="a log written by --log earlier, instead of a command")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.read:
        lines = [
            (float(a), b)
            for a, _, b in (line.strip(" ").partition(" ") for line in args.read.read_text().splitlines())
        ]
        report(lines)
        return
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    lines, status = stamped(command, args.log)
    report(lines)
    sys.exit(status)


if __name__ == "__main__":
    main()
