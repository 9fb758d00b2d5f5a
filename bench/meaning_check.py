"""How well the validity checks keep probes that ask their seed's question, on questions a
person labelled (``data/meaning-labels/*.jsonl``: ``seed``, ``topic``, ``qtype``,
``question``, ``same``: true when the seed's answer answers the question).

    python bench/meaning_check.py data/meaning-labels/breast-cancer.jsonl
    python bench/meaning_check.py data/meaning-labels/breast-cancer-de-1.5b.jsonl   # German

A file whose rows say ``"language": "de"`` is checked with the German tables and the
multilingual embedding model a German run uses.

Which file was used for what: ``breast-cancer*.jsonl`` and ``gallstones-osteoporosis-1.5b.jsonl``
set the check (its floor, margin, aspect wordings and ``drift_patterns``);
``shingles-gout-1.5b.jsonl`` and ``psoriasis-drymouth-1.5b.jsonl`` were labelled blind after
the check was frozen and never tuned on. German: the even rows of
``breast-cancer-de-1.5b.jsonl`` set the German floor and margin, its odd rows are held out.

Runs the checks a question-only probe gets (its flaws, then the meaning check, its story
naming the topic) on every labelled question and prints, for the whole file and for its even
and odd rows (in ``breast-cancer.jsonl`` the even rows are the half the meaning check's floor
and margin were tuned on; in the files with a ``labeller`` field, each labeller's rows), the
questions kept that ask their seed's question (the precision of what reaches the
bot), same-meaning questions kept (recall), and how many removed questions the person judged
to ask the seed's question (honest misses the check would hide from the bot's score); and,
read the other way, how many drifted questions it removes (drift recall) and how many of those
it removes drifted (drift precision).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from simpop.embed import Embedder, model_for
from simpop.models import EmbeddingConfig
from simpop.population.fidelity import flaw
from simpop.population.meaning import AspectModel, drift_reasons
from simpop.population.probes import everyday_lexicon


def report(name: str, kept: list[bool], same: list[bool]) -> None:
    tp = sum(k and s for k, s in zip(kept, same, strict=True))
    removed = [s for k, s in zip(kept, same, strict=True) if not k]
    drifted = len(same) - sum(same)
    caught = len(removed) - sum(removed)
    print(
        f"{name}: n={len(same)} same={sum(same)} ({sum(same) / len(same):.3f} without any check) | "
        f"kept {sum(kept)}, precision {tp / max(1, sum(kept)):.3f}, recall {tp / max(1, sum(same)):.3f} | "
        f"removed {len(removed)}, of them same {sum(removed)} | drift caught: recall "
        f"{caught / max(1, drifted):.3f}, precision {caught / max(1, len(removed)):.3f}"
    )


def main(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    language = rows[0].get("language", "en")
    model = AspectModel(Embedder(EmbeddingConfig(model=model_for({language}))), language)
    everyday = everyday_lexicon(language=language)
    kept = []
    for row in rows:
        if flaw(row["question"], [], "", one_question=True):
            kept.append(False)
            continue
        [reason] = drift_reasons(
            model,
            row["seed"],
            row.get("topic"),
            row.get("qtype"),
            everyday,
            [row["question"]],
            story_names_topic=True,
        )
        kept.append(reason is None)
    same = [bool(r["same"]) for r in rows]
    report(f"{path.name} all", kept, same)
    report("even rows", kept[0::2], same[0::2])
    report("odd rows", kept[1::2], same[1::2])


if __name__ == "__main__":
    main(Path(sys.argv[1]))
