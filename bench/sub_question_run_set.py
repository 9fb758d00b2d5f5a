"""Build a held-out set of the sub-question judge from a run's multi-question answers, in the
form of ``data/sub-questions`` (``items.jsonl``; ``labels.jsonl`` is written by people, blind):
one item per sub-question of each answered multi-question probe, the message as the bot got it.
``data/sub-questions-rag`` was built from ``simpop run targets/eye-naive-rag.yaml --scenarios
multi-question --variants 0 --probes 6 --limit 15 --personas
low-literacy,typical-adult,older-phone,high-literacy --no-judge``.

    python bench/sub_question_run_set.py RUN_DIR OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    run, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    probes = {p["cell_id"]: p for p in map(json.loads, (run / "probes.jsonl").open(encoding="utf-8"))}
    items: list[dict] = []
    for response in map(json.loads, (run / "responses.jsonl").open(encoding="utf-8")):
        probe = probes.get(response["cell_id"])
        if not probe or probe["scenario_id"] != "multi-question" or not response.get("answer"):
            continue
        message_id = f"r{len({i['message_id'] for i in items}) + 1:02d}"
        for k, question in enumerate(probe["sub_questions"] or []):
            items.append(
                {
                    "id": f"{message_id}{'abc'[k]}",
                    "message_id": message_id,
                    "message": response["question"],
                    "sub_question": question,
                    "answer": response["answer"],
                    "built_as": "run",
                    "sources": [response["cell_id"]],
                }
            )
    text = "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items)
    (out / "items.jsonl").write_text(text, encoding="utf-8")
    print(f"{len(items)} items of {len({i['message_id'] for i in items})} messages → {out / 'items.jsonl'}")


if __name__ == "__main__":
    main()
