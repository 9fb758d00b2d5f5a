"""Where a run's LLM tokens went, from its LLM cache (every reply with its prompt and reply
tokens): question writing (JSON replies), one-token verdicts, and free text (the reasons a
report shows); and what a question-writing reply's tokens are: the questions, the situations,
the JSON layout around them, and the same reply written compactly. Tokens are counted by the
embedded server's tokenizer (the default model's).

    python bench/reply_tokens.py CACHE_DIR     # e.g. the SIMPOP_CACHE_DIR a full study ran in
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from simpop.llm.local import embedded_server
from simpop.models import LLMConfig

JSON = {"Content-Type": "application/json"}


def kind(reply: str) -> str:
    if reply.lstrip().startswith("{"):
        return "question writing (JSON)"
    return "verdicts (one token)" if len(reply) < 20 else "reasons (text)"


def tokenizer(config: LLMConfig) -> Callable[[str], int]:
    """The token count of a text by the embedded server of ``config``'s model (started here)."""
    url = embedded_server(config).start().removesuffix("/v1")

    def tokens(text: str) -> int:
        body = json.dumps({"content": text}).encode()
        request = urllib.request.Request(url + "/tokenize", data=body, headers=JSON)
        return len(json.load(urllib.request.urlopen(request))["tokens"])

    return tokens


def main(cache: Path) -> None:
    tokens = tokenizer(LLMConfig(timeout=60, concurrency=1))
    rows = sqlite3.connect(cache / "llm-cache.sqlite").execute(
        "SELECT reply, prompt_tokens, completion_tokens FROM replies"
    )
    by_kind: dict[str, Counter] = {}
    parts: Counter = Counter()
    for reply, prompt, completion in rows:
        tally = by_kind.setdefault(kind(reply), Counter())
        tally.update(calls=1, prompt=prompt or 0, completion=completion or 0)
        if reply.lstrip().startswith("{"):
            data = json.loads(reply)
            questions, situations = data.get("questions", []), data.get("situations", [])
            parts.update(
                reply=tokens(reply),
                compact=tokens(json.dumps(data, ensure_ascii=False, separators=(",", ":"))),
                questions=sum(tokens(q) for q in questions),
                situations=sum(tokens(s) for s in situations),
                n_questions=len(questions),
                n_situations=len(situations),
            )
    for name, t in by_kind.items():
        print(f"{name}: {t['calls']} calls, {t['prompt']:,} prompt tokens, {t['completion']:,} reply tokens")
    if parts["reply"]:
        layout = parts["reply"] - parts["questions"] - parts["situations"]
        print(
            f"question-writing replies: {parts['reply']:,} tokens: {parts['n_questions']:,} questions "
            f"{parts['questions']:,}, {parts['n_situations']:,} situations {parts['situations']:,}, "
            f"JSON layout {layout:,} ({layout / parts['reply']:.0%}); written compactly "
            f"{parts['compact']:,} ({parts['compact'] / parts['reply'] - 1:+.0%})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("cache", type=Path, help="a SIMPOP_CACHE_DIR")
    main(parser.parse_args().cache)
