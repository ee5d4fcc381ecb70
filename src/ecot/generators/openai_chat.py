"""Any OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp server, hosted APIs) as a generator.

The retry loop lives here rather than in the client (`max_retries=0` there) so that every retry is
logged and bounded by our own policy: 429, 5xx, timeouts and connection errors are retried with
exponential backoff and full jitter; any other 4xx is the request's fault and fails at once. A
circuit breaker (ecot.generators.endpoint) ends the retrying when the endpoint is gone for good.

Several samples of one prompt are one request with `n` where the endpoint takes it; where it rejects
`n` (or returns fewer choices) the rest are parallel requests, each with its own seed.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

import openai
from pydantic import Field

from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.core.trajectory import Message, Turn
from ecot.generators.base import LENGTH, Generation, Generator
from ecot.generators.endpoint import CircuitBreaker, listed, preflight
from ecot.generators.options import GeneratorOptions, build_generation, turn_number

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "EMPTY"  # what local servers accept when they check no key


class GeneratorRequestError(EcotError):
    """The endpoint refused or kept failing a request; not the candidate code's fault."""

    def __init__(self, message: str, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = attempts


def is_retryable(err: Exception) -> bool:
    if isinstance(err, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(err, openai.APIStatusError):
        return err.status_code == 429 or err.status_code >= 500
    return False


def backoff_delay(attempt: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Full-jitter exponential backoff; a server's Retry-After is honoured up to the cap."""
    if retry_after is not None:
        return min(cap, max(0.0, retry_after))
    return random.uniform(0.0, min(cap, base * (2**attempt)))


def _retry_after(err: Exception) -> float | None:
    response = getattr(err, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIOptions(GeneratorOptions):
    """The openai generator's options (`--gen-opt key=value`); docs/generators.md explains each."""

    owner: ClassVar[str] = "openai generator"
    env: ClassVar[Mapping[str, str]] = {"model": "ECOT_MODEL", "base_url": "OPENAI_BASE_URL", "api_key": "OPENAI_API_KEY"}
    prefixed: ClassVar[tuple[str, ...]] = ("extra",)  # extra.<name>: a field of the request body

    model: str
    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = Field(default=0.7, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    timeout: float = Field(default=600.0, ge=0.001)
    max_in_flight: int = Field(default=64, ge=1)
    max_retries: int = Field(default=6, ge=0)
    backoff: float = Field(default=1.0, ge=0.0)
    max_backoff: float = Field(default=60.0, ge=0.0)
    task_headers: bool = True
    extra: dict[str, Any] = {}
    native_n: bool = True
    chat_template: str | None = None
    breaker_failures: int = Field(default=16, ge=0)
    breaker_seconds: float = Field(default=20.0, ge=0.0)


class OpenAIGenerator(Generator):
    name = "openai"

    def __init__(self, options: OpenAIOptions) -> None:
        if not options.api_key and not options.base_url:
            raise EcotError("openai generator: no api_key (set OPENAI_API_KEY) and no base_url of a local server")
        self.model = options.model
        self.base_url = options.base_url
        self.sampling = {"temperature": options.temperature, "top_p": options.top_p, "max_tokens": options.max_tokens,
                         "seed": options.seed}
        self.timeout = options.timeout
        self.max_in_flight = options.max_in_flight
        self.max_retries = options.max_retries
        self.backoff = options.backoff
        self.max_backoff = options.max_backoff
        self.task_headers = options.task_headers
        self.extra_body = dict(options.extra)
        if options.chat_template:  # vLLM's per-request override of the model's chat template
            self.extra_body["chat_template"] = options.chat_template
        self.native_n = options.native_n  # False after the endpoint rejected `n`
        self.api_key = options.api_key or PLACEHOLDER_KEY
        where = options.base_url or "https://api.openai.com/v1"
        self.breaker = CircuitBreaker(where, options.breaker_failures, options.breaker_seconds)
        self.client = openai.AsyncOpenAI(
            base_url=options.base_url, api_key=self.api_key, timeout=options.timeout, max_retries=0
        )
        self._gate: asyncio.Semaphore | None = None
        self._gate_loop: asyncio.AbstractEventLoop | None = None
        self.attempts = 0  # requests sent, retries included (for tests and reports)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """Build from `--gen-opt` pairs; see docs/generators.md for every key."""
        return cls(OpenAIOptions.from_table(options))

    def _semaphore(self) -> asyncio.Semaphore:
        # One gate per event loop: a semaphore used on a finished loop would fail on the next one.
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate_loop is not loop:
            self._gate, self._gate_loop = asyncio.Semaphore(self.max_in_flight), loop
        return self._gate

    def _request(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn], sample: int, n: int = 1
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        request.update({key: value for key, value in self.sampling.items() if value is not None})
        if "seed" in request:  # each sample of a task draws its own reproducible stream
            request["seed"] += sample
        if n > 1:
            request["n"] = n
        if self.extra_body:
            request["extra_body"] = self.extra_body
        if self.task_headers:  # lets replay servers and proxies key answers by task and turn
            turn = turn_number(messages, turns)
            request["extra_headers"] = {"X-Ecot-Task": task.id, "X-Ecot-Turn": str(turn)}
        return request

    async def _send(self, request: dict[str, Any]) -> Any:
        for attempt in range(self.max_retries + 1):
            self.breaker.check()
            try:
                async with self._semaphore():
                    self.breaker.check()  # it may have opened while this request waited for a slot
                    self.attempts += 1
                    response = await self.client.chat.completions.create(**request)
                self.breaker.success()
                return response
            except openai.APIError as err:
                self.breaker.failure(err)
                self.breaker.check()
                status = getattr(err, "status_code", None)
                if not is_retryable(err):
                    message = f"openai generator: request rejected ({status}): {err}"
                    raise GeneratorRequestError(message, status, attempt + 1) from err
                if attempt == self.max_retries:
                    message = f"openai generator: gave up after {attempt + 1} attempts: {type(err).__name__}: {err}"
                    raise GeneratorRequestError(message, status, attempt + 1) from err
                delay = backoff_delay(attempt, self.backoff, self.max_backoff, _retry_after(err))
                log.warning(
                    "openai generator: %s (%s), retry %d/%d in %.2fs",
                    type(err).__name__, status, attempt + 1, self.max_retries, delay,
                )
                await asyncio.sleep(delay)  # outside the gate: a backing-off request holds no slot
        raise AssertionError("unreachable")

    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        response = await self._send(self._request(messages, task, turns, sample))
        if not response.choices:
            raise GeneratorRequestError("openai generator: the response held no choices")
        return _generation(response.choices[0], task.domain, _usage(response))

    async def generate_samples(
        self, messages: Sequence[Message], task: Task, samples: Sequence[int], turns: Sequence[Turn] = ()
    ) -> list[Generation]:
        """One request with `n` (seeded with the first sample's seed); parallel requests where `n` fails."""
        if len(samples) < 2 or not self.native_n:
            return await super().generate_samples(messages, task, samples, turns)
        try:
            response = await self._send(self._request(messages, task, turns, samples[0], n=len(samples)))
        except GeneratorRequestError as err:
            if err.status is None or err.status == 429 or err.status >= 500:
                raise
            log.warning("openai generator: the endpoint rejected n=%d (%s); sending one request per sample", len(samples), err.status)
            self.native_n = False
            return await super().generate_samples(messages, task, samples, turns)
        choices = sorted(response.choices, key=lambda c: c.index)[: len(samples)]
        limit = self.sampling["max_tokens"]
        usages = split_usage(_usage(response), [c.finish_reason for c in choices], None if limit is None else int(limit))
        found = [_generation(choice, task.domain, usage) for choice, usage in zip(choices, usages)]
        if len(found) < len(samples):  # a server that ignores n: the others come one by one
            found += await super().generate_samples(messages, task, samples[len(found) :], turns)
        return found

    @property
    def answer_limit(self) -> int | None:
        limit = self.sampling["max_tokens"]
        return None if limit is None else int(limit)

    async def preflight(self) -> None:
        """GET /models (or a 1-token completion) with a short timeout; one line naming the URL on failure."""
        models = await asyncio.to_thread(preflight, self.base_url, self.api_key, self.model)
        listed(models, self.model, self.base_url or "api.openai.com")

    def provenance(self) -> dict[str, Any]:
        extra = dict(self.extra_body)
        template = extra.pop("chat_template", None)
        return {
            **super().provenance(),
            "model": self.model,
            "base_url": self.base_url,
            **self.sampling,
            **({"extra_body": extra} if extra else {}),
            **({"chat_template_sha256": hashlib.sha256(template.encode()).hexdigest()} if template else {}),
            **({} if self.native_n else {"native_n": False}),
        }

    def identity(self) -> dict[str, Any]:
        """What the data depends on: the endpoint's address is not part of it (localhost == 127.0.0.1)."""
        return {key: value for key, value in self.provenance().items() if key != "base_url"}

    async def aclose(self) -> None:
        await self.client.close()


def _generation(choice: Any, domain: str, usage: dict[str, int]) -> Generation:
    message = choice.message
    return build_generation(message.content or "", _reasoning_field(message), domain, usage, choice.finish_reason)


def split_usage(usage: Mapping[str, int], finish_reasons: Sequence[str | None], max_tokens: int | None) -> list[dict[str, int]]:
    """Share one `n`-request's usage among its choices so that the per-turn sums stay exact.

    A choice cut off at `max_tokens` used exactly that many completion tokens; the rest of the
    completion tokens, and the prompt tokens, are shared evenly (remainders to the first choices).
    Each share records `n`, the number of choices of the request it came from.
    """
    count = len(finish_reasons)
    if count == 0:
        return []
    completion = [max_tokens if reason == LENGTH and max_tokens else None for reason in finish_reasons]
    left = usage.get("completion_tokens", 0) - sum(c for c in completion if c is not None)
    if left < 0:  # the server counted differently: fall back to an even split
        completion, left = [None] * count, usage.get("completion_tokens", 0)
    open_slots = [i for i, c in enumerate(completion) if c is None]
    for position, i in enumerate(open_slots):
        completion[i] = _share(left, len(open_slots), position)
    shares = []
    for i in range(count):
        share = {"prompt_tokens": _share(usage.get("prompt_tokens", 0), count, i), "completion_tokens": int(completion[i] or 0)}
        share["total_tokens"] = share["prompt_tokens"] + share["completion_tokens"]
        if "reasoning_tokens" in usage:
            share["reasoning_tokens"] = _share(usage["reasoning_tokens"], count, i)
        shares.append({**share, "n": count})
    return shares


def _share(total: int, parts: int, index: int) -> int:
    return total // parts + (1 if index < total % parts else 0)


def _reasoning_field(message: Any) -> str | None:
    """vLLM, SGLang and DeepSeek send `reasoning_content`; some servers name it `reasoning`."""
    extra = getattr(message, "model_extra", None) or {}
    for key in ("reasoning_content", "reasoning"):
        value = getattr(message, key, None) or extra.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _usage(response: Any) -> dict[str, int]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return {}
    counts = {key: getattr(usage, key, None) for key in ("prompt_tokens", "completion_tokens", "total_tokens")}
    details = getattr(usage, "completion_tokens_details", None)
    reasoning_tokens = getattr(details, "reasoning_tokens", None) if details is not None else None
    if reasoning_tokens:
        counts["reasoning_tokens"] = reasoning_tokens
    return {key: int(value) for key, value in counts.items() if isinstance(value, int)}
