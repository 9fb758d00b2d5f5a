"""The texts metrics work on: what the bot answered from, and what every judge is shown."""

from __future__ import annotations

from simpop.models import Context, Response


def answer_contexts(response: Response) -> list[Context]:
    """What the bot answered from: the matched QAP for a QAP matcher, and its best candidate
    where it declined (the one it weighed and turned down: the others it ranked lower are
    retrieval's business, ``ir``, and showing the judges all of them made their prompts three
    times as long); else every context."""
    if response.matched_id is not None:
        matched = [c for c in response.contexts if c.id == response.matched_id]
        return matched or response.contexts
    declined = response.similarity is not None and not answered(response)  # by a matcher
    if declined and response.contexts:
        return [max(response.contexts, key=lambda c: c.score if c.score is not None else float("-inf"))]
    return response.contexts


def context_text(contexts: list[Context]) -> str:
    return "\n\n".join(f"[{i}] {c.text.strip()}" for i, c in enumerate(contexts, start=1))


def exchange(response: Response) -> dict[str, str | None]:
    """What every judge of an answer is shown, in the same order (``prompts/_judge_exchange.j2``):
    the context it was answered from, the answer, the message."""
    return {
        "context": context_text(answer_contexts(response)),
        "answer": response.answer,
        "question": response.question,
    }


def answered(response: Response) -> bool:
    return bool(response.answer and response.answer.strip())
