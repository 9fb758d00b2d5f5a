"""Convert MedQuAD XML documents into simpop's QAP JSONL and a Markdown knowledge base.

    python data/convert_medquad.py MEDQUAD_REPO OUT_DIR COLLECTION/DOC.xml ...

Writes ``OUT_DIR/qaps.jsonl`` (one row per question-answer pair, text unchanged) and
``OUT_DIR/kb/<collection>_<doc id>_<focus>.md`` (one ``##`` section per question). MedQuAD:
Ben Abacha & Demner-Fushman, BMC Bioinformatics 2019, github.com/abachaa/MedQuAD, CC BY 4.0.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def convert(repo: Path, out: Path, files: list[str]) -> int:
    (out / "kb").mkdir(parents=True, exist_ok=True)
    rows = []
    for name in files:
        root = ET.parse(repo / name).getroot()
        doc_id, source, url = root.get("id"), root.get("source"), root.get("url")
        focus = root.findtext("Focus") or doc_id
        sections = [f"# {focus}", f"Source: {source} {url}", ""]
        for pair in root.iter("QAPair"):
            question = pair.find("Question")
            answer = (pair.findtext("Answer") or "").strip()
            if question is None or not answer:
                continue  # MedQuAD removed some answers for copyright
            rows.append(
                {
                    "qid": question.get("qid"),
                    "qtype": question.get("qtype"),
                    "question": (question.text or "").strip(),
                    "answer": answer,
                    "doc_id": doc_id,
                    "source": source,
                    "url": url,
                    "focus": focus,
                    "collection": name.split("/")[0],
                    "file": name,
                }
            )
            sections += [f"## {(question.text or '').strip()}", "", answer, ""]
        slug = re.sub(r"\W+", "_", focus).strip("_")
        collection = name.split("/")[0]
        (out / "kb" / f"{collection}_{doc_id}_{slug}.md").write_text("\n".join(sections), encoding="utf-8")
    with (out / "qaps.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


if __name__ == "__main__":
    repo, out, *files = sys.argv[1:]
    print(convert(Path(repo), Path(out), files), "QAPs")
