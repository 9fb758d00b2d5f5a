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


def exchange(response: Response) -> dict[str, str | bool | None]:
    """What every judge of an answer is shown, in the same order (``prompts/_judge_exchange.j2``):
    the context it was answered from, the answer, the message. ``answer_quoted``: the answer is
    the matched QAP's answer word for word, so the prompt shows it once, in the context (a QAP
    answer judged on its own QAP read the same text twice: 135 of a relevance prompt's 774 tokens
    on the full study)."""
    contexts = answer_contexts(response)
    return {
        "context": context_text(contexts),
        "answer": response.answer,
        "answer_quoted": _quoted(response, contexts),
        "question": response.question,
    }


def _quoted(response: Response, contexts: list[Context]) -> bool:
    answer = (response.answer or "").strip()
    return (
        bool(answer)
        and response.matched_id is not None
        and len(contexts) == 1
        and contexts[0].id == response.matched_id
        and contexts[0].text.strip().endswith(answer)
    )


def answered(response: Response) -> bool:
    return bool(response.answer and response.answer.strip())
