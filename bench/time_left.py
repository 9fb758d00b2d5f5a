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
measure both. ``--read LOG`` reports on a log written earlier, and recomputes every line's time
left both ways: at the stage's own recent rate, and with the stages sharing the one LLM
(``simpop.cli.shared_llm``, from the plan's seconds per stage), so an old log tests the model."""

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
FINISHED = re.compile(r"^(?P<stage>[^:]+): (?P<done>\d+)/(?P<total>\d+) done in ")
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


PLAN_STAGE = re.compile(
    r"^\s*(?P<stage>write questions|patient turns|bot answers|judges|reasons): (?P<rest>.*)$"
)
PLAN_COST = re.compile(r"LLM calls?, about (?P<amount>[\d.]+) (?P<unit>s|min|h)")
RUN_LINE = re.compile(r"^run \S+ → ")
# the progress bar of each planned stage (``simpop.run.tasks``)
BAR_STAGE = {
    "generate questions": "write questions",
    "score answers": "judges",
    "explain verdicts": "reasons",
}


def plan_seconds(lines: list[tuple[float, str]]) -> dict[str, float | None]:
    """The LLM seconds the plan printed per stage (0 for a stage without LLM calls)."""
    plan: dict[str, float | None] = {}
    for _, text in lines:
        if match := PLAN_STAGE.match(text):
            cost = PLAN_COST.search(match["rest"])
            unknown = "time unknown" in match["rest"]
            seconds = float(cost["amount"]) * UNITS[cost["unit"]] if cost else 0.0
            plan[match["stage"]] = None if unknown else seconds
    return plan


def bar_stage(label: str) -> str | None:
    return BAR_STAGE.get(label, "bot answers" if label.startswith("ask ") else None)


def ratios(seen: list[tuple[float, int, int, float | None]]) -> list[float]:
    """Time left said ÷ time the stage then took, for every line after 20 % of it."""
    finished = next((at for at, done, total, _ in seen if done == total), seen[-1][0])
    return [
        left / (finished - at)
        for at, done, total, left in seen
        if left is not None and done >= 0.2 * total and done < total and finished > at
    ]


def replayed(lines: list[tuple[float, str]], progress: dict) -> dict[str, dict[str, list]]:
    """Every stage's logged lines with the time left recomputed at its own recent rate and by
    the shared-LLM model, as the run computes them (``simpop.cli.progress``): from the lines
    where each stage advanced (its samples), over the latest third of the run's time."""
    from simpop.cli.shared_llm import RECENT, StageState, own_time_left, times_left

    def done_at(stage: str, when: float) -> tuple[float, int, int]:
        """The stage's last advance at or before ``when``: its time, done and total."""
        before, seen = (start, 0, progress[stage][0][2]), 0
        for a, d, t, _ in progress[stage]:
            if a > when:
                break
            if d != seen:
                before, seen = (a, d, t), d
        return before

    plan = plan_seconds(lines)
    start = next((at for at, text in lines if RUN_LINE.match(text)), lines[0][0])
    order = list(plan)
    chain = sorted((s for s in progress if bar_stage(s) in plan), key=lambda s: order.index(bar_stage(s)))
    out: dict[str, dict[str, list]] = {s: {"own rate": [], "shared LLM": []} for s in progress}
    for stage, seen in progress.items():
        for at, done, total, _ in seen:
            state = {}
            for other in progress:
                _, d, t = done_at(other, at)
                begin = start + (at - start) * (1 - RECENT)
                then, d_then, _ = done_at(other, begin)
                cost = plan.get(bar_stage(other) or "")
                per_item = None if cost is None else cost / max(t, 1)
                state[other] = StageState(t, d, 0, at - start, per_item, (at - max(then, begin), d - d_then))
            own = own_time_left(state[stage])
            out[stage]["own rate"].append((at, done, total, own))
            if stage in chain:  # with the stages whose bar had started (as in the run)
                started = [s for s in chain if progress[s][0][0] <= at]
                model = times_left([state[s] for s in started])[started.index(stage)]
                out[stage]["shared LLM"].append((at, done, total, model))
    return out


def show(stage: str, how: str, found: list[float]) -> None:
    if not found:
        print(f"{stage} ({how}): no line with a time left after 20 %")
        return
    worst = max(found, key=lambda r: abs(r - 1))
    inside = sum(GOAL[0] <= r <= GOAL[1] for r in found)
    print(
        f"{stage} ({how}): {len(found)} lines after 20 %, time left said ÷ taken {min(found):.2f}–"
        f"{max(found):.2f} (worst {worst:.2f}); {inside}/{len(found)} within ±30 %"
    )


def report(lines: list[tuple[float, str]], replay: bool = False) -> None:
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
        elif (match := FINISHED.match(text.strip())) and match["stage"] in progress:  # when it ended
            progress[match["stage"]].append((at, int(match["done"]), int(match["total"]), 0.0))
    for stage, seen in progress.items():
        show(stage, "as printed", ratios(seen))
    if replay:
        for stage, ways in replayed(lines, progress).items():
            for how, seen in ways.items():
                if seen:
                    show(stage, f"recomputed, {how}", ratios(seen))


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
        report(lines, replay=True)
        return
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    lines, status = stamped(command, args.log)
    report(lines)
    sys.exit(status)


if __name__ == "__main__":
    main()
