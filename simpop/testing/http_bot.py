"""A small JSON HTTP chatbot on 127.0.0.1, for testing the ``http`` target adapter.

``HTTPBotServer(handler)`` calls ``handler(request_body) -> BotReply`` for each POST (or GET,
with the query parameters as the body); a reply can be delayed, carry any status, or be a raw
(non-JSON) body. Run it alone with ``python -m simpop.testing.http_bot`` for an echo bot.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class BotReply:
    """What the bot sends: a JSON ``payload``, or a ``raw`` body, after ``delay`` seconds."""

    payload: Any = None
    status: int = 200
    delay: float = 0.0
    raw: str | None = None
    content_type: str = "application/json"


def echo(body: Any) -> BotReply:
    """Echo the question, given as ``{"question": ...}`` or as the last chat message of
    ``{"messages": [...]}`` (the ``http`` example of ``docs/how-to/your-own-bot.md``); the reply
    has both the plain ``answer`` and that example's ``result`` shape."""
    question = ""
    if isinstance(body, dict):
        messages = body.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
            question = str(messages[-1].get("content", ""))
        else:
            question = str(body.get("question", ""))
    text = f"You asked: {question}"
    source = {"doc": "echo", "content": question, "relevance": 1.0}
    return BotReply(
        {
            "answer": text,
            "sources": [],
            "result": {"text": text, "sources": [source], "faq": {"id": "echo"}},
        }
    )


def qap_bot(
    qaps: list[dict[str, str]], min_words: int = 4, min_ratio: float = 60.0
) -> Callable[[Any], BotReply]:
    """A QAP bot shaped like the seed's (Reichenpfader et al.'s mammography bot): POST
    ``{"text": ...}``, reply ``{"result": <the closest QAP's answer>}`` (rapidfuzz token-set
    ratio of the questions), 400 for a question under ``min_words`` words and 501 "No answer
    found" when no QAP question is ``min_ratio`` similar."""
    from rapidfuzz import fuzz, process, utils

    questions = [q["question"] for q in qaps]

    def answer(body: Any) -> BotReply:
        text = str(body.get("text", "")) if isinstance(body, dict) else ""
        if len(text.split()) < min_words:
            return BotReply({"detail": "Question too short"}, status=400)
        best = process.extractOne(
            text, questions, scorer=fuzz.token_set_ratio, processor=utils.default_process
        )
        if best is None or best[1] < min_ratio:
            return BotReply({"detail": "No answer found"}, status=501)
        return BotReply({"result": qaps[best[2]]["answer"]})

    return answer


class HTTPBotServer:
    """Threaded HTTP server; ``requests`` keeps (method, path, headers, body) of each call."""

    def __init__(
        self, handler: Callable[[Any], BotReply] = echo, port: int = 0, token: str | None = None
    ) -> None:
        self.handler = handler
        self.token = token  # when set, a request without "Authorization: Bearer <token>" gets 401
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                parts = urlsplit(self.path)
                if self.command == "GET":
                    body: Any = dict(parse_qsl(parts.query))
                else:
                    raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                    try:
                        body = json.loads(raw or b"null")
                    except ValueError:
                        body = raw.decode("utf-8", "replace")
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append((self.command, parts.path, headers, body))
                if server.token is not None and headers.get("authorization") != f"Bearer {server.token}":
                    reply = BotReply({"detail": "not authenticated"}, status=401)
                else:
                    reply = server.handler(body)
                if reply.delay:
                    time.sleep(reply.delay)
                data = (reply.raw if reply.raw is not None else json.dumps(reply.payload)).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_PUT = _serve

            def do_HEAD(self) -> None:
                refused = server.token is not None and self.headers.get("authorization") != (
                    f"Bearer {server.token}"
                )
                self.send_response(401 if refused else 200)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> HTTPBotServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="An echo chatbot with a JSON HTTP API.")
    parser.add_argument("--port", type=int, default=8080, help="0: any free port (default: 8080)")
    args = parser.parse_args()
    try:
        bot = HTTPBotServer(port=args.port)
    except OSError as error:
        raise SystemExit(f"port {args.port}: {error.strerror}; choose another with --port") from None
    with bot as server:
        print(
            f'echo bot listening on {server.url}/chat: POST {{"question": ...}} or '
            '{"messages": [{"role": "user", "content": ...}]}',
            flush=True,
        )
        threading.Event().wait()


if __name__ == "__main__":
    main()
