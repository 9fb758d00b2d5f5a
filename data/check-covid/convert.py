"""Rebuild ``pairs.csv`` (claim / evidence / label) from the Check-COVID dataset.

    python data/check-covid/convert.py CHECK_COVID_DIR [OUT_CSV]

``CHECK_COVID_DIR`` is a checkout of https://github.com/posuer/Check-COVID (commit
3ae70f8cac4df13a3ce56878e20d8e76790e422d) or its ``Check-COVID/`` folder; the script reads
``Check-COVID_all.json`` (all 1,504 labelled claims, one JSON object a line) and ``corpus.json``
(the 347 abstracts, each a list of sentences). ``OUT_CSV`` defaults to ``pairs.csv`` beside
this script. Standard library only.

One row per upstream claim: ``evidence`` is the claim's annotated evidence sentences
(``evidence_set``, PRIMARY and SUPPLEMENTARY, each ``sent_index`` once, in abstract order)
joined with one space; claim and sentences are copied unchanged. ``supported`` is ``yes`` for
SUPPORT and ``no`` for REFUTE and NOTENOUGHINFO. ``group`` joins the rows that share an
annotation task (the upstream id before its last ``_``) or a claim text (compared with outer
whitespace stripped), named by the smallest task id in the group, so one claim's rows can be
kept together. Rows whose evidence is over MAX_EVIDENCE characters are skipped (none are at
this commit). Then, with ``random.Random(SEED)``, 200 SUPPORT, 100 REFUTE and 100
NOTENOUGHINFO rows are drawn and written sorted by group and id.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

SEED = 20240531
MAX_EVIDENCE = 1500
DRAW = {"SUPPORT": 200, "REFUTE": 100, "NOTENOUGHINFO": 100}
COLUMNS = ["id", "claim", "evidence", "label", "supported", "group"]
# SHA-256 of the upstream files at commit 3ae70f8c (a mismatch is reported, not fatal).
SHA256 = {
    "Check-COVID_all.json": "008b930570d374530528efa9edc6b2a029189a6d21b844ce1857324039d9e697",
    "corpus.json": "2a56084b933f28ec02781a9e501082683ca4b9c4c1c6c8530190d6fb0002ce42",
}


def read_jsonl(path: Path) -> list[dict]:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256[path.name]:
        print(f"warning: {path} differs from the file at commit 3ae70f8c", file=sys.stderr)
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def groups(claims: list[dict]) -> dict[str, str]:
    """Map each claim id to its group: union of shared task id or shared claim text."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for claim in claims:
        task = "task:" + claim["id"].rsplit("_", 1)[0]
        text = "text:" + claim["claim"].strip()
        parent[find(task)] = find(text)
    members: dict[str, list[str]] = {}
    for claim in claims:
        task = claim["id"].rsplit("_", 1)[0]
        members.setdefault(find("task:" + task), []).append(task)
    name = {root: min(tasks) for root, tasks in members.items()}
    return {c["id"]: name[find("task:" + c["id"].rsplit("_", 1)[0])] for c in claims}


def build(upstream: Path) -> list[dict]:
    if (upstream / "Check-COVID").is_dir():
        upstream = upstream / "Check-COVID"
    claims = read_jsonl(upstream / "Check-COVID_all.json")
    abstracts = {doc["cord_id"]: doc["abstract"] for doc in read_jsonl(upstream / "corpus.json")}
    group_of = groups(claims)
    rows = []
    for claim in claims:
        sentences = abstracts[claim["cord_id"]]
        indices = sorted({item["sent_index"] for item in claim["evidence_set"]})
        evidence = " ".join(sentences[i] for i in indices)
        if not evidence or len(evidence) > MAX_EVIDENCE:
            continue
        rows.append({
            "id": claim["id"],
            "claim": claim["claim"],
            "evidence": evidence,
            "label": claim["label"],
            "supported": "yes" if claim["label"] == "SUPPORT" else "no",
            "group": group_of[claim["id"]],
        })
    rng = random.Random(SEED)
    chosen = []
    for label, count in DRAW.items():
        pool = sorted((r for r in rows if r["label"] == label), key=lambda r: r["id"])
        chosen += rng.sample(pool, count)
    return sorted(chosen, key=lambda r: (r["group"], r["id"]))


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out = Path(argv[2]) if len(argv) == 3 else Path(__file__).with_name("pairs.csv")
    rows = build(Path(argv[1]))
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    labels = Counter(r["label"] for r in rows)
    print(f"{out}: {len(rows)} pairs, {sum(r['supported'] == 'yes' for r in rows)} supported, "
          f"{len({r['group'] for r in rows})} groups; {dict(sorted(labels.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
