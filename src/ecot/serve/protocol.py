"""The OpenAI chat-completions wire format of `ecot serve`: request parsing, answers, SSE chunks.

Kept apart from the HTTP plumbing (ecot.serve.server) so that the shapes clients depend on sit in one
place: one `Completion` per choice, `finish_reason` "length" when a choice hit `max_tokens`, usage
summed over the choices (the prompt counted once, as servers bill it), and for `stream: true` the
`chat.completion.chunk` events ending in `data: [DONE]`.
"""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ecot.core.errors import EcotError

MAX_N = 64  # choices per request
STREAM_WORDS = 8  # words per streamed content chunk
MODEL_SHOWN = 100  # characters of an unknown model name echoed back
_WORD = re.compile(r"\S+")


class ServeError(EcotError):
    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status, self.kind = status, kind


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: Any = None


class ChatBody(BaseModel):
    """The fields of a chat completion request this server reads; others are accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: str | None = None
    messages: list[ChatMessage]
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: int = 1
    chat_template: str | None = None  # vLLM's per-request template override (hf mode)


def _never() -> bool:
    return False


@dataclass(frozen=True)
class ChatRequest:
    messages: list[dict[str, Any]]
    model: str | None = None  # the model the client asked for (None: whichever the server serves)
    task_id: str | None = None
    turn: int | None = None
    sampling: dict[str, Any] = field(default_factory=dict)  # max_new_tokens, temperature, top_p, seed, chat_template
    n: int = 1
    stream: bool = False
    include_usage: bool = False  # stream_options.include_usage: a last chunk carries the usage
    cancelled: Callable[[], bool] = field(default=_never, compare=False, repr=False)  # the client hung up


def check_model(request: ChatRequest, served: str) -> None:
    """404 in the OpenAI shape for a model name this server does not serve (no name: the served one)."""
    if request.model is not None and request.model != served:
        asked = request.model if len(request.model) <= MODEL_SHOWN else request.model[:MODEL_SHOWN] + "..."
        raise ServeError(404, f"The model `{asked}` does not exist; this server serves `{served}`", "not_found_error")


@dataclass(frozen=True)
class Completion:
    content: str
    reasoning: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    finish_reason: str = "stop"


def parse_request(
    body: Any, task_id: str | None = None, turn: str | None = None, cancelled: Callable[[], bool] = _never
) -> ChatRequest:
    """A validated ChatRequest from a JSON body and the X-Ecot-Task / X-Ecot-Turn headers; ServeError(400) otherwise.

    `cancelled` says whether the client is gone; a responder asks it to stop work nobody waits for."""
    try:
        chat = ChatBody.model_validate(body)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise ServeError(400, f"invalid chat request: {problems}") from None
    if not 1 <= chat.n <= MAX_N:
        raise ServeError(400, f"n must be in [1, {MAX_N}], got {chat.n}")
    if turn is not None and not turn.strip().isdigit():
        raise ServeError(400, f"X-Ecot-Turn must be a non-negative integer, got {turn!r}")
    sampling = {
        "max_new_tokens": chat.max_completion_tokens or chat.max_tokens,
        "temperature": chat.temperature,
        "top_p": chat.top_p,
        "seed": chat.seed,
        "chat_template": chat.chat_template,
    }
    return ChatRequest(
        messages=[m.model_dump() for m in chat.messages],
        model=chat.model,
        task_id=task_id,
        turn=int(turn) if turn is not None else None,
        sampling={key: value for key, value in sampling.items() if value is not None},
        n=chat.n,
        stream=chat.stream,
        include_usage=bool((chat.stream_options or {}).get("include_usage")),
        cancelled=cancelled,
    )


def per_choice(request: ChatRequest) -> list[ChatRequest]:
    """One request per choice, each with its own seed: the request's seed + i, else a fresh random one.

    Random by default, as inference servers do: without a seed, two samples must differ.
    """
    base = request.sampling.get("seed")
    seeds = [base + i if base is not None else secrets.randbits(31) for i in range(request.n)]
    return [replace(request, n=1, sampling={**request.sampling, "seed": seed}) for seed in seeds]


def cut_words(text: str, limit: int) -> tuple[str, bool]:
    """The text up to its `limit`-th word (whitespace kept as it was), and whether anything was cut."""
    if limit <= 0:
        return "", bool(text.strip())
    for count, match in enumerate(_WORD.finditer(text), 1):
        if count == limit:
            rest = text[match.end() :]
            return text[: match.end()], bool(rest.strip())
    return text, False


def total_usage(completions: Sequence[Completion]) -> dict[str, int]:
    """Summed over choices; each choice's prompt is the same prompt, billed once."""
    if not completions:
        return {}
    prompt = max(c.usage.get("prompt_tokens", 0) for c in completions)
    completion = sum(c.usage.get("completion_tokens", 0) for c in completions)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _message(completion: Completion) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": completion.content}
    if completion.reasoning:
        message["reasoning_content"] = completion.reasoning
    return message


def completion_json(model: str, completions: Sequence[Completion]) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": i, "message": _message(c), "finish_reason": c.finish_reason} for i, c in enumerate(completions)
        ],
        "usage": total_usage(completions),
    }


def stream_events(model: str, completions: Sequence[Completion], include_usage: bool) -> Iterator[bytes]:
    """The SSE events of a streamed answer: role, reasoning, content in word groups, finish, [DONE]."""
    head = {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def event(choices: list[dict[str, Any]], **extra: Any) -> bytes:
        return b"data: " + json.dumps({**head, "choices": choices, **extra}).encode() + b"\n\n"

    for index, completion in enumerate(completions):
        yield event([{"index": index, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        if completion.reasoning:
            yield event([{"index": index, "delta": {"reasoning_content": completion.reasoning}, "finish_reason": None}])
        for piece in _pieces(completion.content):
            yield event([{"index": index, "delta": {"content": piece}, "finish_reason": None}])
        yield event([{"index": index, "delta": {}, "finish_reason": completion.finish_reason}])
    if include_usage:
        yield event([], usage=total_usage(completions))
    yield b"data: [DONE]\n\n"


def _pieces(text: str) -> Iterator[str]:
    """The text in groups of STREAM_WORDS words; joined, they give the text back exactly."""
    start = 0
    for count, match in enumerate(_WORD.finditer(text), start=1):
        if count % STREAM_WORDS == 0:
            yield text[start : match.end()]
            start = match.end()
    if start < len(text):
        yield text[start:]
