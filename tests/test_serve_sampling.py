"""Sampling through `ecot serve`: n choices, per-sample and random seeds, streaming through the official
`openai` client, finish_reason "length", per-request chat templates (replay mode and the embedded SmolLM2)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from ecot.core.task import Task
from ecot.generators.openai_chat import OpenAIGenerator
from ecot.serve.server import ChatRequest, Completion, ServeError, ServerProcess, start_server

PY = Task(id="sum", domain="python", prompt="Write sum.")
ANSWER = "Here it is, a function that adds two numbers and returns the result:\n```python\ndef add(a, b):\n    return a + b\n```\n"
REPLAY = [{"task_id": "sum", "content": ANSWER, "reasoning_content": "Two numbers in, one out."}]
HELLO = [{"role": "user", "content": "Write a short poem about the sea."}]


@pytest.fixture(scope="module")
def replay_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("replay") / "answers.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in REPLAY))
    with ServerProcess(["--mode", "replay", "--replay", str(path), "--model-name", "m"]) as server:
        yield server.url


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="EMPTY", max_retries=0, timeout=120)


def generator(url: str, **options: Any) -> OpenAIGenerator:
    return OpenAIGenerator.from_options({"base_url": url, "model": "m", "api_key": "EMPTY", **options})


def samples(gen: OpenAIGenerator, count: int) -> list[Any]:
    async def go() -> list[Any]:
        try:
            return await gen.generate_samples([{"role": "user", "content": "Write sum."}], PY, list(range(count)))
        finally:
            await gen.aclose()

    return asyncio.run(go())


# --- replay mode: the protocol ---------------------------------------------------------------------


def test_streaming_through_the_openai_client(replay_url: str) -> None:
    extra = {"X-Ecot-Task": "sum", "X-Ecot-Turn": "0"}
    stream = client(replay_url).chat.completions.create(
        model="m", messages=HELLO, stream=True, stream_options={"include_usage": True}, n=2, extra_headers=extra
    )
    content: dict[int, str] = {0: "", 1: ""}
    reasoning, finish, usage = "", {}, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            content[choice.index] += choice.delta.content or ""
            reasoning += (choice.delta.model_extra or {}).get("reasoning_content", "") if choice.index == 0 else ""
            if choice.finish_reason:
                finish[choice.index] = choice.finish_reason
    assert content == {0: ANSWER, 1: ANSWER} and reasoning == REPLAY[0]["reasoning_content"]
    assert finish == {0: "stop", 1: "stop"}
    assert usage is not None and usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0


def test_max_tokens_cuts_a_replayed_answer_and_reports_length(replay_url: str) -> None:
    reply = client(replay_url).chat.completions.create(
        model="m", messages=HELLO, max_tokens=7, extra_headers={"X-Ecot-Task": "sum"}
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "length" and reply.usage.completion_tokens == 7
    # the 5 words of reasoning come first (a model thinks before it answers), then 2 words of content
    assert choice.message.model_extra["reasoning_content"] == REPLAY[0]["reasoning_content"]
    assert choice.message.content == "Here it"
    whole = client(replay_url).chat.completions.create(model="m", messages=HELLO, extra_headers={"X-Ecot-Task": "sum"})
    assert whole.choices[0].finish_reason == "stop" and whole.choices[0].message.content == ANSWER


class SeedRecorder:
    """A responder that records the seed of every choice it answers; it rejects the first request."""

    model_name = "m"

    def __init__(self, reject_first: bool) -> None:
        self.seeds: list[int] = []
        self.reject = reject_first
        self.lock = threading.Lock()

    def respond(self, request: ChatRequest) -> Completion:
        with self.lock:
            self.seeds.append(request.sampling["seed"])
            if self.reject:
                self.reject = False
                raise ServeError(400, "n is not supported here")
        return Completion(ANSWER, usage={"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30})


@pytest.mark.parametrize("reject", [False, True])
def test_n_samples_are_one_request_or_fall_back_to_one_per_seed(reject: bool) -> None:
    recorder = SeedRecorder(reject_first=reject)
    url, stop = start_server(recorder)
    try:
        gen = generator(url, seed="10")
        found = samples(gen, 4)
    finally:
        stop()
    assert [g.code for g in found] == ["def add(a, b):\n    return a + b\n"] * 4
    if reject:  # the n=4 request failed on its first choice; then one request per sample, seed + i each
        assert gen.attempts == 5 and not gen.native_n and sorted(recorder.seeds[1:]) == [10, 11, 12, 13]
        assert all(g.usage == {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30} for g in found)
    else:  # one request; the server gave each choice its own seed
        assert gen.attempts == 1 and recorder.seeds == [10, 11, 12, 13]
        assert sum(g.usage["prompt_tokens"] for g in found) == 10 and sum(g.usage["completion_tokens"] for g in found) == 80


def test_requests_without_a_seed_get_random_ones() -> None:
    recorder = SeedRecorder(reject_first=False)
    url, stop = start_server(recorder)
    try:
        for _ in range(3):
            client(url).chat.completions.create(model="m", messages=HELLO, n=2)
    finally:
        stop()
    assert len(set(recorder.seeds)) == 6


# --- hf mode: the embedded SmolLM2 ----------------------------------------------------------------


@pytest.fixture(scope="module")
def hf_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    cache = tmp_path_factory.mktemp("ecot-cache")  # the GGUF is converted once into it (~30-40 s)
    args = ["--mode", "hf", "--device", "cpu", "--max-new-tokens", "16", "--threads", "1", "--model-name", "m"]
    with ServerProcess(args, startup_s=300, env={"ECOT_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}) as server:
        yield server.url


@pytest.mark.slow
def test_hf_reports_length_when_max_tokens_stops_it(hf_url: str) -> None:
    reply = client(hf_url).chat.completions.create(model="m", messages=HELLO, max_tokens=5, temperature=0)
    assert reply.choices[0].finish_reason == "length" and reply.usage.completion_tokens == 5


@pytest.mark.slow
def test_hf_n4_gives_four_distinct_samples_reproducible_with_a_seed(hf_url: str) -> None:
    options = {"temperature": "1.0", "max_tokens": "12"}
    first = samples(generator(hf_url, **options), 4)
    assert len({g.raw for g in first}) == 4  # random seeds per choice: four different answers
    seeded = [samples(generator(hf_url, seed="3", **options), 4) for _ in range(2)]
    assert [g.raw for g in seeded[0]] == [g.raw for g in seeded[1]] and len({g.raw for g in seeded[0]}) == 4


@pytest.mark.slow
def test_hf_stream_matches_the_plain_answer_and_takes_a_chat_template(hf_url: str) -> None:
    settings: dict[str, Any] = {"model": "m", "messages": HELLO, "max_tokens": 8, "temperature": 0}
    plain = client(hf_url).chat.completions.create(**settings)
    chunks = client(hf_url).chat.completions.create(**settings, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == plain.choices[0].message.content
    bare = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    templated = client(hf_url).chat.completions.create(**settings, extra_body={"chat_template": bare})
    assert templated.usage.prompt_tokens < plain.usage.prompt_tokens  # no role markers around the message


def test_the_openai_generator_sends_its_chat_template() -> None:
    seen: list[Any] = []

    class Recorder(SeedRecorder):
        def respond(self, request: ChatRequest) -> Completion:
            seen.append(request.sampling.get("chat_template"))
            return super().respond(request)

    url, stop = start_server(Recorder(reject_first=False))
    try:
        samples(generator(url, chat_template="{{ messages[0]['content'] }}"), 1)
        samples(generator(url), 1)
    finally:
        stop()
    assert seen == ["{{ messages[0]['content'] }}", None]
