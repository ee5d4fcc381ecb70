"""`ecot serve`: a real HTTP server process on 127.0.0.1, driven with the standard library's client."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ecot.cli.main import COMMANDS
from ecot.core.errors import EcotError
from ecot.generators.endpoint import EndpointError, preflight
from ecot.serve.server import ReplayResponder, ServerProcess, start_server

LINES = [
    {"task_id": "t1", "turn": 0, "content": "first", "reasoning_content": "why"},
    {"task_id": "t1", "turn": 1, "content": "second"},
    {"match": "ping", "content": "pong"},
    {"turn": 1, "content": "any task, turn one"},
]


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve") / "replay.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    return path


@pytest.fixture(scope="module")
def server(replay_file: Path) -> Iterator[str]:
    with ServerProcess(["--mode", "replay", "--replay", str(replay_file), "--model-name", "replayed"]) as proc:
        yield proc.url


def call(url: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers=headers or {})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def chat(url: str, text: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    body = {"model": "replayed", "messages": [{"role": "user", "content": text}]}
    return call(url, "POST", "/v1/chat/completions", body, headers)


def test_serve_is_a_cli_command() -> None:
    assert COMMANDS["serve"][0] == "ecot.cli.serve"


def test_first_stdout_line_is_a_loopback_base_url(server: str) -> None:
    parts = urlsplit(server)
    assert parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.port and parts.path == "/v1"


def test_health_and_models(server: str) -> None:
    assert call(server, "GET", "/health") == (200, {"status": "ok"})
    status, models = call(server, "GET", "/v1/models")
    assert status == 200 and [m["id"] for m in models["data"]] == ["replayed"]


def test_chat_completion_keyed_by_task_and_turn_headers(server: str) -> None:
    status, body = chat(server, "hello", {"X-Ecot-Task": "t1", "X-Ecot-Turn": "0"})
    assert status == 200 and body["object"] == "chat.completion" and body["model"] == "replayed"
    message = body["choices"][0]["message"]
    assert (message["role"], message["content"], message["reasoning_content"]) == ("assistant", "first", "why")
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    _, body = chat(server, "hello", {"X-Ecot-Task": "t1", "X-Ecot-Turn": "1"})
    assert body["choices"][0]["message"]["content"] == "second"
    assert "reasoning_content" not in body["choices"][0]["message"]


def test_turn_defaults_to_assistant_messages_and_match_on_last_user_message(server: str) -> None:
    messages = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]
    status, body = call(server, "POST", "/v1/chat/completions", {"messages": messages})
    assert status == 200 and body["choices"][0]["message"]["content"] == "any task, turn one"
    _, body = chat(server, "ping?")
    assert body["choices"][0]["message"]["content"] == "pong"


@pytest.mark.parametrize(
    ("request_args", "status", "fragment"),
    [
        ((None, "POST", "/v1/chat/completions"), 404, "no replay answer for task - turn 0"),
        (({"messages": "x"}, "POST", "/v1/chat/completions"), 400, "messages"),
        (({"messages": [{"role": "user", "content": "ping"}], "n": 0}, "POST", "/v1/chat/completions"), 400, "n must be"),
        (({"messages": []}, "POST", "/v1/completions"), 404, "no route"),
        ((None, "GET", "/v2/nothing"), 404, "no route"),
        (({"model": "gpt-4o", "messages": [{"role": "user", "content": "ping"}]}, "POST", "/v1/chat/completions"), 404,
         "The model `gpt-4o` does not exist; this server serves `replayed`"),
    ],
)
def test_errors_use_the_openai_error_shape(server: str, request_args: tuple[Any, str, str], status: int, fragment: str) -> None:
    body, method, path = request_args
    if body is None and method == "POST":
        body = {"messages": [{"role": "user", "content": "nothing matches"}]}
    got_status, got = call(server, method, path, body)
    assert got_status == status and fragment in got["error"]["message"] and got["error"]["code"] == status


def test_bad_turn_header_is_rejected(server: str) -> None:
    status, body = chat(server, "ping", {"X-Ecot-Turn": "first"})
    assert status == 400 and "X-Ecot-Turn" in body["error"]["message"]


def test_keep_alive_connections_overlap_their_latency(replay_file: Path) -> None:
    url, stop = start_server(ReplayResponder(replay_file), latency_ms=200)
    parts = urlsplit(url)

    def client() -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        for _ in range(2):  # two requests on one connection: keep-alive
            connection.request("POST", "/v1/chat/completions", json.dumps({"messages": [{"role": "user", "content": "ping"}]}))
            response = connection.getresponse()
            assert response.status == 200 and json.loads(response.read())["choices"][0]["message"]["content"] == "pong"
        connection.close()

    try:
        threads = [threading.Thread(target=client) for _ in range(64)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
    finally:
        stop()
    assert elapsed < 0.2 * 2 * 3, f"64 connections x 2 requests took {elapsed:.2f}s, expected about 0.4s"


def test_start_server_stop_closes_the_port(replay_file: Path) -> None:
    url, stop = start_server(ReplayResponder(replay_file))
    assert call(url, "GET", "/health")[0] == 200
    stop()
    with pytest.raises(OSError):
        call(url, "GET", "/health")


def test_bad_replay_file_fails_at_startup(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{"contents": "typo"}\n')
    with pytest.raises(EcotError, match=r"did not start .*bad.jsonl:2"):
        ServerProcess(["--mode", "replay", "--replay", str(bad)], startup_s=30)


def test_replay_mode_requires_a_file() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ecot.cli.main", "serve", "--mode", "replay", "--port", "0"],
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 2 and "--replay FILE" in result.stderr


def stderr_lines(proc: ServerProcess, needle: str, wait_s: float) -> list[str]:
    deadline = time.monotonic() + wait_s
    while True:
        proc.stderr.seek(0)
        found = [line for line in proc.stderr.read().splitlines() if needle in line]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_each_request_is_one_line_and_a_client_that_hangs_up_is_dropped(replay_file: Path) -> None:
    args = ["--mode", "replay", "--replay", str(replay_file), "--model-name", "replayed", "--latency-ms", "5000"]
    with ServerProcess(args) as proc:
        parts = urlsplit(proc.url)
        client = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        client.request("POST", "/v1/chat/completions", json.dumps({"messages": [{"role": "user", "content": "ping"}]}))
        time.sleep(0.3)
        client.close()
        started = time.monotonic()
        gone = stderr_lines(proc, "POST /v1/chat/completions 499 model=replayed", 4.0)
        assert gone and "client gone" in gone[0] and time.monotonic() - started < 4.0  # not after the 5 s delay
        with pytest.raises(EndpointError, match=r"does not serve model 'gpt-4o' \(it lists: replayed\)"):
            preflight(proc.url, "EMPTY", "gpt-4o")
        assert call(proc.url, "GET", "/v1/models")[0] == 200
        assert stderr_lines(proc, "ecot serve: GET /v1/models 200 ", 2.0)
        assert stderr_lines(proc, "ecot serve: POST /v1/chat/completions 404 model=replayed ", 2.0)


def test_quiet_prints_no_request_lines(replay_file: Path) -> None:
    with ServerProcess(["--mode", "replay", "--replay", str(replay_file), "--quiet"]) as proc:
        assert call(proc.url, "GET", "/health")[0] == 200
        time.sleep(0.2)
        proc.stderr.seek(0)
        assert "GET /health" not in proc.stderr.read()
