"""A logged run's plan again, with today's cost per call (issue 45 part 7): the calls its plan
printed, each at today's ``wall_per_call`` from the pace the run started with.

    python bench/replan.py LOG --speed END_PACE [--kinds START_PACE] --out NEW_LOG -- simpop run ARGS

``LOG`` is a ``bench/time_left.py --log`` file; ``END_PACE`` the ``llm-pace.json`` the run left
(its reading and writing speed were timed at its start); ``START_PACE`` the one it started with
(its kinds of call; none: an empty cache). ``ARGS`` are the run's own, for a ``--dry-run`` of
today's code. It prints the plan then and now against the run's wall time, and writes the log
with the plan's lines replaced, for ``python bench/time_left.py --read NEW_LOG``."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# a plan's stage line, after the second a logged line was stamped with (none in a dry run's output)
STAGE = re.compile(
    r"^(\s*(?:[\d.]+\s+)?)(write questions|judges|reasons): "
    r"about ([\d,]+) LLM calls?, about ([\d.]+) (s|min|h)(.*)$"
)
UNITS = {"s": 1, "min": 60, "h": 3600}
# a dry run whose durations print in exact minutes
EXACT = (
    "import sys, simpop.run.estimate as e; e.duration = lambda s: f'{s / 60:.4f} min'; "
    "from simpop.__main__ import main; sys.argv[0] = 'simpop'; main()"
)


def planned(args: list[str], pace: dict) -> dict[str, tuple[float, float]]:
    """Today's calls and seconds per stage for ``args`` at ``pace``."""
    with tempfile.TemporaryDirectory() as cache:
        Path(cache, "llm-pace.json").write_text(json.dumps(pace), encoding="utf-8")
        env = {**os.environ, "SIMPOP_CACHE_DIR": cache}
        command = [sys.executable, "-c", EXACT, *args, "--dry-run"]
        dry = subprocess.run(command, env=env, capture_output=True, text=True)
    stages = {}
    for line in dry.stdout.splitlines():
        if match := STAGE.match(line):
            stages[match[2]] = (float(match[3].replace(",", "")), float(match[4]) * UNITS[match[5]])
    if not stages:
        sys.exit(f"the dry run printed no stage: {dry.stderr.strip()[-500:]}")
    return stages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--speed", type=Path, required=True, help="the llm-pace.json the run left")
    parser.add_argument("--kinds", type=Path, help="the llm-pace.json the run started with")
    parser.add_argument("--out", type=Path, required=True, help="the log with today's plan")
    parser.add_argument(
        "--todays-calls", action="store_true", help="today's count of calls too (else the count printed then)"
    )
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    options, command = parser.parse_args(argv[:split]), argv[split + 1 :]
    if command[:2] != ["simpop", "run"]:
        sys.exit("the command must be the run's own: -- simpop run ARGS")
    end = json.loads(options.speed.read_text(encoding="utf-8"))
    start = json.loads(options.kinds.read_text(encoding="utf-8")) if options.kinds else {}
    pace = {key: {**value, "kinds": start.get(key, {}).get("kinds", {})} for key, value in end.items()}
    today = planned(command[1:], pace)  # run ARGS
    lines = options.log.read_text(encoding="utf-8").splitlines()
    then = now = 0.0
    out = []
    for line in lines:
        if (match := STAGE.match(line)) and match[2] in today:
            calls, seconds = today[match[2]]
            if not options.todays_calls:  # the calls printed then, each at today's cost
                printed = float(match[3].replace(",", ""))
                calls, seconds = printed, seconds * printed / calls
            then += float(match[4]) * UNITS[match[5]]
            now += seconds
            line = (
                f"{match[1]}{match[2]}: about {calls:,.0f} LLM calls, about {seconds / 60:.1f} min{match[6]}"
            )
        if "in all: about" in line:
            line = re.sub(r"about [\d.]+ (s|min|h) of", f"about {now / 60:.1f} min of", line)
        out.append(line)
    options.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    wall = float(lines[-1].split()[0])
    print(
        f"{options.log}: the run took {wall / 60:.1f} min; its plan said {then / 60:.1f} "
        f"(ratio {then / wall:.2f}); today's cost per call says {now / 60:.1f} (ratio {now / wall:.2f})"
    )


if __name__ == "__main__":
    main()
