"""A small OpenAI-compatible chat server on 127.0.0.1 that plays a script of replies (and
answers ``/embeddings`` with bag-of-words vectors).

Used by the tests and the benchmark to exercise the real HTTP client against 429s, 5xx,
timeouts, malformed bodies and schema-breaking replies. Run it alone with
``python -m simpop.testing.fake_openai --latency 0.05 --content '{"answer": "ok"}'``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


@dataclass
class Reply:
    """One scripted answer: chat ``content``, or an HTTP ``status``, or a ``raw`` body."""

    content: str = "{}"
    status: int = 200
    delay: float = 0.0
    raw: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 10
    completion_tokens: int = 5
    top_logprobs: dict[str, float] | None = None  # first token's alternatives, when asked for
    reused_tokens: int | None = None  # prompt tokens read from a cached prefix: llama.cpp's timings


def _logprobs(reply: Reply, request: dict) -> dict | None:
    if reply.top_logprobs is None or not request.get("logprobs"):
        return None
    top = sorted(reply.top_logprobs.items(), key=lambda item: -item[1])[: request.get("top_logprobs") or 1]
    alternatives = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top]
    return {"content": [{**alternatives[0], "top_logprobs": alternatives}]}


def _completion(reply: Reply, request: dict) -> dict:
    model = request.get("model", "fake")
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply.content}}
    if (logprobs := _logprobs(reply, request)) is not None:
        choice["logprobs"] = logprobs
    timings = {} if reply.reused_tokens is None else {"timings": {"cache_n": reply.reused_tokens}}
    return timings | {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


EMBEDDING_DIM = 64


def bag_of_words(text: str) -> list[float]:
    """A text's words counted into ``EMBEDDING_DIM`` places by their CRC-32."""
    vector = [0.0] * EMBEDDING_DIM
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[zlib.crc32(word.encode()) % EMBEDDING_DIM] += 1.0
    return vector


class FakeOpenAIServer:
    """Serves ``script`` replies in order, then ``default`` (a Reply or a function of the request)."""

    def __init__(
        self,
        script: Iterable[Reply] = (),
        default: Reply | Callable[[dict], Reply] | None = None,
        latency: float = 0.0,
        port: int = 0,
        api_key: str | None = None,
    ) -> None:
        self.api_key = api_key  # when set, a request without it is answered 401
        self.script = deque(script)
        self.default = default or Reply()
        self.latency = latency
        self.port = port
        self.requests: list[dict] = []
        self.arrivals: list[float] = []  # time.monotonic() of each chat request
        self.embedding_requests: list[list[str]] = []  # the texts of each /embeddings request
        self.request_headers: list[dict[str, str]] = []  # lower-cased names
        self.in_flight = 0
        self.max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _next(self, request: dict) -> Reply:
        if self.script:
            return self.script.popleft()
        return self.default(request) if callable(self.default) else self.default

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)
                }
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                status, payload, extra = await self._respond(method, path, body, headers)
                data = payload.encode()
                typed = any(k.lower() == "content-type" for k in extra)  # a web page, say
                head_out = [
                    f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}",
                    *([] if typed else ["Content-Type: application/json"]),
                    f"Content-Length: {len(data)}",
                    *(f"{k}: {v}" for k, v in extra.items()),
                ]
                writer.write(("\r\n".join(head_out) + "\r\n\r\n").encode() + data)
                await writer.drain()
        except (
            asyncio.IncompleteReadError,
            ConnectionError,
            asyncio.LimitOverrunError,
            asyncio.CancelledError,
        ):
            pass
        finally:
            writer.close()

    def _embeddings(self, request: dict) -> tuple[int, str, dict]:
        """Bag-of-words vectors (each word hashed to one of ``EMBEDDING_DIM`` places), so texts
        that share words are close; a request whose input is not a list of strings is a 400."""
        texts = request.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return 400, json.dumps({"error": {"message": "input must be a list of strings"}}), {}
        self.embedding_requests.append(texts)
        data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(text)}
            for i, text in enumerate(texts)
        ]
        usage = {"prompt_tokens": sum(len(t.split()) for t in texts), "total_tokens": 0}
        return (
            200,
            json.dumps({"object": "list", "data": data, "model": request.get("model"), "usage": usage}),
            {},
        )

    async def _respond(self, method: str, path: str, body: bytes, headers: dict) -> tuple[int, str, dict]:
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return 401, json.dumps({"error": {"message": "Incorrect API key provided"}}), {}
        if method == "POST" and path.rstrip("/").endswith("/embeddings"):
            return self._embeddings(json.loads(body or b"{}"))
        if method == "GET" and path.rstrip("/").endswith("/models"):
            return 200, json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}), {}
        if not path.rstrip("/").endswith("/chat/completions"):
            return 404, json.dumps({"error": {"message": f"no route {path}"}}), {}
        request = json.loads(body or b"{}")
        self.requests.append(request)
        self.arrivals.append(time.monotonic())
        self.request_headers.append(headers)
        reply = self._next(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency or reply.delay:
                await asyncio.sleep(self.latency + reply.delay)
        finally:
            self.in_flight -= 1
        if reply.raw is not None:
            return reply.status, reply.raw, reply.headers
        if reply.status != 200:
            error = {"error": {"message": f"fake error {reply.status}", "type": "fake", "code": reply.status}}
            return reply.status, json.dumps(error), reply.headers
        return 200, json.dumps(_completion(reply, request)), reply.headers

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", self.port, limit=1 << 24)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _shutdown(self) -> None:
        assert self._server is not None and self._loop is not None
        self._server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop.stop()

    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is not None and self._loop.is_running():
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--content", default="{}", help="chat content of every reply")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FakeOpenAIServer(default=Reply(content=args.content), latency=args.latency, port=args.port)
    server.start()
    print(server.port, flush=True)
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
