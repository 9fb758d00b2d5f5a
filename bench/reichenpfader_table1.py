"""Reichenpfader et al.'s Table 1 in German: the three German vignettes (high health literacy,
low health literacy, low German literacy) rephrase every German QAP, a German QAP matcher bot
answers, and the accuracy per vignette is printed next to the paper's (0.69 / 0.77 / 0.79, total
0.75 on 990 variants).

    python bench/reichenpfader_table1.py run [--variants 10] [--out runs-table1]
    python bench/reichenpfader_table1.py score RUN_DIR

``run`` calls ``simpop run targets/breast-qap-de.yaml`` (the built-in QAP matcher with
multilingual-e5-small over the 20 distinct machine-translated MedQuAD breast-cancer questions;
the paper's bot had 33 mammography QAPs and a German BERT paraphrase matcher), then scores it.
A variant the bot does not answer (below its threshold) counts as an error, as in the paper."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "targets" / "breast-qap-de.yaml"
VIGNETTES = {  # persona id: (the paper's vignette, its accuracy in Table 1)
    "high-literacy-de": ("high health literacy", 0.69),
    "low-literacy-de": ("low health literacy", 0.77),
    "low-language-literacy-de": ("low German literacy", 0.79),
}
PAPER_TOTAL = 0.75


def interval(hits: list[int]) -> tuple[float, float]:
    """Wilson 95% interval of a proportion."""
    n, p, z = len(hits), sum(hits) / len(hits), 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return centre - half, centre + half


def score(run: Path) -> None:
    labels: dict[str, Counter] = defaultdict(Counter)
    hits: dict[str, list[int]] = defaultdict(list)
    for line in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["metric"] != "qap_match" or record["persona_id"] not in VIGNETTES:
            continue
        labels[record["persona_id"]][record["label"] or "not scored"] += 1
        if record["value"] is not None:
            hits[record["persona_id"]].append(int(record["value"]))
    words: dict[str, list[int]] = defaultdict(list)
    for line in (run / "probes.jsonl").read_text(encoding="utf-8").splitlines():
        probe = json.loads(line)
        if probe["persona_id"] in VIGNETTES and probe.get("text"):
            question = (probe.get("fidelity") or {}).get("question") or probe["text"]
            words[probe["persona_id"]].append(len(question.split()))
    print(f"run: {run}")
    print(
        f"{'vignette':24} {'simpop':>7} {'95% interval':>14} {'paper':>6} {'n':>4}  errors"
        f"{'':18} question words (median)"
    )
    every: list[int] = []
    for persona, (name, paper) in VIGNETTES.items():
        got = hits.get(persona, [])
        every += got
        if not got:
            print(f"{name:24} {'-':>7}")
            continue
        low, high = interval(got)
        errors = ", ".join(f"{k} {v}" for k, v in sorted(labels[persona].items()) if k != "correct")
        median = statistics.median(words[persona]) if words[persona] else float("nan")
        print(
            f"{name:24} {sum(got) / len(got):7.2f} {low:6.2f}–{high:<6.2f} {paper:6.2f} {len(got):4}  "
            f"{errors:24} {median:.0f}"
        )
    if every:
        print(f"{'total':24} {sum(every) / len(every):7.2f} {'':14} {PAPER_TOTAL:6.2f} {len(every):4}")


def main(argv: list[str]) -> None:
    if argv[:1] == ["score"] and len(argv) == 2:
        score(Path(argv[1]))
        return
    if argv[:1] != ["run"]:
        sys.exit(__doc__)
    variants = argv[argv.index("--variants") + 1] if "--variants" in argv else "10"
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else ROOT / "runs-table1"
    before = set(out.glob("*")) if out.is_dir() else set()
    command = [
        sys.executable,
        "-m",
        "simpop",
        "run",
        str(CONFIG),
        "--variants",
        variants,
        "--personas",
        ",".join(VIGNETTES),
        "--out",
        str(out),
    ]
    code = subprocess.call(command)
    made = sorted(set(out.glob("*")) - before)
    if code != 0 or not made:
        sys.exit(f"simpop run failed (exit {code})")
    score(made[-1])


if __name__ == "__main__":
    main(sys.argv[1:])
