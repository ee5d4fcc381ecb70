"""A real `ecot serve --mode hf` (the embedded SmolLM2 on the CPU) stops working for clients that left:
a client that hangs up mid-generation, and its queued requests, cost the next client nothing; every
request is one line on stderr; an unknown model name is a 404."""

from __future__ import annotations

import http.client
import json
import re
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import openai
import pytest

from ecot.serve.server import ServerProcess

pytestmark = pytest.mark.slow

# A base-model continuation that greedy decoding keeps counting: it runs to max_tokens, never to an end token
COUNTING = {"role": "user", "content": "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"}
BARE = "{{ messages[0]['content'] }}"
LONG = 3000  # tokens: minutes of CPU generation per request if nothing stopped it
PROMPT_S = 30.0  # the next client's bound; a stopped generation frees the model within a token


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    cache = tmp_path_factory.mktemp("ecot-cache")  # the GGUF is converted once into it (~30-40 s)
    args = ["--mode", "hf", "--device", "cpu", "--threads", "1", "--max-new-tokens", "16"]
    with ServerProcess(args, startup_s=300, env={"ECOT_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}) as proc:
        yield proc


def connection(url: str, timeout: float) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)


def counting(max_tokens: int, stream: bool = False) -> str:
    return json.dumps({"model": "smollm2", "messages": [COUNTING], "max_tokens": max_tokens, "temperature": 0,
                       "stream": stream, "chat_template": BARE})


def log_lines(proc: ServerProcess, pattern: str, count: int, wait_s: float = 10.0) -> list[str]:
    """The server's stderr lines matching `pattern`, once there are `count` of them (or after wait_s)."""
    deadline = time.monotonic() + wait_s
    while True:
        proc.stderr.seek(0)
        found = [line for line in proc.stderr.read().splitlines() if re.search(pattern, line)]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_a_client_that_hangs_up_costs_the_next_one_nothing(server: ServerProcess) -> None:
    gone = []
    for stream in (False, True, False):  # one generating, two queued behind it; one of them streaming
        client = connection(server.url, timeout=600)
        client.request("POST", "/v1/chat/completions", counting(LONG, stream), {"Content-Type": "application/json"})
        gone.append(client)
    time.sleep(2.0)
    for client in gone:
        client.close()  # the client process "dies": its sockets close
    started = time.monotonic()
    client = connection(server.url, timeout=PROMPT_S)
    client.request("POST", "/v1/chat/completions", counting(4), {"Content-Type": "application/json"})
    response = client.getresponse()
    answer, waited = json.loads(response.read()), time.monotonic() - started
    client.close()
    assert response.status == 200 and answer["usage"]["completion_tokens"] == 4
    assert waited < PROMPT_S, f"the next request waited {waited:.1f}s behind requests nobody reads"
    stopped = log_lines(server, r"POST /v1/chat/completions 499 model=smollm2 .*client gone", 3)
    assert len(stopped) == 3, stopped
    answered = log_lines(server, r"POST /v1/chat/completions 200 model=smollm2 n=1 prompt_tokens=\d+ completion_tokens=4 ", 1)
    assert answered and re.search(r" \d+\.\d{3}s$", answered[0])


def test_an_unknown_model_is_a_404_in_the_openai_shape(server: ServerProcess) -> None:
    client = openai.OpenAI(base_url=server.url, api_key="EMPTY", max_retries=0, timeout=60)
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4o", messages=[COUNTING], max_tokens=2)
    assert caught.value.body == {"message": "The model `gpt-4o` does not exist; this server serves `smollm2`",
                                 "type": "not_found_error", "code": 404}
    assert log_lines(server, r"POST /v1/chat/completions 404 model=smollm2 .*The model `gpt-4o` does not exist", 1)
    reply = client.chat.completions.create(model="smollm2", messages=[COUNTING], max_tokens=2)
    assert reply.model == "smollm2" and reply.usage is not None and reply.usage.completion_tokens == 2
