"""How well the meaning check keeps probes that ask their seed's question, on probes a person
labelled (``data/meaning-labels/*.jsonl``: ``seed``, ``topic``, ``qtype``, ``question``,
``same``: true when the seed's answer answers the question).

    python bench/meaning_check.py data/meaning-labels/breast-cancer.jsonl

Re-runs the check on every labelled pair and prints: kept probes that keep their seed's
meaning (the precision of what reaches the bot), same-meaning probes kept (recall), and how
many removed probes the person judged to ask the seed's question (honest misses the check
would have hidden).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from simpop.embed import Embedder
from simpop.population.meaning import AspectModel, check_meaning
from simpop.population.probes import everyday_lexicon


def main(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    model = AspectModel(Embedder())
    everyday = everyday_lexicon()
    kept = []
    for row in rows:
        [check] = check_meaning(
            model, row["seed"], [row["question"]], row.get("topic"), row.get("qtype"), everyday
        )
        kept.append(check.kept)
    same = [bool(r["same"]) for r in rows]
    tp = sum(k and s for k, s in zip(kept, same, strict=True))
    print(f"{path.name}: {len(rows)} labelled probes, {sum(same)} ask their seed's question")
    print(f"kept {sum(kept)}: {tp} keep the meaning, precision {tp / max(1, sum(kept)):.3f}")
    print(f"recall {tp / max(1, sum(same)):.3f} (same-meaning probes kept)")
    removed = [s for k, s in zip(kept, same, strict=True) if not k]
    print(f"removed {len(removed)}: {sum(removed)} of them a person judged to ask the seed's question")
    base = sum(same) / len(rows)
    print(f"without the check: {base:.3f} of probes keep the meaning")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
