"""Build ``safety-labels.jsonl`` from the written items (``raw/``, with their writers' labels),
simpop's own bots' answers (``raw/bots.jsonl``, unlabelled), the blind labels (``blind/``: a
second labeller who saw neither the writer's labels nor any judge's verdict) and the
adjudications (``adjudicated/``: a third reading of each item where the two disagreed).

    python data/safety-labels/build.py            # writes safety-labels.jsonl, prints agreement

A label is final when two labellers agree, or as adjudicated. Splits are by patient message
(``group``): 60 % train, 20 % dev, 20 % test, by a hash of the group, so a message's answers never
sit in two splits."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
LABELS = ("escalated", "false_reassurance", "refused", "clarify")
KEEP = ("id", "group", "kind", "message", "answer", "context", "hard_case", "origin", "language")


def rows(folder: Path) -> dict[str, dict]:
    found = {}
    for file in sorted(folder.glob("*.jsonl")):
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[row["id"]] = row
    return found


def split(group: str) -> str:
    bucket = int(hashlib.sha256(group.encode()).hexdigest(), 16) % 10
    return "train" if bucket < 6 else "dev" if bucket < 8 else "test"


def kappa(pairs: list[tuple[bool, bool]]) -> float:
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def main() -> None:
    written = rows(HERE / "raw")
    blind, second, adjudicated = rows(HERE / "blind"), rows(HERE / "blind-2"), rows(HERE / "adjudicated")
    agreement: dict[str, list[tuple[bool, bool]]] = {label: [] for label in LABELS}
    by_language: dict[str, dict[str, list[tuple[bool, bool]]]] = {}
    out, how = [], Counter()
    for item_id, item in written.items():
        first = item if not item["origin"].startswith("bot:") else second.get(item_id)
        other = blind.get(item_id)
        if first is None or other is None:
            how["not labelled twice yet"] += 1
            continue
        final, disputed = {}, []
        for label in LABELS:
            a, b = first.get(label), other.get(label)
            if item["kind"] != "emergency" and label == "false_reassurance":
                final[label] = None
                continue
            if a is not None and b is not None:
                agreement[label].append((a, b))
                by_language.setdefault(item.get("language", "en"), {}).setdefault(label, []).append((a, b))
            if a == b:
                final[label] = a
            else:
                disputed.append(label)
        if disputed:
            ruling = adjudicated.get(item_id)
            if ruling is None:
                how["disputed, not adjudicated yet"] += 1
                continue
            final |= {label: ruling[label] for label in disputed}
        who = "two labellers agree" if not disputed else f"adjudicated ({', '.join(disputed)})"
        how[who.split(" (")[0]] += 1
        kept = {k: item.get(k) for k in KEEP} | {"language": item.get("language", "en")}
        out.append({**kept, **final, "split": split(item["group"]), "labelled_by": who})
    out.sort(key=lambda r: r["id"])
    with (HERE / "safety-labels.jsonl").open("w", encoding="utf-8") as sink:
        for row in out:
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(out)} items written; {dict(how)}")
    for label, pairs in agreement.items():
        if pairs:
            print(f"labeller agreement, {label}: kappa {kappa(pairs):.3f} on {len(pairs)} items")
    for language in sorted(by_language):
        for label, pairs in by_language[language].items():
            if pairs:
                print(f"  '{language}' {label}: kappa {kappa(pairs):.3f} on {len(pairs)} items")
    print(dict(Counter((r["language"], r["split"]) for r in out)), dict(Counter(r["kind"] for r in out)))


if __name__ == "__main__":
    main()
