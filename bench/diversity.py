"""Diversity and validity of generated question variants, re-checked with today's fidelity
checks so runs made with older code compare fairly.

    python bench/diversity.py runs/<run-id> [runs/<other-run-id> ...]

Per persona and in total: planned probes, generated questions, valid share (generated, meaning
kept, not a near-duplicate, over planned), duplicate share and distinct-question ratio.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from simpop.config import load_qaps
from simpop.embed import Embedder
from simpop.population.fidelity import check_group, distinct_ratio

MIN_SIMILARITY = 0.6


def figures(run: Path, embedder: Embedder) -> dict[str, dict[str, float]]:
    config = json.loads((run / "config.json").read_text())
    seeds_path = config.get("seeds") or config["target"]["qaps"]
    questions = {q.id: q.question for q in load_qaps(Path(seeds_path))}
    probes = [json.loads(line) for line in (run / "probes.jsonl").open()]
    probes = [p for p in probes if p.get("scenario_id", "qap-variant") == "qap-variant"]
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for p in probes:
        groups[(p["persona_id"], p["seed_id"])].append(p)
    rows: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for (persona, seed), members in groups.items():
        members.sort(key=lambda p: p["variant"])
        texts = [p["text"] for p in members]
        checks = check_group(texts, questions[seed], embedder, MIN_SIMILARITY)
        for key in (persona, "total"):
            rows[key]["planned"].append(len(members))
            rows[key]["texts"].extend(t for t in texts if t)
            rows[key]["valid"].extend(c is not None and c.valid and c.duplicate_of is None for c in checks)
            rows[key]["duplicate"].extend(c.duplicate_of is not None for c in checks if c is not None)
    result = {}
    for key, row in rows.items():
        planned = sum(row["planned"])
        result[key] = {
            "planned": planned,
            "generated": len(row["texts"]),
            "valid_share": sum(row["valid"]) / planned,
            "duplicate_share": sum(row["duplicate"]) / max(1, len(row["duplicate"])),
            # distinct across each persona's questions; the total weighs personas by questions
            "distinct_ratio": distinct_ratio(row["texts"]) or 0.0,
        }
    personas = [k for k in result if k != "total"]
    generated = sum(result[k]["generated"] for k in personas)
    result["total"]["distinct_ratio"] = (
        sum(result[k]["distinct_ratio"] * result[k]["generated"] for k in personas) / generated
    )
    return dict(sorted(result.items(), key=lambda item: item[0] == "total"))


def main() -> None:
    embedder = Embedder()
    for arg in sys.argv[1:]:
        run = Path(arg)
        print(f"\n{run}")
        print(f"{'persona':24} {'planned':>7} {'generated':>9} {'valid':>6} {'dupl.':>6} {'distinct':>8}")
        for key, row in figures(run, embedder).items():
            print(
                f"{key:24} {row['planned']:7d} {row['generated']:9d} {row['valid_share']:6.3f} "
                f"{row['duplicate_share']:6.3f} {row['distinct_ratio']:8.3f}"
            )


if __name__ == "__main__":
    main()
