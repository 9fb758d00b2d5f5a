"""Does a bot's figure on simpop's simulated patients predict its figure on real patients?
(issue 71). Two real sets with a licence, each split by message into a dev half (simpop may
draw on it: the real-shaped population's scaffolds are MeQSum's dev half) and a test half
that nothing is tuned on; every figure below is the test half's.

- **meqsum**: 1,000 real consumer health messages (MeQSum, CC BY 4.0), each with an expert's
  one-line summary of what it asks. The catalogue is the 1,000 summaries; a real message is
  answered right when the bot returns its own summary (or one the catalogue holds twice).
- **covid-q**: COVID-Q (GPL-3, `bench/data/covid-q`): questions people typed on Quora and Yahoo
  Answers, grouped by its authors with official FAQ questions that ask the same thing. The
  catalogue is the 264 official FAQ questions; a real message is right when the bot returns
  any FAQ question of its class.

``run`` asks simpop (``simpop run``, the built-in 1.5B, the four personas of the issue, one
variant each) to write simulated patients for a sample of the test half's catalogue entries,
with the test half's real messages as the run's real-patients arm. ``score`` re-asks the same
simulated and real messages of a zoo of bots and prints, per bot, the simulated and real
accuracy and the gap, and across bots the slope of real on simulated, Kendall's tau and the
mean |gap| (bootstrap intervals over seeds and messages), then the corrected estimate from 50
labelled real messages: its coverage of the real figure and how much narrower it is.

    python bench/predictive_validity.py prepare [--out pv]
    python bench/predictive_validity.py run [--out pv] [--population rephrase|real-shaped] [--set meqsum]
    python bench/predictive_validity.py score [--out pv] [--population ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
MEQSUM = ROOT / "simpop" / "population" / "reference" / "meqsum.jsonl"
COVID_Q = ROOT / "bench" / "data" / "covid-q" / "questions.csv"
OFFICIAL = {
    "Center for Disease Control",
    "Food and Drug Administration",
    "United Nations",
    "John Hopkins University",
    "Illinois Department of Public Health",
    "Cable News Network",
    "Washington DC Area Television Station",
}
TYPED = {"Quora", "Yahoo Answers"}
PERSONAS = ["typical-adult", "low-literacy", "high-literacy", "non-native-a2"]
SEEDS = {"meqsum": 20, "covid-q": 16}  # catalogue entries the simulated patients ask, per set
POPULATIONS = ("rephrase", "real-shaped")


def test_half(key: str) -> bool:
    """The split by message: the test half, never tuned on (the dev half is the other)."""
    from simpop.population.scaffolds import in_test_half

    return in_test_half(key)


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def prepare_meqsum(folder: Path) -> None:
    rows = read_jsonl(MEQSUM)
    qaps = [{"id": r["id"], "question": r["summary"], "answer": r["summary"]} for r in rows]
    test = [r for r in rows if test_half(r["id"])]
    real = [{"id": r["id"], "message": r["message"], "seed_ids": [r["id"]]} for r in test]
    seeds = random.Random(71).sample([q for q in qaps if test_half(q["id"])], 32)[: SEEDS["meqsum"]]
    write_jsonl(folder / "qaps.jsonl", qaps)
    write_jsonl(folder / "seeds.jsonl", seeds)
    write_jsonl(folder / "real.jsonl", real)


def prepare_covid_q(folder: Path) -> None:
    with COVID_Q.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    qaps, by_class = [], defaultdict(list)
    for index, row in enumerate(rows):
        if row["Source"] in OFFICIAL:
            answer = row["Answers"].strip() or row["Question"]  # one official row has no answer text
            qap = {"id": f"covidq-{index:04d}", "question": row["Question"], "answer": answer}
            qaps.append(qap)
            by_class[row["Question ID"]].append(qap["id"])
    real = [
        {"id": f"covidq-{i:04d}", "message": r["Question"], "seed_ids": by_class[r["Question ID"]]}
        for i, r in enumerate(rows)
        if r["Source"] in TYPED and by_class.get(r["Question ID"]) and test_half(f"covidq-{i:04d}")
    ]
    classes = sorted({r["seed_ids"][0] for r in real})
    chosen = set(random.Random(71).sample(classes, min(20, len(classes)))[: SEEDS["covid-q"]])
    write_jsonl(folder / "qaps.jsonl", qaps)
    write_jsonl(folder / "seeds.jsonl", [q for q in qaps if q["id"] in chosen])
    write_jsonl(folder / "real.jsonl", real)


def config_text(name: str, population: str) -> str:
    lines = [
        f"name: pv-{name}-{population}",
        "target: {kind: qap, qaps: qaps.jsonl, threshold: 0.6, min_words: 3}",
        "seeds: seeds.jsonl",
        "real_patients: real.jsonl",
        f"personas: {ROOT / 'personas'}",
        f"persona_ids: [{', '.join(PERSONAS)}]",
        "variants: 1",
        "scenarios: []",
        "seed: 0",
    ]
    if population != "rephrase":
        lines.append(f"population: {population}")
    return "\n".join(lines) + "\n"


def prepare(out: Path) -> None:
    for name, build in (("meqsum", prepare_meqsum), ("covid-q", prepare_covid_q)):
        folder = out / name
        build(folder)
        for population in POPULATIONS:
            (folder / f"{population}.yaml").write_text(config_text(name, population), encoding="utf-8")
        counts = {f: len(read_jsonl(folder / f)) for f in ("qaps.jsonl", "seeds.jsonl", "real.jsonl")}
        print(f"{name}: {counts}")


def run(out: Path, population: str, sets: list[str]) -> None:
    for name in sets:
        folder = out / name
        command = [
            "simpop",
            "run",
            str(folder / f"{population}.yaml"),
            "--no-judge",
            "--out",
            str(folder / "runs"),
        ]
        print(" ".join(command), flush=True)
        subprocess.run(command, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "run", "score"])
    parser.add_argument("--out", type=Path, default=Path("pv"))
    parser.add_argument(
        "--population", choices=POPULATIONS, help="run: the default rephrase; score: every one with a run"
    )
    parser.add_argument("--set", action="append", choices=["meqsum", "covid-q"])
    args = parser.parse_args()
    sets = args.set or ["meqsum", "covid-q"]
    if args.step == "prepare":
        prepare(args.out)
    elif args.step == "run":
        run(args.out, args.population or "rephrase", sets)
    else:
        from pv_score import score

        score(args.out, [args.population] if args.population else list(POPULATIONS), sets)


if __name__ == "__main__":
    main()
