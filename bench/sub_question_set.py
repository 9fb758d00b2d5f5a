"""Build the held-out set of the sub-question judge (``data/sub-questions/items.jsonl``): a
patient's message of two MedQuAD eye questions and a chatbot-like answer, once per question.

Each message joins two questions (half about one disease, half about two); its answer is,
in turn, the first sentences of the first question's answer, of the second's, of both, or of
another question's. Whether the answer addresses each question is not taken from this
construction: people label every item blind (``labels.jsonl``), since an answer written for
one question may well answer the other.

    python bench/sub_question_set.py
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "data/medquad-eye/qaps.jsonl"
OUT = ROOT / "data/sub-questions/items.jsonl"
MESSAGES = 60
SENTENCES = 3
KINDS = ("first", "second", "both", "other")


def question(text: str) -> str:
    """MedQuAD's "What is (are) Cataract ?" as a patient would type it."""
    text = re.sub(r"(\s*\?)+", "?", text.strip())
    return text.replace("What is (are) ", "What is ")


def opening(answer: str) -> str:
    """The first sentences of an answer, its lists flattened."""
    flat = re.sub(r"\s+", " ", answer.replace(" - ", "; ")).strip()
    return " ".join(re.split(r"(?<=[.!?])\s+", flat)[:SENTENCES])


def main() -> None:
    qaps = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)
    by_doc: dict[str, list[dict]] = {}
    for qap in qaps:
        by_doc.setdefault(qap["doc_id"], []).append(qap)
    items, used = [], set()
    for n in range(MESSAGES):
        same = n % 2 == 0 and any(len(v) > 1 for v in by_doc.values())
        while True:  # two different questions (MedQuAD repeats some within a document)
            if same:
                a, b = rng.sample(by_doc[rng.choice([d for d, v in by_doc.items() if len(v) > 1])], 2)
            else:
                a, b = rng.sample(qaps, 2)
            pair = (question(a["question"]), question(b["question"]))
            if pair[0] != pair[1] and pair not in used and (same or a["doc_id"] != b["doc_id"]):
                used.add(pair)
                break
        other = rng.choice([q for q in qaps if q["doc_id"] not in (a["doc_id"], b["doc_id"])])
        kind = KINDS[n % len(KINDS)]
        answer = {
            "first": opening(a["answer"]),
            "second": opening(b["answer"]),
            "both": f"{opening(a['answer'])} {opening(b['answer'])}",
            "other": opening(other["answer"]),
        }[kind]
        second = question(b["question"])
        message = f"{question(a['question'])} And {second[0].lower()}{second[1:]}"
        for part, qap in (("a", a), ("b", b)):
            items.append(
                {
                    "id": f"m{n + 1:02d}{part}",
                    "message_id": f"m{n + 1:02d}",
                    "message": message,
                    "sub_question": question(qap["question"]),
                    "answer": answer,
                    "built_as": kind,  # how the answer was put together; not a label
                    "sources": [a["qid"], b["qid"]] + ([other["qid"]] if kind == "other" else []),
                }
            )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    print(f"{len(items)} items of {MESSAGES} messages → {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
