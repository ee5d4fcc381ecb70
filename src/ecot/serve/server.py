"""A small OpenAI-compatible HTTP server: the embedded model or a replay file behind a real socket.

Endpoints: `POST /v1/chat/completions` (`n` choices, `stream: true` as server-sent events),
`GET /v1/models`, `GET /health`. Each connection is served by its own thread (HTTP/1.1 keep-alive),
so a fixed `latency_ms` delay overlaps across concurrent requests the way a real batched inference
server's latency does. Each choice gets its own seed (random unless the request sets one), and a
choice that stops at `max_tokens` reports `finish_reason: "length"`.

A client that hangs up is noticed while its request waits or generates (a peek at its socket per
generated token): the request stops, its queued choices never start, and nothing is answered. Each
request is one line on the `ecot.serve.access` logger (`ecot serve` prints it on stderr): method,
path, status, model, choices, prompt and completion tokens, seconds. A request naming a model the
server does not serve gets a 404 in the OpenAI error shape.

Replay requests are keyed by the optional headers `X-Ecot-Task` and `X-Ecot-Turn` (the `openai`
generator sends both) and by the text of the last user message; without `X-Ecot-Turn` the turn
is the number of assistant messages in the conversation.
"""

from __future__ import annotations

import json
import logging
import os
import select
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from ecot.core.errors import Cancelled, EcotError
from ecot.generators.options import content_text, turn_number
from ecot.generators.replay import ReplayBook, last_user_text
from ecot.serve.protocol import (
    ChatRequest,
    Completion,
    ServeError,
    check_model,
    completion_json,
    cut_words,
    parse_request,
    per_choice,
    stream_events,
    total_usage,
)

__all__ = ["ChatRequest", "Completion", "ServeError", "ServerProcess", "start_server", "make_responder"]

log = logging.getLogger(__name__)
access = logging.getLogger("ecot.serve.access")  # one line per request

MAX_BODY = 32 * 1024 * 1024
WAIT_STEP_S = 0.05  # how often a delayed (--latency-ms) request checks that its client is still there
GONE = 499  # the status logged for a client that hung up before its answer (nginx's convention)


class Responder(Protocol):
    model_name: str

    def respond(self, request: ChatRequest) -> Completion: ...


def _printable(text: str) -> str:
    """A client's text on one log line: control characters shown escaped, nothing else changed."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _words(text: str) -> int:
    return len(text.split())


class ReplayResponder:
    """Answers from a replay file (see ecot.generators.replay for the format and lookup rule)."""

    def __init__(self, path: str | Path, model_name: str = "ecot-replay") -> None:
        self.book = ReplayBook.load(path)
        self.model_name = model_name

    def respond(self, request: ChatRequest) -> Completion:
        turn = request.turn if request.turn is not None else turn_number(request.messages)  # type: ignore[arg-type]
        text = last_user_text(request.messages)
        entry = self.book.lookup(request.task_id, turn, text)
        if entry is None:
            raise ServeError(404, f"no replay answer for task {request.task_id or '-'} turn {turn}", "not_found_error")
        limit = request.sampling.get("max_new_tokens")
        reasoning, content, cut = _within(entry.reasoning_content, entry.content, limit)
        if cut:  # a word stands for a token: the answer stops where a model's would
            return Completion(content, reasoning, _estimate_usage(request.messages, f"{reasoning or ''} {content}"), "length")
        usage = entry.usage or _estimate_usage(request.messages, f"{entry.reasoning_content or ''} {entry.content}")
        return Completion(entry.content, entry.reasoning_content, dict(usage), entry.finish_reason or "stop")


def _within(reasoning: str | None, content: str, limit: int | None) -> tuple[str | None, str, bool]:
    """(reasoning, content, cut) within `limit` words, reasoning first (it is generated first)."""
    if limit is None:
        return reasoning, content, False
    kept_reasoning, cut = cut_words(reasoning or "", limit)
    if cut:
        return kept_reasoning, "", True
    kept_content, cut = cut_words(content, limit - _words(reasoning or ""))
    return reasoning, kept_content, cut


def _estimate_usage(messages: list[dict[str, Any]], answer: str) -> dict[str, int]:
    """Whitespace word counts: replay has no tokenizer, but clients still expect usage."""
    prompt = sum(_words(content_text(m.get("content"))) for m in messages)
    completion = _words(answer)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class HFResponder:
    """The hf generator's model; one generation at a time (the generator's lock serialises them)."""

    def __init__(self, options: Mapping[str, Any] | None = None, model_name: str | None = None) -> None:
        from ecot.generators.hf_local import HFGenerator

        self.generator = HFGenerator.from_options(dict(options or {}))
        self.model_name = model_name or self.generator.model_name

    def respond(self, request: ChatRequest) -> Completion:
        reply = self.generator.chat(request.messages, cancelled=request.cancelled, **request.sampling)
        return Completion(reply.text, None, reply.usage, reply.finish_reason)


def make_responder(
    mode: str, replay: str | None = None, hf_options: Mapping[str, Any] | None = None, model_name: str | None = None
) -> Responder:
    if mode == "replay":
        if not replay:
            raise EcotError("serve: --mode replay needs --replay FILE")
        return ReplayResponder(replay, model_name or "ecot-replay")
    if mode == "hf":
        return HFResponder(hf_options, model_name)
    raise EcotError(f"serve: unknown mode '{mode}' (known: hf, replay)")


class EcotHTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a hung client never blocks shutdown
    request_queue_size = 1024  # listen backlog: bursts of 64+ new connections must not be dropped

    def __init__(self, address: tuple[str, int], responder: Responder, latency_s: float = 0.0) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.responder = responder
        self.latency_s = latency_s
        super().__init__(address, ChatHandler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (BrokenPipeError, ConnectionResetError)):
            return  # the client hung up (for example after its own timeout): nothing to answer
        log.exception("serve: connection from %s failed", client_address)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host's FQDN, which can stall on machines without DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/v1"


class ChatHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients reuse their connections
    timeout = 300  # idle keep-alive connections are closed after this many seconds
    server: EcotHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:
        started = time.monotonic()
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/health", "/v1/health"):
            self._send(200, {"status": "ok"})
        elif path == "/v1/models":
            model = {"id": self.server.responder.model_name, "object": "model", "created": 0, "owned_by": "ecot"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._error(ServeError(404, f"no route GET {path}", "not_found_error"))
            self._log(404, started)
            return
        self._log(200, started)

    def do_POST(self) -> None:
        started = time.monotonic()
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            body = self._read_json()
            if path != "/v1/chat/completions":
                raise ServeError(404, f"no route POST {path}", "not_found_error")
            request = parse_request(body, self.headers.get("X-Ecot-Task"), self.headers.get("X-Ecot-Turn"), self.client_gone)
            check_model(request, self.server.responder.model_name)
            self._delay(request)
            completions = [self.server.responder.respond(choice) for choice in per_choice(request)]
        except Cancelled:
            self.close_connection = True  # nobody reads an answer: none is written
            self._log(GONE, started, note="client gone: generation stopped")
            return
        except ServeError as err:
            self._error(err)
            self._log(err.status, started, note=str(err))
            return
        except Exception as err:  # the server stays up; the client sees a 500 it may retry
            log.exception("serve: request failed")
            self._error(ServeError(500, f"{type(err).__name__}: {err}", "server_error"))
            self._log(500, started, note=type(err).__name__)
            return
        model = self.server.responder.model_name
        try:
            if request.stream:
                self._stream(stream_events(model, completions, request.include_usage))
            else:
                self._send(200, completion_json(model, completions))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self._log(GONE, started, completions, note="client gone before the answer was sent")
            return
        self._log(200, started, completions)

    def client_gone(self) -> bool:
        """Whether the client closed its end: its socket is readable and a peek reads end-of-file (a
        pipelined next request is data, not an end). poll first: the socket has a timeout, so a bare
        recv would wait for data."""
        try:
            poller = select.poll()
            poller.register(self.connection, select.POLLIN)
            if not poller.poll(0):
                return False
            peeked: bytes = self.connection.recv(1, socket.MSG_PEEK)
            return peeked == b""
        except OSError:
            return True

    def _delay(self, request: ChatRequest) -> None:
        """--latency-ms, cut short when the client hangs up."""
        deadline = time.monotonic() + self.server.latency_s
        while (left := deadline - time.monotonic()) > 0:
            if request.cancelled():
                raise Cancelled("the client hung up during the delay")
            time.sleep(min(WAIT_STEP_S, left))

    def _log(self, status: int, started: float, completions: list[Completion] | None = None, note: str = "") -> None:
        parts = [self.command, _printable(self.path.split("?", 1)[0][:100]), str(status)]
        if self.command == "POST":
            parts.append(f"model={self.server.responder.model_name}")
        if completions:
            usage = total_usage(completions)
            parts += [f"n={len(completions)}", f"prompt_tokens={usage.get('prompt_tokens', 0)}",
                      f"completion_tokens={usage.get('completion_tokens', 0)}"]
        parts.append(f"{time.monotonic() - started:.3f}s")
        if note:
            parts.append(f"({_printable(note)[:200]})")
        access.info(" ".join(parts))

    def _read_json(self) -> Any:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise ServeError(411, "a Content-Length header is required")
        if int(length) > MAX_BODY:
            raise ServeError(413, f"request body over {MAX_BODY} bytes")
        data = self.rfile.read(int(length))
        try:
            return json.loads(data or b"null")
        except ValueError as err:
            raise ServeError(400, f"request body is not JSON: {err}") from None

    def _error(self, err: ServeError) -> None:
        self._send(err.status, {"error": {"message": str(err), "type": err.kind, "code": err.status}})

    def _send(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: Any) -> None:
        """Server-sent events in HTTP/1.1 chunked encoding, so the connection stays reusable."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


def create_server(responder: Responder, host: str = "127.0.0.1", port: int = 0, latency_ms: float = 0.0) -> EcotHTTPServer:
    try:
        return EcotHTTPServer((host, port), responder, latency_ms / 1000.0)
    except (OSError, OverflowError) as err:  # OverflowError: a port outside 0-65535
        raise EcotError(f"serve: cannot listen on {host}:{port}: {getattr(err, 'strerror', None) or err}") from None


def start_server(
    responder: Responder, host: str = "127.0.0.1", port: int = 0, latency_ms: float = 0.0
) -> tuple[str, Callable[[], None]]:
    """Serve in a background thread of this process: (base URL ending in /v1, stop function)."""
    server = create_server(responder, host, port, latency_ms)
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), name="ecot-serve", daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return server.url, stop


class ServerProcess:
    """`ecot serve` in a child process (for tests and benchmarks); a context manager that stops it.

    stderr goes to a temporary file, not a pipe: nobody drains a pipe, and a full one would stall
    the server. It is shown when the server fails to start.
    """

    def __init__(self, args: list[str], startup_s: float = 120.0, env: Mapping[str, str] | None = None) -> None:
        command = [sys.executable, "-m", "ecot.cli.main", "serve", "--port", "0", *args]
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 -- lives as long as the server
        full_env = {**os.environ, **(env or {})}
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.stderr, text=True, env=full_env)
        self.url = self._first_line(startup_s)

    def _first_line(self, startup_s: float) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], startup_s)
        line = self.proc.stdout.readline().strip() if ready else ""
        if not line.startswith("http"):
            self.stop()
            self.stderr.seek(0)
            detail = self.stderr.read().strip()[-2000:]
            raise EcotError(f"ecot serve did not start (exit {self.proc.returncode}): {detail}")
        return line

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.stderr.close()
